import { z } from "zod";
import { DsseEnvelopeSchema } from "./attestation.js";
import { ReasonCodeSchema } from "./result.js";

/** `.invalid`: a name, never fetched. The gate's decision, signed like a grade. */
export const GATE_PREDICATE_TYPE = "https://oracle.invalid/attestation/gate/v1";

export const GATE_DECISIONS = ["promote", "reject", "inconclusive"] as const;
export const GateDecisionSchema = z.enum(GATE_DECISIONS);
export type GateDecision = z.output<typeof GateDecisionSchema>;

/** A batch the gate read: its folder, id, results file hash and whether it is complete. */
const GateBatchSchema = z.strictObject({
  dir: z.string(),
  batchId: z.string(),
  createdAt: z.string(),
  /** SHA-256 of results.jsonl as read: the decision holds for exactly these results. */
  resultsSha256: z.string(),
  predictionsFile: z.string(),
  /** SHA-256 of the predictions file it graded: from its signed manifest, else batch.json (unsigned). */
  predictionsSha256: z.string(),
  /** Whether a signed manifest listed its predictions. */
  manifest: z.boolean(),
  /** The root and --timeout it was graded with (from its signed manifest; null for an older batch). */
  root: z.string().nullable(),
  timeoutSeconds: z.number().nullable(),
  lines: z.number().int().nonnegative(),
  /** The keys that signed its lines (ids). */
  signedBy: z.array(z.string()),
  /**
   * `complete`: every prediction of its predictions file (same SHA-256 as batch.json records) has a
   * line; `incomplete`: some have none (`missing`); `unchecked`: the predictions file is gone or changed.
   */
  completeness: z.enum(["complete", "incomplete", "unchecked"]),
  missing: z.array(z.string()),
});
export type GateBatch = z.output<typeof GateBatchSchema>;

/** One sample of a side, as the per-task table lists it. */
const GateSampleSchema = z.strictObject({
  id: z.string(),
  reason: ReasonCodeSchema.nullable(),
  class: z.enum(["pass", "fail", "tamper", "infra", "task"]).nullable(),
  log: z.string().nullable(),
  diffSha256: z.string().nullable(),
});

const GateSideSchema = z.strictObject({
  passes: z.number().int().nonnegative(),
  fails: z.number().int().nonnegative(),
  /** Samples whose outcome says more about the machine than the diff (INFRA_ERROR, TIMEOUT). */
  unknown: z.number().int().nonnegative(),
  samples: z.array(GateSampleSchema),
});

export const GATE_TASK_OUTCOMES = ["gain", "regression", "both pass", "both fail", "tie", "unknown"] as const;

const GateTaskSchema = z.strictObject({
  task: z.string(),
  outcome: z.enum(GATE_TASK_OUTCOMES),
  /** Candidate's pass share minus incumbent's, over the known samples (null when a side has none). */
  difference: z.number().nullable(),
  candidate: GateSideSchema,
  incumbent: GateSideSchema,
});
export type GateTask = z.output<typeof GateTaskSchema>;

const DecisionOnlySchema = z.strictObject({
  decision: z.enum(["promote", "reject"]),
  effect: z.number(),
  lower: z.number(),
  upper: z.number(),
});

export const GateTestSchema = z.strictObject({
  method: z.enum(["exact McNemar", "paired bootstrap"]),
  tasks: z.number().int().nonnegative(),
  /** The effect: candidate's pass rate minus incumbent's, averaged over tasks, on the known samples. */
  effect: z.number(),
  lower: z.number(),
  upper: z.number(),
  /** 1 − alpha. */
  level: z.number(),
  /** Exact McNemar's two-sided p, or the bootstrap's (twice the smaller share of resamples across 0). */
  pValue: z.number(),
  /** How the interval is made: Tango's score interval (one sample), the percentile bootstrap (k). */
  interval: z.string(),
  counts: z.strictObject({
    gains: z.number().int().nonnegative(),
    regressions: z.number().int().nonnegative(),
    bothPass: z.number().int().nonnegative(),
    bothFail: z.number().int().nonnegative(),
    ties: z.number().int().nonnegative(),
  }),
  /**
   * The decision with every unknown sample counted against the candidate (a candidate fail, an
   * incumbent pass) and for it: when the two differ, noise could decide, and the gate is inconclusive.
   */
  sensitivity: z
    .strictObject({
      unknownSamples: z.number().int().positive(),
      against: DecisionOnlySchema,
      for: DecisionOnlySchema,
    })
    .nullable(),
});
export type GateTest = z.output<typeof GateTestSchema>;

/** gate.json: the decision, everything it rests on, and (where signing exists) its signature. */
export const GateReportSchema = z.strictObject({
  decision: GateDecisionSchema,
  /** One sentence: why. */
  why: z.string(),
  parameters: z.strictObject({
    mode: z.enum(["superiority", "non-inferiority"]),
    margin: z.number(),
    alpha: z.number(),
    maxInfra: z.number(),
    resamples: z.number().int().positive(),
    seed: z.number().int(),
    allowUnvalidated: z.boolean(),
    allowMissing: z.boolean(),
  }),
  candidate: GateBatchSchema,
  incumbent: GateBatchSchema,
  /** Candidate samples whose verdict means tampering: any rejects the model. */
  veto: z.array(
    z.strictObject({
      id: z.string(),
      task: z.string(),
      reason: ReasonCodeSchema,
      diffSha256: z.string().nullable(),
      log: z.string().nullable(),
      message: z.string(),
    }),
  ),
  /** Each side's pass rate over the known samples of the compared tasks. */
  passRates: z.strictObject({
    candidate: z.strictObject({
      passes: z.number().int(),
      samples: z.number().int(),
      rate: z.number().nullable(),
    }),
    incumbent: z.strictObject({
      passes: z.number().int(),
      samples: z.number().int(),
      rate: z.number().nullable(),
    }),
  }),
  infra: z.strictObject({
    threshold: z.number(),
    candidate: z.strictObject({ samples: z.number().int(), unknown: z.number().int(), rate: z.number() }),
    incumbent: z.strictObject({ samples: z.number().int(), unknown: z.number().int(), rate: z.number() }),
  }),
  /** Tasks left out of the test, and why (quarantined, not validated, no run, the task failed). */
  excluded: z.array(z.strictObject({ task: z.string(), why: z.string() })),
  /** Tasks graded on one side only. */
  unpaired: z.strictObject({ candidate: z.array(z.string()), incumbent: z.array(z.string()) }),
  test: GateTestSchema.nullable(),
  tasks: z.array(GateTaskSchema),
  /** Commands that would make an inconclusive gate decide (regrade, resume). */
  next: z.array(z.string()),
  warnings: z.array(z.string()),
  graderVersion: z.string(),
  decidedAt: z.string(),
  /** The report without this field, as an in-toto statement in a DSSE envelope (subject: both results files). */
  attestation: DsseEnvelopeSchema.optional(),
});
export type GateReport = z.output<typeof GateReportSchema>;
