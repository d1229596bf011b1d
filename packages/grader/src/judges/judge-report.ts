import type { ReasonCode, SentinelState, SuiteResult, TestCase } from "@oracle/spec";
import { judgeSeals, type SealJudgement, type SealRun } from "@oracle/test-set";
import { parseJUnit, ReportInvalidError, type SuiteName } from "../reports/junit.js";
import { checkSentinel, type Sentinel } from "../sentinels/sentinels.js";

/** What the collect step found at $ORACLE_SEALS: the records' text (none written: empty), or why it was not read. */
export type SealsRead = { kind: "ok"; text: string } | { kind: "invalid"; why: string };

/**
 * What the collect step found at $ORACLE_JUNIT: the suite's report as the driver brought it: its
 * text (`ok`), already parsed as it streamed in (`parsed`: the test cases, or why they cannot be
 * read), missing, or refused before reading.
 */
export type ReportRead =
  | { kind: "ok"; xml: string }
  | { kind: "parsed"; tests: TestCase[] | string }
  | { kind: "missing" }
  | { kind: "invalid"; why: string };

export interface SuiteRun {
  /** The must-fail/must-pass sentinels appended to this suite's files, if any: their tests must show in the report. */
  sentinel?: Sentinel | null;
  suite: SuiteName;
  exitCode: number | null;
  durationMs: number;
  report: ReportRead;
  output: SuiteResult["output"];
  /** The suite's seals and what their records file held (the hidden suite's). */
  seals?: { run: SealRun; records: SealsRead | undefined; gold?: ReadonlyMap<string, number> } | null;
  /** Go packages the run's output says did not build ({@link unbuiltGoPackages}). */
  unbuilt?: readonly string[];
}

/**
 * The Go packages a run's output says did not build or set up: `go test -json` (Go 1.19) prints
 * `FAIL\t<package> [build failed]` outside its JSON, and gotestsum writes no test for the package.
 * Without an entry of its own, a pair planted in that package is missing while every other
 * package passed, which reads as a forged report (a diff that does not compile vetoed as
 * tampering). The output is the code's to write: a line it forges only adds a failure.
 */
export function unbuiltGoPackages(...texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts)
    for (const match of text.matchAll(/FAIL\t(\S+) \[(?:build|setup) failed\]$/gm)) found.add(match[1]!);
  return [...found];
}

/** The report with an error entry for each package that did not build and has no entry of its own. */
function withUnbuilt(suite: SuiteName, tests: TestCase[], unbuilt: readonly string[] = []): TestCase[] {
  const entries = unbuilt
    .filter((pkg) => !tests.some((t) => t.id.startsWith(`${suite}:${pkg}::`)))
    .map(
      (pkg): TestCase => ({
        id: `${suite}:${pkg}::[build failed]`,
        outcome: "error",
        message: `package ${pkg} does not build (the suite's output says why)`,
      }),
    );
  return entries.length > 0 ? [...tests, ...entries] : tests;
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

/**
 * The report's test cases, or why it is REPORT_INVALID. Whatever the parser throws is the report's
 * doing (it reads a string and nothing else), so no report can end a run as INFRA_ERROR.
 */
function readReport(xml: string, suite: SuiteName): TestCase[] | string {
  try {
    return parseJUnit(xml, suite);
  } catch (error) {
    if (error instanceof ReportInvalidError) return error.message;
    return `it could not be read: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  }
}

/** A suite's verdict before it becomes a result: its reason and message, the tests as judged. */
interface Judged {
  reason: ReasonCode;
  message: string;
  tests: TestCase[];
  sentinel: SentinelState;
  seals: SealJudgement | null;
}

/** Judges one suite from its exit code and report. */
export function judgeSuite(run: SuiteRun): {
  result: SuiteResult;
  message: string;
  /** What the sentinels showed (`none` without sentinels or without a readable report). */
  sentinel: SentinelState;
  /** What the seals showed, when the suite had seals and a readable report. */
  seals: SealJudgement | null;
} {
  const read = reportTests(run);
  const { reason, message, tests, sentinel, seals }: Judged = Array.isArray(read)
    ? judgeTests(run, read)
    : { ...read, tests: [], sentinel: "none", seals: null };
  const result: SuiteResult = {
    status: reason === "PASS" ? "PASS" : "FAIL",
    ...(reason === "PASS" ? {} : { reason }),
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    output: run.output,
    counts: countOutcomes(tests),
    tests,
  };
  return { result, message, sentinel, seals };
}

/** The report's test cases, or the verdict on a report that is missing or cannot be read. */
function reportTests(run: SuiteRun): TestCase[] | { reason: ReasonCode; message: string } {
  if (run.report.kind === "missing")
    return {
      reason: "REPORT_MISSING",
      message: `${run.suite} suite wrote no report to $ORACLE_JUNIT (exit code ${run.exitCode})`,
    };
  if (run.report.kind === "invalid")
    return { reason: "REPORT_INVALID", message: `${run.suite} suite's report: ${run.report.why}` };
  const parsed = run.report.kind === "parsed" ? run.report.tests : readReport(run.report.xml, run.suite);
  if (typeof parsed === "string")
    return { reason: "REPORT_INVALID", message: `${run.suite} suite's report: ${parsed}` };
  return parsed;
}

/** A readable report's tests judged: the sentinels first, then the seals' records, then the outcomes. */
function judgeTests(run: SuiteRun, read: TestCase[]): Judged {
  const reported = withUnbuilt(run.suite, read, run.unbuilt);
  const checked = run.sentinel ? checkSentinel(run.sentinel, reported, run.exitCode) : null;
  const tests = checked ? checked.tests : reported;
  const sentinel: SentinelState = checked ? checked.state : "none";
  if (checked?.problem)
    return {
      reason: "REPORT_INCONSISTENT",
      message: `${run.suite} suite: ${checked.problem}`,
      tests,
      sentinel,
      seals: null,
    };
  const exitCode = checked ? checked.exitCode : run.exitCode;
  const seals = run.seals ? sealsOf(run.seals, tests) : null;
  if (seals?.inconsistent)
    return {
      reason: "SEAL_RECORDS_INCONSISTENT",
      message: `${run.suite} suite: the seals' records cannot be trusted: ${seals.inconsistent}`,
      tests,
      sentinel,
      seals,
    };
  return { ...outcome(run.suite, tests, exitCode, seals), sentinel, seals };
}

/** The tests' own verdict, with the seals' outcomes in place of the runner's where there are seals. */
function outcome(
  suite: SuiteName,
  reported: TestCase[],
  exitCode: number | null,
  seals: SealJudgement | null,
): { reason: ReasonCode; message: string; tests: TestCase[] } {
  // The first test a seal failed (the runner passed it): what the runner would have shown.
  const sealed = seals?.tests.find((t, i) => t.outcome === "failed" && reported[i]?.outcome === "passed");
  const tests = seals ? seals.tests : reported;
  let reason = suiteReason(tests, exitCode);
  if (reason === "TESTS_FAILED" && seals?.onlyNotPlain) reason = "VALUE_NOT_PLAIN_DATA";
  let message = describe(suite, reason, tests, exitCode);
  if (sealed?.message && reason === "TESTS_FAILED")
    message += `; first sealed comparison that failed: ${sealed.id}\n${sealed.message}`;
  return { reason, message, tests };
}

/** The seals' judgement of a report (a records file the driver could not read is itself inconsistent). */
function sealsOf(seals: NonNullable<SuiteRun["seals"]>, tests: TestCase[]): SealJudgement {
  const { run, records, gold } = seals;
  if (records?.kind === "invalid")
    return { tests, inconsistent: records.why, onlyNotPlain: false, sites: {}, executions: [], decided: {} };
  return judgeSeals(run, records?.text ?? "", tests, gold);
}

function describe(suite: SuiteName, reason: ReasonCode, tests: TestCase[], exitCode: number | null): string {
  const counts = countOutcomes(tests);
  const summary = `${counts.passed} passed, ${counts.failed} failed, ${counts.error} errors, ${counts.skipped} skipped`;
  if (reason === "REPORT_INCONSISTENT")
    return `${suite} suite: runner exited ${exitCode} but its report says all passed (${summary})`;
  if (reason === "VALUE_NOT_PLAIN_DATA") {
    const first = tests.find((t) => t.outcome === "failed");
    return `${suite} suite: ${summary}; a comparison met a value the oracle cannot compare as plain data${first?.message ? `:\n${first.message}` : ""}`;
  }
  if (reason === "NO_TESTS_RAN") return `${suite} suite: no test ran (${summary})`;
  return `${suite} suite: ${summary}`;
}

/**
 * At most this many tests of a suite are listed in the result and the oracle log (their counts are
 * always whole). A report holds up to REPORT_CAPS.testcases; a list that long would make every log
 * and result of a big suite megabytes of ids.
 */
export const MAX_LISTED_TESTS = 1000;

/** The tests to list: failures and errors first (what a reader looks for), then the rest, in report order. */
export function listedTests(tests: readonly TestCase[]): { tests: TestCase[]; omitted: number } {
  if (tests.length <= MAX_LISTED_TESTS) return { tests: [...tests], omitted: 0 };
  const bad = (t: TestCase) => t.outcome === "failed" || t.outcome === "error";
  const listed = [...tests.filter(bad), ...tests.filter((t) => !bad(t))].slice(0, MAX_LISTED_TESTS);
  return { tests: listed, omitted: tests.length - listed.length };
}

/** Ids of the tests that ran (not skipped). */
export function ranIds(result: SuiteResult): string[] {
  return result.tests.filter((t) => t.outcome !== "skipped").map((t) => t.id);
}
