import { stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Dockerode } from "@oracle/engine";
import { type GradeResult, isOracleError, type SuiteResult } from "@oracle/spec";
import type { Logger } from "winston";
import type {
  CheckMode,
  GradeFn,
  GradeOptions,
  RunObservation,
  RunRecord,
  SentinelStatus,
  SuiteSummary,
} from "./types.js";

/** Everything one task's runs share. */
export interface RunContext {
  grade: GradeFn;
  root: string;
  task: string;
  /** Absolute path of the task's gold.diff, for gold runs. */
  goldDiff: string | null;
  /** Absolute folder for this task's oracle logs. */
  logDir: string;
  signal: AbortSignal;
  logger: Logger;
  docker?: Dockerode;
  /** How many times an INFRA_ERROR run is retried before it counts. */
  infraRetries: number;
  retryDelayMs: number;
  /** `fresh`: every comparison sealed as planned, the task's seal record left aside (GradeOptions.sealPlan). */
  sealPlan?: "recorded" | "fresh";
}

/** Errors by which the grader refuses the task itself: no retry helps, the task is at fault. */
const TASK_ERRORS = ["TASK_INVALID", "TASK_NOT_FOUND", "DIFF_UNREADABLE"] as const;

function summarise(suite: SuiteResult): SuiteSummary {
  return { status: suite.status, reason: suite.reason ?? null, counts: suite.counts };
}

/** The sentinel's state at this run (the result's `sentinel`), null when the result does not say. */
export function sentinelStatus(result: GradeResult): SentinelStatus {
  return result.sentinel?.state ?? null;
}

function rootRelative(root: string, file: string): string {
  return relative(root, file).split(sep).join("/");
}

async function existingLog(root: string, file: string): Promise<string | null> {
  return stat(file).then(
    () => rootRelative(root, file),
    () => null,
  );
}

function fromResult(
  mode: CheckMode,
  repeat: number,
  result: GradeResult,
  log: string | null,
): RunObservation {
  const record: RunRecord = {
    mode,
    repeat,
    attempts: 1,
    verdict: result.verdict,
    reason: result.reason,
    message: result.message,
    existing: summarise(result.suites.existing),
    hidden: summarise(result.suites.hidden),
    sentinel: sentinelStatus(result),
    ...(result.sentinel?.note ? { sentinelNote: result.sentinel.note } : {}),
    ...(result.seals ? { seals: result.seals } : {}),
    existingSentinel: result.suites.existing.sentinel?.state ?? null,
    ...(result.suites.existing.sentinel?.note
      ? { existingSentinelNote: result.suites.existing.sentinel.note }
      : {}),
    testsHash: result.testsHash,
    durationMs: result.durationMs,
    timings: result.timings,
    log,
    retriedLogs: [],
  };
  const tests = new Map<string, string>();
  for (const suite of [result.suites.existing, result.suites.hidden]) {
    for (const test of suite.tests) tests.set(test.id, test.outcome);
  }
  const complete = !result.suites.existing.testsOmitted && !result.suites.hidden.testsOmitted;
  return { record, tests, complete };
}

function fromError(
  mode: CheckMode,
  repeat: number,
  error: unknown,
  ms: number,
  log: string | null,
): RunObservation {
  const taskFault = TASK_ERRORS.some((code) => isOracleError(error, code));
  const message = error instanceof Error ? error.message : String(error);
  // The oracle's own bug (INTERNAL) is no more the task's fault than the engine's: the run proves
  // nothing, as an INFRA_ERROR run does, but it says whose it is (and runCheck does not retry it).
  const own = isOracleError(error, "INTERNAL");
  const record: RunRecord = {
    mode,
    repeat,
    attempts: 1,
    verdict: taskFault ? "FAIL" : null,
    reason: taskFault ? "TASK_INVALID" : "INFRA_ERROR",
    message: taskFault
      ? message
      : own
        ? `the oracle's own bug (INTERNAL), not the task's nor the engine's: ${message}; report it with the run's log`
        : `the grader threw: ${message}`,
    existing: null,
    hidden: null,
    sentinel: null,
    testsHash: null,
    durationMs: ms,
    timings: {},
    log,
    retriedLogs: [],
  };
  return { record, tests: new Map(), complete: false, ...(own ? { oracleBug: true } : {}) };
}

function gradeOptions(ctx: RunContext, mode: CheckMode, logFile: string): GradeOptions {
  const options: GradeOptions = {
    root: ctx.root,
    task: ctx.task,
    mode: mode === "gold" ? "grade" : "baseline",
    logFile,
    allowQuarantined: true,
    // The record of expected tests needs every test of a suite of more than 1,000 (commander.js).
    listEveryTest: true,
    ...(ctx.sealPlan ? { sealPlan: ctx.sealPlan } : {}),
    signal: ctx.signal,
    logger: ctx.logger,
  };
  if (mode === "gold" && ctx.goldDiff) options.diff = { path: ctx.goldDiff };
  if (ctx.docker) options.docker = ctx.docker;
  return options;
}

async function attempt(ctx: RunContext, mode: CheckMode, repeat: number, n: number): Promise<RunObservation> {
  const logFile = join(ctx.logDir, `${mode}-${repeat}${n > 1 ? `-retry${n - 1}` : ""}.jsonl`);
  const started = Date.now();
  try {
    const result = await ctx.grade(gradeOptions(ctx, mode, logFile));
    return fromResult(mode, repeat, result, await existingLog(ctx.root, logFile));
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? error;
    return fromError(mode, repeat, error, Date.now() - started, await existingLog(ctx.root, logFile));
  }
}

/**
 * Runs one check once. A run that ends in INFRA_ERROR (or in an error the grader should not throw) is
 * retried up to `infraRetries` times after a short pause; only the last attempt counts, and the earlier
 * attempts' logs are kept as evidence. Rejects with the abort reason when the sweep is interrupted.
 */
export async function runCheck(ctx: RunContext, mode: CheckMode, repeat: number): Promise<RunObservation> {
  const retriedLogs: string[] = [];
  for (let n = 1; ; n++) {
    ctx.signal.throwIfAborted();
    const observation = await attempt(ctx, mode, repeat, n);
    const { record } = observation;
    // (A bug of the oracle's own judge is deterministic: retrying it only repeats it.)
    if (record.reason !== "INFRA_ERROR" || observation.oracleBug === true || n > ctx.infraRetries) {
      record.attempts = n;
      record.retriedLogs = retriedLogs;
      return observation;
    }
    ctx.logger.warn("infra error, retrying", {
      task: ctx.task,
      mode,
      repeat,
      attempt: n,
      message: record.message,
    });
    if (record.log) retriedLogs.push(record.log);
    await sleep(ctx.retryDelayMs * n, undefined, { signal: ctx.signal });
  }
}
