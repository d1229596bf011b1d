// The signal trap in a real child process: the first SIGINT/SIGTERM aborts the command's signal with
// an AbortError (it cleans up, and exits 128+n), a second one exits at once.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let dir = "";
let child = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cli-kit-signals-"));
  child = join(dir, "trap-child.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "testing", "trap-child.ts")],
    outfile: child,
    bundle: true,
    platform: "node",
    format: "esm",
    logLevel: "warning",
  });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Running {
  process: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stdout or stderr (together) matches `pattern`. */
  until: (pattern: RegExp) => Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(mode: "cleanup" | "stuck"): Running {
  const proc = spawn(process.execPath, [child, mode], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters: Array<() => void> = [];
  const onData = () => {
    for (const check of waiters) check();
  };
  proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    onData();
  });
  proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
    onData();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    proc.on("close", (code, signal) => done({ code, signal })),
  );
  const until = (pattern: RegExp) =>
    new Promise<void>((done, fail) => {
      const check = () => pattern.test(out + err) && done();
      waiters.push(check);
      check();
      exited.then(() => fail(new Error(`exited before ${pattern}:\n${out}${err}`)));
    });
  return { process: proc, stdout: () => out, stderr: () => err, until, exited };
}

describe("trapSignals, in a child process", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)("%s aborts the run with an AbortError; it cleans up and exits %d", async (signal, code) => {
    const run = start("cleanup");
    await run.until(/^ready$/m);
    run.process.kill(signal);
    expect(await run.exited).toEqual({ code, signal: null });
    expect(run.stdout()).toContain(`cleaned up after AbortError: interrupted by ${signal}`);
    expect(run.stderr()).toContain(`${signal}: stopping the child`);
    expect(run.stderr()).toContain("interrupted: cleaned up");
  });

  it("a second signal exits at once, while the clean-up still runs", async () => {
    const run = start("stuck");
    await run.until(/^ready$/m);
    run.process.kill("SIGINT");
    await run.until(/SIGINT: stopping the child/);
    run.process.kill("SIGTERM");
    expect(await run.exited).toEqual({ code: 143, signal: null });
    expect(run.stderr()).toContain("SIGTERM again: exiting at once");
    expect(run.stdout()).not.toContain("cleaned up");
  });
});
