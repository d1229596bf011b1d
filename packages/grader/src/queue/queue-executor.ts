import type { BatchExecutor, BatchJob } from "../batch/executor.js";
import { lineFromError } from "../batch/lines.js";
import { GRADER_VERSION } from "../version.js";
import { type CollectedJob, enqueueAndCollect } from "./collector.js";
import { redactQueueUrl } from "./connection.js";
import { type GradeJob, gradeJobId, readDiffBytes } from "./job.js";

export interface QueueExecutorOptions {
  queueUrl: string;
  infraRetries?: number;
  timeoutSeconds?: number;
  allowQuarantined?: boolean;
  pollMs?: number;
  /** Told when no worker is connected, and about Redis errors the collector rides out. */
  warn?: (message: string) => void;
}

async function toGradeJob(
  job: BatchJob,
  batchId: string,
  options: QueueExecutorOptions,
): Promise<CollectedJob> {
  const bytes = await readDiffBytes(job.diff);
  const data: GradeJob = {
    v: 1,
    batchId,
    id: job.id,
    task: job.task,
    mode: "grade",
    taskHash: job.taskHash,
    imageDigest: job.imageDigest,
    graderVersion: GRADER_VERSION,
    diff: { base64: bytes.toString("base64"), sha256: job.diffSha256 ?? "" },
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined === true,
  };
  return { jobId: gradeJobId(batchId, job.id, job.diffSha256), data };
}

/**
 * Grades a batch on queue workers: every job is enqueued (its id derived from the batch id and the
 * prediction, so a resumed batch finds its jobs again) and every result collected exactly once.
 */
export function queueExecutor(options: QueueExecutorOptions): BatchExecutor {
  return {
    description: `queue ${redactQueueUrl(options.queueUrl)}`,
    async run(jobs, emit, { batchId, signal }) {
      const collected: CollectedJob[] = [];
      for (const job of jobs) {
        try {
          collected.push(await toGradeJob(job, batchId, options));
        } catch (error) {
          await emit(lineFromError(job, error, { diffSha256: null, worker: null }));
        }
      }
      await enqueueAndCollect(collected, {
        queueUrl: options.queueUrl,
        infraRetries: options.infraRetries ?? 2,
        ...(options.pollMs ? { pollMs: options.pollMs } : {}),
        ...(signal ? { signal } : {}),
        onResult: (_job, outcome) => emit(outcome.line),
        onNoWorker: () =>
          options.warn?.(
            `no worker is connected to ${redactQueueUrl(options.queueUrl)} yet; start one with oracle-worker`,
          ),
        onQueueError: (error) => options.warn?.(`queue: ${error.message}; retrying`),
      });
    },
  };
}
