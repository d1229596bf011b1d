import { z } from "zod";

/**
 * Signed results. Every result line of a batch, and every answer of a queue worker, carries an
 * in-toto Statement v1 in a DSSE envelope, signed with ed25519 by the installation (or worker) that
 * made it. The subject is the diff's SHA-256; the predicate says what the verdict was graded on.
 */
export const DsseEnvelopeSchema = z.strictObject({
  payloadType: z.string(),
  /** The statement's JSON bytes, base64. */
  payload: z.string(),
  signatures: z.array(z.strictObject({ keyid: z.string(), sig: z.string() })).min(1),
});
export type DsseEnvelope = z.output<typeof DsseEnvelopeSchema>;

export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";
export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
/** `.invalid`: a name, never fetched. */
export const GRADE_PREDICATE_TYPE = "https://oracle.invalid/attestation/grade/v1";
/** A single grade's --result file, signed whole: the predicate is the result itself. */
export const GRADE_RESULT_PREDICATE_TYPE = "https://oracle.invalid/attestation/grade-result/v1";
/** A sweep's health record of one task (tasks/health.json): the predicate is the record itself. */
export const HEALTH_RECORD_PREDICATE_TYPE = "https://oracle.invalid/attestation/health-record/v1";
/** The subject's name when there is no diff (a baseline run); its digest is that of zero bytes. */
export const NO_DIFF = "baseline (no diff)";

/** What a verdict was graded on and what it was. Every field is checked against the line it signs. */
export const GradePredicateSchema = z.strictObject({
  prediction: z.string(),
  task: z.string(),
  outcome: z.string(),
  verdict: z.enum(["PASS", "FAIL"]).nullable(),
  reason: z.string().nullable(),
  error: z.string().nullable(),
  testsHash: z.string().nullable(),
  taskHash: z.string().nullable(),
  imageDigest: z.string().nullable(),
  graderVersion: z.string().nullable(),
  timeoutSeconds: z.number().nullable(),
  cached: z.boolean(),
  /** Whether a sweep validated the task on these inputs (current, stale, never), as the line says. */
  validation: z.string().nullable(),
  /** The queue job it answers (a worker's answer), else null. */
  job: z.string().nullable(),
  /** SHA-256 of the job's data as the worker ran it (canonical JSON): every limit and flag it was run with. */
  jobDigest: z.string().nullable(),
  /** SHA-256 of the whole grade result a worker returned beside the line (canonical JSON), else null. */
  resultDigest: z.string().nullable(),
  /** The batch the line belongs to. */
  batch: z.string().nullable(),
  worker: z.string().nullable(),
  seconds: z.number(),
  /** The line's message, log path and runs: the evidence a reader (the gate's veto) shows. */
  message: z.string(),
  log: z.string().nullable(),
  attempts: z.number().int().nonnegative(),
  signedAt: z.string(),
});
export type GradePredicate = z.output<typeof GradePredicateSchema>;

export const GradeStatementSchema = z.strictObject({
  _type: z.literal(STATEMENT_TYPE),
  subject: z
    .array(z.strictObject({ name: z.string(), digest: z.strictObject({ sha256: z.string() }) }))
    .length(1),
  predicateType: z.literal(GRADE_PREDICATE_TYPE),
  predicate: GradePredicateSchema,
});
export type GradeStatement = z.output<typeof GradeStatementSchema>;
