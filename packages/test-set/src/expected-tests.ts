import type { TestCase } from "@oracle/spec";

/**
 * Matching a task author's test ids against a JUnit report's test ids (`<suite>:<classname or
 * file>::<name>`, junit.ts). An entry is one of:
 * - the oracle's own id, `hidden:<classname>::<name>`: that test exactly (what the sweep records);
 * - a pytest node id, `tests/test_x.py::TestC::test_n[p-1]`: classname `tests.test_x.TestC` (pytest's
 *   xunit2 and unittest-xml-reporting) or file `tests/test_x.py` (xunit1's file attribute), name
 *   `test_n[p-1]`; without `[…]` it stands for every parametrisation of the test;
 * - `<classname>::<name>`: the report's two parts as they are (gotestsum: `example.com/m/pkg::TestX`);
 * - anything else is a name or a full title: the report's name (gotestsum `TestX`, `TestX/sub`;
 *   mocha-junit-reporter and jest-junit name a test by its full title), vitest's `a > b` read as
 *   `a b`, or classname and name joined by a space (mocha's built-in xunit reporter).
 * A name or title is matched in every file of the suite: an entry that several tests answer to
 * needs every one of them to have passed.
 */

/** How one entry fared in one report. */
export type EntryStatus = "passed" | "failed" | "skipped" | "missing";

export interface EntryMatch {
  entry: string;
  status: EntryStatus;
  /** The report tests the entry answers to. */
  tests: TestCase[];
}

/**
 * The ways the report id splits into suite, classname or file, and name. Either part may itself
 * hold `::` or end in `:` (mocha-junit-reporter's classname is the test's own title, and a title
 * `… option:` makes the id `…option:::…`), so the id alone does not say where the name starts. The
 * first `::` is the reading every reporter's plain ids have; a later one counts only where the name
 * ends with the classname, as a full title ends with its test's title: any later split would give a
 * name that is another test's full title (`X::Y` beside `Y`), and count its runs as that test's.
 * Empty for an id not in the oracle's form.
 */
function splitIds(id: string): Array<{ scope: string; name: string }> {
  const colon = id.indexOf(":");
  if (colon < 0) return [];
  const splits: Array<{ scope: string; name: string }> = [];
  for (let sep = id.indexOf("::", colon + 1); sep >= 0; sep = id.indexOf("::", sep + 1)) {
    const scope = id.slice(colon + 1, sep);
    const name = id.slice(sep + 2);
    if (splits.length === 0 || name.endsWith(scope)) splits.push({ scope, name });
  }
  return splits;
}

/** A parametrised test's id part: from the first `[` after the name to the end (ids may hold brackets: `[[a-c]-x]`). */
const PARAMS = /^[^[]+\[.*\]$/s;
const withoutParams = (name: string): string => name.slice(0, name.indexOf("["));

/** The keys a report test answers to. */
function reportKeys(test: TestCase): string[] {
  const keys = [`id:${test.id}`];
  for (const { scope, name } of splitIds(test.id)) {
    keys.push(`sn:${scope}::${name}`, `n:${name}`, `n:${scope} ${name}`);
    // jest-junit writes a test outside any describe as " title" (its empty ancestors joined by spaces).
    if (name !== name.trimStart()) keys.push(`n:${name.trimStart()}`);
    if (PARAMS.test(name)) keys.push(`sn:${scope}::${withoutParams(name)}`);
    if (name.includes(" > ")) keys.push(`n:${name.split(" > ").join(" ")}`);
  }
  return keys;
}

const SUITE_PREFIX = /^(existing|hidden):/;

/** The keys an entry is looked up by. */
export function entryKeys(entry: string): string[] {
  if (SUITE_PREFIX.test(entry) && entry.includes("::")) return [`id:${entry}`];
  const parts = entry.split("::");
  const file = parts[0] ?? "";
  if (parts.length >= 2 && file.endsWith(".py")) {
    const name = parts[parts.length - 1] ?? "";
    const classes = parts.slice(1, -1);
    const dotted = [file.slice(0, -3).replace(/^\.\//, "").split("/").join("."), ...classes].join(".");
    return [`sn:${dotted}::${name}`, `sn:${file.replace(/^\.\//, "")}::${name}`];
  }
  // `<classname>::<name>` as the report has them, or a full title that holds `::` (`Router::match …`).
  if (parts.length >= 2) return [`sn:${entry}`, `n:${entry}`];
  return [`n:${entry}`];
}

/** An index of a suite's report by every key its tests answer to. */
export class ReportIndex {
  private readonly byKey = new Map<string, TestCase[]>();

  constructor(tests: readonly TestCase[]) {
    for (const test of tests) {
      for (const key of new Set(reportKeys(test))) {
        const list = this.byKey.get(key);
        if (list) list.push(test);
        else this.byKey.set(key, [test]);
      }
    }
  }

  /** The entry's tests and its status: failed if any failed or errored, else skipped if any skipped. */
  match(entry: string): EntryMatch {
    const found = new Set<TestCase>();
    for (const key of entryKeys(entry)) for (const test of this.byKey.get(key) ?? []) found.add(test);
    const tests = [...found];
    let status: EntryStatus = tests.length === 0 ? "missing" : "passed";
    if (tests.some((t) => t.outcome === "skipped")) status = "skipped";
    if (tests.some((t) => t.outcome === "failed" || t.outcome === "error")) status = "failed";
    return { entry, status, tests };
  }
}

/** Matches every entry against one suite's report tests. */
export function matchEntries(entries: readonly string[], tests: readonly TestCase[]): EntryMatch[] {
  const index = new ReportIndex(tests);
  return entries.map((entry) => index.match(entry));
}

/**
 * Whether an expected-test entry (`failToPass` as declared, or a report id the sweep recorded)
 * names the test a planner refers to by its own entry (`path::Class::test`, a full title, `TestX`).
 */
export function namesSameTest(expected: string, entry: string): boolean {
  if (SUITE_PREFIX.test(expected))
    return new ReportIndex([{ id: expected, outcome: "passed" }]).match(entry).tests.length > 0;
  const keys = new Set(entryKeys(entry));
  return entryKeys(expected).some((k) => keys.has(k));
}
