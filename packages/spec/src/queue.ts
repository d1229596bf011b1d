import { z } from "zod";
import { DsseEnvelopeSchema } from "./attestation.js";
import { ResultLineSchema } from "./batch.js";
import { GradeResultSchema } from "./result.js";

/**
 * The version of the queue's job and answer formats. 2: answers carry the camelCase result line
 * with `reason` and `error` apart. 3: answers are signed (`attestation`). 4: the statement signs the
 * message, log and attempts too (the evidence a gate's veto shows). Job ids derive from it, so a resumed collector never takes an
 * answer of another version for its own, and a worker refuses a job of another version.
 */
export const GRADE_JOB_VERSION = 4;

/**
 * A grade job's data. It names the task by id AND by the content hash of its folder, and the image by
 * its recorded digest, so a worker whose copy differs refuses it instead of grading something else.
 * The diff travels as bytes (base64): workers run on other hosts.
 */
export const GradeJobSchema = z.strictObject({
  v: z.literal(GRADE_JOB_VERSION),
  /** The batch (or sweep) the job belongs to; null for a single queued grade. */
  batchId: z.string().nullable(),
  id: z.string(),
  task: z.string(),
  mode: z.enum(["grade", "baseline"]),
  taskHash: z.string().regex(/^[0-9a-f]{64}$/),
  imageDigest: z.string().nullable(),
  graderVersion: z.string(),
  diff: z.strictObject({ base64: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).nullable(),
  timeoutSeconds: z.number().int().positive().optional(),
  allowQuarantined: z.boolean(),
});
export type GradeJob = z.output<typeof GradeJobSchema>;

/** What a worker returns: the result line, and the grader's whole result when a run happened. */
export const GradeJobResultSchema = z.strictObject({
  line: ResultLineSchema,
  result: GradeResultSchema.nullable(),
  /** The worker's signed statement of this answer, bound to the job (its id, diff, task and image). */
  attestation: DsseEnvelopeSchema,
});
export type GradeJobResult = z.output<typeof GradeJobResultSchema>;
