import {
  type ExpectedResult,
  type LoadedTask,
  MAX_EXPECTED_LISTED,
  type ReasonCode,
  type TestCase,
} from "@oracle/spec";
import { matchEntries } from "@oracle/test-set";
import type { SuiteName } from "../reports/junit.js";
import { readExpectedRecord } from "../task/expected-record.js";

/** The expected tests of a run, per suite, and where they come from. */
export interface Expectation {
  source: ExpectedResult["source"];
  /** Entries per suite; null for a suite without any (the no-expectation rules apply to it). */
  suites: Record<SuiteName, string[] | null>;
  /** Why a sweep record was not used (stale, invalid), for the result and the log. */
  ignored?: string;
  /** The hidden suite's tests that fail at the base commit (FAIL_TO_PASS): the twins take them first. */
  failToPass?: string[];
}

const SUITES: readonly SuiteName[] = ["existing", "hidden"];

const declared = (suite: LoadedTask["task"]["suites"]["hidden"]): string[] | null =>
  suite.expected ? [...(suite.expected.failToPass ?? []), ...(suite.expected.passToPass ?? [])] : null;

/** task.json's declaration wins; else the sweep's record when it matches the task's content; else none. */
export async function loadExpectation(loaded: LoadedTask): Promise<Expectation> {
  const { existing, hidden } = loaded.task.suites;
  if (existing.expected || hidden.expected)
    return {
      source: "task",
      suites: { existing: declared(existing), hidden: declared(hidden) },
      failToPass: hidden.expected?.failToPass ?? [],
    };
  const read = await readExpectedRecord(loaded);
  if (read.kind === "current") {
    const { existing: e, hidden: h } = read.record.suites;
    return {
      source: "sweep",
      suites: { existing: [...e.failToPass, ...e.passToPass], hidden: [...h.failToPass, ...h.passToPass] },
      failToPass: h.failToPass,
    };
  }
  const none: Expectation = { source: "none", suites: { existing: null, hidden: null }, failToPass: [] };
  return read.kind === "absent" ? none : { ...none, ignored: read.why };
}

/** What the verdict rests on when a suite has no expected tests (docs/tasks.md, "Expected tests"). */
export const NO_EXPECTATION_NOTE =
  "no expected tests: verdict rests on every test the reports list passing, no hidden test skipped, the sentinels and the existing suite; a test removed before collection goes unseen (declare suites.<suite>.expected in task.json, or let pnpm quarantine-sweep record them)";

export interface ExpectedCheck {
  result: ExpectedResult;
  /** Per suite, the reason it fails on its expected tests and the message, if it does. */
  problems: Partial<Record<SuiteName, { reason: ReasonCode; message: string }>>;
}

const bounded = (ids: string[]) => ({ count: ids.length, ids: ids.slice(0, MAX_EXPECTED_LISTED) });
const named = (ids: string[]) =>
  `${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ` and ${ids.length - 5} more` : ""}`;

/**
 * Checks the suites' report tests (sentinels already removed) against the expectation. An expected
 * test that failed is left to the suite's own TESTS_FAILED; one absent from the report is
 * EXPECTED_TEST_MISSING; one skipped is EXPECTED_TEST_SKIPPED. A suite without expected tests:
 * in the hidden suite any skipped test is EXPECTED_TEST_SKIPPED (every test it lists is expected),
 * except one the hidden command's own name filter leaves out (`deselected`: jest's and vitest's `-t`
 * list those as skipped; see deselectedByName).
 */
export function checkExpected(
  expectation: Expectation,
  tests: Record<SuiteName, readonly TestCase[]>,
  deselected: ((test: TestCase) => boolean) | null = null,
): ExpectedCheck {
  const missing: string[] = [];
  const skipped: string[] = [];
  const unexpected: string[] = [];
  const problems: ExpectedCheck["problems"] = {};
  for (const suite of SUITES) {
    const entries = expectation.suites[suite];
    const suiteTests = tests[suite];
    if (entries === null) {
      const skips =
        suite === "hidden"
          ? suiteTests.filter((t) => t.outcome === "skipped" && !deselected?.(t)).map((t) => t.id)
          : [];
      skipped.push(...skips);
      if (skips.length > 0)
        problems[suite] = {
          reason: "EXPECTED_TEST_SKIPPED",
          message: `${suite} suite: ${skips.length} hidden test(s) skipped (${named(skips)}); with no expected tests declared every hidden test must run and pass`,
        };
      continue;
    }
    const matches = matchEntries(entries, suiteTests);
    const suiteMissing = matches.filter((m) => m.status === "missing").map((m) => `${suite}:${m.entry}`);
    const suiteSkipped = matches.filter((m) => m.status === "skipped").map((m) => `${suite}:${m.entry}`);
    missing.push(...suiteMissing);
    skipped.push(...suiteSkipped);
    const matched = new Set(matches.flatMap((m) => m.tests));
    unexpected.push(...suiteTests.filter((t) => t.outcome !== "skipped" && !matched.has(t)).map((t) => t.id));
    if (suiteMissing.length > 0)
      problems[suite] = {
        reason: "EXPECTED_TEST_MISSING",
        message: `${suite} suite: ${suiteMissing.length} expected test(s) not in the report (${named(suiteMissing)}): deselected, not collected or removed`,
      };
    else if (suiteSkipped.length > 0)
      problems[suite] = {
        reason: "EXPECTED_TEST_SKIPPED",
        message: `${suite} suite: ${suiteSkipped.length} expected test(s) skipped (${named(suiteSkipped)})`,
      };
  }
  return { result: resultOf(expectation, missing, skipped, unexpected), problems };
}

function resultOf(
  expectation: Expectation,
  missing: string[],
  skipped: string[],
  unexpected: string[],
): ExpectedResult {
  const count = (suite: SuiteName) => expectation.suites[suite]?.length ?? 0;
  const partial = SUITES.filter((s) => expectation.suites[s] === null);
  let note =
    expectation.source === "none"
      ? NO_EXPECTATION_NOTE
      : `expected tests from ${expectation.source === "task" ? "task.json" : "the sweep's record"}: ${count("existing")} existing, ${count("hidden")} hidden; every one must run and pass${partial.length ? ` (none for the ${partial.join(" and ")} suite: ${NO_EXPECTATION_NOTE})` : ""}`;
  if (expectation.ignored) note = `${expectation.ignored}; ${note}`;
  return {
    source: expectation.source,
    expected: { existing: count("existing"), hidden: count("hidden") },
    missing: bounded(missing),
    skipped: bounded(skipped),
    unexpected: bounded(unexpected),
    note,
  };
}
