import { LABEL, PROJECT } from "@oracle/engine";
import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { type ContainerPlan, containerOptions, missingProtections, RUN_USER } from "./container-config.js";

const plan: ContainerPlan = {
  image: "sha256:abc",
  labels: { [LABEL.project]: PROJECT, [LABEL.run]: "r1" },
  memoryMb: 512,
  cpus: 1.5,
  pids: 256,
  binds: [{ source: "/host/run", target: "/oracle/run" }],
  entrypoint: ["sh", "-c", 'exec "$1"', "boot"],
  cmd: ["driver"],
  env: ["TZ=UTC"],
};

/** What the engine's inspect returns for the options, as far as the checks read it. */
function inspectOf(options: Docker.ContainerCreateOptions): Docker.ContainerInspectInfo {
  const host = options.HostConfig!;
  return {
    Config: {
      User: options.User,
      Entrypoint: options.Entrypoint,
      Cmd: options.Cmd,
      // The engine adds the image's variables.
      Env: [...(options.Env ?? []), "PATH=/usr/bin:/bin"],
      NetworkDisabled: options.NetworkDisabled,
      OpenStdin: options.OpenStdin,
      StdinOnce: options.StdinOnce,
      Labels: options.Labels,
    },
    HostConfig: {
      ...host,
      Ulimits: [...(host.Ulimits ?? [])].reverse().map((u) => ({ Name: u.Name, Hard: u.Hard, Soft: u.Soft })),
    },
    Mounts: (host.Mounts ?? []).map((m) => ({
      Type: "bind",
      Source: m.Source,
      Destination: m.Target,
      RW: !m.ReadOnly,
      Mode: "",
      Propagation: "rprivate",
    })),
  } as unknown as Docker.ContainerInspectInfo;
}

describe("containerOptions", () => {
  const options = containerOptions(plan);
  const host = options.HostConfig!;

  it("disables networking both ways and runs the driver as a non-root user", () => {
    expect(options.NetworkDisabled).toBe(true);
    expect(host.NetworkMode).toBe("none");
    expect(options.User).toBe(RUN_USER);
    expect(options.User).not.toMatch(/^0|root/);
  });

  it("drops every capability, forbids new privileges, runs no init (the driver is PID 1)", () => {
    expect(host.CapDrop).toEqual(["ALL"]);
    expect(host.SecurityOpt).toEqual(["no-new-privileges"]);
    expect(host.Init).toBe(false);
    expect(options.OpenStdin).toBe(true);
    expect(options.StdinOnce).toBe(true);
    expect(host.Privileged).toBe(false);
  });

  it("limits pids, memory without swap and CPU from the task", () => {
    expect(host.PidsLimit).toBe(256);
    expect(host.Memory).toBe(512 * 1024 * 1024);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(1_500_000_000);
    expect(host.Ulimits?.find((u) => u.Name === "core")).toEqual({ Name: "core", Soft: 0, Hard: 0 });
  });

  it("has a read-only root, bounded tmpfs and read-only binds only", () => {
    expect(host.ReadonlyRootfs).toBe(true);
    expect(Object.keys(host.Tmpfs ?? {}).sort()).toEqual(["/home/oracle", "/oracle/report", "/tmp", "/work"]);
    for (const value of Object.values(host.Tmpfs ?? {})) expect(value).toMatch(/size=\d+m/);
    expect(host.Mounts?.every((m) => m.ReadOnly === true && m.Type === "bind")).toBe(true);
    expect(JSON.stringify(options)).not.toContain("docker.sock");
  });
});

describe("missingProtections", () => {
  const options = containerOptions(plan);
  it("is empty when the engine applied everything (field order aside)", () => {
    expect(missingProtections(inspectOf(options), plan)).toEqual([]);
  });

  it.each([
    [
      "NetworkMode",
      (o: Docker.ContainerCreateOptions) => (o.HostConfig!.NetworkMode = "bridge"),
      "HostConfig.NetworkMode none",
    ],
    [
      "another entrypoint",
      (o: Docker.ContainerCreateOptions) => (o.Entrypoint = ["sleep", "infinity"]),
      "Config.Entrypoint and Cmd are the driver",
    ],
    [
      "an env variable dropped",
      (o: Docker.ContainerCreateOptions) => (o.Env = []),
      "Config.Env has the oracle's variables",
    ],
    [
      "NanoCpus ignored (misspelt)",
      (o: Docker.ContainerCreateOptions) => delete o.HostConfig!.NanoCpus,
      "HostConfig.NanoCpus",
    ],
    [
      "swap allowed",
      (o: Docker.ContainerCreateOptions) => (o.HostConfig!.MemorySwap = -1),
      "HostConfig.MemorySwap equals Memory",
    ],
    [
      "a capability added",
      (o: Docker.ContainerCreateOptions) => (o.HostConfig!.CapAdd = ["SYS_ADMIN"]),
      "HostConfig.CapAdd empty",
    ],
    [
      "Docker's init (dumpable, the test user's)",
      (o: Docker.ContainerCreateOptions) => (o.HostConfig!.Init = true),
      "HostConfig.Init off (the driver is PID 1)",
    ],
    [
      "no stdin (the driver's script)",
      (o: Docker.ContainerCreateOptions) => (o.OpenStdin = false),
      "Config.OpenStdin and StdinOnce",
    ],
    ["root user", (o: Docker.ContainerCreateOptions) => (o.User = "0:0"), "Config.User is the test user"],
    [
      "writable rootfs",
      (o: Docker.ContainerCreateOptions) => (o.HostConfig!.ReadonlyRootfs = false),
      "HostConfig.ReadonlyRootfs",
    ],
    [
      "a writable bind",
      (o: Docker.ContainerCreateOptions) => (o.HostConfig!.Mounts![0]!.ReadOnly = false),
      "no mount but the read-only binds",
    ],
    [
      "unlimited pids",
      (o: Docker.ContainerCreateOptions) => (o.HostConfig!.PidsLimit = 0),
      "HostConfig.PidsLimit",
    ],
  ])("names %s", (_name, spoil, expected) => {
    const spoilt = structuredClone(options);
    spoil(spoilt);
    expect(missingProtections(inspectOf(spoilt), plan)).toContain(expected);
  });
});
