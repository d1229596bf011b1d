import { createHash, randomBytes } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { type GradeResult, type LoadedTask, loadTask, OracleError, readQuarantineFile } from "@oracle/spec";
import { dockerodeGradeDocker } from "./docker.js";
import { checkGradeOptions, type GradeOptions } from "./grade-options.js";
import { taskValidation } from "./health.js";
import { defaultLogPath, openRunLog } from "./oracle-log.js";
import { superviseRun } from "./run/supervise.js";
import { GRADER_VERSION } from "./version.js";

/** dockerode without the parts a grade never uses (loaded on first use): for callers that pass `docker`. */
export { loadDockerode } from "./docker.js";

/**
 * Diffs larger than this are not parsed: DIFF_INVALID. Parsing costs about 4x the diff's size in
 * memory at its peak (one file of 60 MB: 300 MB RSS), and the grader stays under 200 MB.
 */
export const MAX_DIFF_BYTES = 16 * 1024 * 1024;

async function checkQuarantine(root: string, task: string, allowed: boolean): Promise<void> {
  const entry = (await readQuarantineFile(root)).tasks[task];
  if (!entry || allowed) return;
  const reasons = entry.reasons.map((r) => `${r.flag}: ${r.message}`).join("; ");
  const fixes = entry.reasons.flatMap((r) => (r.hint ? [`${r.hint}; `] : [])).join("");
  throw new OracleError("TASK_QUARANTINED", `task '${task}' is quarantined (${reasons})`, {
    hint: `${fixes}fix the task and run pnpm quarantine-sweep, or grade it anyway with --allow-quarantined`,
  });
}

/** The diff's bytes, or a marker that it is too large to parse. */
async function readDiff(diff: NonNullable<GradeOptions["diff"]>): Promise<Buffer | { tooLarge: number }> {
  if ("text" in diff) {
    const bytes = Buffer.from(diff.text, "utf8");
    return bytes.length > MAX_DIFF_BYTES ? { tooLarge: bytes.length } : bytes;
  }
  try {
    const info = await stat(diff.path);
    if (!info.isFile()) throw new Error("not a regular file");
    if (info.size > MAX_DIFF_BYTES) return { tooLarge: info.size };
    return await readFile(diff.path);
  } catch (cause) {
    throw new OracleError(
      "DIFF_UNREADABLE",
      `cannot read the diff ${diff.path}: ${(cause as Error).message}`,
      {
        hint: "pass a readable unified diff file with --diff",
        cause,
      },
    );
  }
}

const sha256 = (data: Buffer): string => createHash("sha256").update(data).digest("hex");

/**
 * Grades one task: the diff (grade mode) or nothing (baseline mode) against the task's existing and
 * hidden suites inside a pinned, network-less container. Throws an OracleError only when no run
 * happened (USAGE, TASK_NOT_FOUND, TASK_INVALID, TASK_QUARANTINED, DIFF_UNREADABLE); every run that
 * started returns a result, FAIL with its reason when anything went wrong. When `signal` aborts, the
 * container is removed and the promise rejects with `signal.reason`.
 */
export async function grade(options: GradeOptions): Promise<GradeResult> {
  checkGradeOptions(options);
  options.signal?.throwIfAborted();
  const root = resolve(options.root);
  const loaded: LoadedTask = await loadTask(root, options.task);
  await checkQuarantine(root, options.task, options.allowQuarantined === true);
  // Hashing the task folder runs beside the grade, not before it.
  const validating = taskValidation(root, options.task, loaded.dir, loaded.task.image);
  validating.catch(() => undefined);
  const diff = options.diff ? await readDiff(options.diff) : null;
  const startedAt = new Date();
  const diffSha = diff === null ? null : Buffer.isBuffer(diff) ? sha256(diff) : null;
  const logPath = resolve(options.logFile ?? defaultLogPath(root, options.task, startedAt, diffSha));
  const runId = `${startedAt.getTime().toString(36)}-${randomBytes(4).toString("hex")}`;
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
      diff,
      runId,
      startedAt,
      logPath,
      timeoutMs: (options.timeoutSeconds ?? loaded.task.timeoutSeconds) * 1000,
      docker: dockerodeGradeDocker(options.docker),
      log,
      root,
      signal: options.signal,
    });
    const { state, changed } = await validating;
    return { ...result, validation: state, ...(changed.length > 0 ? { validationChanged: changed } : {}) };
  } finally {
    await log.close();
  }
}
