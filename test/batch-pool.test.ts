// `oracle-grade --batch` with its warm pool (packages/grader/src/run/warm-pool.ts), end to end on the
// real engine: the next predictions' containers are made ahead, and the batch's verdicts are those of
// a batch without the pool; nothing the pool made (container, run folder, process) is left after a
// normal end or a SIGTERM; after a SIGKILL the next grader's start removes what it left.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Dockerode, LABEL, labelFilter } from "@oracle/engine";
import {
  binPath,
  containersWithLabel,
  freezeWhen,
  makeTempRoot,
  requireDocker,
  run,
} from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, NOOP_DIFF, readLog, startProcess } from "./fixtures/batch/harness.js";

const GRADE = binPath("oracle-grade");
const CA = "/etc/ssl/certs/ca-certificates.crt";
const TASK = "calc-node";

let docker: Dockerode;
let temp: { root: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  docker = await requireDocker();
  temp = await makeTempRoot({ tasks: "tasks", images: "images" });
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", CA, "--only", "node-mocha"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
});

afterAll(async () => {
  await temp?.cleanup();
});

/** Gold and no-op diffs of calc-node, alternating: `n` predictions. */
async function writePredictions(name: string, n: number): Promise<string> {
  const gold = await readFile(join(temp.root, "tasks", TASK, "gold.diff"), "utf8");
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `${i % 2 === 0 ? "gold" : "noop"}-${i}`,
      task: TASK,
      diff: i % 2 === 0 ? gold : NOOP_DIFF,
    }),
  );
  const file = join(temp.root, `${name}.jsonl`);
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

const verdicts = async (out: string) =>
  Object.fromEntries(
    (await readFile(join(out, "results.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; verdict: string; reason: string; log: string })
      .map((l) => [l.id, `${l.verdict} ${l.reason}`]),
  );

const logsOf = async (out: string) =>
  (await readFile(join(out, "results.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { log: string }).log);

/** The run folders a grader of pid `pid` made (run-folder.ts names them after it). */
const runDirsOf = async (pid: number) =>
  (await readdir(tmpdir())).filter((n) => new RegExp(`^oracle-grade-\\d+-${pid}-`).test(n));

/** Processes whose command line names the batch's root (git on its mirrors, the grader itself). */
async function processesUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir("/proc")).filter((n) => /^\d+$/.test(n))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(root) && Number(pid) !== process.pid)
      found.push(`${pid}: ${cmdline.replaceAll("\0", " ")}`);
  }
  return found;
}

const batchArgs = (file: string, out: string, concurrency: number) => [
  "--batch",
  file,
  "--out",
  out,
  "--root",
  temp.root,
  "--concurrency",
  String(concurrency),
  "--no-cache",
  "--allow-unvalidated",
];

describe("oracle-grade --batch with the warm pool", () => {
  it("grades with containers made ahead, gives the verdicts of a batch without the pool, and leaves nothing behind", async () => {
    const file = await writePredictions("verdicts", 6);
    const pooledOut = join(temp.root, "out-pooled");
    const log = join(temp.root, "pooled.log");
    const batch = startProcess(GRADE, batchArgs(file, pooledOut, 2), log);
    const pid = batch.pid!;
    expect(await exited(batch), readLog(log)).toBe(0);
    expect(readLog(log)).toContain("local, concurrency 2, warm pool");
    const pooled = await verdicts(pooledOut);
    // Every grade but the first ones ran in containers made ahead (the first may have waited for theirs).
    let warmRuns = 0;
    for (const oracleLog of await logsOf(pooledOut)) {
      const text = await readFile(oracleLog, "utf8");
      if (
        (text.match(/"step":"container\.warm"/g) ?? []).length === 2 &&
        !text.includes('"container.create"')
      )
        warmRuns += 1;
    }
    expect(warmRuns).toBe(6);
    expect(await containersWithLabel(labelFilter(LABEL.pid, pid), docker)).toEqual([]);
    expect(await runDirsOf(pid)).toEqual([]);
    expect(await processesUnder(temp.root)).toEqual([]);

    const plainOut = join(temp.root, "out-plain");
    const plain = await run(GRADE, [...batchArgs(file, plainOut, 2), "--no-pool"], { timeoutMs: 600_000 });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain("warm pool");
    expect(await verdicts(plainOut)).toEqual(pooled);
    expect(pooled).toEqual({
      "gold-0": "PASS PASS",
      "noop-1": "FAIL TESTS_FAILED",
      "gold-2": "PASS PASS",
      "noop-3": "FAIL TESTS_FAILED",
      "gold-4": "PASS PASS",
      "noop-5": "FAIL TESTS_FAILED",
    });
  });

  it("SIGTERM mid-batch: the running grade's and the warm containers and run folders are removed", async () => {
    const file = await writePredictions("sigterm", 4);
    const log = join(temp.root, "sigterm.log");
    const batch = startProcess(GRADE, batchArgs(file, join(temp.root, "out-sigterm"), 1), log);
    const pid = batch.pid!;
    const label = labelFilter(LABEL.pid, pid);
    // Frozen while the running grade's two containers and the next prediction's two warm ones exist.
    await freezeWhen(pid, async () => (await containersWithLabel(label, docker)).length >= 4, {
      what: "a running grade and a warm slot of the batch",
      timeoutMs: 180_000,
      detail: () => readLog(log),
    });
    expect((await runDirsOf(pid)).length).toBeGreaterThanOrEqual(2);
    batch.kill("SIGTERM");
    batch.kill("SIGCONT");
    expect(await exited(batch), readLog(log)).toBe(143);
    expect(await containersWithLabel(label, docker)).toEqual([]);
    expect(await runDirsOf(pid)).toEqual([]);
    expect(await processesUnder(temp.root)).toEqual([]);
  });

  it("SIGKILL mid-batch leaves the pool's containers and run folders; the next grader's start removes them", async () => {
    const file = await writePredictions("sigkill", 4);
    const log = join(temp.root, "sigkill.log");
    const batch = startProcess(GRADE, batchArgs(file, join(temp.root, "out-sigkill"), 1), log);
    const pid = batch.pid!;
    const label = labelFilter(LABEL.pid, pid);
    await freezeWhen(pid, async () => (await containersWithLabel(label, docker)).length >= 4, {
      what: "a running grade and a warm slot of the batch",
      timeoutMs: 180_000,
      detail: () => readLog(log),
    });
    batch.kill("SIGKILL");
    await exited(batch);
    expect((await containersWithLabel(label, docker)).length).toBeGreaterThanOrEqual(4);
    expect((await runDirsOf(pid)).length).toBeGreaterThanOrEqual(2);
    const next = await run(GRADE, ["--root", temp.root, TASK, "--baseline"], { timeoutMs: 300_000 });
    expect(next.code, next.stderr).toBe(1);
    // Any grader starting on this host removes them (others may run beside this test): they must be gone.
    expect(await containersWithLabel(label, docker)).toEqual([]);
    expect(await runDirsOf(pid)).toEqual([]);
    expect(await processesUnder(temp.root)).toEqual([]);
  });
});
