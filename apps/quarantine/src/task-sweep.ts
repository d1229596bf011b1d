import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Dockerode } from "@oracle/engine";
import {
  GRADER_VERSION,
  RECORD_FILE,
  readExpectedRecord,
  removeSealRecord,
  SEAL_RECORD_FILE,
  sealRecordDoubt,
  taskDigest,
  taskSealPlan,
  writeSealRecord,
} from "@oracle/grader";
import { formatError, isOracleError, type LoadedTask, loadTask, type SealRecord } from "@oracle/spec";
import type { LimitFunction } from "p-limit";
import type { Logger } from "winston";
import { type Assessment, assessTask, invalidTask, summariseInfra } from "./assess.js";
import { expectedFindings, recordExpected, skippedUpstream } from "./expected.js";
import { type RunContext, runCheck } from "./run.js";
import { demotions, failToPassSeals, goldExecutions, planOf, sealSummary } from "./seals.js";
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
  seals?: TaskOutcome["seals"],
): TaskOutcome {
  const runs = observations.map((o) => o.record);
  const unprotected = runs.some((r) => r.sentinel === "none");

  return {
    id,
    hasGold,
    unprotected,
    expected,
    ...(seals ? { seals } : {}),
    runs,
    runMs: runs.reduce((sum, r) => sum + r.durationMs, 0),
    ...assessment,
  };
}

/** Settles every run (on an interrupt each must finish cleaning up), then throws the first failure. */
async function settleAll(runs: Array<Promise<RunObservation>>): Promise<RunObservation[]> {
  const settled = await Promise.allSettled(runs);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<RunObservation>).value);
}

async function sealRecord(
  loaded: LoadedTask,
  plan: string,
  demoted: SealRecord["demoted"],
  executions: SealRecord["executions"],
  failToPass: SealRecord["failToPass"],
): Promise<SealRecord> {
  return {
    version: 1,
    task: loaded.task.id,
    taskDigest: await taskDigest(loaded),
    plan,
    recordedAt: new Date().toISOString(),
    graderVersion: GRADER_VERSION,
    demoted,
    executions,
    failToPass,
  };
}

/**
 * Records what the runs showed of the task's seals (tasks/<id>/seals.recorded.json): the demoted
 * sites, each sealed test's complete runs in the gold runs, and what decided each FAIL_TO_PASS test
 * at baseline (declared in task.json, else the expected tests just recorded).
 */
async function recordSeals(
  root: string,
  loaded: LoadedTask,
  observations: readonly RunObservation[],
  demoted: SealRecord["demoted"],
): Promise<{ recorded: string; summary?: TaskOutcome["seals"] }> {
  const plan = planOf(observations);
  if (!plan) {
    // A record left from another plan would keep --changed sweeping the task (sealRecordDoubt).
    const doubt = await sealRecordDoubt(root, loaded);
    if (doubt !== null && (await removeSealRecord(loaded)))
      return { recorded: `not recorded: no run sealed a comparison; removed ${SEAL_RECORD_FILE} (${doubt})` };
    return { recorded: "not recorded: no run sealed a comparison" };
  }
  const gold = observations.filter((o) => o.record.mode === "gold");
  const baseline = observations.filter((o) => o.record.mode === "baseline");
  const declared = loaded.task.suites.hidden.expected?.failToPass;
  const read = declared ? null : await readExpectedRecord(loaded);
  const failToPass = declared ?? (read?.kind === "current" ? read.record.suites.hidden.failToPass : []);
  const record = await sealRecord(
    loaded,
    plan,
    demoted,
    goldExecutions(gold),
    failToPassSeals(baseline, failToPass),
  );
  await writeSealRecord(loaded, record);
  const strong = record.failToPass.filter((f) => f.seal === "strong").length;
  const recorded = `recorded in tasks/${loaded.task.id}/${SEAL_RECORD_FILE}: ${strong} of ${record.failToPass.length} FAIL_TO_PASS test(s) sealed, ${demoted.length} site(s) left unsealed`;
  // The plan the grades make, for the rule that leaves each unsealed test so (read on the host, from
  // the plan cache the runs just filled); a task whose plan cannot be made is listed without.
  const planned = await taskSealPlan(root, loaded, new Set(demoted.map((d) => d.key))).catch(() => null);
  const summary = sealSummary(record, recorded, planned);
  return { recorded, ...(summary ? { summary } : {}) };
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
  // A record the sweep writes before checking again (the demoted sites, the expected tests without
  // upstream's skips) holds only while that check runs: an interrupt or a crash before the sweep's
  // last record puts the file back as it was (or removes it), never leaving the interim one (a seal
  // record's `failToPass: []` reads as "no FAIL_TO_PASS test").
  const putBack: Array<() => Promise<void>> = [];
  const setAside = async (file: string) => {
    const path = join(task.loaded.dir, file);
    const before = await readFile(path).catch(() => null);
    putBack.unshift(() => (before === null ? rm(path, { force: true }) : writeFile(path, before)));
  };
  try {
    const checks = (list: ReturnType<typeof checksOf>, round: Partial<RunContext>) =>
      settleAll(
        list.map((check) =>
          ctx.limit(async () => {
            const observation = await runCheck({ ...runContext, ...round }, check.mode, check.repeat);
            ctx.onRun?.(task.id, observation.record);
            return observation;
          }),
        ),
      );
    // The first runs seal every comparison the planner finds, whatever an earlier sweep recorded:
    // the sites a gold run cannot pass are found again each sweep (a record that only shrank would
    // seal them again on the next sweep, which finds none to leave out, and gold would FAIL).
    let observations = await checks(checksOf(task, ctx.repeat), { sealPlan: "fresh" });
    // Seals a gold run could not pass are left unsealed for the task (rules.ts `seal.gold`); the
    // checks run again on the plan the grades will use (their logs in a folder of their own).
    const demoted = demotions(observations.filter((o) => o.record.mode === "gold"));
    const plan = planOf(observations);
    if (demoted.length > 0 && plan) {
      await setAside(SEAL_RECORD_FILE);
      await writeSealRecord(task.loaded, await sealRecord(task.loaded, plan, demoted, {}, []));
      ctx.logger.info(
        `seals: ${demoted.length} site(s) the gold diff could not pass left unsealed; checking again`,
        {
          task: task.id,
          demoted,
        },
      );
      // A base that hangs (every baseline run passed the time limit: a fix for a hang) hangs on any
      // seal plan: its baseline runs are not made again, so the task is decided within one limit.
      const baseline = observations.filter((o) => o.record.mode === "baseline");
      const hung = baseline.length > 0 && baseline.every((o) => o.record.reason === "TIMEOUT");
      const again = await checks(
        checksOf(task, ctx.repeat).filter((c) => !hung || c.mode !== "baseline"),
        { sealPlan: "recorded", logDir: join(runContext.logDir, "demoted") },
      );
      observations = hung ? [...baseline, ...again] : again;
    }
    // A task without expected tests fails gold on hidden tests that upstream skips at the base and
    // at the fix alike; their expected tests are recorded without them, and the checks run again.
    const upstreamSkips = skippedUpstream(task.loaded, observations);
    if (upstreamSkips) {
      await setAside(RECORD_FILE);
      const recorded = await recordExpected(task.loaded, "healthy", observations);
      ctx.logger.info(
        `expected tests: ${upstreamSkips.length} hidden test(s) skipped at the base and with gold alike (${upstreamSkips.slice(0, 3).join(", ")}${upstreamSkips.length > 3 ? ", …" : ""}): ${recorded}; checking again`,
        { task: task.id, skipped: upstreamSkips },
      );
      observations = await checks(checksOf(task, ctx.repeat), {
        sealPlan: "recorded",
        logDir: join(runContext.logDir, "upstream-skips"),
      });
    }
    const assessment = assessTask(
      { id: task.id, hasGold },
      observations,
      expectedFindings(task.loaded, observations),
    );
    const expected = await recordExpected(task.loaded, assessment.status, observations);
    ctx.logger.info(`expected tests: ${expected}`, { task: task.id });
    const seals = await recordSeals(ctx.root, task.loaded, observations, demoted);
    ctx.logger.info(`seals: ${seals.recorded}`, { task: task.id });
    return outcome(task.id, hasGold, observations, assessment, expected, seals.summary);
  } catch (error) {
    for (const undo of putBack)
      await undo().catch((e: Error) =>
        ctx.logger.error("could not put a record back", { task: task.id, error: e.message }),
      );
    if (ctx.signal.aborted) throw error;
    ctx.logger.error("task crashed the sweep", { task: task.id, error: formatError(error) });
    return crashed(task.id, hasGold, error);
  }
}
