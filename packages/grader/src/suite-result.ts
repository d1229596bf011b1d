import type { ReasonCode, SentinelState, SuiteResult, TestCase } from "@oracle/spec";
import { parseJUnit, ReportInvalidError, type SuiteName } from "./junit.js";
import { checkSentinel, type Sentinel } from "./sentinels.js";

/** What the collect step found at $ORACLE_JUNIT. */
export type ReportRead = { kind: "ok"; xml: string } | { kind: "missing" } | { kind: "invalid"; why: string };

export interface SuiteRun {
  /** The must-fail/must-pass sentinels appended to this suite's files, if any: their tests must show in the report. */
  sentinel?: Sentinel | null;
  suite: SuiteName;
  exitCode: number | null;
  durationMs: number;
  report: ReportRead;
  output: { bytes: number; truncated: boolean };
}

/** A suite that did not run (the run ended before it). */
export function notRunSuite(reason?: ReasonCode): SuiteResult {
  return {
    status: "NOT_RUN",
    ...(reason ? { reason } : {}),
    exitCode: null,
    durationMs: 0,
    counts: { passed: 0, failed: 0, error: 0, skipped: 0 },
    tests: [],
    output: { bytes: 0, truncated: false },
  };
}

function countOutcomes(tests: TestCase[]): SuiteResult["counts"] {
  const counts = { passed: 0, failed: 0, error: 0, skipped: 0 };
  for (const test of tests) counts[test.outcome] += 1;
  return counts;
}

/** The suite's reason from its report and exit code; PASS when every test that ran passed. */
export function suiteReason(tests: TestCase[], exitCode: number | null): ReasonCode {
  const counts = countOutcomes(tests);
  if (counts.failed + counts.error > 0) return "TESTS_FAILED";
  if (counts.passed === 0) return "NO_TESTS_RAN";
  if (exitCode !== 0) return "REPORT_INCONSISTENT";
  return "PASS";
}

/** Judges one suite from its exit code and report. */
export function judgeSuite(run: SuiteRun): {
  result: SuiteResult;
  message: string;
  /** What the sentinels showed (`none` without sentinels or without a readable report). */
  sentinel: SentinelState;
} {
  const base = { exitCode: run.exitCode, durationMs: run.durationMs, output: run.output };
  let tests: TestCase[] = [];
  let reason: ReasonCode;
  let message: string;
  let sentinel: SentinelState = "none";
  if (run.report.kind === "missing") {
    reason = "REPORT_MISSING";
    message = `${run.suite} suite wrote no report to $ORACLE_JUNIT (exit code ${run.exitCode})`;
  } else if (run.report.kind === "invalid") {
    reason = "REPORT_INVALID";
    message = `${run.suite} suite's report: ${run.report.why}`;
  } else {
    try {
      tests = parseJUnit(run.report.xml, run.suite);
      const checked = run.sentinel ? checkSentinel(run.sentinel, tests, run.exitCode) : null;
      if (checked) {
        tests = checked.tests;
        sentinel = checked.state;
      }
      if (checked?.problem) {
        reason = "REPORT_INCONSISTENT";
        message = `${run.suite} suite: ${checked.problem}`;
      } else {
        const exitCode = checked ? checked.exitCode : run.exitCode;
        reason = suiteReason(tests, exitCode);
        message = describe(run.suite, reason, tests, exitCode);
      }
    } catch (error) {
      if (!(error instanceof ReportInvalidError)) throw error;
      reason = "REPORT_INVALID";
      message = `${run.suite} suite's report: ${error.message}`;
    }
  }
  const result: SuiteResult = {
    status: reason === "PASS" ? "PASS" : "FAIL",
    ...(reason === "PASS" ? {} : { reason }),
    ...base,
    counts: countOutcomes(tests),
    tests,
  };
  return { result, message, sentinel };
}

function describe(suite: SuiteName, reason: ReasonCode, tests: TestCase[], exitCode: number | null): string {
  const counts = countOutcomes(tests);
  const summary = `${counts.passed} passed, ${counts.failed} failed, ${counts.error} errors, ${counts.skipped} skipped`;
  if (reason === "REPORT_INCONSISTENT")
    return `${suite} suite: runner exited ${exitCode} but its report says all passed (${summary})`;
  if (reason === "NO_TESTS_RAN") return `${suite} suite: no test ran (${summary})`;
  return `${suite} suite: ${summary}`;
}

/** Ids of the tests that ran (not skipped). */
export function ranIds(result: SuiteResult): string[] {
  return result.tests.filter((t) => t.outcome !== "skipped").map((t) => t.id);
}
