import type { GradeOptions } from "@oracle/grader";
import type { GradeResult, RunRecord } from "@oracle/spec";

/** The options of `grade()` from @oracle/grader, as the sweep uses them (the shared contract). */
export type { GradeOptions };

/** `grade()` from @oracle/grader; injected so the sweep logic can be tested with a small fake. */
export type GradeFn = (options: GradeOptions) => Promise<GradeResult>;

/** report.json's parts: their schemas are @oracle/spec's (SweepReportSchema). */
export type {
  CheckMode,
  InfraSummary,
  RunReason,
  RunRecord,
  SentinelStatus,
  SuiteSummary,
  SweepCounts,
  SweepReport,
  TaskReport,
  TaskStatus,
} from "@oracle/spec";

/** A run plus its per-test outcomes; the outcomes are compared across repeats, not reported whole. */
export interface RunObservation {
  record: RunRecord;
  tests: ReadonlyMap<string, string>;
  /** Whether `tests` holds every test of both reports (the result listed them all). */
  complete: boolean;
  /** The grade ended in the oracle's own bug (INTERNAL): recorded as an INFRA_ERROR run, never retried. */
  oracleBug?: true;
}
