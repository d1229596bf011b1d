import type {
  ExpectedResult,
  SealRecord,
  SealsResult,
  SentinelResult,
  SentinelState,
  SuiteResult,
} from "@oracle/spec";
import type { SealJudgement, SealRun } from "@oracle/test-set";
import type { RunLog } from "../log/oracle-log.js";
import { suiteTail } from "../log/output-tail.js";
import type { SuiteName } from "../reports/junit.js";
import type { RunOutcome } from "../run/run-scope.js";
import type { DriverResult } from "../run/run-suite.js";
import type { PackageScripts } from "../sentinels/runner-command.js";
import { deselectedByName } from "../sentinels/sentinel-selection.js";
import type { Sentinel } from "../sentinels/sentinels.js";
import { checkExpected, type Expectation } from "./expected-judge.js";
import { judgeSuite, listedTests, type ReportRead, unbuiltGoPackages } from "./judge-report.js";
import { judging } from "./oracle-bug.js";
import { sealsResult } from "./seals-result.js";

/**
 * Judge what a suite's driver collected after the suite (its exit code, kill rounds, OOM count and
 * report: judge-report.ts), then both suites together: "Any failure in either is a FAIL", and every
 * expected test must have run and passed.
 */

/** One suite, judged. */
export interface SuiteJudgement {
  result: SuiteResult;
  /** Why it failed, as judged (the run's message names the first failed suite's), or null. */
  failure: string | null;
  /** What its sentinels showed, when it had some. */
  sentinel: SentinelResult | null;
  /** What its seals showed, when it had some (the hidden suite). */
  seals: SealsResult | null;
  /** The run's reason when it must stop here (an OOM kill). */
  stop: RunOutcome | null;
}

/** What the judge of a suite needs besides the driver's result. */
export interface SuiteJudge {
  /** The suite's sentinels, or null. */
  sentinel: Sentinel | null;
  /** Why the suite has no sentinel, as its planner noted (plant-sentinels.ts, existing-sentinels.ts). */
  noted: SentinelResult | undefined;
  /** The suite's seals (the hidden suite's), with the FAIL_TO_PASS entries and where the plan came from. */
  seals?: {
    run: SealRun;
    failToPass: readonly string[];
    source: SealsResult["source"];
    gold?: ReadonlyMap<string, number>;
    /** The sweep's record, when it held for this plan: its demotions and its FAIL_TO_PASS classification. */
    record?: SealRecord;
  } | null;
  memoryMb: number;
  log: RunLog;
}

const outOfMemory = (suite: SuiteName, memoryMb: number): RunOutcome => ({
  reason: "OUT_OF_MEMORY",
  message: `${suite} suite: a process was OOM-killed at the ${memoryMb} MiB limit`,
});

function logExit(log: RunLog, driver: DriverResult): void {
  const { suite, output } = driver;
  const out = output.stdout.captured();
  const err = output.stderr.captured();
  log.event("suite.exit", {
    suite,
    exitCode: driver.record.exitCode[suite] ?? null,
    durationMs: output.durationMs,
    stdoutBytes: out.bytes,
    stderrBytes: err.bytes,
    stdoutTail: out.truncated ? out.tail : undefined,
    stderrTail: err.truncated ? err.tail : undefined,
  });
}

/**
 * Judges a suite from what its driver collected after it; throws when the driver's account cannot be
 * trusted or is cut short (an engine fault), and INTERNAL when the judge itself fails (oracle-bug.ts).
 */
export function judgeCollected(driver: DriverResult, judge: SuiteJudge): SuiteJudgement {
  const { record, suite, output } = driver;
  const { log } = judge;
  const exitCode = record.exitCode[suite] ?? null;
  const kill = record.kill[suite];
  const oomKills = record.oomKills[suite];
  log.event("collect.done", { suite, kill, oomKills, driverExitCode: driver.exitCode });
  logExit(log, driver);
  if (kill && kill.survivors > 0)
    throw new Error(`${kill.survivors} process(es) of the ${suite} suite survived SIGKILL`);
  if (record.unsafe) throw new Error(`the ${suite} suite's driver refused to go on: ${record.unsafe}`);
  const out = output.stdout.captured();
  const err = output.stderr.captured();
  const bounded = {
    bytes: out.bytes + err.bytes,
    truncated: out.truncated || err.truncated,
    tail: suiteTail(out, err),
  };
  const report = record.report[suite];
  // An OOM kill explains a driver that stopped after the suite (its fork or itself killed).
  if (oomKills !== undefined && oomKills > 0 && !report) {
    const counts = { passed: 0, failed: 0, error: 0, skipped: 0 };
    const result: SuiteResult = {
      status: "FAIL",
      reason: "OUT_OF_MEMORY",
      exitCode,
      durationMs: output.durationMs,
      counts,
      tests: [],
      output: bounded,
    };
    return { result, failure: null, sentinel: null, seals: null, stop: outOfMemory(suite, judge.memoryMb) };
  }
  if (!report || oomKills === undefined) {
    if (record.protocolError) throw new Error(`the driver's output: ${record.protocolError}`);
    throw new Error(
      `the oracle's driver ended (exit code ${driver.exitCode}) before the ${suite} suite's report was read: the engine stopped the container`,
    );
  }
  // From here on the oracle judges what the driver collected: a throw is its own bug (oracle-bug.ts).
  return judging(`the ${suite} suite`, () =>
    judgeReport(driver, judge, {
      exitCode,
      oomKills,
      bounded,
      report,
      goOutput: [out.head, out.tail, err.head, err.tail],
    }),
  );
}

/** Judges a suite's report (its sentinels, seals and tests) once the driver's account is trusted. */
function judgeReport(
  driver: DriverResult,
  judge: SuiteJudge,
  collected: {
    exitCode: number | null;
    oomKills: number;
    bounded: SuiteResult["output"];
    report: ReportRead;
    /** The suite's output, where Go names the packages that did not build. */
    goOutput: string[];
  },
): SuiteJudgement {
  const { record, suite, output } = driver;
  const { log, sentinel } = judge;
  const { exitCode, oomKills, bounded, report } = collected;
  const judged = judgeSuite({
    suite,
    exitCode,
    durationMs: output.durationMs,
    report,
    output: bounded,
    sentinel,
    ...(driver.goRunner ? { unbuilt: unbuiltGoPackages(...collected.goOutput) } : {}),
    ...(judge.seals
      ? {
          seals: {
            run: judge.seals.run,
            records: record.seals[suite],
            ...(judge.seals.gold ? { gold: judge.seals.gold } : {}),
          },
        }
      : {}),
  });
  const seals = judge.seals ? sealsRecord(log, judge.seals, judged.seals) : null;
  const checked = sentinel ? sentinelRecord(log, suite, sentinel, judged.sentinel) : null;
  const seen = checked ?? judge.noted;
  const result = seen ? { ...judged.result, sentinel: seen } : judged.result;
  const failure = result.status !== "PASS" ? judged.message : null;
  // Any OOM kill fails the suite, even when its runner carried on: the tests ran starved.
  if (oomKills > 0)
    return {
      result: { ...result, status: "FAIL", reason: "OUT_OF_MEMORY" },
      failure,
      sentinel: checked,
      seals,
      stop: outOfMemory(suite, judge.memoryMb),
    };
  const listed = listedTests(result.tests);
  log.info(judged.message, {
    suite,
    counts: result.counts,
    tests: listed.tests.map((t) => `${t.outcome} ${t.id}`),
    testsOmitted: listed.omitted,
  });
  return { result, failure, sentinel: checked, seals, stop: null };
}

/** The seals' section of the result, logged; a warning names the FAIL_TO_PASS tests no strong seal covers. */
function sealsRecord(
  log: RunLog,
  seals: NonNullable<SuiteJudge["seals"]>,
  judged: SealJudgement | null,
): SealsResult {
  const result = sealsResult(seals.run, judged, {
    failToPass: seals.failToPass,
    source: seals.source,
    ...(seals.record ? { record: seals.record } : {}),
  });
  log.event("seals.checked", {
    ...result,
    sites: judged?.sites ?? {},
    executions: judged?.executions ?? [],
  });
  const unsealed = result.failToPass?.unsealed ?? [];
  // Each with the rule that left it unsealed (`unsealed.helper-check`: its comparison is in a
  // helper it calls), a row of docs/security.md.
  const named = unsealed.slice(0, 3).map((entry) => {
    const rule = result.failToPass?.rules?.[entry];
    return rule ? `${entry} [${rule}]` : entry;
  });
  if (unsealed.length > 0)
    log.warn(
      `${unsealed.length} of ${result.failToPass!.total} FAIL_TO_PASS test(s) have no strong seal (${named.join(", ")}${unsealed.length > 3 ? ", …" : ""}): a report forged for them is caught only by the pair (docs/security.md, Sealed expectations)`,
    );
  return result;
}

/** A suite's sentinel outcome, for the result and the log (a missing optional one is only noted). */
function sentinelRecord(
  log: RunLog,
  suite: SuiteName,
  sentinel: Sentinel,
  outcome: SentinelState,
): SentinelResult {
  const record = {
    state: outcome,
    framework: sentinel.framework,
    required: sentinel.required.length > 0,
    files: sentinel.appends.map((a) => a.path),
    ...(sentinel.note ? { note: sentinel.note } : {}),
  };
  log.event("sentinel.checked", { suite, ...record });
  if (outcome === "not-collected")
    log.warn(
      `sentinel not collected: the ${suite} command did not run the oracle's sentinel tests${sentinel.note ? ` (${sentinel.note})` : ""}; the verdict rests on the other checks`,
    );
  return record;
}

/** Both suites as judged, with why each failed. */
export interface Judged {
  suites: Partial<Record<SuiteName, SuiteResult>>;
  failures: Partial<Record<SuiteName, string>>;
}

/**
 * Holds both suites' reports (sentinels already removed) to the expected tests: a suite that passed
 * on its own fails with EXPECTED_TEST_MISSING / EXPECTED_TEST_SKIPPED when one of them did not run
 * and pass; a suite that already failed keeps its reason (an expected test that failed is TESTS_FAILED).
 */
export function judgeExpected(
  expectation: Expectation,
  judged: Judged,
  hidden: { command: string; scripts: PackageScripts | null },
  log: RunLog,
): Judged & { expected: ExpectedResult } {
  const suites = { ...judged.suites };
  const failures = { ...judged.failures };
  const tests = { existing: suites.existing?.tests ?? [], hidden: suites.hidden?.tests ?? [] };
  const { result, problems } = checkExpected(
    expectation,
    tests,
    deselectedByName(hidden.command, hidden.scripts),
  );
  log.event("expected.checked", { ...result });
  for (const suite of ["existing", "hidden"] as const) {
    const problem = problems[suite];
    const suiteResult = suites[suite];
    if (!problem || !suiteResult || suiteResult.status !== "PASS") continue;
    suites[suite] = { ...suiteResult, status: "FAIL", reason: problem.reason };
    failures[suite] = problem.message;
  }
  const { missing, skipped, unexpected } = result;
  log.info(
    `expected tests (${result.source}): ${missing.count} missing, ${skipped.count} skipped, ${unexpected.count} ran unexpected${result.source === "none" ? ` (${result.note})` : ""}`,
  );
  return { suites, failures, expected: result };
}

/** "Any failure in either is a FAIL": the first failed suite's reason, else PASS. */
export function bothSuitesOutcome({ suites, failures }: Judged): RunOutcome {
  for (const suite of ["existing", "hidden"] as const) {
    const result = suites[suite];
    if (result && result.status !== "PASS")
      return {
        reason: result.reason ?? "TESTS_FAILED",
        message: failures[suite] ?? `${suite} suite failed: ${result.reason}`,
      };
  }
  return { reason: "PASS", message: "both suites ran and passed" };
}
