import { spawn } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Docker from "dockerode";

/** The monorepo's root folder. */
export const repoRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Absolute path of a built bin of the monorepo, e.g. `binPath("oracle-grade")`. */
export function binPath(name: string): string {
  return join(repoRoot, "node_modules", ".bin", name);
}

/**
 * Fails loudly, never skips, when the Docker engine does not answer: real-engine tests must not pass
 * silently on a machine without one.
 */
export async function requireDocker(docker: Docker = new Docker()): Promise<Docker> {
  try {
    await docker.ping();
    return docker;
  } catch (cause) {
    throw new Error(
      `the Docker engine does not answer (${(cause as Error).message}); start it with: bash scripts/setup.sh`,
      { cause },
    );
  }
}

/** A temporary folder, removed by the returned `cleanup`. Copies `from` (folders relative to the repo root) into it. */
export async function makeTempRoot(
  copy: Record<string, string> = {},
): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "oracle-test-"));
  for (const [to, from] of Object.entries(copy)) {
    await cp(resolve(repoRoot, from), join(root, to), { recursive: true });
  }
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
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
    child.on("close", (code, signal) => done({ code, signal, stdout, stderr, ms: Date.now() - started }));
    // A child that exits without reading its input closes the pipe first: not a failure of the run.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") fail(error);
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Containers (running or not) carrying `label` (`key` or `key=value`). */
export async function containersWithLabel(
  label: string,
  docker: Docker = new Docker(),
): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [label] } });
}
