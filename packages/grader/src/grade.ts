import { resolve } from "node:path";
import { type GradeResult, OracleError } from "@oracle/spec";
import { checkGradeOptions, type GradeOptions } from "./grade-options.js";
import { dockerodeGradeDocker } from "./image/docker.js";
import { defaultLogPath, openRunLog } from "./log/oracle-log.js";
import { newRunId } from "./run/run-scope.js";
import { superviseRun } from "./run/supervise.js";
import { checkQuarantine, type PreparedTask, prepareDiff, prepareTask } from "./task/prepare.js";
import { GRADER_VERSION } from "./version.js";

/** dockerode without the parts a grade never uses (loaded on first use): for callers that pass `docker`. */
export { loadDockerode } from "./image/docker.js";
export { MAX_DIFF_BYTES } from "./task/prepare.js";

/** The caller's preparation of the task (a batch's, a worker's), or a new one. */
async function preparedTask(root: string, options: GradeOptions): Promise<PreparedTask> {
  const prepared = options.prepared;
  if (!prepared) return prepareTask(root, options.task);
  if (prepared.root !== root || prepared.loaded.task.id !== options.task)
    throw new OracleError(
      "INTERNAL",
      `grade of ${root}'s task '${options.task}' was given the preparation of ${prepared.root}'s '${prepared.loaded.task.id}'`,
    );
  return prepared;
}

/**
 * Grades one task: the diff (grade mode) or nothing (baseline mode) against the task's existing and
 * hidden suites inside a pinned, network-less container. Throws an OracleError only when no run
 * happened (USAGE, TASK_NOT_FOUND, TASK_INVALID, TASK_QUARANTINED, DIFF_UNREADABLE); every run that
 * started returns a result, FAIL with its reason when anything went wrong, except a bug in the
 * oracle's own judge of the run, which rejects with INTERNAL (judges/oracle-bug.ts: no verdict, never
 * an INFRA_ERROR or a FAIL). When `signal` aborts, the container is removed and the promise rejects
 * with `signal.reason`.
 */
export async function grade(options: GradeOptions): Promise<GradeResult> {
  checkGradeOptions(options);
  options.signal?.throwIfAborted();
  const root = resolve(options.root);
  const task = await preparedTask(root, options);
  checkQuarantine(task, options.allowQuarantined === true);
  const { loaded } = task;
  // Hashing the task folder runs beside the grade, not before it.
  const validating = task.validation();
  validating.catch(() => undefined);
  const diff = options.diff ? await prepareDiff(options.diff) : null;
  const startedAt = new Date();
  const diffSha = diff && "sha256" in diff ? diff.sha256 : null;
  // A warm pool's run id names the containers it made ahead for this grade.
  const runId = options.warm?.runId ?? newRunId(startedAt);
  const logPath = resolve(options.logFile ?? defaultLogPath(root, options.task, startedAt, diffSha, runId));
  const log = openRunLog(logPath, { run: runId, task: options.task }, options.logger);
  log.event("start", {
    graderVersion: GRADER_VERSION,
    root,
    mode: options.mode,
    pid: process.pid,
    diffSha256: diffSha,
    task: loaded.task,
  });
  try {
    const result = await superviseRun({
      loaded,
      mode: options.mode,
      diff: diff && ("bytes" in diff ? diff.bytes : diff),
      runId,
      startedAt,
      logPath,
      timeoutMs: (options.timeoutSeconds ?? loaded.task.timeoutSeconds) * 1000,
      docker: dockerodeGradeDocker(options.docker),
      imageFingerprint: task.image.fingerprint,
      log,
      root,
      signal: options.signal,
      ...(options.sealPlan ? { sealPlan: options.sealPlan } : {}),
      ...(options.listEveryTest ? { listEveryTest: true } : {}),
      ...(options.warm ? { warm: options.warm } : {}),
    });
    const { state, changed } = await validating;
    return { ...result, validation: state, ...(changed.length > 0 ? { validationChanged: changed } : {}) };
  } finally {
    // What the pool made for this grade and the grade did not use goes now.
    await options.warm?.release();
    await log.close();
  }
}
