import { createHash } from "node:crypto";
import { GRADE_JOB_VERSION, type GradeJob } from "@oracle/spec";
import { loadSigningKey, trustList } from "../attest/keys.js";
import type { BatchExecutor, BatchJob } from "../prediction/executor.js";
import { lineFromError } from "../prediction/lines.js";
import { readDiffBytes } from "../task/prepare.js";
import { GRADER_VERSION } from "../version.js";
import { type CollectedJob, enqueueAndCollect } from "./collector.js";
import { redactQueueUrl } from "./connection.js";
import { gradeJobId } from "./job.js";

export interface QueueExecutorOptions {
  queueUrl: string;
  infraRetries?: number;
  timeoutSeconds?: number;
  allowQuarantined?: boolean;
  pollMs?: number;
  /** Told when no worker is connected, about Redis errors the collector rides out, and about refused answers. */
  warn?: (message: string) => void;
  /** Public key files of the workers whose answers count, besides this installation's own key. */
  trustKeys?: readonly string[];
}

/** The job of a prediction: the diff's bytes as read now, hashed now (the worker checks the hash). */
async function toGradeJob(
  job: BatchJob,
  batchId: string,
  options: QueueExecutorOptions,
): Promise<CollectedJob> {
  const bytes = await readDiffBytes(job.diff);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const data: GradeJob = {
    v: GRADE_JOB_VERSION,
    batchId,
    id: job.id,
    task: job.task,
    mode: "grade",
    taskHash: job.taskHash,
    imageDigest: job.imageDigest,
    graderVersion: GRADER_VERSION,
    diff: { base64: bytes.toString("base64"), sha256 },
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined === true,
  };
  return { jobId: gradeJobId(batchId, job.id, sha256), data };
}

/**
 * Grades a batch on queue workers: every job is enqueued (its id derived from the batch id and the
 * prediction, so a resumed batch finds its jobs again) and every result collected exactly once.
 */
export function queueExecutor(options: QueueExecutorOptions): BatchExecutor {
  return {
    description: `queue ${redactQueueUrl(options.queueUrl)}`,
    async run(jobs, emit, { batchId, signal }) {
      const trusted = trustList(loadSigningKey(), options.trustKeys);
      const collected: CollectedJob[] = [];
      for (const job of jobs) {
        try {
          collected.push(await toGradeJob(job, batchId, options));
        } catch (error) {
          await emit(lineFromError(job, error, { worker: null }));
        }
      }
      await enqueueAndCollect(collected, {
        queueUrl: options.queueUrl,
        trusted,
        infraRetries: options.infraRetries ?? 2,
        ...(options.pollMs ? { pollMs: options.pollMs } : {}),
        ...(signal ? { signal } : {}),
        onResult: (_job, outcome) => emit(outcome.line),
        onNoWorker: () =>
          options.warn?.(
            `no worker is connected to ${redactQueueUrl(options.queueUrl)} yet; start one with oracle-worker`,
          ),
        onQueueError: (error) => options.warn?.(`queue: ${error.message}; retrying`),
        onRefused: (job, why) =>
          options.warn?.(`queue: the answer for ${job.data.id} (job ${job.jobId}) was refused: ${why}`),
      });
    },
  };
}
