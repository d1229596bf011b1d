// A queue worker's warm pool (packages/grader/src/queue/worker.ts, run/warm-pool.ts), end to end on
// the real engine and a real Redis: the worker takes more jobs than it runs, makes the waiting jobs'
// containers ahead, and gives the verdicts of a worker without the pool; on SIGTERM the running
// grade's and the warm containers and run folders are removed and the jobs go back to the queue;
// after a SIGKILL the next grader's start removes what it left.
import type { ChildProcess } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
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
  waitFor,
} from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  exited,
  NOOP_DIFF,
  readLog,
  startProcess,
  TestRedis,
  workerCommand,
} from "./fixtures/batch/harness.js";

const GRADE = binPath("oracle-grade");
const CA = "/etc/ssl/certs/ca-certificates.crt";
const TASK = "calc-node";

let docker: Dockerode;
let temp: { root: string; cleanup: () => Promise<void> };
let redis: TestRedis;
const children: ChildProcess[] = [];

beforeAll(async () => {
  docker = await requireDocker();
  temp = await makeTempRoot({ tasks: "tasks", images: "images" });
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", CA, "--only", "node-mocha"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
  await mkdir(join(temp.root, "redis"));
  redis = await TestRedis.start(join(temp.root, "redis"));
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGCONT");
      child.kill("SIGTERM");
    }
  await Promise.all(children.map(exited));
  for (const child of children)
    for (const c of await containersWithLabel(labelFilter(LABEL.pid, child.pid!), docker))
      await docker.getContainer(c.Id).remove({ force: true });
  await redis?.down();
  await temp?.cleanup();
});

/** Gold and no-op diffs of calc-node, alternating: `n` predictions named `<name>-<kind>-<i>`. */
async function writePredictions(name: string, n: number): Promise<string> {
  const gold = await readFile(join(temp.root, "tasks", TASK, "gold.diff"), "utf8");
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `${name}-${i % 2 === 0 ? "gold" : "noop"}-${i}`,
      task: TASK,
      diff: i % 2 === 0 ? gold : NOOP_DIFF,
    }),
  );
  const file = join(temp.root, `${name}.jsonl`);
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

function start(command: string, args: string[], name: string) {
  const log = join(temp.root, `${name}.log`);
  const child = startProcess(command, args, log);
  children.push(child);
  return { child, log, pid: child.pid! };
}

function startWorker(name: string, extra: string[] = []) {
  const [command, prefix] = workerCommand();
  const args = [...prefix, "--queue", redis.url, "--concurrency", "1", "--lock-seconds", "4"];
  return start(command, [...args, "--root", temp.root, ...extra], name);
}

/** Enqueues a predictions file on the queue and waits for its results (oracle-grade --batch --queue). */
const enqueue = (file: string, name: string) =>
  start(
    GRADE,
    [
      "--batch",
      file,
      "--out",
      join(temp.root, `out-${name}`),
      "--queue",
      redis.url,
      "--root",
      temp.root,
      "--no-cache",
      "--allow-unvalidated",
    ],
    `batch-${name}`,
  );

async function lines(name: string) {
  return (await readFile(join(temp.root, `out-${name}`, "results.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: string; verdict: string; reason: string; log: string });
}

/** How each oracle log of a run made its suites' containers: warm (both taken from the pool) or created. */
async function containersOf(logs: string[]): Promise<string[]> {
  const made: string[] = [];
  for (const log of logs) {
    const text = await readFile(log, "utf8");
    const warm = (text.match(/"step":"container\.warm"/g) ?? []).length;
    const created = (text.match(/"step":"container\.create"/g) ?? []).length;
    made.push(warm === 2 && created === 0 ? "warm" : created === 2 && warm === 0 ? "created" : "mixed");
  }
  return made;
}

/** The run folders a grader of pid `pid` made (run-folder.ts names them after it). */
const runDirsOf = async (pid: number) =>
  (await readdir(tmpdir())).filter((n) => new RegExp(`^oracle-grade-\\d+-${pid}-`).test(n));

const finished = (child: ChildProcess, log: string) =>
  waitFor(() => child.exitCode ?? child.signalCode ?? undefined, {
    what: `process ${child.pid} to exit`,
    timeoutMs: 600_000,
    detail: () => readLog(log).slice(-3000),
  });

describe("oracle-worker with the warm pool", () => {
  it("grades the waiting jobs in containers made ahead, with the verdicts of a worker without the pool; SIGTERM leaves nothing", async () => {
    const worker = startWorker("worker-pooled");
    const batch = enqueue(await writePredictions("pooled", 6), "pooled");
    expect(await finished(batch.child, batch.log), readLog(batch.log)).toBe(0);
    const pooled = await lines("pooled");
    // Every job but the first waited for the lane with its containers made; the first took its own slot.
    expect(await containersOf(pooled.map((l) => l.log))).toEqual(Array(6).fill("warm"));
    worker.child.kill("SIGTERM");
    expect(await exited(worker.child), readLog(worker.log)).toBe(0);
    expect(await containersWithLabel(labelFilter(LABEL.pid, worker.pid), docker)).toEqual([]);
    expect(await runDirsOf(worker.pid)).toEqual([]);

    const plainWorker = startWorker("worker-plain", ["--no-pool"]);
    const plainBatch = enqueue(await writePredictions("plain", 6), "plain");
    expect(await finished(plainBatch.child, plainBatch.log), readLog(plainBatch.log)).toBe(0);
    const plain = await lines("plain");
    expect(await containersOf(plain.map((l) => l.log))).toEqual(Array(6).fill("created"));
    const verdicts = (ls: typeof pooled) =>
      Object.fromEntries(ls.map((l) => [l.id.replace(/^\w+-/, ""), `${l.verdict} ${l.reason}`]));
    expect(verdicts(pooled)).toEqual(verdicts(plain));
    expect(verdicts(pooled)).toEqual({
      "gold-0": "PASS PASS",
      "noop-1": "FAIL TESTS_FAILED",
      "gold-2": "PASS PASS",
      "noop-3": "FAIL TESTS_FAILED",
      "gold-4": "PASS PASS",
      "noop-5": "FAIL TESTS_FAILED",
    });
    plainWorker.child.kill("SIGTERM");
    expect(await exited(plainWorker.child)).toBe(0);
  });

  it("SIGTERM mid-job: the running grade's and the waiting job's warm containers and run folders are removed, both jobs go back", async () => {
    const worker = startWorker("worker-sigterm");
    const batch = enqueue(await writePredictions("sigterm", 4), "sigterm");
    const label = labelFilter(LABEL.pid, worker.pid);
    // Frozen while the running grade's two containers and the waiting job's two warm ones exist.
    await freezeWhen(worker.pid, async () => (await containersWithLabel(label, docker)).length >= 4, {
      what: "a running grade and a warm slot of the worker",
      timeoutMs: 180_000,
      detail: () => readLog(worker.log),
    });
    expect((await runDirsOf(worker.pid)).length).toBeGreaterThanOrEqual(2);
    worker.child.kill("SIGTERM");
    worker.child.kill("SIGCONT");
    expect(await exited(worker.child), readLog(worker.log)).toBe(0);
    expect(await containersWithLabel(label, docker)).toEqual([]);
    expect(await runDirsOf(worker.pid)).toEqual([]);
    // The jobs it gave back are graded by the next worker, each once.
    const next = startWorker("worker-after-sigterm");
    expect(await finished(batch.child, batch.log), readLog(batch.log)).toBe(0);
    expect((await lines("sigterm")).map((l) => l.id).sort()).toEqual([
      "sigterm-gold-0",
      "sigterm-gold-2",
      "sigterm-noop-1",
      "sigterm-noop-3",
    ]);
    next.child.kill("SIGTERM");
    expect(await exited(next.child)).toBe(0);
    expect(await containersWithLabel(labelFilter(LABEL.pid, next.pid), docker)).toEqual([]);
  });

  it("SIGKILL mid-job leaves the pool's containers and run folders; the next grader's start removes them", async () => {
    const worker = startWorker("worker-sigkill");
    const batch = enqueue(await writePredictions("sigkill", 4), "sigkill");
    const label = labelFilter(LABEL.pid, worker.pid);
    await freezeWhen(worker.pid, async () => (await containersWithLabel(label, docker)).length >= 4, {
      what: "a running grade and a warm slot of the worker",
      timeoutMs: 180_000,
      detail: () => readLog(worker.log),
    });
    worker.child.kill("SIGKILL");
    await exited(worker.child);
    expect((await containersWithLabel(label, docker)).length).toBeGreaterThanOrEqual(4);
    expect((await runDirsOf(worker.pid)).length).toBeGreaterThanOrEqual(2);
    const next = await run(GRADE, ["--root", temp.root, TASK, "--baseline"], { timeoutMs: 300_000 });
    expect(next.code, next.stderr).toBe(1);
    expect(await containersWithLabel(label, docker)).toEqual([]);
    expect(await runDirsOf(worker.pid)).toEqual([]);
    batch.child.kill("SIGTERM");
    await exited(batch.child);
  });
});
