// Red team round 4 (redteam2). Run after `pnpm build`: node scripts/redteam/twin-skip-scope.mjs [N]
// Planner-level: a report forged from the planted file alone satisfies the twins whichever is the
// copy, then the expected tests. Each pair of twins (A, B) gets its two entries SKIPPED under a
// made-up classname (the same for both, so `twinsAlike` holds): neither passed, so "both passed"
// never fires; the restored original `zzz::<original>` is skipped but no expected entry names that
// scope, so checkExpected ignores it; one forged PASSED entry under the real classname and the
// original name (the common prefix of A and B) answers the expected entry. No guess is involved.
// Printed per shape: pytest named file and node ids (expected tests from task.json node ids, from a
// sweep record, none), mocha and Go with a sweep record, and a parametrised variant that keeps the
// real scope. With no expected tests the skipped original is EXPECTED_TEST_SKIPPED (FAIL); every task
// the sweep finds healthy has a record (apps/quarantine/src/expected.ts: recordExpected).
import { checkExpected } from "../../packages/grader/dist/judges/expected-judge.js";
import {
  checkSentinel,
  planSentinels,
  sentinelRunner,
} from "../../packages/grader/dist/sentinels/sentinels.js";
import { suiteReason } from "../../packages/grader/dist/suite-result.js";

const PATH = "tests/regression/test_add.py";
const TEXT = `import pytest

from calc.core import add


def test_add_positive():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-2, -3) == -5


class TestAddMore:
    def test_zero(self):
        assert add(0, 7) == 7


@pytest.fixture
def pair():
    return (4, 6)


def test_add_fixture(pair):
    assert add(*pair) == 10
`;
const J = '-p no:cacheprovider -q --junitxml="$ORACLE_JUNIT"';
const COMMANDS = [
  `python3 -m pytest ${J} ${PATH}`,
  `python3 -m pytest ${J} ${PATH}::test_add_positive ${PATH}::test_add_negative ${PATH}::TestAddMore::test_zero ${PATH}::test_add_fixture`,
];
const MODULE = "tests.regression.test_add";

/** The attacker's report: built from the planted file's text only (what calc/core.py can read). */
function forge(full) {
  const tests = [];
  const defined = new Set();
  let cls = null;
  const items = [];
  for (const line of full.split("\n")) {
    const c = /^class (\w+)/.exec(line);
    if (c) cls = c[1];
    else if (/^\S/.test(line)) cls = null;
    const d = /^(\s*)def (test\w*)\(/.exec(line);
    if (!d) continue;
    const owner = d[1] ? cls : null;
    defined.add(`${owner}::${d[2]}`);
    items.push({ owner, name: d[2], start: full.indexOf(line) });
  }
  const scope = (owner) => (owner ? `${MODULE}.${owner}` : MODULE);
  const groups = new Map();
  for (const it of items) {
    const body = full.slice(it.start, full.indexOf("\n\n", it.start + 1));
    const sum = /total = sum\(\[(\d+), (\d+)\]\)\s*(?:assert total == |self\.assertEqual\(total, )(\d+)/.exec(
      body,
    );
    if (sum) {
      tests.push({
        id: `hidden:${scope(it.owner)}::${it.name}`,
        outcome: +sum[1] + +sum[2] === +sum[3] ? "passed" : "failed",
      });
      continue;
    }
    const base = it.name.replace(/_\d+$/, "");
    if (base !== it.name && !defined.has(`${it.owner}::${base}`)) {
      const key = `${it.owner}::${base}`;
      groups.set(key, [...(groups.get(key) ?? []), it]);
      continue;
    }
    tests.push({ id: `hidden:${scope(it.owner)}::${it.name}`, outcome: "passed" });
  }
  for (const [key, twins] of groups) {
    const [owner, base] = key.split("::");
    // Both twins skipped under one made-up scope; the original name passed under the real one.
    for (const t of twins) tests.push({ id: `hidden:zzz::${t.name}`, outcome: "skipped" });
    tests.push({ id: `hidden:${scope(owner === "null" ? null : owner)}::${base}`, outcome: "passed" });
  }
  return tests;
}

const n = Number(process.argv[2] ?? 20);
const declared = [
  `${PATH}::test_add_positive`,
  `${PATH}::test_add_negative`,
  `${PATH}::TestAddMore::test_zero`,
  `${PATH}::test_add_fixture`,
];
const recorded = declared.map(
  (d) => `hidden:${MODULE}${d.includes("TestAddMore") ? ".TestAddMore" : ""}::${d.split("::").at(-1)}`,
);
for (const command of COMMANDS) {
  for (const [source, entries] of [
    ["task.json node ids", declared],
    ["sweep record", recorded],
    ["none", null],
  ]) {
    const tally = new Map();
    let twins = 0;
    for (let i = 0; i < n; i++) {
      const s = planSentinels(
        sentinelRunner({ suites: { hidden: { command } } }),
        [{ path: PATH, text: TEXT }],
        [],
        new Map(),
        `gold-${i}`,
      );
      const a = s.appends[0];
      twins = a.twins.length;
      const report = forge((a.rewrite ?? TEXT) + a.text);
      // The forged run exits as pytest would with only the pair's must-fail failing (1), or 0 without a pair.
      const exit = a.tests.length > 0 ? 1 : 0;
      const v = checkSentinel(s, report, exit);
      let verdict = v.problem ? "FAIL REPORT_INCONSISTENT" : suiteReason(v.tests, v.exitCode);
      if (verdict === "PASS") {
        const expectation = { source, suites: { existing: null, hidden: entries } };
        const e = checkExpected(expectation, { existing: [], hidden: v.tests });
        if (e.problems.hidden) verdict = `FAIL ${e.problems.hidden.reason}`;
      } else if (verdict !== "FAIL REPORT_INCONSISTENT") verdict = `FAIL ${verdict}`;
      tally.set(verdict, (tally.get(verdict) ?? 0) + 1);
    }
    console.log(
      `${command.includes("::test_add_positive") ? "node ids " : "file     "} expected=${source.padEnd(18)} twins=${twins}  ${[...tally].map(([k, v]) => `${v}/${n} ${k}`).join(", ")}`,
    );
  }
}

// The same report rewrite on mocha and Go, at the report-entry level: mocha's reporter runs in the
// tested process (mocha-junit-reporter, rewritten at exit); Go's init() prints the run, and a test
// name with a space (`zzz TestX17`) ends in ` TestX17`, which `scopeOf` reads as that test's entry
// under the scope `…::zzz`.
const others = [
  {
    title: "mocha file",
    path: "test/regression/add.test.js",
    command: "node_modules/.bin/mocha --reporter mocha-junit-reporter test/regression/add.test.js",
    text: `const assert = require("node:assert");
const { add } = require("../../src/add");

describe("add", () => {
  it("adds small numbers", () => {
    assert.strictEqual(add(2, 3), 5);
  });

  it("adds zero", () => {
    assert.strictEqual(add(0, 7), 7);
  });
});
`,
    // mocha-junit-reporter: classname = title, name = full title.
    titles: (full) => [...full.matchAll(/\bit\("([^"]+)"/g)].map((m) => m[1]),
    at: (full, title) => full.indexOf(`it("${title}"`),
    id: (title) => `hidden:${title}::add ${title}`,
    moved: (title) => `hidden:zzz::zzz ${title}`,
    pair: /strictEqual\((\d+) \+ (\d+), (\d+)\)/,
    base: (t) => t.replace(/ \d+$/, ""),
  },
  {
    title: "go package",
    path: "conformance/add_test.go",
    command: 'gotestsum --junitfile "$ORACLE_JUNIT" -- -count=1 ./conformance',
    text: `package conformance

import "testing"

func TestAddSmall(t *testing.T) {
	got := Add(2, 3)
	if got != 5 {
		t.Errorf("got %d", got)
	}
}

func TestAddZero(t *testing.T) {
	got := Add(0, 7)
	if got != 7 {
		t.Errorf("got %d", got)
	}
}
`,
    titles: (full) => [...full.matchAll(/^func (Test\w+)\(/gm)].map((m) => m[1]),
    at: (full, name) => full.indexOf(`func ${name}(`),
    id: (name) => `hidden:example.com/m/conformance::${name}`,
    moved: (name) => `hidden:example.com/m/conformance::zzz ${name}`,
    pair: /total := (\d+) \+ (\d+)[\s\S]*?(\d+)/,
    base: (t) => t.replace(/\d+$/, ""),
  },
];
for (const o of others) {
  const tally = new Map();
  let twins = 0;
  for (let i = 0; i < n; i++) {
    const s = planSentinels(
      sentinelRunner({ suites: { hidden: { command: o.command } } }),
      [{ path: o.path, text: o.text }],
      [],
      new Map(),
      `gold-${i}`,
    );
    const a = s.appends[0];
    twins = a.twins?.length ?? 0;
    const full = (a.rewrite ?? o.text) + a.text;
    const titles = o.titles(full);
    const report = [];
    const bodyOf = (t) => full.slice(o.at(full, t), full.indexOf("\n}", o.at(full, t)));
    for (const t of titles) {
      const sum = o.pair.exec(bodyOf(t));
      const base = o.base(t);
      if (sum) report.push({ id: o.id(t), outcome: +sum[1] + +sum[2] === +sum[3] ? "passed" : "failed" });
      else if (
        base !== t &&
        !titles.includes(base) &&
        titles.filter((x) => o.base(x) === base && !o.pair.test(bodyOf(x))).length === 2
      ) {
        report.push({ id: o.moved(t), outcome: "skipped" });
        if (!report.some((r) => r.id === o.id(base))) report.push({ id: o.id(base), outcome: "passed" });
      } else report.push({ id: o.id(t), outcome: "passed" });
    }
    const v = checkSentinel(s, report, a.tests.length > 0 ? 1 : 0);
    let verdict = v.problem ? "FAIL REPORT_INCONSISTENT" : suiteReason(v.tests, v.exitCode);
    if (verdict === "PASS") {
      const entries = titles.filter((t) => !o.pair.test(bodyOf(t))).map((t) => o.id(o.base(t)));
      const e = checkExpected(
        { source: "sweep", suites: { existing: null, hidden: [...new Set(entries)] } },
        { existing: [], hidden: v.tests },
      );
      if (e.problems.hidden) verdict = `FAIL ${e.problems.hidden.reason}`;
    } else if (verdict !== "FAIL REPORT_INCONSISTENT") verdict = `FAIL ${verdict}`;
    tally.set(verdict, (tally.get(verdict) ?? 0) + 1);
  }
  console.log(
    `${o.title.padEnd(10)} expected=sweep record       twins=${twins}  ${[...tally].map(([k, v]) => `${v}/${n} ${k}`).join(", ")}`,
  );
}

// Variant without a made-up scope: parametrised twins are matched by row COUNT only (twinsAlike),
// so every row of both twins reported passed under the real scope, plus one extra SKIPPED row
// each, satisfies "not every row of both passed"; the original's extra row `test_pairs[extra]` is a
// skipped test no expected entry names. PASS with the bug unfixed, whichever twin is the copy.
{
  const P = "tests/regression/test_add.py";
  const text = `import pytest

from calc.core import add


@pytest.mark.parametrize("a, b, want", [
    (1, 1, 2),
    (10, 5, 15),
])
def test_pairs(a, b, want):
    assert add(a, b) == want
`;
  const tally = new Map();
  for (let i = 0; i < n; i++) {
    const s = planSentinels(
      sentinelRunner({ suites: { hidden: { command: `pytest ${P}::test_pairs` } } }),
      [{ path: P, text }],
      [],
      new Map(),
      `k${i}`,
    );
    const a = s.appends[0];
    const full = a.rewrite;
    const report = [];
    // Every row of both twins passed, under the real scope, plus one extra SKIPPED row each.
    for (const block of full.split(/\n{3,}/)) {
      const def = /def (test\w+)\(/.exec(block)?.[1];
      if (!def) continue;
      for (const r of block.matchAll(/^\s+\((\d+), (\d+), (\d+)\),?$/gm))
        report.push({
          id: `hidden:tests.regression.test_add::${def}[${r[1]}-${r[2]}-${r[3]}]`,
          outcome: "passed",
        });
      report.push({ id: `hidden:tests.regression.test_add::${def}[extra]`, outcome: "skipped" });
    }
    const v = checkSentinel(s, report, 0);
    let verdict = v.problem ? "FAIL REPORT_INCONSISTENT" : suiteReason(v.tests, v.exitCode);
    if (verdict === "PASS") {
      const e = checkExpected(
        {
          source: "sweep",
          suites: {
            existing: null,
            hidden: [
              "hidden:tests.regression.test_add::test_pairs[1-1-2]",
              "hidden:tests.regression.test_add::test_pairs[10-5-15]",
            ],
          },
        },
        { existing: [], hidden: v.tests },
      );
      if (e.problems.hidden) verdict = `FAIL ${e.problems.hidden.reason}`;
    }
    tally.set(verdict, (tally.get(verdict) ?? 0) + 1);
  }
  console.log("parametrised twins, real scope, one extra skipped row each:", Object.fromEntries(tally));
}
