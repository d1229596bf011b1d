import { access } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { type Dockerode, type Engine, removeLeftovers } from "@oracle/engine";
import { loadSigningKey, type SigningKey, type TaskInputs } from "@oracle/grader";
import {
  healthFilePath,
  quarantineFilePath,
  readHealthFile,
  readQuarantineFile,
  writeJsonAtomic,
} from "@oracle/spec";
import pLimit from "p-limit";
import type { Logger } from "winston";
import { coveredBy, selectTasks } from "./discover.js";
import { measuredInputs, notCurrent, updateHealthFile } from "./health-record.js";
import { updateQuarantineList } from "./quarantine-list.js";
import { buildReport, type ReportInput } from "./report.js";
import { writeReports } from "./report-files.js";
import {
  checksOf,
  type PlannedTask,
  planTask,
  type SweepContext,
  sweepTask,
  type TaskOutcome,
} from "./task-sweep.js";
import type { GradeFn, RunRecord, SweepReport } from "./types.js";

/** Hooks a progress display implements; every one is optional. */
export interface SweepProgress {
  start?(tasks: number, runs: number): void;
  runDone?(task: string, run: RunRecord): void;
  taskDone?(task: TaskOutcome): void;
}

/** What the sweep itself asks of the Docker engine (the grader does the rest): `dockerEngine(docker)`. */
export type SweepEngine = Pick<Engine, "ping" | "listContainers" | "removeContainer">;

export interface SweepOptions {
  root: string;
  /** Globs matched on task ids; none means every task. */
  tasks?: string[];
  /** Sweep only the selected tasks that are not current (tasks/health.json); default false. */
  changed?: boolean;
  /** Grades running at once; default: the number of cores. */
  concurrency?: number;
  /** How many times each check runs; default 1. */
  repeat?: number;
  /** Where report.json/.md/.html go; default `<root>/logs/sweep/<runId>/`. */
  reportDir?: string;
  /** Names this sweep's folder under logs/sweep/; default: the UTC start time. */
  runId?: string;
  /** Retries of a run that ends in INFRA_ERROR; default 2. */
  infraRetries?: number;
  retryDelayMs?: number;
  grade: GradeFn;
  logger: Logger;
  /** Pinged before the sweep starts; this process's leftover grade containers are removed after an interrupt. */
  engine?: SweepEngine;
  docker?: Dockerode;
  signal?: AbortSignal;
  progress?: SweepProgress;
  now?: () => Date;
}

/** `20261202T150405Z`: sortable, and safe in file names. */
export function sweepStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
}

/** The folders and files of one sweep under a root. */
export function sweepPaths(root: string, runId: string, reportDir?: string) {
  const base = join(resolve(root), "logs", "sweep", runId);
  return {
    base,
    runLogDir: join(base, "runs"),
    sweepLog: join(base, "sweep.jsonl"),
    reportDir: reportDir ? resolve(reportDir) : base,
  };
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException("the sweep was interrupted", "AbortError");
}

/** After an interrupt, once every grade of this sweep has settled: a container naming this process is a leftover. */
function removeOwnLeftovers(engine: SweepEngine, logger: Logger): Promise<string[]> {
  return removeLeftovers(engine, { ownRunsEnded: true }).catch((error: Error) => {
    logger.error("could not remove leftover containers", { error: error.message });
    return [];
  });
}

async function runAll(
  ctx: SweepContext,
  planned: PlannedTask[],
  options: SweepOptions,
): Promise<TaskOutcome[]> {
  const settled = await Promise.allSettled(
    planned.map(async (task) => {
      const outcome = await sweepTask(ctx, task);
      options.progress?.taskDone?.(outcome);
      ctx.logger.info("task checked", {
        task: task.id,
        status: outcome.status,
        flags: outcome.reasons.map((r) => r.flag),
      });
      return outcome;
    }),
  );
  if (ctx.signal.aborted) {
    const leftovers = options.engine ? await removeOwnLeftovers(options.engine, ctx.logger) : [];
    ctx.logger.warn("sweep interrupted", { leftoversRemoved: leftovers.length });
    throw abortError(ctx.signal);
  }
  return settled.map((s) => {
    if (s.status === "rejected") throw s.reason;
    return s.value;
  });
}

/**
 * Sweeps the tasks under a root: runs each task's baseline (and gold.diff, where there is one)
 * `repeat` times through `grade`, flags every task that fails an expectation, updates
 * tasks/quarantine.json and tasks/health.json (what each task was judged on) for the tasks it checked,
 * and writes report.json, report.md and report.html. With `changed`, only the tasks that are not
 * current are checked.
 * Throws OracleError when it cannot start (bad globs, unreadable quarantine list, engine down) and
 * the abort reason when interrupted (after every running grade has cleaned up); nothing is written then.
 */
export async function sweep(options: SweepOptions): Promise<SweepReport> {
  const clock = options.now ?? (() => new Date());
  const startedAt = clock();
  const root = resolve(options.root);
  const settings = {
    tasks: options.tasks ?? [],
    repeat: options.repeat ?? 1,
    concurrency: options.concurrency ?? availableParallelism(),
    infraRetries: options.infraRetries ?? 2,
  };
  const paths = sweepPaths(root, options.runId ?? sweepStamp(startedAt), options.reportDir);
  await options.engine?.ping();
  const ids = await selectTasks(root, settings.tasks);
  await Promise.all([readQuarantineFile(root), readHealthFile(root)]);
  let planned = await Promise.all(ids.map((id) => planTask(root, id)));
  let staleSealRecords: string[] | undefined;
  if (options.changed) {
    const stale = await notCurrent(root, planned);
    for (const { task, validation } of stale)
      options.logger.info("task not current", { task: task.id, ...validation });
    planned = stale.map((s) => s.task);
    staleSealRecords = stale.filter((s) => s.sealRecord).map((s) => s.task.id);
  }
  // The key that signs the health records, read (or made) before any run: a key it cannot read
  // fails the sweep now, not after every task ran.
  const key = loadSigningKey();
  const inputs = await measuredInputs(root, planned);
  options.progress?.start?.(
    planned.length,
    planned.reduce((n, t) => n + checksOf(t, settings.repeat).length, 0),
  );
  options.logger.info("sweep started", { root, taskCount: ids.length, ...settings });
  const ctx: SweepContext = {
    grade: options.grade,
    root,
    runLogDir: paths.runLogDir,
    repeat: settings.repeat,
    infraRetries: settings.infraRetries,
    retryDelayMs: options.retryDelayMs ?? 2000,
    limit: pLimit(settings.concurrency),
    signal: options.signal ?? new AbortController().signal,
    logger: options.logger,
    onRun: (task, run) => options.progress?.runDone?.(task, run),
    ...(options.docker ? { docker: options.docker } : {}),
  };
  const outcomes = await runAll(ctx, planned, options);
  const finishedAt = clock();
  const report = await oneWriterAtATime(() =>
    record({
      root,
      paths,
      settings,
      outcomes,
      ids,
      inputs,
      key,
      startedAt,
      finishedAt,
      ...(staleSealRecords ? { staleSealRecords } : {}),
    }),
  );
  options.logger.info("sweep finished", { counts: report.counts, newlyQuarantined: report.newlyQuarantined });
  return report;
}

/**
 * tasks/quarantine.json and tasks/health.json are read, updated and written again by each sweep: two
 * sweeps in one process (`new-task --mine --jobs N`) take turns, or the second would write the list it
 * read before the first wrote, and lose the first's tasks.
 */
let writing: Promise<unknown> = Promise.resolve();
function oneWriterAtATime<T>(update: () => Promise<T>): Promise<T> {
  const turn = writing.then(update, update);
  writing = turn.catch(() => undefined);
  return turn;
}

/**
 * Drops tasks from tasks/quarantine.json and tasks/health.json (new-task --mine, removing a task it
 * made that was not healthy), in turn with the sweeps of this process.
 */
export function forgetTasks(root: string, ids: readonly string[]): Promise<void> {
  return oneWriterAtATime(async () => {
    const quarantine = await readQuarantineFile(root);
    if (ids.some((id) => id in quarantine.tasks)) {
      const tasks = { ...quarantine.tasks };
      for (const id of ids) delete tasks[id];
      await writeJsonAtomic(quarantineFilePath(root), { ...quarantine, tasks });
    }
    const health = await readHealthFile(root);
    if (ids.some((id) => id in health.tasks)) {
      const tasks = { ...health.tasks };
      for (const id of ids) delete tasks[id];
      await writeJsonAtomic(healthFilePath(root), { ...health, tasks });
    }
  });
}

/** Updates tasks/quarantine.json for the tasks checked (read again: it is the latest list that counts) and writes the reports. */
async function record(
  input: Omit<ReportInput, "before" | "update"> & {
    ids: string[];
    inputs: Map<string, TaskInputs>;
    key: SigningKey;
  },
): Promise<SweepReport> {
  const before = await readQuarantineFile(input.root);
  const covered = coveredBy(input.settings.tasks);
  // Gone: not among the tasks this sweep read, and no task.json now. A task another run (new-task,
  // another sweep) wrote after this sweep listed the tasks is not gone: its entries stay.
  const absent = async (ids: string[]) => {
    const found = await Promise.all(
      ids.map((id) =>
        access(join(resolve(input.root), "tasks", id, "task.json")).then(
          () => false,
          () => true,
        ),
      ),
    );
    return ids.filter((_, i) => found[i]);
  };
  const gone = await absent(Object.keys(before.tasks).filter((id) => covered(id) && !input.ids.includes(id)));
  const now = input.finishedAt.toISOString();
  const update = updateQuarantineList(before, input.outcomes, gone, now);
  await writeJsonAtomic(quarantineFilePath(input.root), update.file);
  const healthBefore = await readHealthFile(input.root);
  const healthGone = await absent(
    Object.keys(healthBefore.tasks).filter((id) => covered(id) && !input.ids.includes(id)),
  );
  const health = updateHealthFile(healthBefore, input.outcomes, input.inputs, healthGone, now, input.key);
  await writeJsonAtomic(healthFilePath(input.root), health);
  const report = buildReport({ ...input, before, update });
  await writeReports(report);
  return report;
}
