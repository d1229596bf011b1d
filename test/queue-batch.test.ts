// `oracle-grade --batch` end to end on the sample tasks, with the real engine and a real Redis: a local
// batch, then the same file through two `oracle-worker` processes while one is SIGKILLed mid-job and
// Redis is restarted; every prediction gets exactly one result, equal to the local run's; a third run
// reuses the recorded results and says so.
import type { ChildProcess } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Dockerode, LABEL, labelFilter } from "@oracle/engine";
import { BatchSummaryFileSchema, type ResultLine, ResultLineSchema } from "@oracle/spec";
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
  type ExpectedPrediction,
  exited,
  readLog,
  startProcess,
  TestRedis,
  workerCommand,
  writeSamplePredictions,
} from "./fixtures/batch/harness.js";

const GRADE = binPath("oracle-grade");
const CA = "/etc/ssl/certs/ca-certificates.crt";

type Line = ResultLine;

/** results.jsonl's lines, each parsed by its schema (a queued batch writes the same format as a local one). */
async function resultLines(outDir: string): Promise<Line[]> {
  const text = await readFile(join(outDir, "results.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((l) => ResultLineSchema.parse(JSON.parse(l)));
}

const byId = (lines: Line[]) => new Map(lines.map((l) => [l.id, l]));

let docker: Dockerode;
let temp: { root: string; cleanup: () => Promise<void> };
let redis: TestRedis;
let preds: string;
let expected: ExpectedPrediction[];
const workers: ChildProcess[] = [];
let local: Line[] = [];

/** Whether a worker's log shows the job's end line (`<id>: <task> <id> <verdict or outcome> <reason>`). */
const jobFinished = (log: string, job: string): boolean =>
  new RegExp(`^\\S+ ${job}: \\S+ \\S+ [A-Za-z_]+ [A-Z_]+$`, "m").test(log);

/** The job a worker's log shows started and not finished, if any. */
function runningJob(log: string): string | undefined {
  const starts = [...log.matchAll(/(grade-[0-9a-f]+): \S+ \S+ \(attempt \d+\)/g)];
  const last = starts.at(-1)?.[1];
  return last && !jobFinished(log, last) ? last : undefined;
}

/**
 * Freezes a worker (SIGSTOP) in the middle of a job: while its grade container is up and its log
 * shows the job unfinished. A grade takes under 2 s, so a fixed wait after the job's start can miss it.
 */
function stopMidJob({ child: worker, log }: { child: ChildProcess; log: string }): Promise<string> {
  return freezeWhen(
    worker.pid as number,
    async () =>
      (await containersWithLabel(labelFilter(LABEL.pid, worker.pid!), docker)).length > 0 &&
      runningJob(readLog(log)),
    { what: `worker ${worker.pid} to be mid-job`, timeoutMs: 120_000, everyMs: 25 },
  );
}

/** How many queue errors (a lost or refused Redis connection) a worker's or the batch's log shows. */
const queueErrors = (log: string): number => readLog(log).match(/warn: queue: /g)?.length ?? 0;

function startWorker(name: string): { child: ChildProcess; log: string } {
  const [command, args] = workerCommand();
  const log = join(temp.root, `${name}.log`);
  const argv = [
    ...args,
    "--queue",
    redis.url,
    "--concurrency",
    "1",
    "--lock-seconds",
    "4",
    "--root",
    temp.root,
  ];
  const child = startProcess(command, argv, log);
  workers.push(child);
  return { child, log };
}

beforeAll(async () => {
  docker = await requireDocker();
  temp = await makeTempRoot({ tasks: "tasks", images: "images" });
  const build = await run(binPath("oracle-build-images"), ["--root", temp.root, "--ca-file", CA], {
    timeoutMs: 1_800_000,
  });
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
  preds = join(temp.root, "predictions.jsonl");
  expected = await writeSamplePredictions(temp.root, preds);
  await mkdir(join(temp.root, "redis"));
  redis = await TestRedis.start(join(temp.root, "redis"));
});

afterAll(async () => {
  for (const child of workers)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGCONT"); // a worker stopMidJob froze, if a check failed before its SIGKILL
      child.kill("SIGTERM");
    }
  await Promise.all(workers.map(exited));
  for (const child of workers) {
    for (const c of await containersWithLabel(labelFilter(LABEL.pid, child.pid!), docker))
      await docker.getContainer(c.Id).remove({ force: true });
  }
  await redis?.down();
  await temp?.cleanup();
});

describe("oracle-grade --batch on the sample tasks", () => {
  it("grades locally: gold PASS, a diff that fixes nothing FAIL with tests run, an empty diff FAIL", async () => {
    const out = join(temp.root, "out-local");
    const result = await run(
      GRADE,
      [
        "--batch",
        preds,
        "--out",
        out,
        "--concurrency",
        "2",
        "--no-cache",
        "--root",
        temp.root,
        "--allow-unvalidated",
      ],
      {
        env: { CI: "1" },
      },
    );
    expect(result.stderr).toContain("pass rate 40.0%: 4 PASS / 10 graded (6 FAIL)");
    expect(result.code).toBe(0);
    local = await resultLines(out);
    expect(local.map((l) => l.id).sort()).toEqual(expected.map((e) => e.id).sort());
    for (const e of expected) {
      const line = byId(local).get(e.id) as Line;
      if (e.kind === "gold") expect(line, e.id).toMatchObject({ verdict: "PASS", reason: "PASS" });
      if (e.kind === "noop") expect(line, e.id).toMatchObject({ verdict: "FAIL", reason: "TESTS_FAILED" });
      if (e.kind === "empty")
        expect(line, e.id).toMatchObject({ verdict: "FAIL", reason: "DIFF_EMPTY_AFTER_FILTER" });
    }
    const summary = BatchSummaryFileSchema.parse(
      JSON.parse(await readFile(join(out, "summary.json"), "utf8")),
    );
    expect(summary.overall).toEqual({ graded: 10, pass: 4, fail: 6, passRate: 0.4 });
  });

  it("through two queue workers, one killed mid-job and Redis restarted, gives each prediction one result equal to the local one", async () => {
    expect(local).toHaveLength(expected.length);
    const a = startWorker("worker-a");
    const b = startWorker("worker-b");
    const out = join(temp.root, "out-queue");
    const batchLog = join(temp.root, "batch-queue.log");
    const args = [
      "--batch",
      preds,
      "--out",
      out,
      "--queue",
      redis.url,
      "--root",
      temp.root,
      "--allow-unvalidated",
    ];
    const batch = startProcess(GRADE, args, batchLog);
    const started = await stopMidJob(a);
    expect(jobFinished(readLog(a.log), started)).toBe(false);
    a.child.kill("SIGKILL");
    await exited(a.child);
    const c = startWorker("worker-c");
    await waitFor(() => readLog(c.log).includes("worker "), {
      what: "worker C to be up",
      timeoutMs: 120_000,
    });
    // The outage lasts until every client still running (the batch, workers B and C) has seen it.
    const clients = [batchLog, b.log, c.log];
    const before = clients.map(queueErrors);
    await redis.down();
    expect(await redis.refuses()).toBe(true);
    await waitFor(() => clients.every((log, i) => queueErrors(log) > before[i]!), {
      what: "the batch and workers B and C to log the lost Redis connection",
      timeoutMs: 120_000,
      detail: () => clients.map((log) => `${log}:\n${readLog(log).slice(-2000)}`).join("\n"),
    });
    await redis.up();
    const code = await waitFor(() => batch.exitCode ?? undefined, {
      what: "the queued batch to finish",
      timeoutMs: 600_000,
      detail: () => readLog(batchLog).slice(-2000),
    });
    expect(readLog(batchLog)).toContain("pass rate 40.0%: 4 PASS / 10 graded (6 FAIL)");
    expect(code).toBe(0);
    const queued = await resultLines(out);
    expect(queued.map((l) => l.id).sort()).toEqual(expected.map((e) => e.id).sort());
    const localById = byId(local);
    for (const line of queued) {
      const same = localById.get(line.id) as Line;
      expect({ verdict: line.verdict, reason: line.reason, testsHash: line.testsHash }, line.id).toEqual({
        verdict: same.verdict,
        reason: same.reason,
        testsHash: same.testsHash,
      });
      expect(line.worker, line.id).not.toBe(`${line.worker?.split(":")[0]}:${a.child.pid}`);
    }
    expect(readLog(b.log) + readLog(c.log)).toContain(`${started}: stalled`);
    expect(await containersWithLabel(labelFilter(LABEL.pid, a.child.pid!), docker)).toEqual([]);
  });

  it("reuses recorded results for identical inputs and says so", async () => {
    const out = join(temp.root, "out-cached");
    const result = await run(GRADE, ["--batch", preds, "--out", out, "--root", temp.root], {
      env: { CI: "1" },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("reused from the result cache: 10");
    expect(result.stderr).toMatch(/calc-node-gold \(calc-node\): PASS PASS, cached \(reused the result of a/);
    const lines = await resultLines(out);
    expect(lines.every((l) => l.cached)).toBe(true);
    const localById = byId(local);
    for (const line of lines) expect(line.testsHash, line.id).toBe(localById.get(line.id)?.testsHash);
  });
});
