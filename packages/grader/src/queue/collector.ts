import { setTimeout as delay } from "node:timers/promises";
import {
  type GradeJob,
  GradeJobResultSchema,
  type GradeResult,
  OracleError,
  type ResultLine,
} from "@oracle/spec";
import { type Job, Queue, QueueEvents } from "bullmq";
import type { PublicKey } from "../attest/keys.js";
import { digestOf, verifyLine } from "../attest/statement.js";
import { lineFromError } from "../prediction/lines.js";
import { closeWithin, QUEUE_NAME, queueConnection, untilReady } from "./connection.js";
import { gradeJobOptions } from "./job.js";

/** A job to enqueue and collect: its id, its data, and what to do with its result. */
export interface CollectedJob {
  jobId: string;
  data: GradeJob;
}

/** A collected answer: the worker's line (verified) and its whole result, or a line saying why there is none. */
export interface CollectedAnswer {
  line: ResultLine;
  result: GradeResult | null;
}

export interface CollectOptions {
  queueUrl: string;
  /** The keys whose signed answers count (keys.ts trustList): an answer signed by no other key is refused. */
  trusted: ReadonlyMap<string, PublicKey>;
  infraRetries: number;
  /** How often unresolved jobs are looked up, in case an event was missed (default 5000 ms). */
  pollMs?: number;
  signal?: AbortSignal;
  onResult: (job: CollectedJob, outcome: CollectedAnswer) => Promise<void>;
  /** Told about an answer refused (unsigned, an unknown key, bound to another job, seen before). */
  onRefused?: (job: CollectedJob, why: string) => void;
  /** Told about a failed lookup (Redis restarting); the collector keeps trying. */
  onQueueError?: (error: Error) => void;
  /** Told once when no worker is connected to the queue. */
  onNoWorker?: () => void;
}

const refused = (collected: CollectedJob, why: string): CollectedAnswer => ({
  line: lineFromError(
    collected.data,
    new OracleError("INFRA_ERROR", `the queue's answer was refused: ${why}`),
    { outcome: "infra_error", worker: null },
  ),
  result: null,
});

/** What of a worker's answer line does not match the job it answers. */
function unbound(line: ResultLine, job: GradeJob): string[] {
  const want: Array<[string, unknown, unknown]> = [
    ["prediction", line.id, job.id],
    ["task", line.task, job.task],
    ["diff", line.diffSha256, job.diff?.sha256 ?? null],
    ["task hash", line.taskHash, job.taskHash],
    ["grader", line.graderVersion, job.graderVersion],
  ];
  // A run refused before any container (an empty diff) used no image and names none.
  if (line.imageDigest !== null && job.imageDigest !== null)
    want.push(["image", line.imageDigest, job.imageDigest]);
  return want.filter(([, got, wanted]) => got !== wanted).map(([name]) => name);
}

/**
 * A completed job's answer, counted only when a trusted key signed it, its statement says what its
 * line says and names this job, its line is about this job's prediction, diff, task and image, and
 * its signature was not seen before. Anything else is refused (an INFRA_ERROR line: the prediction is
 * not passed). Redis is not a trust boundary: any client of it can write a job's return value.
 */
export function checkAnswer(
  value: unknown,
  collected: CollectedJob,
  trusted: ReadonlyMap<string, PublicKey>,
  seen: Set<string>,
): { ok: true; answer: CollectedAnswer } | { ok: false; why: string } {
  const parsed = GradeJobResultSchema.safeParse(value);
  if (!parsed.success) return { ok: false, why: "not a signed answer in this grader's format" };
  const { line, result, attestation } = parsed.data;
  // The result's digest is taken over what Redis returned, before any parsing: what the worker signed.
  const raw = (value as { result?: unknown }).result;
  const context = {
    job: collected.jobId,
    batch: collected.data.batchId,
    jobDigest: digestOf(collected.data),
    resultDigest: digestOf(raw),
  };
  const verified = verifyLine(line, trusted, context, attestation);
  if (!verified.ok) return { ok: false, why: verified.why };
  const off = unbound(line, collected.data);
  if (off.length > 0) return { ok: false, why: `the answer is about another job (${off.join(", ")} differ)` };
  // Keyed on the signed payload, not on the signature's text (more signatures or padding change that).
  const payload = digestOf(attestation.payload) ?? "";
  if (seen.has(payload)) return { ok: false, why: "the same signed answer was seen before (a replay)" };
  seen.add(payload);
  return { ok: true, answer: { line, result } };
}

/** The outcome of a finished job, or null while it is not finished. A job that failed for good is an infra error. */
function finishedOutcome(
  job: Job,
  collected: CollectedJob,
  state: string,
  check: (value: unknown) => ReturnType<typeof checkAnswer>,
  onRefused?: (job: CollectedJob, why: string) => void,
): CollectedAnswer | null {
  if (state === "completed") {
    const checked = check(job.returnvalue);
    if (checked.ok) return checked.answer;
    onRefused?.(collected, checked.why);
    return refused(collected, checked.why);
  }
  if (state === "failed") {
    const error = new OracleError("INFRA_ERROR", `job failed on the queue: ${job.failedReason}`);
    return {
      line: lineFromError(collected.data, error, { outcome: "infra_error", worker: null }),
      result: null,
    };
  }
  return null;
}

/** What the collector reads of a job on the queue (BullMQ's Queue). */
export interface JobReader {
  getJobState(jobId: string): Promise<string>;
  getJob(jobId: string): Promise<Job | undefined>;
}

/**
 * A job as the collector sees it: gone from Redis, not finished yet, or finished and read whole.
 * The state is read first and the job second: BullMQ writes a finished job's return value and moves
 * it to its finished set in one script, so a job whose state says finished has its whole hash. The
 * other order read a running job's hash, then a finished state, and counted a good answer as
 * INFRA_ERROR ("a result this collector cannot read") whenever a job finished between the two reads.
 */
export async function readJob(
  queue: JobReader,
  jobId: string,
): Promise<{ kind: "missing" } | { kind: "running" } | { kind: "finished"; job: Job; state: string }> {
  const state = await queue.getJobState(jobId);
  if (state === "unknown") return { kind: "missing" };
  if (state !== "completed" && state !== "failed") return { kind: "running" };
  const job = await queue.getJob(jobId);
  return job ? { kind: "finished", job, state } : { kind: "missing" };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(ms, undefined, signal ? { signal } : {}).catch(() => undefined);

/**
 * Enqueues `jobs` (idempotent: a job id already in the queue is not added again) and calls
 * `onResult` exactly once per job as results arrive, from queue events and, as a safety net, by
 * polling. A job that vanished from Redis is enqueued again. On abort, the jobs not yet taken by a
 * worker are removed from the queue and the call rejects with the signal's reason.
 */
export async function enqueueAndCollect(
  jobs: readonly CollectedJob[],
  options: CollectOptions,
): Promise<void> {
  if (jobs.length === 0) return;
  const connection = queueConnection(options.queueUrl);
  const queue = new Queue(QUEUE_NAME, { connection });
  const events = new QueueEvents(QUEUE_NAME, { connection });
  const onError = (error: Error) => options.onQueueError?.(error);
  queue.on("error", onError);
  events.on("error", onError);
  const remaining = new Map(jobs.map((j) => [j.jobId, j]));
  const seen = new Set<string>();
  const check = (collected: CollectedJob) => (value: unknown) =>
    checkAnswer(value, collected, options.trusted, seen);
  let wake: () => void = () => undefined;
  try {
    await untilReady([events, queue], options.queueUrl, options.signal ? { signal: options.signal } : {});
    const add = (list: readonly CollectedJob[]) =>
      queue.addBulk(
        list.map((j) => ({
          name: "grade",
          data: j.data,
          opts: gradeJobOptions(j.jobId, options.infraRetries),
        })),
      );
    for (let i = 0; i < jobs.length; i += 500) await add(jobs.slice(i, i + 500));
    if ((await queue.getWorkersCount()) === 0) options.onNoWorker?.();
    const checkJob = async (jobId: string) => {
      const collected = remaining.get(jobId);
      if (!collected) return;
      const read = await readJob(queue, jobId);
      if (read.kind === "missing") return void (await add([collected]));
      if (read.kind === "running") return;
      const outcome = finishedOutcome(read.job, collected, read.state, check(collected), options.onRefused);
      if (!outcome || !remaining.delete(jobId)) return;
      await options.onResult(collected, outcome);
    };
    let checking = Promise.resolve();
    const enqueueCheck = (jobId: string) => {
      checking = checking
        .then(() => checkJob(jobId))
        .catch((error: Error) => options.onQueueError?.(error))
        .then(() => wake());
    };
    events.on("completed", ({ jobId }) => enqueueCheck(jobId));
    events.on("failed", ({ jobId }) => enqueueCheck(jobId));
    while (remaining.size > 0) {
      options.signal?.throwIfAborted();
      for (const jobId of [...remaining.keys()]) enqueueCheck(jobId);
      await checking;
      if (remaining.size === 0) break;
      await new Promise<void>((done) => {
        wake = () => {
          if (remaining.size === 0) done();
        };
        void sleep(options.pollMs ?? 5000, options.signal).then(done);
      });
    }
    await checking;
  } catch (error) {
    if (options.signal?.aborted) await removeWaiting(queue, remaining.keys());
    throw error;
  } finally {
    await closeWithin(events);
    await closeWithin(queue);
  }
}

/** Removes the jobs not yet taken by a worker; active ones cannot be removed and finish on their worker. */
async function removeWaiting(queue: Queue, jobIds: Iterable<string>): Promise<void> {
  for (const jobId of jobIds) {
    const job = await queue.getJob(jobId).catch(() => undefined);
    if (job && ["waiting", "delayed", "prioritized"].includes(await job.getState()))
      await job.remove().catch(() => undefined);
  }
}
