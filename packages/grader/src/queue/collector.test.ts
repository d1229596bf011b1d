import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GRADE_JOB_VERSION, type GradeJob, type ResultLine } from "@oracle/spec";
import type { Job } from "bullmq";
import { describe, expect, it } from "vitest";
import { loadSigningKey, type SigningKey, trustList } from "../attest/keys.js";
import { attestLine, digestOf } from "../attest/statement.js";
import { GRADER_VERSION } from "../version.js";
import { checkAnswer, type JobReader, readJob } from "./collector.js";

/**
 * A queue whose one job finishes right after the collector's first read, whichever read that is:
 * the race a worker that answers at once won against the collector.
 */
function finishingDuringTheRead(): JobReader {
  let finished = false;
  let reads = 0;
  const after = <T>(value: () => T): T => {
    const seen = value();
    reads += 1;
    if (reads === 1) finished = true;
    return seen;
  };
  return {
    getJobState: async () => after(() => (finished ? "completed" : "active")),
    getJob: async () =>
      after(() => ({ id: "j", returnvalue: finished ? { answer: 1 } : null }) as unknown as Job),
  };
}

describe("readJob", () => {
  it("never pairs a finished state with a running job's hash", async () => {
    const queue = finishingDuringTheRead();
    expect(await readJob(queue, "j")).toEqual({ kind: "running" });
    const read = await readJob(queue, "j");
    expect(read).toMatchObject({ kind: "finished", state: "completed", job: { returnvalue: { answer: 1 } } });
  });

  it("says missing for a job Redis no longer has", async () => {
    const gone: JobReader = { getJobState: async () => "unknown", getJob: async () => undefined };
    expect(await readJob(gone, "j")).toEqual({ kind: "missing" });
  });
});

describe("checkAnswer", () => {
  const dir = mkdtempSync(join(tmpdir(), "oracle-answer-"));
  const workerKey = loadSigningKey(join(dir, "worker.pem"));
  const trusted = trustList(workerKey);
  const data: GradeJob = {
    v: GRADE_JOB_VERSION,
    batchId: "b1",
    id: "p1",
    task: "calc-node",
    mode: "grade",
    taskHash: "a".repeat(64),
    imageDigest: "sha256:img",
    graderVersion: GRADER_VERSION,
    diff: { base64: "", sha256: "d".repeat(64) },
    allowQuarantined: false,
  };
  const job = { jobId: "grade-1", data };
  const answerLine = (verdict: "PASS" | "FAIL"): ResultLine => ({
    id: "p1",
    task: "calc-node",
    outcome: "graded",
    verdict,
    reason: verdict === "PASS" ? "PASS" : "TESTS_FAILED",
    error: null,
    message: "",
    testsHash: "h".repeat(64),
    log: null,
    seconds: 1,
    cached: false,
    attempts: 1,
    diffSha256: data.diff!.sha256,
    imageDigest: data.imageDigest,
    taskHash: data.taskHash,
    graderVersion: GRADER_VERSION,
    worker: "w:1",
  });
  const answer = (line: ResultLine, key: SigningKey, jobId = job.jobId, ran: GradeJob = data) => ({
    line,
    result: null,
    attestation: attestLine(line, key, {
      job: jobId,
      batch: data.batchId,
      jobDigest: digestOf(ran),
      resultDigest: null,
    }),
  });

  it("counts a trusted worker's answer for this job, once", () => {
    const seen = new Set<string>();
    const genuine = answer(answerLine("FAIL"), workerKey);
    expect(checkAnswer(genuine, job, trusted, seen)).toMatchObject({
      ok: true,
      answer: { line: { verdict: "FAIL" } },
    });
    expect(checkAnswer(genuine, job, trusted, seen)).toMatchObject({ ok: false, why: /seen before/ });
  });

  it("refuses an unsigned answer, one signed by an unknown key, and an answer whose verdict was changed", () => {
    const { attestation: _, ...unsigned } = answer(answerLine("PASS"), workerKey);
    expect(checkAnswer(unsigned, job, trusted, new Set())).toMatchObject({
      ok: false,
      why: /not a signed answer/,
    });
    const stranger = loadSigningKey(join(dir, "stranger.pem"));
    expect(checkAnswer(answer(answerLine("PASS"), stranger), job, trusted, new Set())).toMatchObject({
      ok: false,
      why: /not in the trust list/,
    });
    const flipped = { ...answer(answerLine("FAIL"), workerKey), line: answerLine("PASS") };
    expect(checkAnswer(flipped, job, trusted, new Set())).toMatchObject({ ok: false, why: /verdict/ });
  });

  it("refuses a genuine answer of another job, and one whose line is about another diff or task", () => {
    const otherJob = answer(answerLine("PASS"), workerKey, "grade-2");
    expect(checkAnswer(otherJob, job, trusted, new Set())).toMatchObject({
      ok: false,
      why: /job \(signed "grade-2"/,
    });
    const otherDiff = answer({ ...answerLine("PASS"), diffSha256: "e".repeat(64) }, workerKey);
    expect(checkAnswer(otherDiff, job, trusted, new Set())).toMatchObject({
      ok: false,
      why: /about another job \(diff differ\)/,
    });
    const otherTask = answer({ ...answerLine("PASS"), taskHash: "b".repeat(64) }, workerKey);
    expect(checkAnswer(otherTask, job, trusted, new Set())).toMatchObject({ ok: false, why: /task hash/ });
  });

  it("refuses an answer for the job's data changed in Redis (a longer limit), and a result changed beside its line", () => {
    const longer = answer(answerLine("PASS"), workerKey, job.jobId, { ...data, timeoutSeconds: 86400 });
    expect(checkAnswer(longer, job, trusted, new Set())).toMatchObject({ ok: false, why: /jobDigest/ });
    const genuine = answer(answerLine("FAIL"), workerKey);
    const swapped = { ...genuine, result: { verdict: "PASS" } };
    expect(checkAnswer(swapped, job, trusted, new Set())).toMatchObject({ ok: false, why: /resultDigest/ });
    // The same data with its keys in another order is the same job.
    const reordered = Object.fromEntries(Object.entries(data).reverse()) as GradeJob;
    expect(
      checkAnswer(answer(answerLine("FAIL"), workerKey, job.jobId, reordered), job, trusted, new Set()).ok,
    ).toBe(true);
  });
});
