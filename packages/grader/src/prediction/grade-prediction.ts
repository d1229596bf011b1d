import type { GradeResult, ResultLine } from "@oracle/spec";
import type Docker from "dockerode";
import type { GradeOptions } from "../grade-options.js";
import type { WarmTicket } from "../run/warm-pool.js";
import type { DiffSource, PreparedTask } from "../task/prepare.js";
import { isAbort, lineFromError, lineFromResult } from "./lines.js";

/** `grade()`, or a stand-in with its contract (tests inject a fake). */
export type GradeFn = (options: GradeOptions) => Promise<GradeResult>;

/** One prediction to run through the grader (a baseline run, for the quarantine sweep, has no diff). */
export interface PredictionRun {
  id: string;
  task: string;
  mode?: "grade" | "baseline";
  diff: DiffSource | null;
  /** The diff's SHA-256 as the batch read it; null when it could not be read. */
  diffSha256: string | null;
}

/** The line of a prediction, and the grader's whole result when a run happened. */
export interface GradedPrediction {
  line: ResultLine;
  result: GradeResult | null;
}

export interface GradePredictionOptions {
  root: string;
  grade: GradeFn;
  /** The task as the caller prepared it (prepare.ts), so that the grade does not prepare it again. */
  prepared?: PreparedTask;
  /** Runs after an INFRA_ERROR before the line says infra_error (default 2). */
  infraRetries?: number;
  timeoutSeconds?: number;
  allowQuarantined?: boolean;
  signal?: AbortSignal;
  docker?: Docker;
  worker?: string;
  /** Containers a warm pool makes ahead for this prediction's first run (warm-pool.ts). */
  warm?: WarmTicket;
}

function gradeOptions(run: PredictionRun, options: GradePredictionOptions, attempt: number): GradeOptions {
  return {
    root: options.root,
    task: run.task,
    mode: run.mode ?? "grade",
    ...(run.diff ? { diff: run.diff } : {}),
    ...(options.prepared ? { prepared: options.prepared } : {}),
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    ...(options.allowQuarantined ? { allowQuarantined: true } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.docker ? { docker: options.docker } : {}),
    // The pool's containers serve the first run only; a retry makes its own.
    ...(options.warm && attempt === 1 ? { warm: options.warm } : {}),
  };
}

/**
 * Grades one prediction and turns the outcome into its result line: a run's result, retried while
 * it is INFRA_ERROR; a refusal (quarantined, unknown task, unreadable diff) as a line that is not
 * counted. Only an abort rejects.
 */
export async function gradePrediction(
  run: PredictionRun,
  options: GradePredictionOptions,
): Promise<GradedPrediction> {
  const retries = options.infraRetries ?? 2;
  const worker = options.worker ? { worker: options.worker } : {};
  for (let attempt = 1; ; attempt += 1) {
    let result: GradeResult;
    try {
      result = await options.grade(gradeOptions(run, options, attempt));
    } catch (error) {
      if (isAbort(error) || options.signal?.aborted) throw error;
      return { line: lineFromError(run, error, worker), result: null };
    }
    if (result.reason !== "INFRA_ERROR" || attempt > retries)
      return { line: lineFromResult(run, result, { attempts: attempt, ...worker }), result };
  }
}
