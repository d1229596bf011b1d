import { z } from "zod";
import { DsseEnvelopeSchema } from "./attestation.js";
import { ErrorCodeSchema } from "./errors.js";
import { ValidationStateSchema } from "./health.js";
import { ReasonCodeSchema } from "./result.js";

/**
 * How a prediction ended: `graded` counts in the pass rate; `infra_error` (INFRA_ERROR after
 * retries: the engine or host failed, or the code under test killed the oracle's driver) counts in
 * it as not passed and is also listed apart; `quarantined` (the task is on the quarantine list) and
 * `error` (no run: unknown or invalid task, unreadable diff, image not built) are listed apart and
 * not counted.
 */
export const OUTCOMES = ["graded", "quarantined", "infra_error", "error"] as const;
export const OutcomeSchema = z.enum(OUTCOMES);
export type Outcome = z.output<typeof OutcomeSchema>;

/**
 * A line carries a grade's reason (and its verdict) when a run happened, or the error that stopped
 * the prediction before one: never both, never neither.
 */
function reasonOrError(line: { verdict: unknown; reason: unknown; error: unknown }): boolean {
  const ran = line.reason !== null;
  return ran === (line.error === null) && ran === (line.verdict !== null);
}

/** One line of results.jsonl (`grade --batch`), and of a queue worker's answer. */
export const ResultLineSchema = z
  .strictObject({
    id: z.string(),
    task: z.string(),
    outcome: OutcomeSchema,
    /** The grader's verdict when a run happened, null when none did. */
    verdict: z.enum(["PASS", "FAIL"]).nullable(),
    /** The run's reason code (PASS, TESTS_FAILED, …, INFRA_ERROR); null when no run happened. */
    reason: ReasonCodeSchema.nullable(),
    /** The error code that stopped the prediction before a run (TASK_QUARANTINED, DIFF_UNREADABLE, …); null after a run. */
    error: ErrorCodeSchema.nullable(),
    message: z.string(),
    testsHash: z.string().nullable(),
    /** The oracle log of the counted run, on the host that ran it. */
    log: z.string().nullable(),
    seconds: z.number().nonnegative(),
    /** True when the result was reused from the result cache instead of running the grade. */
    cached: z.boolean(),
    /** Runs it took (INFRA_ERROR runs are retried). 0 when cached or no run happened. */
    attempts: z.number().int().nonnegative(),
    diffSha256: z.string().nullable(),
    imageDigest: z.string().nullable(),
    /**
     * The task folder's content hash it was graded on (the batch's key; see the grader's
     * task-hash.ts). The batch writes it on every line; a worker's answer leaves it to the batch.
     */
    taskHash: z.string().nullable().optional(),
    /** The grader that graded it (written by the batch, like taskHash). */
    graderVersion: z.string().nullable().optional(),
    /** The wall-clock limit it was graded with: the task's, or the batch's --timeout (written by the batch). */
    timeoutSeconds: z.number().nullable().optional(),
    /**
     * Whether the task was validated by a quarantine sweep on the inputs this line was graded on
     * (current), changed since (stale) or never judged.
     */
    validation: ValidationStateSchema.optional(),
    /** `host:pid` of the process that graded it. */
    worker: z.string().nullable(),
    /** The line signed by the installation that wrote it (attestation.ts); resume and the cache trust nothing else. */
    attestation: DsseEnvelopeSchema.optional(),
  })
  .refine(reasonOrError, {
    message: "a line carries a verdict and reason (a run happened) or an error (none did), not both",
    path: ["reason"],
  });
export type ResultLine = z.output<typeof ResultLineSchema>;

/**
 * A line of results.jsonl in the format graders wrote before this one (snake_case keys, `reason`
 * holding a reason or an error code). Recognised only so that a resume says so and grades the
 * prediction again; it is never reused or converted.
 */
export const LegacyResultLineSchema = z.looseObject({
  id: z.string(),
  outcome: z.string(),
  tests_hash: z.string().nullable(),
});

const TallySchema = z.strictObject({
  /** The denominator: graded lines and infra errors. */
  graded: z.number().int().nonnegative(),
  pass: z.number().int().nonnegative(),
  /** Not passed: FAIL verdicts and infra errors (the summary's `infraErrors` lists those). */
  fail: z.number().int().nonnegative(),
  /** pass / graded, null when nothing was graded. */
  passRate: z.number().nullable(),
});

const IdsSchema = z.strictObject({ count: z.number().int().nonnegative(), ids: z.array(z.string()) });

/** A batch's figures, computed from results.jsonl (what `gradeBatch` returns and summary.json holds). */
export const BatchSummarySchema = z.strictObject({
  predictions: z.number().int().nonnegative(),
  /** Predictions with a line in results.jsonl. */
  done: z.number().int().nonnegative(),
  /** Predictions still without a result (an interrupted batch). */
  missing: z.number().int().nonnegative(),
  /** Over graded predictions and infra errors; quarantined tasks and errors are not counted. */
  overall: TallySchema,
  byTask: z.record(
    z.string(),
    z.strictObject({
      ...TallySchema.shape,
      quarantined: z.number().int().nonnegative(),
      infraErrors: z.number().int().nonnegative(),
      errors: z.number().int().nonnegative(),
    }),
  ),
  /** Lines per reason code, over the predictions that ran. */
  byReason: z.partialRecord(ReasonCodeSchema, z.number().int().positive()),
  /** Lines per error code, over the predictions that did not run. */
  byError: z.partialRecord(ErrorCodeSchema, z.number().int().positive()),
  quarantined: IdsSchema,
  /**
   * Predictions that ran on tasks that are not `current`, the tasks with their state, and whether
   * they are counted in the rates (only with --allow-unvalidated).
   */
  unvalidated: z.strictObject({
    ...IdsSchema.shape,
    tasks: z.record(z.string(), z.enum(["stale", "never"])),
    counted: z.boolean(),
  }),
  infraErrors: IdsSchema,
  errors: IdsSchema,
  /** Results reused from the result cache. */
  cached: z.number().int().nonnegative(),
  /** Sum of the runs' seconds (cached results count 0). */
  gradeSeconds: z.number().nonnegative(),
});
export type BatchSummary = z.output<typeof BatchSummarySchema>;

/** summary.json in a batch's output folder: the summary, with the batch and the grader. */
export const BatchSummaryFileSchema = z.strictObject({
  batchId: z.string(),
  graderVersion: z.string(),
  ...BatchSummarySchema.shape,
});
export type BatchSummaryFile = z.output<typeof BatchSummaryFileSchema>;

/** batch.json in a batch's output folder: the batch id (kept across resumes; queue job ids derive from it). */
export const BatchFileSchema = z.strictObject({
  batchId: z.string().regex(/^[0-9a-f-]{36}$/),
  predictionsFile: z.string(),
  predictionsSha256: z.string(),
  createdAt: z.string(),
  /** The root it was first graded with (absent in older batches): a resume under another root is refused. */
  root: z.string().optional(),
});
export type BatchFile = z.output<typeof BatchFileSchema>;

/** The DSSE payload type of a batch manifest (manifest.json). */
export const BATCH_MANIFEST_PAYLOAD_TYPE = "application/vnd.oracle.batch-manifest+json";

/**
 * manifest.json in a batch's output folder: every prediction the batch grades (id and task), signed
 * by the installation at each run. A results.jsonl line can be deleted without breaking any
 * signature; the manifest says it is missing (the gate reads it).
 */
export const BatchManifestSchema = z.strictObject({
  batchId: z.string(),
  predictionsSha256: z.string(),
  writtenAt: z.string(),
  predictions: z.array(z.strictObject({ id: z.string(), task: z.string() })),
  /** The root (tasks/, images/) and the --timeout it was graded with: what a regrade must repeat. */
  root: z.string(),
  timeoutSeconds: z.number().nullable(),
  /** The fields above (canonical JSON, keys sorted) in a DSSE envelope. */
  attestation: DsseEnvelopeSchema,
});
export type BatchManifest = z.output<typeof BatchManifestSchema>;

/** Everything a verdict depends on; equal inputs give an equal verdict and testsHash. */
export const CacheInputsSchema = z.strictObject({
  graderVersion: z.string(),
  imageDigest: z.string(),
  taskHash: z.string(),
  diffSha256: z.string(),
  /** The wall-clock limit the run had (the task's, or the batch's override). */
  timeoutSeconds: z.number(),
});
export type CacheInputs = z.output<typeof CacheInputsSchema>;

/** One recorded result, `<root>/.oracle/cache/results/<key[0:2]>/<key>.json`. */
export const ResultCacheEntrySchema = z.strictObject({
  key: z.string(),
  inputs: CacheInputsSchema,
  verdict: z.enum(["PASS", "FAIL"]),
  reason: ReasonCodeSchema,
  message: z.string(),
  testsHash: z.string().nullable(),
  log: z.string().nullable(),
  seconds: z.number(),
  storedAt: z.string(),
  /** The signed line it was recorded from: an entry whose signature or claims do not verify is a miss. */
  attestation: DsseEnvelopeSchema,
});
export type ResultCacheEntry = z.output<typeof ResultCacheEntrySchema>;
