import type { QuarantineFlag } from "@oracle/spec";
import type { CheckMode, RunReason, RunRecord, SuiteSummary } from "./types.js";

/** One problem seen in one run (or across the runs of one check). */
export interface Finding {
  flag: QuarantineFlag;
  mode: CheckMode;
  detail: string;
  logs: string[];
}

/** Run-level reasons that end a run before its suites say anything, and the flag each one means. */
const STOPPING_REASONS: Partial<Record<RunReason, QuarantineFlag>> = {
  TASK_INVALID: "INVALID_TASK",
  CHECKOUT_FAILED: "INVALID_TASK",
  IMAGE_NOT_BUILT: "IMAGE_NOT_BUILT",
  TIMEOUT: "TIMEOUT",
  OUT_OF_MEMORY: "OUT_OF_MEMORY",
};

function counted(suite: SuiteSummary): string {
  const { passed, failed, error, skipped } = suite.counts;
  return `${passed} passed, ${failed} failed, ${error} errors, ${skipped} skipped`;
}

function finding(flag: QuarantineFlag, run: RunRecord, detail: string): Finding {
  return { flag, mode: run.mode, detail, logs: run.log ? [run.log] : [] };
}

function stoppedRun(run: RunRecord): Finding | null {
  const flag = STOPPING_REASONS[run.reason];
  return flag ? finding(flag, run, `${run.reason}: ${run.message}`) : null;
}

/** The grader's message for a runner that exited non-zero with every test of the existing suite's report passed. */
const AFTER_PASS = /^existing suite: runner exited \d+ but its report says all passed/;

function existingAtBaseline(run: RunRecord, existing: SuiteSummary | null): Finding | null {
  if (existing === null || existing.status === "NOT_RUN") {
    return finding("EXISTING_SUITE_FAILS", run, `the existing suite did not run (${run.reason})`);
  }
  if (existing.status === "PASS") return null;
  if (existing.reason === "NO_TESTS_RAN") return finding("NO_EXISTING_TESTS", run, "no existing test ran");
  // Its sentinel contradicted the report: the existing suite's own tests are not the problem.
  if (existing.reason === "REPORT_INCONSISTENT" && hasSentinel(run.existingSentinel)) return null;
  // Every test passed and the runner still exited non-zero (unjs/destr f9c78d4: vitest 0.34 could not
  // write its cache after the tests): the cause is no test, and narrowing the suite cannot help.
  if (existing.reason === "REPORT_INCONSISTENT" && AFTER_PASS.test(run.message))
    return finding(
      "EXISTING_SUITE_FAILS",
      run,
      `REPORT_INCONSISTENT: ${run.message}: no test failed, what fails runs after the tests (a file the runner writes where it cannot, a coverage threshold, an error after the tests: the suite's output in the log names it), so narrowing the suite does not help`,
    );
  return finding("EXISTING_SUITE_FAILS", run, `${existing.reason ?? "FAIL"}: ${counted(existing)}`);
}

const hasSentinel = (state: RunRecord["existingSentinel"]) =>
  state === "collected" || state === "not-collected";

/**
 * The existing suite's sentinel at baseline: its pair must run and behave, or no graded run can
 * tell a runner patched for the existing tests from an honest one (and a correct diff may FAIL).
 */
function existingSentinelAtBaseline(run: RunRecord): Finding | null {
  // No existing test ran at all: NO_EXISTING_TESTS says so, and its sentinel had nothing to run beside.
  if (run.existing?.reason === "NO_TESTS_RAN") return null;
  const note = run.existingSentinelNote ? ` (${run.existingSentinelNote})` : "";
  if (run.existing?.reason === "REPORT_INCONSISTENT" && hasSentinel(run.existingSentinel))
    return finding("EXISTING_SENTINEL_FAILS", run, `REPORT_INCONSISTENT: ${run.message}${note}`);
  if (run.existingSentinel === "not-collected")
    return finding(
      "EXISTING_SENTINEL_FAILS",
      run,
      `the grade result says the existing suite's sentinel was not collected${note}`,
    );
  return null;
}

/** Reasons of a hidden suite that failed on its report (or its seals' records), not on its tests. */
const REPORT_PROBLEMS: ReadonlySet<string> = new Set([
  "REPORT_MISSING",
  "REPORT_INVALID",
  "SEAL_RECORDS_INCONSISTENT",
]);

/** A hidden suite that said REPORT_INCONSISTENT at baseline: its sentinel not run, unless the result says it was. */
function inconsistentAtBaseline(run: RunRecord, hidden: SuiteSummary): Finding {
  const detail = `REPORT_INCONSISTENT: ${run.message}`;
  return run.sentinel === "collected"
    ? finding("HIDDEN_REPORT_UNUSABLE", run, detail)
    : finding("SENTINEL_NOT_COLLECTED", run, `${detail} (${counted(hidden)})`);
}

function hiddenAtBaseline(run: RunRecord, existingRan: boolean, hidden: SuiteSummary | null): Finding | null {
  if (hidden === null || hidden.status === "NOT_RUN") {
    return existingRan ? finding("NO_HIDDEN_TESTS", run, "the hidden suite did not run") : null;
  }
  if (hidden.status === "PASS") return finding("HIDDEN_PASS_AT_BASELINE", run, counted(hidden));
  const failedTests = hidden.counts.failed + hidden.counts.error;
  // A value that is not plain data at baseline is a failed test like any other (the unfixed code's).
  if ((hidden.reason === "TESTS_FAILED" || hidden.reason === "VALUE_NOT_PLAIN_DATA") && failedTests > 0)
    return null;
  if (hidden.reason === "REPORT_INCONSISTENT") return inconsistentAtBaseline(run, hidden);
  const why = `${hidden.reason ?? "FAIL"}: ${counted(hidden)}`;
  if (hidden.reason && REPORT_PROBLEMS.has(hidden.reason))
    // The result's message is the hidden suite's only when the run's reason is (else it tells of the existing suite).
    return finding(
      "HIDDEN_REPORT_UNUSABLE",
      run,
      run.reason === hidden.reason ? `${why}: ${run.message}` : why,
    );
  return finding("NO_HIDDEN_TESTS", run, `no hidden test ran and failed (${why})`);
}

/** A result that says the hidden command never ran the sentinel, whatever the suite's status. */
function sentinelAtBaseline(run: RunRecord): Finding | null {
  // The seals decide where a strong one stands: the pair matters only where no comparison is sealed.
  if ((run.seals?.ran?.strong ?? 0) > 0) return null;
  // A command that stops at its first failure (-x, --bail, -failfast) gets no sentinel: one flag away from protected.
  if (run.sentinel === "none" && run.sentinelNote && /stops at its first failure/.test(run.sentinelNote))
    return finding(
      "SENTINEL_NOT_COLLECTED",
      run,
      `no sentinel can run: ${run.sentinelNote}; a run that stops at its first failure cannot carry the oracle's must-fail test`,
    );
  // A Go `-run` that selects no test named like a hidden file's (a subtest level, a pattern the oracle
  // cannot widen): no pair can be named so that it runs.
  if (
    run.sentinel === "none" &&
    run.sentinelNote &&
    /selects no test named like those of/.test(run.sentinelNote)
  )
    return finding(
      "SENTINEL_NOT_COLLECTED",
      run,
      `no sentinel can run: ${run.sentinelNote}; select the hidden tests by their whole names (-run '^(TestA|TestB)$') or by package`,
    );
  if (run.sentinel !== "not-collected" || run.hidden?.reason === "REPORT_INCONSISTENT") return null;
  const why = run.sentinelNote ? `: ${run.sentinelNote}` : "";
  return finding("SENTINEL_NOT_COLLECTED", run, `the grade result says the sentinel was not collected${why}`);
}

/**
 * What one baseline run says about its task. A healthy baseline: the existing suite PASS, and the
 * hidden suite FAIL with TESTS_FAILED because at least one of its tests ran and failed (not a report
 * problem, not nothing-ran), both suites' sentinels run and behaving. INFRA_ERROR runs say nothing.
 */
export function baselineFindings(run: RunRecord): Finding[] {
  if (run.reason === "INFRA_ERROR") return [];
  const stopped = stoppedRun(run);
  if (stopped) return [stopped];
  const findings: Finding[] = [];
  const existing = existingAtBaseline(run, run.existing);
  if (existing) findings.push(existing);
  const existingSentinel = existingSentinelAtBaseline(run);
  if (existingSentinel) findings.push(existingSentinel);
  const existingRan = run.existing !== null && run.existing.status === "PASS";
  const hidden = hiddenAtBaseline(run, existingRan, run.hidden);
  if (hidden) findings.push(hidden);
  const sentinel = sentinelAtBaseline(run);
  if (sentinel) findings.push(sentinel);
  return findings;
}

/** What one run of the gold diff says: anything but PASS is a finding. */
export function goldFindings(run: RunRecord): Finding[] {
  if (run.reason === "INFRA_ERROR" || run.verdict === "PASS") return [];
  const stopped = stoppedRun(run);
  if (stopped) return [stopped];
  return [finding("GOLD_FAILS", run, `${run.reason}: ${run.message}`)];
}
