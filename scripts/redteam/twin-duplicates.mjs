// Red team round 4 (redteam2). Run after `pnpm build`: node scripts/redteam/twin-duplicates.mjs
// Planner-level: honest reports of a CORRECT fix that checkSentinel now calls REPORT_INCONSISTENT.
// Each report is what the runner really writes for the planted files (checked against real pytest
// 9 on the host and gotestsum in the go-gotestsum image, see the red-team report; the e2e cases are
// in test/hostile/redteam2.test.ts):
//  - a planted test reported more than once ("has N entries"): a test class inherited by two
//    collected classes, an `it` in a loop over implementations, gotestsum --rerun-fails (a failing
//    test is run up to 3 times, one <testcase> each), go test -count=2;
//  - a parametrised row id with a bracket from a raw-string parameter (r"[a-c]"): not matched;
//  - pytest's --deselect is a node-id PREFIX: a deselected class (or file, or a name that starts
//    another) takes the twins, and a pair named `<deselected>_N`, out of the run.
import { readFileSync } from "node:fs";
import {
  checkSentinel,
  planSentinels,
  sentinelRunner,
} from "../../packages/grader/dist/sentinels/sentinels.js";

const PY = "tests/regression/test_add.py";
const plan = (command, files) =>
  planSentinels(sentinelRunner({ suites: { hidden: { command } } }), files, [], new Map(), "gold-key");
/** The outcome an honest run of a correct fix gives a planted or original test. */
const outcomeOf = (s, name) => {
  const twins = s.appends.flatMap((a) => a.twins ?? []);
  const pair = s.appends.flatMap((a) => a.tests);
  if (twins.some((t) => t.copy === name)) return "failed";
  const p = pair.find((t) => t.names.includes(name));
  return p?.role === "fail" ? "failed" : "passed";
};
const verdict = (s, tests) => {
  // The runner's exit code: mocha's is its number of failures, the others' 1.
  const failures = tests.filter((t) => t.outcome === "failed").length;
  const v = checkSentinel(s, tests, s.framework === "mocha" ? Math.min(failures, 255) : 1);
  return v.problem
    ? `REPORT_INCONSISTENT: ${v.problem.replace(/.*?\): /, "").slice(0, 110)}`
    : `ok (exit ${v.exitCode})`;
};
const pyDefs = (text) => {
  const out = [];
  let cls = null;
  for (const line of text.split("\n")) {
    const c = /^class (\w+)/.exec(line);
    if (c) cls = c[1];
    else if (/^\S/.test(line)) cls = null;
    const d = /^(\s*)def (test\w*)\(/.exec(line);
    if (d) out.push({ cls: d[1] ? cls : null, name: d[2] });
  }
  return out;
};
const cases = [];

// 1. pytest: a test class inherited by two collected classes (pytest collects each method under both).
{
  const text = `from calc.core import add


class AddChecks:
    def test_small(self):
        assert add(2, 3) == 5

    def test_zero(self):
        assert add(0, 7) == 7


class TestAddInts(AddChecks):
    pass


class TestAddAgain(AddChecks):
    pass
`;
  const s = plan(`python3 -m pytest ${PY}`, [{ path: PY, text }]);
  const a = s.appends[0];
  const tests = [];
  for (const d of pyDefs((a.rewrite ?? text) + a.text))
    for (const cls of d.cls === "AddChecks" ? ["TestAddInts", "TestAddAgain"] : [d.cls])
      tests.push({
        id: `hidden:tests.regression.test_add${cls ? `.${cls}` : ""}::${d.name}`,
        outcome: outcomeOf(s, d.name),
      });
  cases.push(["pytest, a test class inherited twice", verdict(s, tests)]);
}

// 2. mocha: `it` inside a loop over two implementations (mocha-junit-reporter: name = full title).
{
  const path = "test/regression/impls.test.js";
  const text = `const assert = require("node:assert");
const { add, addFast } = require("../../src/add");

for (const impl of [add, addFast]) {
  describe(impl.name, () => {
    it("adds small numbers", () => {
      assert.strictEqual(impl(2, 3), 5);
    });

    it("adds zero", () => {
      assert.strictEqual(impl(0, 7), 7);
    });
  });
}
`;
  const s = plan(`node_modules/.bin/mocha --reporter mocha-junit-reporter ${path}`, [{ path, text }]);
  const a = s.appends[0];
  const full = (a.rewrite ?? text) + a.text;
  const inLoop = full.slice(0, full.lastIndexOf("}\n") + 2);
  const tests = [];
  for (const m of full.matchAll(/\bit\("([^"]+)"/g)) {
    const looped = m.index < inLoop.length;
    for (const d of looped ? ["add", "addFast"] : [""])
      tests.push({ id: `hidden:${m[1]}::${d ? `${d} ` : ""}${m[1]}`, outcome: outcomeOf(s, m[1]) });
  }
  cases.push(["mocha, tests in a loop over two implementations", verdict(s, tests)]);
}

// 3-4. Go (the semver-go sample's hidden file): gotestsum --rerun-fails, go test -count=2.
{
  const path = "conformance/precedence_test.go";
  const text = readFileSync(new URL(`../../tasks/semver-go/hidden-tests/${path}`, import.meta.url), "utf8");
  for (const [title, command, runs] of [
    [
      "gotestsum --rerun-fails (a failing test: 3 entries)",
      `gotestsum --junitfile "$ORACLE_JUNIT" --rerun-fails --packages ./conformance -- -count=1`,
      (o) => (o === "failed" ? 3 : 1),
    ],
    ["go test -count=2", `gotestsum --junitfile "$ORACLE_JUNIT" -- -count=2 ./conformance`, () => 2],
  ]) {
    const s = plan(command, [{ path, text }]);
    const a = s.appends[0];
    const tests = [];
    for (const m of ((a.rewrite ?? text) + a.text).matchAll(/^func (Test\w+)\(/gm)) {
      const outcome = outcomeOf(s, m[1]);
      for (let r = 0; r < runs(outcome); r++)
        tests.push({ id: `hidden:example.com/semver/conformance::${m[1]}`, outcome });
    }
    cases.push([title, verdict(s, tests)]);
  }
}

// 5. pytest: a parametrised test whose rows hold raw-string patterns (the row id shows the brackets).
{
  const text = `import pytest

from calc.text import count_matches


@pytest.mark.parametrize("pattern, text, want", [
    (r"[a-c]", "abcabc xyz", 6),
    (r"[x-z]+", "ab xyz zz", 2),
])
def test_count_matches(pattern, text, want):
    assert count_matches(pattern, text) == want
`;
  const s = plan(`python3 -m pytest ${PY}`, [{ path: PY, text }]);
  const a = s.appends[0];
  const full = (a.rewrite ?? text) + a.text;
  const tests = [];
  // pytest's ids: each row's values joined by "-", a str as it is.
  for (const block of full.split(/\n{3,}/)) {
    const def = /def (test\w+)\(/.exec(block)?.[1];
    if (!def) continue;
    const rows = [...block.matchAll(/^\s+\(r"([^"]*)", "([^"]*)", (\d+)\),?$/gm)];
    if (rows.length === 0)
      tests.push({ id: `hidden:tests.regression.test_add::${def}`, outcome: outcomeOf(s, def) });
    const copy = a.twins.some((t) => t.copy === def);
    for (const r of rows) {
      const right = (r[2].match(new RegExp(r[1], "g")) ?? []).length === Number(r[3]);
      tests.push({
        id: `hidden:tests.regression.test_add::${def}[${r[1]}-${r[2]}-${r[3]}]`,
        outcome: right ? "passed" : "failed",
      });
      if (!right && !copy) throw new Error("the original row fails");
    }
  }
  cases.push([`pytest, parametrised rows with r"[...]" (twins ${a.twins?.length ?? 0})`, verdict(s, tests)]);
}

// 6-7. pytest --deselect is a node id prefix (pytest's main.py: nodeid.startswith(deselect_prefixes)).
{
  const A = `from calc.core import add


def test_add_positive():
    assert add(2, 3) == 5


def test_flaky():
    assert add(1, 1) == 2


class TestSlow:
    def test_big(self):
        assert add(40, 2) == 42
`;
  const path = "tests/test_a.py";
  for (const deselect of [`${path}::TestSlow`, `${path}::test_flaky`]) {
    const s = plan(`python3 -m pytest tests --deselect ${deselect}`, [{ path, text: A }]);
    const a = s.appends[0];
    const tests = pyDefs((a.rewrite ?? A) + a.text)
      .map((d) => ({ node: `${path}::${d.cls ? `${d.cls}::` : ""}${d.name}`, ...d }))
      .filter((d) => !d.node.startsWith(deselect))
      .map((d) => ({
        id: `hidden:tests.test_a${d.cls ? `.${d.cls}` : ""}::${d.name}`,
        outcome: outcomeOf(s, d.name),
      }));
    cases.push([`pytest --deselect ${deselect.split("::")[1]}`, verdict(s, tests)]);
  }
}

for (const [title, v] of cases) console.log(`${title.padEnd(56)} ${v}`);
