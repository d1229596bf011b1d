import type Docker from "dockerode";
import type { SuiteName } from "../reports/junit.js";

/** Where things live inside the grading container. */
export const PATHS = {
  work: "/work",
  checkout: "/work/repo",
  tmp: "/tmp",
  home: "/home/oracle",
  /**
   * What an image puts in every run's HOME (images/README.md, "The image contract"): copied in by the
   * prep, before any code of the diff or the tests exists. go-gotestsum keeps Go's build cache here
   * (vet's facts of the standard library, which `go test` computes on every run otherwise).
   */
  homeSeed: "/opt/oracle/home",
  report: "/oracle/report",
  /** The hidden tests, copied into the hidden suite's run folder (the existing suite's has none). */
  hidden: "/oracle/run/tests",
  mirror: "/oracle/mirror",
  /** The run's host folder, read-only: the filtered diff in grade mode (the driver's script comes on stdin). */
  run: "/oracle/run",
  diff: "/oracle/run/filtered.diff",
} as const;

/**
 * The uid:gid of the container's process: the driver, PID 1 of its own container (no Docker init),
 * which runs one suite (driver-script.ts). As PID 1 it cannot be killed or stopped from inside its PID
 * namespace, and it runs from an execute-only sh, so it is not dumpable: the test user shares its
 * uid but cannot trace it, read its memory, environment or file descriptors, or signal it.
 */
export const RUN_USER = "1000:1000";

/** The container's whole environment (nothing from the grader's); the driver exports the rest per suite. */
export const BASE_ENV = [
  "TZ=UTC",
  "LC_ALL=C.UTF-8",
  "PYTHONHASHSEED=0",
  `HOME=${PATHS.home}`,
  `TMPDIR=${PATHS.tmp}`,
];

/** Where a suite's runner writes its JUnit report ($ORACLE_JUNIT). */
export const reportPath = (suite: SuiteName) => `${PATHS.report}/${suite}/junit.xml`;

/** Where a suite's seals write their records ($ORACLE_SEALS), beside its report. */
export const sealsPath = (suite: SuiteName) => `${PATHS.report}/${suite}/seals.jsonl`;

/**
 * What the driver's and the prep's scripts assume of the place they run in. In production that is
 * a suite's container ({@link CONTAINER_SANDBOX}); the contract test (driver-contract.test.ts) runs
 * the same scripts in sh on the host with these pointed at a temporary folder.
 */
export interface DriverSandbox {
  /** The container paths the scripts use (the report's is in each plan). */
  paths: Record<"tmp" | "checkout" | "diff" | "hidden" | "home" | "homeSeed", string>;
  /** Where the kill loop looks for processes, and the one it spares (`<proc>/1`: the driver). */
  proc: string;
  /** The command (builtins only) that SIGKILLs every process the test user may signal but the driver. */
  killAll: string;
  /** The test user's uid: the kill loop counts its processes. */
  testUid: string;
  /** The driver's own status file (a shell word), read by its self-checks. */
  self: string;
  /** The cgroup files that hold the oom_kill count (v2, then v1). */
  oomFiles: string[];
  /**
   * The driver's checks that hold only as PID 1 of a container: that it is PID 1; that it holds no
   * privilege (NoNewPrivs, no capability); that another process cannot read its environment (it is
   * not dumpable). Its one thread and no tracer are checked wherever it runs.
   */
  checks: { pid1: boolean; privileges: boolean; dumpable: boolean };
}

/** The sandbox the driver runs in: a suite's container, as {@link containerOptions} makes it. */
export const CONTAINER_SANDBOX: DriverSandbox = {
  paths: {
    tmp: PATHS.tmp,
    checkout: PATHS.checkout,
    diff: PATHS.diff,
    hidden: PATHS.hidden,
    home: PATHS.home,
    homeSeed: PATHS.homeSeed,
  },
  proc: "/proc",
  killAll: "kill -KILL -1",
  testUid: RUN_USER.split(":")[0]!,
  self: "/proc/1/status",
  oomFiles: ["/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"],
  checks: { pid1: true, privileges: true, dumpable: true },
};

export interface ContainerPlan {
  image: string;
  labels: Record<string, string>;
  memoryMb: number;
  cpus: number;
  pids: number;
  /** Read-only binds: host path -> container path. */
  binds: Array<{ source: string; target: string }>;
  /** The container's process: the driver's boot script and its arguments. */
  entrypoint: string[];
  cmd: string[];
  /** The container's whole environment (nothing from the grader's). */
  env: string[];
}

const MIB = 1024 * 1024;

/** Sizes of the writable tmpfs mounts, in MiB; their pages count against the memory limit too. */
function tmpfsFor(memoryMb: number): Record<string, string> {
  const size = (mb: number) => `size=${Math.max(16, Math.min(mb, memoryMb))}m`;
  const owned = "uid=1000,gid=1000";
  return {
    [PATHS.work]: `rw,exec,nosuid,nodev,${size(2048)},${owned},mode=0755`,
    [PATHS.tmp]: `rw,exec,nosuid,nodev,${size(1024)},mode=1777`,
    [PATHS.home]: `rw,exec,nosuid,nodev,${size(256)},${owned},mode=0700`,
    [PATHS.report]: `rw,noexec,nosuid,nodev,${size(64)},${owned},mode=0755`,
  };
}

export function ulimitsFor(pids: number): Docker.HostConfig["Ulimits"] {
  const nproc = Math.max(pids * 4, 4096);
  return [
    { Name: "nofile", Soft: 8192, Hard: 8192 },
    { Name: "nproc", Soft: nproc, Hard: nproc },
    { Name: "fsize", Soft: 1024 * MIB, Hard: 1024 * MIB },
    { Name: "core", Soft: 0, Hard: 0 },
  ];
}

/** The create options of the one container of a run: every protection the protocol relies on. */
export function containerOptions(plan: ContainerPlan): Docker.ContainerCreateOptions {
  const memory = plan.memoryMb * MIB;
  return {
    Image: plan.image,
    Entrypoint: plan.entrypoint,
    Cmd: plan.cmd,
    User: RUN_USER,
    WorkingDir: PATHS.work,
    Hostname: "oracle",
    Env: plan.env,
    Labels: plan.labels,
    Tty: false,
    // The driver's script and its go-ahead come on stdin (nothing the tests can read holds them).
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    NetworkDisabled: true,
    StopTimeout: 1,
    HostConfig: {
      NetworkMode: "none",
      CapDrop: ["ALL"],
      CapAdd: [],
      SecurityOpt: ["no-new-privileges"],
      Privileged: false,
      // No Docker init: it would run as the test user from a readable binary, dumpable, spared by
      // the kill loop. The driver is PID 1 itself.
      Init: false,
      IpcMode: "private",
      PidsLimit: plan.pids,
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: Math.round(plan.cpus * 1e9),
      Ulimits: ulimitsFor(plan.pids),
      ReadonlyRootfs: true,
      Tmpfs: tmpfsFor(plan.memoryMb),
      Mounts: plan.binds.map((bind) => ({
        Type: "bind",
        Source: bind.source,
        Target: bind.target,
        ReadOnly: true,
      })),
      LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "1" } },
      AutoRemove: false,
      RestartPolicy: { Name: "no", MaximumRetryCount: 0 },
    },
  };
}

type Check = [name: string, ok: boolean];

/**
 * Reads back what the engine made of the options and names every protection that is missing or
 * different (the engine silently ignores misspelt fields). Empty when all hold.
 */
export function missingProtections(info: Docker.ContainerInspectInfo, plan: ContainerPlan): string[] {
  const host = info.HostConfig as Docker.HostConfig & { Init?: boolean; Tmpfs?: Record<string, string> };
  const config = info.Config as Docker.ContainerInspectInfo["Config"] & {
    NetworkDisabled?: boolean;
    StdinOnce?: boolean;
  };
  const memory = plan.memoryMb * MIB;
  const expectedTmpfs = tmpfsFor(plan.memoryMb);
  const mounts = info.Mounts ?? [];
  const ulimits = new Map((host.Ulimits ?? []).map((u) => [u.Name, `${u.Soft}/${u.Hard}`]));
  const wantUlimits = ulimitsFor(plan.pids) ?? [];
  const tmpfs = host.Tmpfs ?? {};
  const checks: Check[] = [
    ["Config.User is the test user", config.User === RUN_USER],
    [
      "Config.Entrypoint and Cmd are the driver",
      JSON.stringify(config.Entrypoint) === JSON.stringify(plan.entrypoint) &&
        JSON.stringify(config.Cmd) === JSON.stringify(plan.cmd),
    ],
    ["Config.Env has the oracle's variables", plan.env.every((entry) => (config.Env ?? []).includes(entry))],
    ["Config.NetworkDisabled", config.NetworkDisabled === true],
    ["HostConfig.NetworkMode none", host.NetworkMode === "none"],
    ["HostConfig.CapDrop ALL", (host.CapDrop ?? []).map((c: string) => c.toUpperCase()).includes("ALL")],
    ["HostConfig.CapAdd empty", (host.CapAdd ?? []).length === 0],
    [
      "HostConfig.SecurityOpt no-new-privileges",
      (host.SecurityOpt ?? []).some((o: string) => /^no-new-privileges(:true|=true)?$/.test(o)),
    ],
    ["HostConfig.Privileged false", host.Privileged !== true],
    ["HostConfig.Init off (the driver is PID 1)", host.Init !== true],
    ["Config.OpenStdin and StdinOnce", config.OpenStdin === true && config.StdinOnce === true],
    ["HostConfig.PidsLimit", host.PidsLimit === plan.pids],
    ["HostConfig.Memory", host.Memory === memory],
    ["HostConfig.MemorySwap equals Memory", host.MemorySwap === memory],
    ["HostConfig.NanoCpus", host.NanoCpus === Math.round(plan.cpus * 1e9)],
    [
      "HostConfig.Ulimits",
      ulimits.size === wantUlimits.length &&
        wantUlimits.every((u) => ulimits.get(u.Name) === `${u.Soft}/${u.Hard}`),
    ],
    ["HostConfig.ReadonlyRootfs", host.ReadonlyRootfs === true],
    [
      "HostConfig.Tmpfs",
      Object.keys(tmpfs).length === Object.keys(expectedTmpfs).length &&
        Object.entries(expectedTmpfs).every(([k, v]) => tmpfs[k] === v),
    ],
    [
      "no mount but the read-only binds",
      mounts.length === plan.binds.length && mounts.every((m) => m.Type === "bind" && m.RW === false),
    ],
    [
      "every bind present",
      plan.binds.every((b) => mounts.some((m) => m.Destination === b.target && m.Source === b.source)),
    ],
    ["labels", Object.entries(plan.labels).every(([k, v]) => config.Labels?.[k] === v)],
  ];
  return checks.filter(([, ok]) => !ok).map(([name]) => name);
}
