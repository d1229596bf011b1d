import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { GradeResultSchema, OracleError } from "@oracle/spec";
import type { JobsOptions } from "bullmq";
import { z } from "zod";
import { ResultLineSchema } from "../batch/results-file.js";

/**
 * A grade job's data. It names the task by id AND by the content hash of its folder, and the image by
 * its recorded digest, so a worker whose copy differs refuses it instead of grading something else.
 * The diff travels as bytes (base64): workers run on other hosts.
 */
export const GradeJobSchema = z.strictObject({
  v: z.literal(1),
  /** The batch (or sweep) the job belongs to; null for a single queued grade. */
  batchId: z.string().nullable(),
  id: z.string(),
  task: z.string(),
  mode: z.enum(["grade", "baseline"]),
  taskHash: z.string().regex(/^[0-9a-f]{64}$/),
  imageDigest: z.string().nullable(),
  graderVersion: z.string(),
  diff: z.strictObject({ base64: z.string(), sha256: z.string() }).nullable(),
  timeoutSeconds: z.number().int().positive().optional(),
  allowQuarantined: z.boolean(),
});
export type GradeJob = z.output<typeof GradeJobSchema>;

/** What a worker returns: the result line, and the grader's whole result when a run happened. */
export const GradeJobResultSchema = z.strictObject({
  line: ResultLineSchema,
  result: GradeResultSchema.nullable(),
});
export type GradeJobResult = z.output<typeof GradeJobResultSchema>;

/**
 * The job id: a hash of the batch id, the prediction id and the diff, so enqueuing the same batch
 * again (a resumed collector) adds nothing new and finds the jobs, and their results, already there.
 */
export function gradeJobId(batchId: string, predictionId: string, diffSha256: string | null): string {
  const hash = createHash("sha256").update(`${batchId}\0${predictionId}\0${diffSha256 ?? "-"}`);
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

/** A job's diff as bytes, read here: the worker on another host gets the bytes, never the path. */
export async function readDiffBytes(diff: { path: string } | { text: string }): Promise<Buffer> {
  if ("text" in diff) return Buffer.from(diff.text, "utf8");
  try {
    return await readFile(diff.path);
  } catch (cause) {
    throw new OracleError(
      "DIFF_UNREADABLE",
      `cannot read the diff ${diff.path}: ${(cause as Error).message}`,
      {
        hint: "pass a readable unified diff file",
        cause,
      },
    );
  }
}
