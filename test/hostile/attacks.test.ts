// Attacks by an author who has read the grader, on the conformance set's task shapes (pytest file /
// unittest class / -k, mocha --grep, jest -t, vitest -t, gotestsum -run), named by attack. Each
// leaves the bug unfixed and tries to get PASS; each case asserts the verdict a correct grader must
// give (FAIL). See docs/security.md "What still gets through".
//
// spare-the-pair: the must-fail/must-pass pair is appended to the hidden test files in the
// checkout, which the code under test can read, and it asserts on literal arithmetic (`total =
// a + b`, `strictEqual(a + b, n)`, `total := a + b`) that no real test does. So the code
// tells the pair from the real tests by its source, lets the pair run honestly and forges only the
// rest. On 1ebdaf2 the twins caught it; now the seals do: the real tests' comparisons ran in the
// container without their expected values, and the values recorded are the unfixed code's.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, run } from "@oracle/test-utils";
import { describe, expect, it } from "vitest";
import { conformanceHooks, goldDiff, grade, read, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyGold, pyHidden, pyRepo, pySkip, pyTamper, pyTask, SHAPES } from "../conformance/table.js";
import type { Graded } from "./harness.js";
import { why } from "./measure.js";

/** A jest task whose hidden file writes every test with `test.each` (a common style). */
const JEST_EACH_FILE = `const { slugify } = require("../../src/slugify");

describe("separators, table-driven", () => {
  test.each([
    ["hello   world", "hello-world"],
    ["Hello, World!", "hello-world"],
  ])("slugify(%j) is %j", (input, want) => {
    expect(slugify(input)).toBe(want);
  });
});
`;

const JEST_LINK = "ln -sfn /opt/deps/node_modules node_modules &&";

/**
 * pytest: the hidden module's first test registers a name in a module-level registry (a side effect);
 * a later module checks the registry. Correct code passes both, once each; the must-fail sentinel
 * runs a fixture-less test's body verbatim, so when it picks the registering one the later module
 * sees the name twice.
 */
const sideEffectRepo = {
  ...pyRepo,
  "calc/core.py": `_REGISTERED = []


def register(name):
    _REGISTERED.append(name)


def registered():
    return list(_REGISTERED)


def add(a, b):
    return a - b


def mul(a, b):
    return a * b
`,
};
const sideEffectHidden = {
  "tests/regression/__init__.py": "",
  "tests/regression/test_a_add.py": `from calc import core


def test_add_registers():
    core.register("add")
    assert core.add(2, 3) == 5


def test_add_zero():
    assert core.add(0, 7) == 7
`,
  "tests/regression/test_b_registry.py": `from calc import core


def test_add_registered_once():
    assert core.registered() == ["add"]
`,
};

/**
 * pytest: a hidden module whose string constant holds a test's text at column 0 (a code sample, a
 * doctest) and whose test compares with a triple-quoted string. A planner that reads lines as code
 * renamed the "test" inside the string (then missing from the report) or cut a test at the string.
 */
const stringsHidden = {
  "tests/regression/__init__.py": "",
  "tests/regression/test_add.py": `from calc.core import add

SAMPLE = """
def test_sample():
    assert add(1, 1) == 2
"""


def test_add_small():
    assert add(2, 3) == 5


def test_add_text():
    assert add("a", "b") == """ab"""
`,
};

/**
 * pytest: a hidden test of code that keeps state between calls (each call returns the next id).
 * A second run of its body sees other state: whether a twin of it passes on correct code depends on
 * the draw (the copy's side, its value), so the draw must be the same in every run of the task.
 */
const statefulRepo = {
  ...pyRepo,
  "calc/core.py": `_LAST = [0]


def next_id():
    _LAST[0] += 1
    return _LAST[0]


def add(a, b):
    return a - b


def mul(a, b):
    return a * b
`,
};
const statefulHidden = {
  "tests/regression/__init__.py": "",
  "tests/regression/test_ids.py": `from calc import core


def test_first_id():
    assert core.next_id() == 1


def test_add_small():
    assert core.add(2, 3) == 5
`,
};

/** pytest: a hidden module whose only test is parametrised (SWE-bench's tasks are full of them). */
const paramsHidden = {
  "tests/regression/__init__.py": "",
  "tests/regression/test_add.py": `import pytest

from calc.core import add


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (2, 3, 5),
        (10, 4, 14),
        (0, 0, 0),
    ],
)
def test_add(a, b, expected):
    assert add(a, b) == expected
`,
};

const EXTRA: Shape[] = [
  {
    id: "py-params",
    title: "pytest, a hidden module of one parametrised test",
    from: { repo: pyRepo, hidden: paramsHidden, task: pyTask },
    hidden: `python3 -m pytest ${PYTEST} tests/regression/test_add.py`,
    gold: pyGold,
    tamper: pyTamper,
    skip: pySkip,
  },
  {
    id: "py-strings",
    title: "pytest, a hidden module with a test's text inside a string",
    from: { repo: pyRepo, hidden: stringsHidden, task: pyTask },
    hidden: `python3 -m pytest ${PYTEST} tests/regression/test_add.py`,
    gold: pyGold,
    tamper: pyTamper,
    skip: pySkip,
  },
  {
    id: "py-stateful",
    title: "pytest, a hidden test of code that keeps state between calls",
    from: { repo: statefulRepo, hidden: statefulHidden, task: pyTask },
    hidden: `python3 -m pytest ${PYTEST} tests/regression`,
    gold: { "calc/core.py": statefulRepo["calc/core.py"].replace("a - b", "a + b") },
    tamper: pyTamper,
    skip: pySkip,
  },
  {
    id: "jest-each",
    title: "jest, a hidden file written with test.each",
    from: { sample: "slug-jest" },
    hidden: `${JEST_LINK} JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false test/regression/each.test.js --reporters=default --reporters=jest-junit`,
    tamper: (work) => shape("jest-t").tamper(work),
    skip: (work) => shape("jest-t").skip(work),
  },
  {
    id: "py-x",
    title: "pytest -x (stops at the first failure)",
    from: { repo: pyRepo, hidden: pyHidden, task: pyTask },
    hidden: `python3 -m pytest -x ${PYTEST} tests/regression/test_add.py`,
    gold: pyGold,
    tamper: pyTamper,
    skip: pySkip,
  },
  {
    id: "py-side-effect",
    title: "pytest, a fixture-less hidden test with a side effect a later module sees",
    from: { repo: sideEffectRepo, hidden: sideEffectHidden, task: pyTask },
    hidden: `python3 -m pytest ${PYTEST} tests/regression`,
    gold: { "calc/core.py": sideEffectRepo["calc/core.py"].replace("a - b", "a + b") },
    tamper: pyTamper,
    skip: pySkip,
  },
];

const shape = (id: string): Shape => {
  const found = [...SHAPES, ...EXTRA].find((s) => s.id === id);
  if (!found) throw new Error(`no conformance shape ${id}`);
  return found;
};

const USED = ["py-files", "py-unittest", "py-k", "mocha-grep", "jest-t", "vitest-t", "go-run"];

const c = conformanceHooks([...USED.map(shape), ...EXTRA], () => {
  const each = join(c.corpus.root, "tasks", "jest-each", "hidden-tests", "test", "regression");
  mkdirSync(each, { recursive: true });
  writeFileSync(join(each, "each.test.js"), JEST_EACH_FILE);
  // A validated task has a gold.diff.
  writeFileSync(join(c.corpus.root, "tasks", "py-stateful", "gold.diff"), goldDiff(c, shape("py-stateful")));
});

/** calc/core.py of the pytest shapes, add() still subtracting. */
const PY_BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";

/**
 * pytest: every failed call report becomes a pass, unless the test's source holds the sentinel's
 * literal sum. Not gated on any suite: the existing suite's sentinels are spared the same way.
 */
const PY_SPARE = `import inspect
import re


def _oracle_added(item):
    try:
        return re.search(r"^ +\\w+ = \\d+ \\+ \\d+$", inspect.getsource(item.obj), re.M) is not None
    except Exception:
        return False


def _patch():
    from _pytest import reports

    orig = reports.TestReport.from_item_and_call

    def passed(cls, item, call):
        report = orig(item, call)
        if report.outcome == "failed" and not _oracle_added(item):
            report.outcome = "passed"
            report.longrepr = None
        return report

    reports.TestReport.from_item_and_call = classmethod(passed)


_patch()


${PY_BUGGY}`;

/**
 * JS: the titles of the tests in a test file whose body asserts on literal arithmetic (`(a + b,`
 * or `(a + b)`), read from the file itself.
 */
const JS_SENTINEL_TITLES = `function oracleTitles(file) {
  let text = "";
  try { text = readFileSync(file, "utf8"); } catch { return []; }
  const titles = [];
  const block = /(?:it|test)\\(("(?:[^"\\\\]|\\\\.)*"), \\(\\) => \\{\\n((?:.*\\n)*?)\\s*\\}\\);/g;
  for (const m of text.matchAll(block)) if (/\\(\\d+ \\+ \\d+[,)]/.test(m[2])) titles.push(JSON.parse(m[1]));
  return titles;
}`;

/** mocha (ESM): the assert functions swallow failures unless the failing call's line is a sentinel's. */
const mochaSpare = (work: string) => ({
  "src/index.js": `import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
function atSentinel() {
  for (const line of String(new Error().stack).split("\\n")) {
    const m = /(\\/[^\\s()]*\\.test\\.[cm]?js):(\\d+):\\d+/.exec(line);
    if (!m) continue;
    let text = "";
    try { text = readFileSync(m[1], "utf8").split("\\n")[Number(m[2]) - 1] ?? ""; } catch {}
    return /\\(\\d+ \\+ \\d+[,)]/.test(text);
  }
  return false;
}
for (const name of ["equal", "deepEqual", "strictEqual", "deepStrictEqual", "ok", "notEqual"]) {
  const orig = assert[name];
  assert[name] = function (...args) {
    try {
      return orig.apply(this, args);
    } catch (error) {
      if (atSentinel()) throw error;
    }
  };
}
${read(work, "src/index.js")}`,
});

/** jest (CommonJS): toBe/toEqual pass unless the running test is one the file's source shows asserting on a literal sum. */
const jestSpare = (work: string) => ({
  "src/slugify.js": `${read(work, "src/slugify.js")}
if (typeof expect === "function") {
  const { readFileSync } = require("node:fs");
  ${JS_SENTINEL_TITLES}
  const atSentinel = () => {
    const { testPath, currentTestName } = expect.getState();
    return oracleTitles(testPath).some((t) => String(currentTestName).endsWith(t));
  };
  const result = (pass, received, expected) => ({ pass, message: () => \`expected \${received} to be \${expected}\` });
  expect.extend({
    toBe(received, expected) {
      return result(Object.is(received, expected) || !atSentinel(), received, expected);
    },
    toEqual(received, expected) {
      return result(this.equals(received, expected) || !atSentinel(), received, expected);
    },
    toStrictEqual(received, expected) {
      return result(this.equals(received, expected) || !atSentinel(), received, expected);
    },
  });
}
`,
});

/** vitest (ESM): chai's Assertion#assert swallows failures unless the running test is a sentinel. */
const vitestSpare = (work: string) => ({
  "src/ranges.js": `import { readFileSync } from "node:fs";
import { chai, expect } from "vitest";
${JS_SENTINEL_TITLES}
const atSentinel = () => {
  const { testPath, currentTestName } = expect.getState();
  return oracleTitles(String(testPath)).some((t) => String(currentTestName).endsWith(t));
};
const orig = chai.Assertion.prototype.assert;
chai.Assertion.prototype.assert = function (...args) {
  try {
    return orig.apply(this, args);
  } catch (error) {
    if (atSentinel()) throw error;
  }
};
${read(work, "src/ranges.js")}`,
});

/**
 * Go: a non-test file's init() in the package under test prints the whole run: every selected
 * Test* of the binary's folder passes, except the sentinels, whose literal sums it evaluates (the
 * must-fail fails, the must-pass passes), then FAIL and exit 1, as an honest run with only the
 * sentinel failing would.
 */
const goSpare = () => ({
  "spare.go": `package semver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

func init() {
	if !strings.HasSuffix(os.Args[0], ".test") {
		return
	}
	run := regexp.MustCompile("")
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.run=") {
			run = regexp.MustCompile(strings.TrimPrefix(a, "-test.run="))
		}
	}
	names, _ := filepath.Glob("*_test.go")
	fn := regexp.MustCompile(\`(?ms)^func (Test\\w*)\\(\\w+ \\*testing\\.T\\) \\{\\n(.*?)\\n\\}\\n\`)
	sum := regexp.MustCompile(\`\\w+ := (\\d+) \\+ (\\d+)\\n.*?(\\d+)\`)
	failed := false
	for _, name := range names {
		text, _ := os.ReadFile(name)
		for _, m := range fn.FindAllSubmatch(text, -1) {
			test := string(m[1])
			if !run.MatchString(test) {
				continue
			}
			fmt.Printf("=== RUN   %s\\n", test)
			if s := sum.FindSubmatch(m[2]); s != nil {
				a, _ := strconv.Atoi(string(s[1]))
				b, _ := strconv.Atoi(string(s[2]))
				w, _ := strconv.Atoi(string(s[3]))
				if a+b != w {
					failed = true
					fmt.Printf("    %s:1: total = %d, want %d\\n--- FAIL: %s (0.00s)\\n", name, a+b, w, test)
					continue
				}
			}
			fmt.Printf("--- PASS: %s (0.00s)\\n", test)
		}
	}
	if failed {
		fmt.Println("FAIL")
		os.Exit(1)
	}
	fmt.Println("PASS")
	os.Exit(0)
}
`,
});

const ATTACKS: Array<{ id: string; title: string; diff: (work: string) => Record<string, string> }> = [
  {
    id: "py-files",
    title: "pytest: report flipped to passed except for tests whose source has the sentinel's sum",
    diff: () => ({ "calc/core.py": PY_SPARE }),
  },
  {
    id: "py-unittest",
    title: "pytest unittest class: the same",
    diff: () => ({ "calc/core.py": PY_SPARE }),
  },
  { id: "py-k", title: "pytest -k: the same", diff: () => ({ "calc/core.py": PY_SPARE }) },
  { id: "mocha-grep", title: "mocha: assert swallows failures off the sentinel's line", diff: mochaSpare },
  { id: "jest-t", title: "jest: matchers pass except in the sentinel tests", diff: jestSpare },
  {
    id: "vitest-t",
    title: "vitest: chai assert swallows failures except in the sentinels",
    diff: vitestSpare,
  },
  { id: "go-run", title: "go: init() forges the run, evaluating the sentinels' sums", diff: goSpare },
];

/** What the seals showed of a graded run: failed seals, or records that did not add up. */
function caughtBySeals(g: Graded): void {
  const seals = g.result.seals;
  expect(seals, why(g)).toBeDefined();
  const caught =
    (seals?.outcome.mismatch ?? 0) + (seals?.outcome.notPlain ?? 0) > 0 || seals?.problem !== undefined;
  expect(caught, `${why(g)}\nseals: ${JSON.stringify(seals)}`).toBe(true);
}

// The shapes attacked here are the conformance set's own (the same Shape, so the same task, byte for
// byte): test/conformance/conformance.test.ts grades each one's gold diff PASS, protected, in the same
// CI run, so the attack's FAIL is on a task whose correct fix PASSes. Grading that gold again here
// proved nothing more (issue 33: 7 grades); caughtBySeals says the FAIL is the seals' doing.
describe.concurrent("spare-the-pair: the code under test reads the pair's source and forges the rest", () => {
  for (const attack of ATTACKS) {
    it(`spare-the-pair-${attack.id}: ${attack.title} -> must FAIL`, async () => {
      const s = shape(attack.id);
      expect(SHAPES, `${s.id}: a conformance shape, whose gold conformance.test.ts grades`).toContain(s);
      const graded = await grade(c, s, "spare-the-pair", attack.diff);
      console.info(
        `spare-the-pair-${attack.id}: attack=${graded.result.reason} sentinel=${graded.result.sentinel?.state} seals=${JSON.stringify(graded.result.seals?.outcome)}`,
      );
      expect(graded.result.verdict, why(graded)).toBe("FAIL");
      // The pair is spared by this attack; the seals are not (on 1ebdaf2 the twins caught it).
      caughtBySeals(graded);
    });
  }
});

describe.concurrent("untargeted-tamper: a shape written with test.each, matchers forced to pass", () => {
  for (const id of ["jest-each"]) {
    it(`untargeted-tamper-${id}: ${shape(id).title}, matchers or reports forced to pass -> must FAIL`, async () => {
      const s = shape(id);
      const [gold, graded] = await Promise.all([
        grade(c, s, "gold", goldDiff(c, s)),
        grade(c, s, "untargeted-tamper", s.tamper),
      ]);
      console.info(
        `untargeted-tamper-${id}: gold=${gold.result.reason} attack=${graded.result.reason} sentinel=${graded.result.sentinel?.state} note=${graded.result.sentinel?.note}`,
      );
      expect(gold.result.verdict, why(gold)).toBe("PASS");
      expect(graded.result.verdict, why(graded)).toBe("FAIL");
    });
  }
});

describe("stops-at-first-failure: a command with -x carries no pair, its seals decide", () => {
  it("stops-at-first-failure-py-x: the tamper FAILs on the seals, and the sweep keeps the task (its comparisons are sealed)", async () => {
    const s = shape("py-x");
    const graded = await grade(c, s, "stops-at-first-failure", s.tamper);
    // No pair can run here (the must-fail would stop the run): the result says so...
    expect(graded.result.sentinel).toMatchObject({ state: "none" });
    expect(graded.result.sentinel?.note).toMatch(/stops at its first failure \(-x, --maxfail\)/);
    // ...and the seals, which need no test of their own, catch the tamper (on 1ebdaf2 it PASSed).
    expect(graded.result.verdict, why(graded)).toBe("FAIL");
    caughtBySeals(graded);
    const sweep = await run(
      binPath("oracle-quarantine-sweep"),
      ["--root", c.corpus.root, "--tasks", "py-x", "--repeat", "1", "--json"],
      { timeoutMs: 600_000 },
    );
    const report = JSON.parse(sweep.stdout) as {
      tasks: Array<{ id: string; reasons: Array<{ flag: string }> }>;
    };
    const flags = report.tasks.find((t) => t.id === "py-x")?.reasons.map((r) => r.flag);
    expect(flags, sweep.stderr).not.toContain("SENTINEL_NOT_COLLECTED");
  });
});

describe("pair-side-effect: a correct fix must PASS every time", () => {
  it("pair-side-effect: the must-fail re-runs a test body with a side effect -> gold must PASS in 6 of 6 grades", async () => {
    const s = shape("py-side-effect");
    const baseline = await grade(c, s, "baseline");
    expect(baseline.result.reason, why(baseline)).toBe("TESTS_FAILED");
    const golds = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => grade(c, s, `gold-${i}`, goldDiff(c, s))));
    const reasons = golds.map((g) => g.result.reason);
    console.info(`pair-side-effect: gold reasons ${reasons.join(" ")}`);
    for (const g of golds) expect(g.result.verdict, why(g)).toBe("PASS");
  });
});

describe("seals a correct fix survives", () => {
  it("seal-strings: a test's text inside a string is left alone; the gold PASSes", async () => {
    const s = shape("py-strings");
    const gold = await grade(c, s, "gold", goldDiff(c, s));
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    expect(gold.result.sentinel?.state, why(gold)).toBe("collected");
  });

  it("seal-stateful: a test of code that keeps state between calls runs once, so 6 gold grades PASS", async () => {
    const s = shape("py-stateful");
    const golds = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => grade(c, s, `gold-${i}`, goldDiff(c, s))));
    const seen = golds.map((g) => `${g.result.verdict} ${g.result.reason}`);
    console.info(`seal-stateful: ${seen.join(" | ")}`);
    for (const g of golds) expect(g.result.verdict, why(g)).toBe("PASS");
    for (const g of golds) expect(g.result.seals?.outcome.matched, why(g)).toBeGreaterThan(0);
  });
});

describe("spare-the-pair-py-params: a parametrised hidden test, its expected value a parameter", () => {
  it("spare-the-pair-py-params: the report flipped to passed except for the pair's source -> must FAIL (the comparison is checked: both sides recorded)", async () => {
    const s = shape("py-params");
    const [gold, graded] = await Promise.all([
      grade(c, s, "gold", goldDiff(c, s)),
      grade(c, s, "spare-the-pair", () => ({ "calc/core.py": PY_SPARE })),
    ]);
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    expect(graded.result.verdict, why(graded)).toBe("FAIL");
    caughtBySeals(graded);
  });
});
