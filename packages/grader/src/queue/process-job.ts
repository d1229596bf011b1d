import { createHash } from "node:crypto";
import { type GradeJob, isOracleError, OracleError } from "@oracle/spec";
import type Docker from "dockerode";
import { type GradedPrediction, type GradeFn, gradePrediction } from "../prediction/grade-prediction.js";
import { lineFromError } from "../prediction/lines.js";
import type { WarmTicket } from "../run/warm-pool.js";
import { type PreparedTask, prepareTask } from "../task/prepare.js";
import { GRADER_VERSION } from "../version.js";

/**
 * Where a worker's accepted jobs are graded: `run` waits for a free lane and grades there, with the
 * containers a warm pool made for the job while it waited (worker.ts), if any.
 */
export interface GradeLanes {
  run<T>(
    task: PreparedTask,
    timeoutSeconds: number | undefined,
    grade: (warm: WarmTicket | undefined) => Promise<T>,
  ): Promise<T>;
}

export interface ProcessJobOptions {
  root: string;
  grade: GradeFn;
  worker: string;
  signal?: AbortSignal;
  docker?: Docker;
  /** Lanes with a warm pool; without them the job is graded at once, its containers made as it runs. */
  lanes?: GradeLanes;
}

/** The task as this worker has it, or why it cannot load it. */
async function prepared(job: GradeJob, root: string): Promise<PreparedTask | string> {
  try {
    return await prepareTask(root, job.task);
  } catch (error) {
    if (!isOracleError(error)) throw error;
    return `this worker cannot load task '${job.task}': ${error.message}`;
  }
}

/** Why this worker must not grade the job, or null: its grader, task folder or image differ from the enqueuer's. */
export async function refusal(
  job: GradeJob,
  task: PreparedTask | string,
  diff: Buffer | null,
): Promise<string | null> {
  if (job.graderVersion !== GRADER_VERSION)
    return `worker runs grader ${GRADER_VERSION}, the job was enqueued by grader ${job.graderVersion}`;
  if (typeof task === "string") return task;
  const [{ content }, imageDigest] = await Promise.all([task.hashes(), task.image.currentDigest()]);
  if (content !== job.taskHash)
    return `task folder tasks/${job.task}/ differs on this worker (content hash ${content.slice(0, 12)}, job ${job.taskHash.slice(0, 12)})`;
  if (job.imageDigest !== null && imageDigest !== job.imageDigest)
    return `image '${task.image.name}' differs on this worker (recorded ${imageDigest ?? "none current"}, job ${job.imageDigest})`;
  if (diff && job.diff && createHash("sha256").update(diff).digest("hex") !== job.diff.sha256)
    return "the job's diff does not have the SHA-256 it names";
  return null;
}

/**
 * Runs one grade job on this worker: refuses it (INFRA_ERROR, not graded) when the worker's copy of
 * the task or image differs, else grades it once, with the task as prepared for the check and the
 * diff's bytes as the job carries them.
 */
export async function processGradeJob(job: GradeJob, options: ProcessJobOptions): Promise<GradedPrediction> {
  const task = await prepared(job, options.root);
  const diff = job.diff ? Buffer.from(job.diff.base64, "base64") : null;
  const subject = { id: job.id, task: job.task, diffSha256: job.diff?.sha256 ?? null };
  const why = await refusal(job, task, diff);
  if (why !== null || typeof task === "string") {
    const error = new OracleError("INFRA_ERROR", `job refused: ${why}`);
    return {
      line: lineFromError(subject, error, { outcome: "infra_error", worker: options.worker }),
      result: null,
    };
  }
  const grade = (warm: WarmTicket | undefined) =>
    gradePrediction(
      { ...subject, mode: job.mode, diff: diff && { bytes: diff } },
      {
        root: options.root,
        grade: options.grade,
        prepared: task,
        infraRetries: 0,
        worker: options.worker,
        ...(job.timeoutSeconds ? { timeoutSeconds: job.timeoutSeconds } : {}),
        ...(job.allowQuarantined ? { allowQuarantined: true } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.docker ? { docker: options.docker } : {}),
        ...(warm ? { warm } : {}),
      },
    );
  // Refused jobs never reach a lane: the pool makes containers only for a job this worker grades.
  return options.lanes ? options.lanes.run(task, job.timeoutSeconds, grade) : grade(undefined);
}
