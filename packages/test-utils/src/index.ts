import { spawn } from "node:child_process";
import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type ContainerInfo, connectDocker, type Dockerode, pingEngine } from "@oracle/engine";
import { formatError } from "@oracle/spec";

/** The monorepo's root folder. */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Absolute path of a built bin of the monorepo, e.g. `binPath("oracle-grade")`. */
export function binPath(name: string): string {
  return join(repoRoot, "node_modules", ".bin", name);
}

/**
 * The engine's dockerode client, once it answers. Fails loudly, never skips, when the Docker engine
 * does not answer (DOCKER_UNAVAILABLE, with how to start it): real-engine tests must not pass
 * silently on a machine without one.
 */
export async function requireDocker(docker: Dockerode = connectDocker()): Promise<Dockerode> {
  try {
    await pingEngine(docker);
    return docker;
  } catch (cause) {
    throw new Error(formatError(cause), { cause });
  }
}

/**
 * The folder one test run's roots share their content-keyed caches through (set by
 * test/global-setup.ts; unset, each root starts with none, as before).
 */
export const SHARED_CACHES_ENV = "ORACLE_TEST_CACHES";

/**
 * The caches under `<root>/.oracle/` that a root may take from another of the same run: each entry is
 * keyed by the bytes it was computed from and checked against them on every read (the grader's image
 * fingerprints by the image folder's digest, build-images' npm lockfile fingerprints by the lockfile's
 * bytes), so an entry another root wrote is used only where this root's files are the same, and a
 * changed folder or lockfile is computed again. Without them every root's first grades of an npm image
 * resolved its lockfile tree with Arborist (about 1.5 s of CPU a grade, measured), each grade that
 * started before the first one wrote the cache doing it again; build-images likewise.
 */
const SHARED_CACHE_FILES = ["grader-fingerprints.json", "lockfile-fingerprints.json"];

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(file, "utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Copies the run's shared caches into a new root's .oracle/. */
async function seedCaches(root: string, shared: string): Promise<void> {
  await mkdir(join(root, ".oracle"), { recursive: true });
  for (const name of SHARED_CACHE_FILES)
    await copyFile(join(shared, name), join(root, ".oracle", name)).catch(() => undefined);
}

/** Adds what a root's caches learnt to the run's shared ones (a lost race loses entries, never adds a wrong one). */
async function keepCaches(root: string, shared: string): Promise<void> {
  for (const name of SHARED_CACHE_FILES) {
    const mine = await readJson(join(root, ".oracle", name));
    if (mine === undefined) continue;
    const theirs = (await readJson(join(shared, name))) ?? {};
    const entries = (v: Record<string, unknown>) =>
      typeof v.entries === "object" && v.entries !== null
        ? (v.entries as Record<string, unknown>)
        : undefined;
    const merged =
      entries(mine) !== undefined
        ? { ...mine, entries: { ...entries(theirs), ...entries(mine) } }
        : { ...theirs, ...mine };
    const temp = join(shared, `.${name}.${process.pid}.${Date.now()}`);
    await writeFile(temp, `${JSON.stringify(merged, null, 2)}\n`);
    await rename(temp, join(shared, name));
  }
}

/**
 * The run's image records (images/registry.json entries that `oracle-build-images --no-push` wrote), for
 * the roots that build the same image folders only to grade with them (the hostile corpus, the
 * conformance shapes): each such root ran a build of its own, every step a cache hit after the first
 * root's. A seeded record is used only as build-images uses any record: where the folder's fingerprint
 * (its Dockerfile, lockfiles and every context file) is the recorded one and the recorded image is
 * still in the engine; else the image is built as before. Pushed records are never shared.
 */
const IMAGE_RECORDS = "image-records.json";

/** Before `oracle-build-images --no-push` in a root that has no registry.json: the run's records of its image folders. */
export async function seedImageRecords(root: string): Promise<void> {
  const shared = process.env[SHARED_CACHES_ENV];
  if (!shared) return;
  const file = join(root, "images", "registry.json");
  if ((await readJson(file)) !== undefined) return;
  const records = (await readJson(join(shared, IMAGE_RECORDS))) ?? {};
  const names = new Set(await readdir(join(root, "images")).catch(() => []));
  const images = Object.fromEntries(
    Object.entries(records).filter(([name, record]) => names.has(name) && isUnpushed(record)),
  );
  if (Object.keys(images).length === 0) return;
  await writeFile(file, `${JSON.stringify({ version: 1, images }, null, 2)}\n`);
}

/** After the build: the root's unpushed records (history left out) added to the run's. */
export async function keepImageRecords(root: string): Promise<void> {
  const shared = process.env[SHARED_CACHES_ENV];
  if (!shared) return;
  const registry = await readJson(join(root, "images", "registry.json"));
  const images = registry?.images;
  if (typeof images !== "object" || images === null) return;
  const mine = Object.fromEntries(
    Object.entries(images as Record<string, unknown>)
      .filter(([, record]) => isUnpushed(record))
      .map(([name, record]) => [name, { ...(record as Record<string, unknown>), history: [] }]),
  );
  const theirs = (await readJson(join(shared, IMAGE_RECORDS))) ?? {};
  const temp = join(shared, `.${IMAGE_RECORDS}.${process.pid}.${Date.now()}`);
  await writeFile(temp, `${JSON.stringify({ ...theirs, ...mine }, null, 2)}\n`);
  await rename(temp, join(shared, IMAGE_RECORDS));
}

const isUnpushed = (record: unknown): boolean =>
  typeof record === "object" && record !== null && (record as { pushed?: unknown }).pushed === false;

/**
 * A temporary folder, removed by the returned `cleanup`. Copies `from` (folders relative to the repo root)
 * into it. Within a test run (SHARED_CACHES_ENV set) it starts with the run's content-keyed caches, and
 * `cleanup` gives back what it added.
 */
export async function makeTempRoot(
  copy: Record<string, string> = {},
): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "oracle-test-"));
  for (const [to, from] of Object.entries(copy)) {
    await cp(resolve(repoRoot, from), join(root, to), { recursive: true });
  }
  const shared = process.env[SHARED_CACHES_ENV];
  if (shared) await seedCaches(root, shared);
  return {
    root,
    cleanup: async () => {
      if (shared) await keepCaches(root, shared).catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The process id it ran as (what its containers' `dev.oracle.pid` label names). */
  pid: number | undefined;
}

/** Runs a command to completion and captures what it printed. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Promise<RunResult> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
      timeout: options.timeoutMs ?? 300_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code, signal) =>
      done({ code, signal, stdout, stderr, ms: Date.now() - started, pid: child.pid }),
    );
    // A child that exits without reading its input closes the pipe first: not a failure of the run.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") fail(error);
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Containers (running or not) carrying `label` (`key`, or `key=value` from `labelFilter`). */
export async function containersWithLabel(
  label: string,
  docker: Dockerode = connectDocker(),
): Promise<ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [label] } });
}

/** Whether a condition's value means "it holds": anything but `undefined`, `null` and `false`. */
const held = <T>(value: T | undefined | null | false): value is T =>
  value !== undefined && value !== null && value !== false;

export interface WaitOptions {
  /** What is awaited, as the failure message names it: "the worker to be mid-job". */
  what: string;
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Pause between two checks (default 100 ms). */
  everyMs?: number;
  /** More context for the failure message, read when the wait fails (e.g. the tail of a log). */
  detail?: () => string | Promise<string>;
}

/**
 * Checks `condition` until it returns something other than `undefined`, `null` or `false`, and
 * returns that. An error thrown by `condition` ends the wait at once (a process that died is a
 * failure, not a reason to keep polling). Past `timeoutMs` it throws
 * `timed out after N ms waiting for <what>` with the last value seen and `detail()`.
 */
export async function waitFor<T>(
  condition: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions,
): Promise<T> {
  const { what, timeoutMs = 60_000, everyMs = 100 } = options;
  const started = Date.now();
  let last: T | undefined | null | false;
  for (;;) {
    last = await condition();
    if (held(last)) return last;
    if (Date.now() - started >= timeoutMs) break;
    await delay(everyMs);
  }
  const detail = options.detail ? `\n${await options.detail()}` : "";
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what} (last check: ${String(last)})${detail}`,
  );
}

/** The state letter of a process in /proc/<pid>/stat (R, S, D, T, Z…); undefined once it is gone. */
export async function processState(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  return stat?.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
}

/** Sends SIGSTOP and resolves once the process is stopped (SIGSTOP is not synchronous). */
export async function freeze(pid: number): Promise<void> {
  process.kill(pid, "SIGSTOP");
  await waitFor(
    async () => {
      const state = await processState(pid);
      if (state === undefined || state === "Z") throw new Error(`process ${pid} exited before it stopped`);
      return state === "T";
    },
    { what: `process ${pid} to stop`, timeoutMs: 10_000, everyMs: 5 },
  );
}

/**
 * Freezes a process (SIGSTOP) at a moment when `condition` holds for it: waits until `condition`
 * returns a value, stops the process, and checks `condition` again while it is stopped (it may
 * have moved on in between); if it no longer holds, continues the process and waits again.
 * Resolves with the value `condition` returned while the process was stopped. The caller sends
 * SIGCONT (or SIGKILL) when it has done what it froze the process for.
 */
export async function freezeWhen<T>(
  pid: number,
  condition: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions,
): Promise<T> {
  return waitFor(async () => {
    if (!held(await condition())) return undefined;
    await freeze(pid);
    const value = await condition();
    if (held(value)) return value;
    process.kill(pid, "SIGCONT");
    return undefined;
  }, options);
}
