// oracle-grade and the life of its container: SIGTERM and SIGINT mid-run remove it before the
// grader exits (128+n, no tests_hash line); after a SIGKILL the container is left behind, and the
// next grader's start removes it by label. Real engine, built CLI, a temporary root. Each signal
// reaches a grader frozen (SIGSTOP) while its suite runs, and the suite waits far past that.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LABEL, labelFilter } from "@oracle/engine";
import { loadTask } from "@oracle/spec";
import {
  binPath,
  containersWithLabel,
  freezeWhen,
  makeTempRoot,
  requireDocker,
  run,
} from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TASK = "calc-node";
/** The task with an existing suite that waits 600 s first: a run that is still going whenever it is signalled. */
const SLOW = `${TASK}-slow`;
let root = "";
let cleanup: () => Promise<void> = async () => undefined;

/**
 * Starts a grade of the slow variant and freezes the grader (SIGSTOP) once its container exists and
 * its log shows the existing suite started: the signal the test sends next reaches a grader mid-run,
 * whatever the machine's speed. The caller sends the signal, then SIGCONT.
 */
async function startFrozenGrade(): Promise<{
  child: ChildProcess;
  exited: Promise<{ code: number | null; stdout: string }>;
}> {
  const gold = (await loadTask(root, TASK)).goldDiff!;
  const log = join(root, `grade-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
  const args = ["--root", root, SLOW, "--diff", gold, "--log", log, "--timeout", "120"];
  const child = spawn(binPath("oracle-grade"), args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; stdout: string }>((done) =>
    child.on("close", (code) => done({ code, stdout })),
  );
  const label = labelFilter(LABEL.pid, child.pid!);
  const midRun = async () => {
    if (child.exitCode !== null) throw new Error(`the grader exited ${child.exitCode}:\n${stderr}`);
    const started = existsSync(log) && readFileSync(log, "utf8").includes('"step":"suite.start"');
    return started && (await containersWithLabel(label)).some((c) => c.State === "running");
  };
  try {
    await freezeWhen(child.pid!, midRun, {
      what: "the grader to be running its existing suite",
      timeoutMs: 120_000,
      detail: () => stderr,
    });
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return { child, exited };
}

beforeAll(async () => {
  await requireDocker();
  ({ root, cleanup } = await makeTempRoot({ [`tasks/${TASK}`]: `tasks/${TASK}`, images: "images" }));
  rmSync(join(root, "images", ".registry.lock"), { recursive: true, force: true });
  rmSync(join(root, "images", ".registry.lock.owner"), { force: true });
  cpSync(join(root, "tasks", TASK), join(root, "tasks", SLOW), { recursive: true });
  const json = JSON.parse(readFileSync(join(root, "tasks", SLOW, "task.json"), "utf8"));
  json.suites.existing.command = `sleep 600; ${json.suites.existing.command}`;
  writeFileSync(join(root, "tasks", SLOW, "task.json"), JSON.stringify({ ...json, id: SLOW }));
  const built = await run(
    binPath("oracle-build-images"),
    ["--root", root, "--no-push", "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "node-mocha"],
    { timeoutMs: 1_500_000 },
  );
  if (built.code !== 0) throw new Error(`oracle-build-images failed: ${built.stderr}`);
}, 1_600_000);

afterAll(async () => {
  await cleanup();
});

describe("oracle-grade interrupted", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "%s: the container is removed, then the grader exits %d without a tests_hash line",
    async (signal, code) => {
      const { child, exited } = await startFrozenGrade();
      const pid = child.pid!;
      child.kill(signal);
      child.kill("SIGCONT");
      const result = await exited;
      expect(result.code).toBe(code);
      expect(result.stdout).toBe("");
      expect(await containersWithLabel(labelFilter(LABEL.pid, pid))).toEqual([]);
    },
  );

  it("SIGKILL leaves the container and its run folder; the next grader's start removes both", async () => {
    const { child, exited } = await startFrozenGrade();
    const pid = child.pid!;
    child.kill("SIGKILL");
    await exited;
    // One container per suite: the existing suite's is up (the hidden suite's may be too).
    expect((await containersWithLabel(labelFilter(LABEL.pid, pid))).length).toBeGreaterThan(0);
    const runDirs = async () =>
      (await readdir(tmpdir())).filter((n) => new RegExp(`^oracle-grade-\\d+-${pid}-`).test(n));
    expect(await runDirs()).toHaveLength(1);
    const next = await run(binPath("oracle-grade"), ["--root", root, TASK, "--baseline"], {
      timeoutMs: 120_000,
    });
    expect(next.code).toBe(1);
    // Any grader starting on this host removes it (others may run beside this test): it must be gone.
    if (!/removed \d+ leftover container/.test(next.stderr))
      console.warn("the leftover was removed by another grader's start");
    expect(await containersWithLabel(labelFilter(LABEL.pid, pid))).toEqual([]);
    // Its run folder (the diff and hidden tests it mounted) goes too.
    expect(await runDirs()).toEqual([]);
  });
});
