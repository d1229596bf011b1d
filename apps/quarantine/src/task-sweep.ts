import { join } from "node:path";
import type { Dockerode } from "@oracle/engine";
import { formatError, isOracleError, type LoadedTask, loadTask } from "@oracle/spec";
import type { LimitFunction } from "p-limit";
import type { Logger } from "winston";
import { type Assessment, assessTask, invalidTask, summariseInfra } from "./assess.js";
import { expectedFindings, recordExpected } from "./expected.js";
import { runCheck } from "./run.js";
import type { CheckMode, GradeFn, RunObservation, RunRecord, TaskReport, TaskStatus } from "./types.js";

/** What the sweep learned about one task, before the quarantine list is updated. */
export interface TaskOutcome extends Assessment {
  id: string;
  hasGold: boolean;
  /** Some run's result said sentinel.state "none": no in-process protection. */
  unprotected: boolean;
  /** What the seals protect (TaskReport's `seals`), when the task has seals and known FAIL_TO_PASS tests. */
  seals?: TaskReport["seals"];
  /** What the sweep did about the expected tests (declared in task.json, recorded, or why not). */
  expected: string;
  runs: RunRecord[];
  runMs: number;
}

/** A task id with its folder loaded, or the reason it does not load. */
export type PlannedTask = { id: string; loaded: LoadedTask } | { id: string; error: string };

/** Shared by every task of one sweep. */
export interface SweepContext {
  grade: GradeFn;
  root: string;
  /** Absolute folder under which each task's oracle logs go, in `<task>/`. */
  runLogDir: string;
  repeat: number;
  infraRetries: number;
  retryDelayMs: number;
  limit: LimitFunction;
  signal: AbortSignal;
  logger: Logger;
  docker?: Dockerode;
  onRun?: (task: string, run: RunRecord) => void;
}

/** Loads the task's folder; a task that does not load is planned as invalid, with the loader's message. */
export async function planTask(root: string, id: string): Promise<PlannedTask> {
  try {
    return { id, loaded: await loadTask(root, id) };
  } catch (error) {
    const hint = isOracleError(error) && error.hint ? ` (${error.hint})` : "";
    return { id, error: `${error instanceof Error ? error.message : String(error)}${hint}` };
  }
}

/** The checks of a planned task, each repeated: baseline always, gold where the task has a gold.diff. */
export function checksOf(task: PlannedTask, repeat: number): Array<{ mode: CheckMode; repeat: number }> {
  if (!("loaded" in task)) return [];
  const modes: CheckMode[] = task.loaded.goldDiff ? ["baseline", "gold"] : ["baseline"];
  return modes.flatMap((mode) => Array.from({ length: repeat }, (_, i) => ({ mode, repeat: i + 1 })));
}

function outcome(
  id: string,
  hasGold: boolean,
  observations: RunObservation[],
  assessment: Assessment,
  expected = "not recorded: no run",
): TaskOutcome {
  const runs = observations.map((o) => o.record);
  const unprotected = runs.some((r) => r.sentinel === "none");

  return {
    id,
    hasGold,
    unprotected,
    expected,
    runs,
    runMs: runs.reduce((sum, r) => sum + r.durationMs, 0),
    ...assessment,
  };
}

function crashed(id: string, hasGold: boolean, error: unknown): TaskOutcome {
  const infra = {
    ...summariseInfra([]),
    failedRuns: 1,
    messages: [`the sweep failed on this task: ${formatError(error)}`],
  };
  const status: TaskStatus = "infra-error";
  return {
    id,
    hasGold,
    unprotected: false,
    expected: "not recorded: the sweep failed",
    runs: [],
    runMs: 0,
    status,
    reasons: [],
    infra,
  };
}

/**
 * Runs every check of one task through the shared concurrency limit and judges the task. Never
 * rejects for the task's own sake (a crash is reported as an infra error of that task); rejects only
 * when the sweep is interrupted.
 */
export async function sweepTask(ctx: SweepContext, task: PlannedTask): Promise<TaskOutcome> {
  if (!("loaded" in task)) return outcome(task.id, false, [], invalidTask(task.id, task.error));
  const hasGold = task.loaded.goldDiff !== null;
  const runContext = {
    grade: ctx.grade,
    root: ctx.root,
    task: task.id,
    goldDiff: task.loaded.goldDiff,
    logDir: join(ctx.runLogDir, task.id),
    signal: ctx.signal,
    logger: ctx.logger.child({ task: task.id }),
    infraRetries: ctx.infraRetries,
    retryDelayMs: ctx.retryDelayMs,
    ...(ctx.docker ? { docker: ctx.docker } : {}),
  };
  try {
    const runs = checksOf(task, ctx.repeat).map((check) =>
      ctx.limit(async () => {
        const observation = await runCheck(runContext, check.mode, check.repeat);
        ctx.onRun?.(task.id, observation.record);
        return observation;
      }),
    );
    // allSettled, not all: on an interrupt every running grade must finish cleaning up before we return.
    const settled = await Promise.allSettled(runs);
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    const observations = settled.map((s) => (s as PromiseFulfilledResult<RunObservation>).value);
    const assessment = assessTask(
      { id: task.id, hasGold },
      observations,
      expectedFindings(task.loaded, observations),
    );
    const expected = await recordExpected(task.loaded, assessment.status, observations);
    ctx.logger.info(`expected tests: ${expected}`, { task: task.id });
    return outcome(task.id, hasGold, observations, assessment, expected);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    ctx.logger.error("task crashed the sweep", { task: task.id, error: formatError(error) });
    return crashed(task.id, hasGold, error);
  }
}
