// `oracle-build-images` end to end: the built CLI, the real Docker engine and the local registry
// (127.0.0.1:5000), on a temporary root holding two small fixture images under unique names.
import { type ChildProcess, spawn } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Dockerode, imageLabels, LABEL, labelFilter } from "@oracle/engine";
import { type RegistryFile, readRegistryFile } from "@oracle/spec";
import { binPath, makeTempRoot, repoRoot, requireDocker, run, waitFor } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const suffix = `${process.pid}-${Date.now().toString(36)}`;
const NPM = `e2e-npm-${suffix}`;
const TEXT = `e2e-text-${suffix}`;
const bin = binPath("oracle-build-images");

let docker: Dockerode;
let root: string;
let cleanup: () => Promise<void>;

interface Summary {
  ok: boolean;
  images: {
    name: string;
    status: string;
    why: string[];
    reference?: string;
    logFile?: string;
    error?: { code: string; message: string };
  }[];
}

async function buildImages(...args: string[]) {
  const result = await run(bin, ["--root", root, "--json", ...args], { timeoutMs: 300_000 });
  const summary = result.stdout ? (JSON.parse(result.stdout) as Summary) : undefined;
  return { ...result, summary };
}

const byName = (summary: Summary | undefined, name: string) =>
  summary?.images.find((image) => image.name === name);
const registryFile = (): Promise<RegistryFile> => readRegistryFile(root);

async function bumpLockedVersion(name: string, from: string, to: string): Promise<void> {
  const file = join(root, "images", name, "package-lock.json");
  const text = await readFile(file, "utf8");
  expect(text).toContain(`"version": "${from}"`);
  await writeFile(file, text.replace(`"version": "${from}"`, `"version": "${to}"`));
}

beforeAll(async () => {
  docker = await requireDocker();
  ({ root, cleanup } = await makeTempRoot({
    [`images/${NPM}`]: "test/fixtures/images/npm-demo",
    [`images/${TEXT}`]: "test/fixtures/images/text-demo",
  }));
});

afterAll(async () => {
  for (const name of [NPM, TEXT]) {
    const images = await docker.listImages({
      all: true,
      filters: { label: [labelFilter(LABEL.image, name)] },
    });
    for (const image of images)
      await docker
        .getImage(image.Id)
        .remove({ force: true })
        .catch(() => {});
  }
  await cleanup?.();
});

describe("oracle-build-images", () => {
  it("prints its help and rejects bad flags with exit 2", async () => {
    const help = await run(bin, ["--help"], { cwd: repoRoot });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--no-push");
    const bad = await run(bin, ["--registry", "x", "--no-push"], { cwd: repoRoot });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("error USAGE");
  });

  it("first build pushes and records a @sha256 digest that docker inspect confirms", async () => {
    const { code, summary, stderr } = await buildImages();
    expect(code, stderr).toBe(0);
    expect(byName(summary, NPM)).toMatchObject({ status: "built", why: ["new image (no record)"] });
    const record = (await registryFile()).images[NPM]!;
    expect(record.reference).toMatch(new RegExp(`^127\\.0\\.0\\.1:5000/oracle/${NPM}@sha256:[0-9a-f]{64}$`));
    expect(record.pushed).toBe(true);
    const inspected = await docker.getImage(record.reference).inspect();
    expect(inspected.Id).toBe(record.imageId);
    expect(inspected.RepoDigests).toContain(record.reference);
    expect(inspected.Config.Labels).toMatchObject(imageLabels(NPM, record.fingerprint));
    expect(await readFile(byName(summary, NPM)!.logFile!, "utf8")).toContain("Step 1/");
  });

  it("second run rebuilds nothing", async () => {
    const before = await readFile(join(root, "images", "registry.json"), "utf8");
    const { code, summary, stderr } = await buildImages();
    expect(code, stderr).toBe(0);
    expect(summary?.images.map((image) => image.status)).toEqual(["up-to-date", "up-to-date"]);
    expect(await readFile(join(root, "images", "registry.json"), "utf8")).toBe(before);
  });

  it("a lockfile change rebuilds that image only, records the new digest and keeps the old one in history", async () => {
    const old = (await registryFile()).images[NPM]!;
    const untouched = (await registryFile()).images[TEXT]!;
    await bumpLockedVersion(NPM, "7.0.0", "7.0.1");
    const { code, summary, stderr } = await buildImages();
    expect(code, stderr).toBe(0);
    expect(byName(summary, NPM)).toMatchObject({
      status: "built",
      why: ["lockfile package-lock.json changed"],
    });
    expect(byName(summary, TEXT)?.status).toBe("up-to-date");
    expect(stderr).toContain(`${NPM}: building (lockfile package-lock.json changed)`);
    const after = await registryFile();
    expect(after.images[NPM]!.digest).not.toBe(old.digest);
    expect(after.images[NPM]!.history[0]).toMatchObject({ digest: old.digest, fingerprint: old.fingerprint });
    expect(after.images[TEXT]).toEqual(untouched);
    expect((await docker.getImage(after.images[NPM]!.reference).inspect()).RepoDigests).toContain(
      after.images[NPM]!.reference,
    );
  });

  it("a broken Dockerfile fails with the step and the message, exit 1, and records nothing", async () => {
    const before = await readFile(join(root, "images", "registry.json"), "utf8");
    await writeFile(
      join(root, "images", TEXT, "Dockerfile"),
      'FROM debian:bookworm-slim\nRUN echo "about to fail" && exit 3\nRUN echo never\n',
    );
    const { code, summary, stderr } = await buildImages();
    expect(code).toBe(1);
    const failed = byName(summary, TEXT)!;
    expect(failed.status).toBe("failed");
    expect(failed.error?.code).toBe("BUILD_FAILED");
    expect(failed.error?.message).toMatch(
      /^Step 2\/\d+ : RUN echo "about to fail" && exit 3: The command .* returned a non-zero code: 3$/,
    );
    expect(stderr).toContain(`${TEXT}: FAILED BUILD_FAILED: Step 2/`);
    expect(byName(summary, NPM)?.status).toBe("up-to-date");
    expect(await readFile(join(root, "images", "registry.json"), "utf8")).toBe(before);
    expect(await readFile(failed.logFile!, "utf8")).toContain("about to fail");
    await cp(
      join(repoRoot, "test/fixtures/images/text-demo/Dockerfile"),
      join(root, "images", TEXT, "Dockerfile"),
    );
  });

  it("a build past --build-timeout fails at its step and the engine stops it", async () => {
    const dockerfile = join(root, "images", TEXT, "Dockerfile");
    await writeFile(dockerfile, `FROM debian:bookworm-slim\nRUN sleep 120 && echo ${suffix}\n`);
    const { code, summary } = await buildImages("--only", TEXT, "--build-timeout", "3");
    expect(code).toBe(1);
    expect(byName(summary, TEXT)?.error?.message).toMatch(
      /^build timed out after 3 s at Step 2\/\d+ : RUN sleep 120/,
    );
    const running = async () =>
      (await docker.listContainers({ all: true })).filter((c) => c.Command.includes(suffix)).map((c) => c.Id);
    await waitFor(async () => (await running()).length === 0, {
      what: "the engine to stop the timed-out build's container",
      timeoutMs: 60_000,
      everyMs: 500,
    });
    await cp(join(repoRoot, "test/fixtures/images/text-demo/Dockerfile"), dockerfile);
  });

  it("--watch picks up a lockfile edit, rebuilds that image, survives a failed build, stops cleanly on SIGINT", async () => {
    const child = spawn(bin, ["--root", root, "--watch", "--json"], { stdio: ["ignore", "pipe", "pipe"] });
    const out = collect(child);
    try {
      await out.waitFor(() => out.stderr.includes("watching images/ for changes"), 60_000);
      const passes = () =>
        out.stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Summary);
      expect(passes()).toHaveLength(1);
      await bumpLockedVersion(NPM, "7.0.1", "7.0.2");
      await out.waitFor(() => passes().length >= 2, 120_000);
      const pass = passes()[1]!;
      expect(pass.images.map((image) => [image.name, image.status, image.why])).toEqual([
        [NPM, "built", ["lockfile package-lock.json changed"]],
      ]);
      expect((await registryFile()).images[NPM]!.reference).toBe(pass.images[0]!.reference);
      // A failing build is reported and watching goes on.
      const dockerfile = join(root, "images", TEXT, "Dockerfile");
      await writeFile(dockerfile, "FROM debian:bookworm-slim\nRUN exit 7\n");
      await out.waitFor(() => passes().length >= 3, 120_000);
      expect(passes()[2]!.images.map((image) => [image.name, image.status])).toEqual([[TEXT, "failed"]]);
      await cp(join(repoRoot, "test/fixtures/images/text-demo/Dockerfile"), dockerfile);
      await out.waitFor(() => passes().length >= 4, 120_000);
      expect(passes()[3]!.images.map((image) => [image.name, image.status])).toEqual([[TEXT, "up-to-date"]]);
      child.kill("SIGINT");
      const exit = await out.exited;
      expect(exit, out.stderr).toEqual({ code: 0, signal: null });
      expect(out.stderr).toContain("stopped watching");
    } finally {
      child.kill("SIGKILL");
    }
  });
});

function collect(child: ChildProcess) {
  const state = {
    stdout: "",
    stderr: "",
    exited: new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    ),
    /** Waits for `condition`; fails at once if the process exits first. */
    async waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
      await waitFor(
        () => {
          if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}; stderr:\n${state.stderr}`);
          return condition();
        },
        { what: "the watcher's output", timeoutMs, detail: () => `stderr so far:\n${state.stderr}` },
      );
    },
  };
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    state.stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    state.stderr += chunk;
  });
  return state;
}
