import { z } from "zod";
import { QuarantineReasonSchema } from "./quarantine.js";
import { ReasonCodeSchema, SealsResultSchema, SentinelStateSchema, SuiteResultSchema } from "./result.js";

/** A check is one kind of run repeated K times: the baseline, or the task's gold.diff. */
export const CheckModeSchema = z.enum(["baseline", "gold"]);
export type CheckMode = z.output<typeof CheckModeSchema>;

/** Why a run ended: the grader's reason, or TASK_INVALID when the grader refused the task. */
export const RunReasonSchema = z.union([ReasonCodeSchema, z.literal("TASK_INVALID")]);
export type RunReason = z.output<typeof RunReasonSchema>;

/** A suite of a run, as the report keeps it: its status, reason and counts. */
export const SuiteSummarySchema = z.strictObject({
  status: SuiteResultSchema.shape.status,
  reason: ReasonCodeSchema.nullable(),
  counts: SuiteResultSchema.shape.counts,
});
export type SuiteSummary = z.output<typeof SuiteSummarySchema>;

/**
 * What the grade result says about the oracle's sentinel: collected (it ran and behaved),
 * not-collected (the command never ran it), none (no sentinel for this framework). Null when the
 * result does not say (a grader without the field).
 */
export const SentinelStatusSchema = SentinelStateSchema.nullable();
export type SentinelStatus = z.output<typeof SentinelStatusSchema>;

/** One run of one check, after infra retries. */
export const RunRecordSchema = z.strictObject({
  mode: CheckModeSchema,
  /** 1..K */
  repeat: z.number().int().positive(),
  /** 1 + the number of infra retries it took. */
  attempts: z.number().int().positive(),
  verdict: z.enum(["PASS", "FAIL"]).nullable(),
  reason: RunReasonSchema,
  message: z.string(),
  existing: SuiteSummarySchema.nullable(),
  hidden: SuiteSummarySchema.nullable(),
  sentinel: SentinelStatusSchema,
  /** Why the sentinel may not be collected (the result's `sentinel.note`), when it says. */
  sentinelNote: z.string().optional(),
  /** What the hidden suite's seals showed (the result's `seals`), when it had some. */
  seals: SealsResultSchema.optional(),
  /** The same for the existing suite's sentinel (the result's `suites.existing.sentinel`), when it says. */
  existingSentinel: SentinelStatusSchema.optional(),
  existingSentinelNote: z.string().optional(),
  testsHash: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  /** The grader's step timings (ms), e.g. create, start, prep.existing, suite.existing, ... */
  timings: z.record(z.string(), z.number()),
  /** Oracle log of the counted attempt, relative to the root (forward slashes); null when none was written. */
  log: z.string().nullable(),
  /** Oracle logs of the attempts that ended in INFRA_ERROR and were retried. */
  retriedLogs: z.array(z.string()),
});
export type RunRecord = z.output<typeof RunRecordSchema>;

/** What the sweep found about one task. */
export const TaskStatusSchema = z.enum(["healthy", "quarantined", "infra-error"]);
export type TaskStatus = z.output<typeof TaskStatusSchema>;

/** What the engine's failures cost a task's checks. */
export const InfraSummarySchema = z.strictObject({
  /** Runs still INFRA_ERROR after every retry: their checks are inconclusive. */
  failedRuns: z.number().int().nonnegative(),
  /** Retries spent, including the ones that later succeeded. */
  retries: z.number().int().nonnegative(),
  messages: z.array(z.string()),
  logs: z.array(z.string()),
});
export type InfraSummary = z.output<typeof InfraSummarySchema>;

/** One task of the sweep: its status, the reasons it is quarantined, its runs. */
export const TaskReportSchema = z.strictObject({
  id: z.string(),
  status: TaskStatusSchema,
  reasons: z.array(QuarantineReasonSchema),
  infra: InfraSummarySchema,
  /** Whether the task was on tasks/quarantine.json before this sweep. */
  wasQuarantined: z.boolean(),
  /** newly quarantined | released | still quarantined | unchanged */
  change: z.enum(["new", "released", "kept", "none"]),
  firstSeen: z.string().nullable(),
  hasGold: z.boolean(),
  /** Some run had no in-process protection (its result's sentinel.state was "none"); the reports mark it. */
  unprotected: z.boolean(),
  /**
   * What the seals protect (docs/security.md, "Sealed expectations"): the FAIL_TO_PASS tests a strong
   * seal decides (at baseline it failed, or its record was missing), of all of them, and those it
   * does not (at most 50). Absent when the task has no FAIL_TO_PASS test known or no seal.
   */
  seals: z
    .strictObject({
      failToPass: z.number().int().nonnegative(),
      sealed: z.number().int().nonnegative(),
      unsealed: z.array(z.string()),
      /**
       * Each of `unsealed` with the rule that leaves it so (@oracle/test-set rules.ts, a row of
       * docs/security.md "Sealed expectations"), where the sweep could plan the task's seals.
       */
      rules: z.record(z.string(), z.string()).optional(),
      /** What the sweep did about the seals' record (tasks/<id>/seals.recorded.json). */
      recorded: z.string(),
    })
    .optional(),
  /** What the sweep did about the task's expected tests (declared, recorded, or why not). */
  expected: z.string(),
  runs: z.array(RunRecordSchema),
  /** Sum of the runs' durations. */
  runMs: z.number().nonnegative(),
});
export type TaskReport = z.output<typeof TaskReportSchema>;

const count = z.number().int().nonnegative();

/** The sweep's totals. */
export const SweepCountsSchema = z.strictObject({
  tasks: count,
  healthy: count,
  quarantined: count,
  infraError: count,
  newlyQuarantined: count,
  released: count,
  runs: count,
  infraRetries: count,
  flags: z.partialRecord(QuarantineReasonSchema.shape.flag, count),
  /** The swept tasks' FAIL_TO_PASS tests with no strong seal, by the rule that leaves each so. */
  unsealedByRule: z.record(z.string(), count).optional(),
});
export type SweepCounts = z.output<typeof SweepCountsSchema>;

/** The quarantine sweep's report.json, and what `sweep()` returns. */
export const SweepReportSchema = z.strictObject({
  version: z.literal(1),
  root: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  options: z.strictObject({
    tasks: z.array(z.string()),
    repeat: count,
    concurrency: count,
    infraRetries: count,
  }),
  counts: SweepCountsSchema,
  newlyQuarantined: z.array(z.string()),
  released: z.array(z.string()),
  /** Entries dropped from tasks/quarantine.json because their task folder is gone. */
  removed: z.array(z.string()),
  /**
   * Tasks --changed swept only because their seal record (tasks/<id>/seals.recorded.json) was made
   * for another seal plan: the oracle's planners or rules changed since their last sweep.
   */
  staleSealRecords: z.array(z.string()).optional(),
  quarantineFile: z.string(),
  reportDir: z.string(),
  sweepLog: z.string(),
  tasks: z.array(TaskReportSchema),
});
export type SweepReport = z.output<typeof SweepReportSchema>;
