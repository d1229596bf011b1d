import type { TestCase } from "@oracle/spec";
import { ReportIndex } from "../expected-tests.js";
import { type Canon, isCanon, unjudgeableWhy } from "./canon.js";
import { holds, render } from "./equality.js";
import { COMPARISONS } from "./kinds.js";
import type { SealSite, TestRef } from "./plan.js";
import { MAX_NUMBER_COST, numberCost, vocabularyProblem } from "./vocabulary.js";

/**
 * Judges what the seals recorded against what the oracle expects (docs/security.md, "Sealed
 * expectations"; rules.ts `seal.records`). A sealed test passes only when the runner says it
 * passed, every seal it ran matched, and each of its runs wrote its seals' records once each, in
 * order. The code under test can write records too; it cannot know the expected values, and it
 * must not be able to confuse the count: a record the oracle cannot read, for a key it did not
 * plan, out of order, or a passing run without all of its records, makes the suite
 * SEAL_RECORDS_INCONSISTENT.
 */

/** One parsed record: a site's key, the side (0: actual; 1: a checked comparison's expected side), the value. */
export interface SealRecord {
  key: string;
  side: 0 | 1;
  value: Canon;
}

/** At most this many records are read (a run that writes more is inconsistent). */
export const MAX_RECORDS = 200_000;

/** Reads the records file (JSON lines); the problem when a line is not a record. */
export function parseRecords(text: string): { records: SealRecord[]; problem: string | null } {
  const records: SealRecord[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length > MAX_RECORDS)
    return { records, problem: `the seals wrote ${lines.length} records, more than the ${MAX_RECORDS} read` };
  for (const [i, line] of lines.entries()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return { records, problem: `seal record ${i + 1} is not JSON` };
    }
    const { k, s, v } = (parsed ?? {}) as { k?: unknown; s?: unknown; v?: unknown };
    if (typeof k !== "string" || (s !== 0 && s !== 1) || !isCanon(v))
      return { records, problem: `seal record ${i + 1} is not a record the seal runtime writes` };
    records.push({ key: k, side: s, value: v });
  }
  return { records, problem: null };
}

/** How one site fared in a run. */
export type SiteOutcome = "matched" | "mismatch" | "not-plain" | "not-run";

export interface SealJudgement {
  /** The report's tests, a sealed test whose seal failed marked failed with the seal's message. */
  tests: TestCase[];
  /** Why the records cannot be trusted (SEAL_RECORDS_INCONSISTENT), or null. */
  inconsistent: string | null;
  /** Whether every test the seals failed failed on a value that is not plain data only (VALUE_NOT_PLAIN_DATA). */
  onlyNotPlain: boolean;
  /** Each site's outcome over the run (the worst of its executions). */
  sites: Record<string, SiteOutcome>;
  /** Per test: complete runs of all its seals, and runs cut short. */
  executions: Array<{ entry: string; complete: number; partial: number }>;
  /**
   * The tests whose outcome in this run a seal decided against them, by the strongest such seal: a
   * seal that failed, or the one a run ended at (the first record missing, no unjudged assertion
   * before it). At baseline this says which FAIL_TO_PASS tests only the right values can pass.
   */
  decided: Record<string, "strong" | "weak">;
  /** The test a record inconsistency is about, and its sites' keys, when there is one. */
  inconsistentTest?: string;
  inconsistentKeys?: string[];
}

interface Execution {
  records: SealRecord[];
  complete: boolean;
}

/** Whether the host holds the site's expected value (one record a run), rather than the test computing it (two). */
const sealedOnHost = (site: SealSite | undefined): boolean =>
  site?.expected !== undefined || site?.rows !== undefined;

/** The records one run of a test writes, in order: each site once (a checked one: both sides). */
function expectedSequence(
  keys: readonly string[],
  sites: ReadonlyMap<string, SealSite>,
): Array<[string, 0 | 1]> {
  return keys.flatMap(
    (key): Array<[string, 0 | 1]> =>
      sealedOnHost(sites.get(key))
        ? [[key, 0]]
        : [
            [key, 0],
            [key, 1],
          ],
  );
}

/** Splits a test's records into runs; the first record out of order, if any. */
function executionsOf(
  records: readonly SealRecord[],
  sequence: ReadonlyArray<[string, 0 | 1]>,
): { runs: Execution[]; disorder: SealRecord | null } {
  const runs: Execution[] = [];
  let current: SealRecord[] = [];
  const at = (r: SealRecord, i: number) => sequence[i]![0] === r.key && sequence[i]![1] === r.side;
  for (const record of records) {
    if (current.length < sequence.length && at(record, current.length)) current.push(record);
    else if (at(record, 0)) {
      runs.push({ records: current, complete: current.length === sequence.length });
      current = [record];
    } else return { runs, disorder: record };
    if (current.length === sequence.length) {
      runs.push({ records: current, complete: true });
      current = [];
    }
  }
  if (current.length > 0) runs.push({ records: current, complete: false });
  return { runs, disorder: null };
}

/**
 * Kinds whose expected value is the one the actual must not be (`x is not None`, `a != 3`): the
 * message says "not", or it read `expected: None / actual: None` (a re-measure of real tasks, s26).
 */
const NEGATED: ReadonlySet<string> = new Set(["py.ne", "py.isnot"]);

/** A failed seal's message: where, what the test wrote, the values. */
function failureMessage(
  site: SealSite,
  actual: Canon,
  expected: Canon,
  checked: boolean,
  notPlain: string | null,
  row?: number,
): string {
  const table = row === undefined ? "" : ` (row ${row + 1} of its table)`;
  const where = `${site.test.file}:${site.line}: ${site.source.split("\n")[0]!.trim()}${table}`;
  if (notPlain) return `${where}\n  the value is not plain data the oracle can compare: ${notPlain}`;
  const [a, e] = [render(site.kind, actual), render(site.kind, expected)];
  return checked
    ? `${where}\n  left:  ${a}\n  right: ${e}\n  (the two sides are not equal as plain data)`
    : `${where}\n  expected: ${NEGATED.has(site.kind) ? "not " : ""}${e}\n  actual:   ${a}`;
}

/** Judges one run of a test: the first seal that failed, if any. */
function judgeRun(
  run: Execution,
  sites: ReadonlyMap<string, SealSite>,
  outcomes: Record<string, SiteOutcome>,
  index: number,
) {
  let failure: { message: string; notPlain: boolean } | null = null;
  // Each comparison as it ran: a sealed one is one record (a table's row by how often it ran
  // before in this run), a checked one two (actual, then the test's own expected side).
  const seen = new Map<string, number>();
  for (let i = 0; i < run.records.length; i++) {
    const record = run.records[i]!;
    const site = sites.get(record.key)!;
    const occurrence = seen.get(record.key) ?? 0;
    seen.set(record.key, occurrence + 1);
    let expected: Canon | undefined;
    if (site.rows) expected = site.rows[site.rowsBy === "run" ? index : occurrence];
    else if (site.expected) expected = site.expected;
    else {
      const other = run.records[i + 1];
      if (other?.key !== record.key || other.side !== 1) continue;
      expected = other.value;
      i++;
    }
    if (!expected) {
      // A table's comparison that ran more often than the table has rows: nothing says what it
      // should have been, so it cannot have matched (a fixture or a subclass multiplied the runs).
      outcomes[record.key] = "mismatch";
      const row = site.rowsBy === "run" ? index : occurrence;
      failure ??= {
        message: `${site.test.file}:${site.line}: ${site.source.split("\n")[0]!.trim()}\n  ran ${row + 1} time(s), more than the ${site.rows?.length ?? 0} row(s) of its table`,
        notPlain: false,
      };
      continue;
    }
    const actual = record.value;
    const verdict = holds(site, actual, expected);
    const outcome: SiteOutcome =
      verdict === true ? "matched" : verdict === "unknown" ? "not-plain" : "mismatch";
    if (outcomes[record.key] !== "mismatch" && outcomes[record.key] !== "not-plain")
      outcomes[record.key] = outcome;
    if (verdict !== true && !failure) {
      const why =
        verdict === "unknown"
          ? (unjudgeableWhy(actual) ?? unjudgeableWhy(expected) ?? "not plain data")
          : null;
      failure = {
        message: failureMessage(
          site,
          actual,
          expected,
          !sealedOnHost(site),
          why,
          site.rows ? (site.rowsBy === "run" ? index : occurrence) : undefined,
        ),
        notPlain: why !== null,
      };
    }
  }
  return failure;
}

/**
 * The strongest seal that decided a test's outcome against it: one that failed, or the one a run
 * ended at (its record is the first one missing of a run cut short or of a run that wrote none: its
 * actual side raised), unless an assertion the oracle does not judge comes before it in the test
 * (`afterUnsealed`), which may have ended the run instead. Seals after the first missing record were
 * never reached because something earlier failed: they decided nothing (s22 findings 11 and 16: a
 * seal behind `pytest.raises` or `toThrow` that the unfixed code passes).
 */
function decidedBy(
  sequence: ReadonlyArray<[string, 0 | 1]>,
  sites: ReadonlyMap<string, SealSite>,
  runs: readonly Execution[],
  ran: number,
  outcomes: Readonly<Record<string, SiteOutcome>>,
): "strong" | "weak" | null {
  const against = new Set<string>();
  for (const [key] of sequence)
    if (outcomes[key] === "mismatch" || outcomes[key] === "not-plain") against.add(key);
  const endedAt = (written: number) => {
    const key = sequence[written]?.[0];
    if (key !== undefined && !sites.get(key)?.afterUnsealed) against.add(key);
  };
  for (const run of runs) if (!run.complete) endedAt(run.records.length);
  if (runs.length < ran) endedAt(0);
  const strengths = [...against].map((k) => sites.get(k)?.strength);
  if (strengths.includes("strong")) return "strong";
  return strengths.length > 0 ? "weak" : null;
}

/**
 * Judges the records of a run against the plan and the runner's report. `gold` is the sweep's
 * count of complete runs per test (a test that passed must have run its seals at least as often).
 */
export function judgeSeals(
  plan: { sites: readonly SealSite[]; tests: ReadonlyArray<{ test: TestRef; keys: string[] }> },
  recordsText: string,
  report: readonly TestCase[],
  gold?: ReadonlyMap<string, number>,
): SealJudgement {
  const sites = new Map(plan.sites.map((s) => [s.key, s]));
  const outcomes: Record<string, SiteOutcome> = Object.fromEntries(plan.sites.map((s) => [s.key, "not-run"]));
  const tests = [...report];
  const decided: Record<string, "strong" | "weak"> = {};
  const keysOf = (entry: string) => plan.tests.find((t) => t.test.entry === entry)?.keys ?? [];
  const judgement = (
    inconsistent: string | null,
    onlyNotPlain = false,
    about?: string,
    alsoAbout: readonly string[] = [],
  ): SealJudgement => ({
    tests,
    inconsistent,
    onlyNotPlain,
    sites: outcomes,
    executions,
    decided,
    ...(about
      ? {
          inconsistentTest: about,
          inconsistentKeys: [about, ...alsoAbout].flatMap(keysOf),
        }
      : {}),
  });
  const executions: SealJudgement["executions"] = [];
  const { records, problem } = parseRecords(recordsText);
  if (problem) return judgement(problem);
  const owner = new Map<string, string>();
  for (const { test, keys } of plan.tests) for (const key of keys) owner.set(key, test.entry);
  const byTest = new Map<string, SealRecord[]>();
  let cost = 0;
  for (const [i, record] of records.entries()) {
    const entry = owner.get(record.key);
    if (entry === undefined)
      return judgement(
        `a seal record names a key the oracle did not plan (${JSON.stringify(record.key).slice(0, 60)})`,
      );
    // A value the runtime never writes is not one the host's equality was written for (vocabulary.ts).
    const site = sites.get(record.key);
    const language = site ? COMPARISONS[site.kind].language : null;
    const wrong = language ? vocabularyProblem(language, record.value) : null;
    if (wrong)
      return judgement(
        `seal record ${i + 1} (${record.key}) is not a value the seal runtime writes: ${wrong}`,
        false,
        entry,
      );
    // Numbers the runtime writes, but whose exact values would take the host minutes (vocabulary.ts).
    cost += language ? numberCost(language, record.value) : 0;
    if (cost > MAX_NUMBER_COST)
      return judgement(
        `seal record ${i + 1} (${record.key}): the records' numbers up to it are too large to judge (Decimals, Fractions or ints of that many digits)`,
        false,
        entry,
      );
    // Pushed, not copied: a copy a record made 200,000 records for one key minutes of work (s29 atk).
    const list = byTest.get(entry);
    if (list) list.push(record);
    else byTest.set(entry, [record]);
  }
  const index = new ReportIndex(tests);
  const failed = new Map<TestCase, { message: string; notPlain: boolean }>();
  // A test whose records do not add up decides the run (the first one's message); every such test is
  // named, so the sweep leaves all their seals out in one round rather than one test per round.
  const unaccounted: Array<{ entry: string; message: string }> = [];
  for (const { test, keys } of plan.tests) {
    const sequence = expectedSequence(keys, sites);
    const { runs, disorder } = executionsOf(byTest.get(test.entry) ?? [], sequence);
    if (disorder)
      return judgement(
        `${test.entry}: a seal record out of the order its comparisons run in (${disorder.key})`,
      );
    const complete = runs.filter((r) => r.complete).length;
    executions.push({ entry: test.entry, complete, partial: runs.length - complete });
    const matched = new Set([test.entry, ...(test.also ?? [])].flatMap((e) => index.match(e).tests));
    const ran = tests.filter((t) => matched.has(t) && t.outcome !== "skipped");
    const passed = ran.filter((t) => t.outcome === "passed");
    const wanted = gold?.get(test.entry);
    const unaccountedFor =
      passed.length > complete
        ? `${test.entry}: the runner reports ${passed.length} passing run(s), but ${complete} wrote all of the test's seal records`
        : runs.length > ran.length
          ? `${test.entry}: its seals ran ${runs.length} time(s), the runner ran the test ${ran.length} time(s): records the test did not write`
          : wanted !== undefined && passed.length === ran.length && ran.length > 0 && complete < wanted
            ? `${test.entry}: ran its seals ${complete} time(s), the gold run ${wanted}`
            : null;
    if (unaccountedFor) {
      unaccounted.push({ entry: test.entry, message: unaccountedFor });
      continue;
    }
    const failures = runs.map((run, i) => judgeRun(run, sites, outcomes, i));
    const strength = decidedBy(sequence, sites, runs, ran.length, outcomes);
    if (strength) decided[test.entry] = strength;
    const first = failures.find((f) => f !== null);
    if (!first) continue;
    // Runs and report entries in the same order mark the run's own entry; otherwise every passing entry.
    const aligned = runs.length === ran.length;
    ran.forEach((t, i) => {
      const own = aligned ? failures[i] : first;
      if (own && t.outcome === "passed") failed.set(t, own);
    });
  }
  const [first, ...others] = unaccounted;
  if (first)
    return judgement(
      first.message,
      false,
      first.entry,
      others.map((u) => u.entry),
    );
  for (const [i, t] of tests.entries()) {
    const f = failed.get(t);
    if (f) tests[i] = { ...t, outcome: "failed", message: f.message };
  }
  const failures = [...failed.values()];
  // Tests the runner itself failed are failures of their own: then the suite failed on its tests.
  const runnerFailed = report.some((t) => t.outcome === "failed" || t.outcome === "error");
  return judgement(null, failures.length > 0 && failures.every((f) => f.notPlain) && !runnerFailed);
}
