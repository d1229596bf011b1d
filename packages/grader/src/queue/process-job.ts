import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OracleError } from "@oracle/spec";
import type Docker from "dockerode";
import { type GradedPrediction, type GradeFn, gradePrediction } from "../batch/grade-prediction.js";
import { lineFromError } from "../batch/lines.js";
import { loadTaskContext } from "../batch/task-context.js";
import { GRADER_VERSION } from "../version.js";
import type { GradeJob } from "./job.js";

export interface ProcessJobOptions {
  root: string;
  grade: GradeFn;
  worker: string;
  signal?: AbortSignal;
  docker?: Docker;
}

/** Why this worker must not grade the job, or null: its grader, task folder or image differ from the enqueuer's. */
export async function refusal(job: GradeJob, root: string): Promise<string | null> {
  if (job.graderVersion !== GRADER_VERSION)
    return `worker runs grader ${GRADER_VERSION}, the job was enqueued by grader ${job.graderVersion}`;
  const context = await loadTaskContext(root, job.task);
  if (!context.ok) return `this worker cannot load task '${job.task}': ${context.error.message}`;
  if (context.taskHash !== job.taskHash)
    return `task folder tasks/${job.task}/ differs on this worker (content hash ${context.taskHash.slice(0, 12)}, job ${job.taskHash.slice(0, 12)})`;
  if (job.imageDigest !== null && context.imageDigest !== job.imageDigest)
    return `image '${context.image}' differs on this worker (recorded ${context.imageDigest ?? "none current"}, job ${job.imageDigest})`;
  return null;
}

/**
 * Runs one grade job on this worker: refuses it (INFRA_ERROR, not graded) when the worker's copy of
 * the task or image differs, else grades it once with the diff written to a private temporary file.
 */
export async function processGradeJob(job: GradeJob, options: ProcessJobOptions): Promise<GradedPrediction> {
  const why = await refusal(job, options.root);
  if (why !== null) {
    const error = new OracleError("INFRA_ERROR", `job refused: ${why}`);
    const line = lineFromError(job, error, {
      outcome: "infra_error",
      diffSha256: job.diff?.sha256 ?? null,
      worker: options.worker,
    });
    return { line, result: null };
  }
  const dir = job.diff ? await mkdtemp(join(tmpdir(), "oracle-job-")) : null;
  try {
    let diff: { path: string } | null = null;
    if (dir && job.diff) {
      diff = { path: join(dir, `${randomBytes(4).toString("hex")}.diff`) };
      await writeFile(diff.path, Buffer.from(job.diff.base64, "base64"), { mode: 0o600 });
    }
    return await gradePrediction(
      { id: job.id, task: job.task, mode: job.mode, diff, diffSha256: job.diff?.sha256 ?? null },
      {
        root: options.root,
        grade: options.grade,
        infraRetries: 0,
        worker: options.worker,
        ...(job.timeoutSeconds ? { timeoutSeconds: job.timeoutSeconds } : {}),
        ...(job.allowQuarantined ? { allowQuarantined: true } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.docker ? { docker: options.docker } : {}),
      },
    );
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
