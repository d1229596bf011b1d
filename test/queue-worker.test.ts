// The queue's worker life cycle against a real redis-server, with a stand-in grader (no containers):
// a worker stopped mid-job gives the job back and another worker grades it, exactly once; a worker
// whose task folder differs from the enqueuer's refuses the job; `queueGrade` (what
// `quarantine-sweep --queue` uses) returns the worker's GradeResult or throws its refusal.
import { appendFile, cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type GradeFn, queueGrade, type RunningWorker, startWorker } from "@oracle/grader";
import { type GradeResult, isOracleError } from "@oracle/spec";
import { binPath, makeTempRoot, repoRoot, requireDocker, run, waitFor } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestRedis } from "./fixtures/batch/harness.js";

type Logger = Parameters<typeof startWorker>[0]["logger"];
const quiet = { info() {}, warn() {}, debug() {} } as unknown as Logger;

function passResult(task: string): GradeResult {
  const suite = {
    status: "PASS" as const,
    exitCode: 0,
    durationMs: 1,
    counts: { passed: 1, failed: 0, error: 0, skipped: 0 },
    tests: [],
    output: { bytes: 0, truncated: false },
  };
  return {
    graderVersion: "0.1.0",
    task,
    mode: "grade",
    verdict: "PASS",
    reason: "PASS",
    message: "stand-in",
    testsHash: "a".repeat(64),
    testIds: ["hidden:t::x"],
    suites: { existing: suite, hidden: suite },
    image: { name: "node-mocha", reference: null, digest: null },
    diff: null,
    timings: {},
    logPath: "/nowhere.jsonl",
    startedAt: new Date().toISOString(),
    durationMs: 1,
  };
}

let temp: { root: string; cleanup: () => Promise<void> };
let redis: TestRedis;
const running: RunningWorker[] = [];

async function worker(root: string, grade: GradeFn, concurrency = 1): Promise<RunningWorker> {
  const w = await startWorker({
    queueUrl: redis.url,
    root,
    grade,
    concurrency,
    lockSeconds: 4,
    logger: quiet,
  });
  running.push(w);
  return w;
}

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({
    "enqueuer/tasks/calc-node": "tasks/calc-node",
    "worker/tasks/calc-node": "tasks/calc-node",
  });
  await mkdir(join(temp.root, "redis"));
  redis = await TestRedis.start(join(temp.root, "redis"));
});

afterAll(async () => {
  await Promise.all(running.map((w) => w.close()));
  await redis?.down();
  await temp?.cleanup();
});

describe("queue workers", () => {
  it("give a job back when stopped mid-job; another worker grades it, and the caller gets one result", async () => {
    const calls = { first: 0, second: 0 };
    const hanging: GradeFn = (options) => {
      calls.first += 1;
      return new Promise((_, fail) =>
        options.signal?.addEventListener("abort", () => fail(options.signal?.reason)),
      );
    };
    const first = await worker(join(temp.root, "worker"), hanging);
    const graded = queueGrade(redis.url, { pollMs: 500 })({
      root: join(temp.root, "enqueuer"),
      task: "calc-node",
      mode: "grade",
      diff: { text: "fix" },
    });
    await waitFor(() => calls.first > 0, { what: "the first worker to start grading", timeoutMs: 30_000 });
    await first.close();
    await worker(join(temp.root, "worker"), async (options) => {
      calls.second += 1;
      return passResult(options.task);
    });
    const result = await graded;
    expect(result).toMatchObject({ verdict: "PASS", message: "stand-in" });
    expect(calls).toEqual({ first: 1, second: 1 });
  });

  it("refuse a job whose task folder differs from theirs, and queueGrade throws the refusal", async () => {
    await cp(join(repoRoot, "tasks", "calc-node"), join(temp.root, "other", "tasks", "calc-node"), {
      recursive: true,
    });
    await appendFile(join(temp.root, "other", "tasks", "calc-node", "task.json"), "\n");
    let graded = 0;
    await Promise.all(running.splice(0).map((w) => w.close()));
    await worker(join(temp.root, "other"), async (options) => {
      graded += 1;
      return passResult(options.task);
    });
    const error = await queueGrade(redis.url, { pollMs: 500 })({
      root: join(temp.root, "enqueuer"),
      task: "calc-node",
      mode: "baseline",
    }).catch((e: unknown) => e);
    expect(isOracleError(error, "INFRA_ERROR")).toBe(true);
    expect((error as Error).message).toMatch(
      /job refused: task folder tasks\/calc-node\/ differs on this worker/,
    );
    expect(graded).toBe(0);
  });

  it("collect every answer of an instant worker: a batch of 120 has no INFRA_ERROR (the collector read a job, then its state)", async () => {
    await Promise.all(running.splice(0).map((w) => w.close()));
    let graded = 0;
    await worker(
      join(temp.root, "worker"),
      async (options) => {
        graded += 1;
        return passResult(options.task);
      },
      8,
    );
    const preds = join(temp.root, "instant.jsonl");
    const lines = Array.from({ length: 120 }, (_, i) =>
      JSON.stringify({ id: `p${i}`, task: "calc-node", diff: `diff ${i}\n` }),
    );
    await writeFile(preds, `${lines.join("\n")}\n`);
    const out = join(temp.root, "instant-out");
    const batch = await run(
      binPath("oracle-grade"),
      ["--batch", preds, "--queue", redis.url, "--root", join(temp.root, "enqueuer"), "--out", out],
      { timeoutMs: 170_000 },
    );
    const results = (await readFile(join(out, "results.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; outcome: string; verdict: string; message: string });
    const wrong = results.filter((r) => r.outcome !== "graded" || r.verdict !== "PASS");
    expect(
      wrong.map((r) => `${r.id}: ${r.outcome} ${r.message}`),
      batch.stderr,
    ).toEqual([]);
    expect(results).toHaveLength(120);
    expect(graded).toBe(120);
  });
});
