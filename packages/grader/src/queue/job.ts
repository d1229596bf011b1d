import { createHash } from "node:crypto";
import { GRADE_JOB_VERSION } from "@oracle/spec";
import type { JobsOptions } from "bullmq";

/**
 * The job id: a hash of the job format's version, the batch id, the prediction id and the diff, so
 * enqueuing the same batch again (a resumed collector) adds nothing new and finds the jobs, and their
 * results, already there; and a collector of another format version never finds those of this one.
 * The job's data and answer are @oracle/spec's GradeJobSchema and GradeJobResultSchema.
 */
export function gradeJobId(batchId: string, predictionId: string, diffSha256: string | null): string {
  const hash = createHash("sha256").update(
    `v${GRADE_JOB_VERSION}\0${batchId}\0${predictionId}\0${diffSha256 ?? "-"}`,
  );
  return `grade-${hash.digest("hex").slice(0, 40)}`;
}

/** Results are kept a week in Redis, so a collector that comes back later still finds them. */
const KEEP_SECONDS = 7 * 24 * 3600;

/** Job options: `1 + infraRetries` attempts (INFRA_ERROR retries may land on another worker). */
export function gradeJobOptions(jobId: string, infraRetries: number): JobsOptions {
  return {
    jobId,
    attempts: 1 + infraRetries,
    backoff: { type: "fixed", delay: 2000 },
    removeOnComplete: { age: KEEP_SECONDS },
    removeOnFail: { age: KEEP_SECONDS },
  };
}
