import type { GradeOptions } from "@oracle/grader";
import type { GradeResult, QuarantineFlag, QuarantineReason, ReasonCode, SuiteResult } from "@oracle/spec";

/** The options of `grade()` from @oracle/grader, as the sweep uses them (the shared contract). */
export type { GradeOptions };

/** `grade()` from @oracle/grader; injected so the sweep logic can be tested with a small fake. */
export type GradeFn = (options: GradeOptions) => Promise<GradeResult>;

/** A check is one kind of run repeated K times: the baseline, or the task's gold.diff. */
export type CheckMode = "baseline" | "gold";

/** Why a run ended: the grader's reason, or TASK_INVALID when the grader refused the task. */
export type RunReason = ReasonCode | "TASK_INVALID";

/**
 * What the grade result says about the oracle's sentinel in the hidden suite: collected (it ran and
 * behaved), not-collected (the hidden command never ran it), none (no sentinel for this framework).
 * Null when the result does not say (a grader without the field).
 */
export type SentinelStatus = "collected" | "not-collected" | "none" | null;

export interface SuiteSummary {
  status: SuiteResult["status"];
  reason: ReasonCode | null;
  counts: SuiteResult["counts"];
}

/** One run of one check, after infra retries. */
export interface RunRecord {
  mode: CheckMode;
  /** 1..K */
  repeat: number;
  /** 1 + the number of infra retries it took. */
  attempts: number;
  verdict: "PASS" | "FAIL" | null;
  reason: RunReason;
  message: string;
  existing: SuiteSummary | null;
  hidden: SuiteSummary | null;
  sentinel: SentinelStatus;
  /** Why the sentinel may not be collected (the result's `sentinel.note`), when it says. */
  sentinelNote?: string;
  /** How many hidden tests ran twice (the result's `sentinel.twins`), when it says. */
  twins?: number;
  /** The same for the existing suite's sentinel (the result's `suites.existing.sentinel`), when it says. */
  existingSentinel?: SentinelStatus;
  existingSentinelNote?: string;
  testsHash: string | null;
  durationMs: number;
  /** The grader's step timings (ms), e.g. create, start, prep.existing, suite.existing, ... */
  timings: Record<string, number>;
  /** Oracle log of the counted attempt, relative to the root (forward slashes); null when none was written. */
  log: string | null;
  /** Oracle logs of the attempts that ended in INFRA_ERROR and were retried. */
  retriedLogs: string[];
}

/** A run plus its per-test outcomes; the outcomes are compared across repeats, not reported whole. */
export interface RunObservation {
  record: RunRecord;
  tests: ReadonlyMap<string, string>;
  /** Whether `tests` holds every test of both reports (the result listed them all). */
  complete: boolean;
}

/** What the sweep found about one task. */
export type TaskStatus = "healthy" | "quarantined" | "infra-error";

export interface InfraSummary {
  /** Runs still INFRA_ERROR after every retry: their checks are inconclusive. */
  failedRuns: number;
  /** Retries spent, including the ones that later succeeded. */
  retries: number;
  messages: string[];
  logs: string[];
}

export interface TaskReport {
  id: string;
  status: TaskStatus;
  reasons: QuarantineReason[];
  infra: InfraSummary;
  /** Whether the task was on tasks/quarantine.json before this sweep. */
  wasQuarantined: boolean;
  /** newly quarantined | released | still quarantined | unchanged */
  change: "new" | "released" | "kept" | "none";
  firstSeen: string | null;
  hasGold: boolean;
  /** Some run had no in-process protection (its result's sentinel.state was "none"); the reports mark it. */
  unprotected: boolean;
  /** Protected by the must-fail/must-pass pair only (a run collected it with no twin): the reports mark it. */
  pairOnly: boolean;
  /** What the sweep did about the task's expected tests (declared, recorded, or why not). */
  expected: string;
  runs: RunRecord[];
  /** Sum of the runs' durations. */
  runMs: number;
}

export interface SweepCounts {
  tasks: number;
  healthy: number;
  quarantined: number;
  infraError: number;
  newlyQuarantined: number;
  released: number;
  runs: number;
  infraRetries: number;
  flags: Partial<Record<QuarantineFlag, number>>;
}

/** report.json, and what `sweep()` returns. */
export interface SweepReport {
  version: 1;
  root: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  options: { tasks: string[]; repeat: number; concurrency: number; infraRetries: number };
  counts: SweepCounts;
  newlyQuarantined: string[];
  released: string[];
  /** Entries dropped from tasks/quarantine.json because their task folder is gone. */
  removed: string[];
  quarantineFile: string;
  reportDir: string;
  sweepLog: string;
  tasks: TaskReport[];
}
