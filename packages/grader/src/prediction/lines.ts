import { hostname } from "node:os";
import { type GradeResult, isOracleError, type ResultCacheEntry, type ResultLine } from "@oracle/spec";

/** `host:pid` of this process, recorded as the `worker` of the lines it grades. */
export const WORKER_NAME = `${hostname()}:${process.pid}`;

/** What a line is about: the prediction's id and task, and the hash of its diff as the batch read it. */
export interface LineSubject {
  id: string;
  task: string;
  diffSha256?: string | null;
}

const seconds = (ms: number) => Math.round(ms) / 1000;

/** The SHA-256 the run hashed its diff to; null when it did not (baseline, or a diff too large to read). */
const gradedSha = (result: GradeResult): string | null =>
  result.diff && /^[0-9a-f]{64}$/.test(result.diff.sha256) ? result.diff.sha256 : null;

/** The line of a run: INFRA_ERROR is an infra error (counted as not passed); IMAGE_NOT_BUILT is an error of the set-up (not counted). */
export function lineFromResult(
  subject: LineSubject,
  result: GradeResult,
  run: { attempts: number; worker?: string },
): ResultLine {
  const outcome =
    result.reason === "INFRA_ERROR"
      ? "infra_error"
      : result.reason === "IMAGE_NOT_BUILT"
        ? "error"
        : "graded";
  return {
    id: subject.id,
    task: subject.task,
    outcome,
    verdict: result.verdict,
    reason: result.reason,
    error: null,
    message: result.message,
    testsHash: result.testsHash,
    log: result.logPath,
    seconds: seconds(result.durationMs),
    cached: false,
    attempts: run.attempts,
    diffSha256: gradedSha(result) ?? subject.diffSha256 ?? null,
    imageDigest: result.image.digest,
    worker: run.worker ?? WORKER_NAME,
  };
}

/** The line of a prediction that was not run: quarantined task, unknown or invalid task, unreadable diff, refused job. */
export function lineFromError(
  subject: LineSubject,
  error: unknown,
  extra: { worker?: string | null; outcome?: ResultLine["outcome"] } = {},
): ResultLine {
  const code = isOracleError(error) ? error.code : "INTERNAL";
  const message = error instanceof Error ? error.message : String(error);
  return {
    id: subject.id,
    task: subject.task,
    outcome: extra.outcome ?? (code === "TASK_QUARANTINED" ? "quarantined" : "error"),
    verdict: null,
    reason: null,
    error: code,
    message,
    testsHash: null,
    log: null,
    seconds: 0,
    cached: false,
    attempts: 0,
    diffSha256: subject.diffSha256 ?? null,
    imageDigest: null,
    worker: extra.worker === undefined ? WORKER_NAME : extra.worker,
  };
}

/** The line of a result reused from the cache (its log is the original run's). */
export function lineFromCache(subject: LineSubject, entry: ResultCacheEntry): ResultLine {
  return {
    id: subject.id,
    task: subject.task,
    outcome: "graded",
    verdict: entry.verdict,
    reason: entry.reason,
    error: null,
    message: entry.message,
    testsHash: entry.testsHash,
    log: entry.log,
    seconds: entry.seconds,
    cached: true,
    attempts: 0,
    diffSha256: entry.inputs.diffSha256,
    imageDigest: entry.inputs.imageDigest,
    worker: null,
  };
}

/** Whether an error is an abort (Ctrl-C, shutdown) rather than a reason not to grade. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}
