// Red-team round 3: wrong verdicts against the real engine, on the conformance set's task shapes.
// Each case asserts the verdict a correct grader must give; each prints its measured counts.
//
// 1. forge-report-at-exit-*: the report is rewritten by the code under test (pytest: at exit, after
//    the JUnit file is written; Go: init() prints the whole run). Every test passes except the pair's
//    must-fail (told by its literal sum). On 26f65f3 it PASSed unfixed code 4/4 (against the twins, one
//    forged entry `A[::B[]` answered for both); the seals decide now: the records hold the unfixed
//    values (pytest), or none at all for tests the report says passed (Go's init() exits first).
// 2. ts-type-import: a TypeScript test file that imports a type (`import { merge, type Range }`):
//    the pair's `typeof <imported>` picks a name at random per run; on `Range` it is undefined at
//    run time (the type is erased), the must-pass fails, and the correct fix FAILs in about half of
//    the grades (the sweep's gold runs may miss it: the pick is not keyed).
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";
import { conformanceHooks, goldDiff, grade, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyGold, pyRepo, pySkip, pyTamper, pyTask } from "../conformance/table.js";
import { repeat, tally, why } from "./measure.js";

/** A hidden module of four tests: three twinnable (module-level and a class method), one with a fixture. */
const RT_HIDDEN = `import pytest

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

const RT_IDS = [
  "tests/regression/test_add.py::test_add_positive",
  "tests/regression/test_add.py::test_add_negative",
  "tests/regression/test_add.py::TestAddMore::test_zero",
  "tests/regression/test_add.py::test_add_fixture",
];

/**
 * Planted at the top of calc/core.py: at exit, pytest's JUnit report is rewritten (every test passed
 * but the pair's must-fail, one ambiguous failed entry per pair of twins) and the process exits 1,
 * as an honest run whose only failures are the oracle's would.
 */
const PY_FORGE = `import atexit as _atexit
import os as _os


def _forge():
    import ast
    import re
    import xml.etree.ElementTree as ET

    path = _os.environ.get("ORACLE_JUNIT")
    if not path or not _os.path.isfile(path):
        return
    tree = ET.parse(path)
    parents = {c: p for p in tree.iter() for c in p}
    sources = {}

    def functions(classname):
        parts = classname.split(".")
        for cut in range(len(parts), 0, -1):
            f = _os.path.join(*parts[:cut]) + ".py"
            if _os.path.isfile(f):
                if f not in sources:
                    sources[f] = ast.parse(open(f).read())
                scope = sources[f]
                for name in parts[cut:]:
                    scope = next(n for n in scope.body if isinstance(n, ast.ClassDef) and n.name == name)
                return {n.name: n for n in scope.body if isinstance(n, ast.FunctionDef)}
        return {}

    def must_fail(fn):
        m = re.search(
            r"(\\w+) = (\\d+) \\+ (\\d+)\\s*(?:assert \\1 == |self\\.assertEqual\\(\\1, )(\\d+)",
            ast.unparse(fn),
        )
        return None if m is None else int(m[2]) + int(m[3]) != int(m[4])

    extra = {}
    for case in list(tree.iter("testcase")):
        fns = functions(case.get("classname", ""))
        name = case.get("name", "").split("[")[0]
        if name in fns and must_fail(fns[name]) is not None:
            continue
        for child in list(case):
            if child.tag in ("failure", "error", "skipped"):
                case.remove(child)
        base = re.sub(r"_\\d+$", "", name)
        twins = sorted(n for n in fns if re.fullmatch(re.escape(base) + r"_\\d+", n) and must_fail(fns[n]) is None)
        if base != name and base not in fns and len(twins) == 2:
            extra.setdefault((case.get("classname"), base), (case, f"{twins[0]}[::{twins[1]}[]"))
    for case, name in extra.values():
        bogus = ET.SubElement(parents[case], "testcase", {"classname": case.get("classname", ""), "name": name})
        ET.SubElement(bogus, "failure", {"message": "assert"})
    tree.write(path)
    _os._exit(1)


_atexit.register(_forge)
`;

const PY_BUGGY = pyRepo["calc/core.py"];

/**
 * attacks.test.ts's PY_SPARE: every failed call report becomes a pass unless the test's source holds
 * the pair's literal sum. Twins catch it; on a run without twins nothing does.
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
 * forge.go: init() prints the whole run of the binary's folder, the same way: the pair's sums
 * evaluated, every other test passed, and one `TestA17[::TestA52[]` failure per pair of twins.
 */
const GO_FORGE = `package semver

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
	files, _ := filepath.Glob("*_test.go")
	fn := regexp.MustCompile(\`(?ms)^func (Test\\w*)\\(\\w+ \\*testing\\.T\\) \\{\\n(.*?)\\n\\}\\n\`)
	sum := regexp.MustCompile(\`\\w+ := (\\d+) \\+ (\\d+)\\n.*?(\\d+)\`)
	trail := regexp.MustCompile(\`^(Test\\w*?)\\d+$\`)
	defined := map[string]bool{}
	var names []string
	bodies := map[string]string{}
	for _, file := range files {
		text, _ := os.ReadFile(file)
		for _, m := range fn.FindAllSubmatch(text, -1) {
			defined[string(m[1])] = true
			names = append(names, string(m[1]))
			bodies[string(m[1])] = string(m[2])
		}
	}
	groups := map[string][]string{}
	var order []string
	failed := false
	for _, test := range names {
		fmt.Printf("=== RUN   %s\\n", test)
		if s := sum.FindStringSubmatch(bodies[test]); s != nil {
			a, _ := strconv.Atoi(s[1])
			b, _ := strconv.Atoi(s[2])
			w, _ := strconv.Atoi(s[3])
			if a+b != w {
				failed = true
				fmt.Printf("    forged: total = %d, want %d\\n--- FAIL: %s (0.00s)\\n", a+b, w, test)
				continue
			}
			fmt.Printf("--- PASS: %s (0.00s)\\n", test)
			continue
		}
		fmt.Printf("--- PASS: %s (0.00s)\\n", test)
		if m := trail.FindStringSubmatch(test); m != nil && !defined[m[1]] {
			if len(groups[m[1]]) == 0 {
				order = append(order, m[1])
			}
			groups[m[1]] = append(groups[m[1]], test)
		}
	}
	for _, base := range order {
		if g := groups[base]; len(g) == 2 {
			name := g[0] + "[::" + g[1] + "[]"
			failed = true
			fmt.Printf("=== RUN   %s\\n    forged\\n--- FAIL: %s (0.00s)\\n", name, name)
		}
	}
	if failed {
		fmt.Println("FAIL")
		os.Exit(1)
	}
	fmt.Println("PASS")
	os.Exit(0)
}
`;

/** A TypeScript range library (vitest runs .ts as is): merge() keeps touching ranges apart. */
const tsRepo = {
  ".gitignore": "node_modules\n",
  "package.json": `${JSON.stringify({ name: "ranges-ts", private: true, type: "module", devDependencies: { vitest: "2.1.9" } }, null, 2)}\n`,
  "src/ranges.ts": `export type Range = [number, number];

/** Sorts closed ranges by start and joins the ones that overlap. */
export function merge(ranges: Range[]): Range[] {
  const sorted = ranges.map(([s, e]): Range => [s, e]).sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  for (const range of sorted) {
    const last = out.at(-1);
    if (last !== undefined && range[0] < last[1]) last[1] = Math.max(last[1], range[1]);
    else out.push(range);
  }
  return out;
}
`,
  "test/unit/merge.test.ts": `import { describe, expect, it } from "vitest";
import { merge } from "../../src/ranges";

describe("merge", () => {
  it("joins overlapping ranges", () => {
    expect(merge([[1, 4], [2, 6]])).toEqual([[1, 6]]);
  });
});
`,
};

/** The hidden test: it imports the library's type beside its function, as TypeScript tests do. */
const tsHidden = {
  "test/regression/touching.test.ts": `import { describe, expect, it } from "vitest";
import { merge, type Range } from "../../src/ranges";

describe("ranges that touch", () => {
  it("are joined", () => {
    expect(merge([[1, 3], [3, 5]])).toEqual([[1, 5]]);
  });

  it("are joined in a chain", () => {
    const input: Range[] = [[5, 7], [1, 3], [3, 5]];
    expect(merge(input)).toEqual([[1, 7]]);
  });
});
`,
};

const VITEST = `ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/vitest run --no-cache --reporter=default --reporter=junit --outputFile.junit="$ORACLE_JUNIT"`;

const SHAPES: Shape[] = [
  {
    id: "rt-py",
    title: "pytest, a named hidden file with twinnable tests, expected tests declared, a gold.diff",
    from: {
      repo: pyRepo,
      hidden: { "tests/regression/__init__.py": "", "tests/regression/test_add.py": RT_HIDDEN },
      task: {
        ...pyTask,
        suites: { ...pyTask.suites, hidden: { command: "", expected: { failToPass: RT_IDS } } },
      },
    },
    hidden: `python3 -m pytest ${PYTEST} tests/regression/test_add.py`,
    gold: pyGold,
    tamper: pyTamper,
    skip: pySkip,
  },
  {
    id: "rt-py-deselect",
    title: "pytest, the same named file with one unrelated test deselected (--deselect)",
    from: {
      repo: pyRepo,
      hidden: { "tests/regression/__init__.py": "", "tests/regression/test_add.py": RT_HIDDEN },
      task: pyTask,
    },
    hidden: `python3 -m pytest ${PYTEST} tests/regression/test_add.py --deselect tests/regression/test_add.py::test_add_fixture`,
    gold: pyGold,
    tamper: pyTamper,
    skip: pySkip,
  },
  {
    id: "rt-go",
    title: "gotestsum over the hidden package (the sample semver-go)",
    from: { sample: "semver-go" },
    hidden: `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1 ./conformance`,
    tamper: () => ({}),
    skip: () => ({}),
  },
  {
    id: "rt-ts",
    title: "vitest, a TypeScript hidden file importing a type",
    from: {
      repo: tsRepo,
      hidden: tsHidden,
      task: {
        $schema: "../../packages/spec/task.schema.json",
        description: "red team: a TypeScript task",
        image: "node-vitest",
        suites: {
          existing: { command: `${VITEST} test/unit/`, files: ["test/**"] },
          hidden: { command: "" },
        },
        diff: { allow: ["**"], deny: ["test/**"] },
        timeoutSeconds: 90,
      },
    },
    hidden: `${VITEST} test/regression/`,
    gold: { "src/ranges.ts": tsRepo["src/ranges.ts"].replace("range[0] < last[1]", "range[0] <= last[1]") },
    tamper: () => ({}),
    skip: () => ({}),
  },
];

const shape = (id: string): Shape => SHAPES.find((s) => s.id === id)!;

const c = conformanceHooks(SHAPES, () => {
  // A validated task has a gold.diff.
  for (const id of ["rt-py", "rt-py-deselect", "rt-ts"])
    writeFileSync(join(c.corpus.root, "tasks", id, "gold.diff"), goldDiff(c, shape(id)));
});

describe("forge-report-at-exit: the report rewritten by the code under test, the pair's must-fail left failing", () => {
  it("forge-report-at-exit-py: pytest report rewritten at exit, bug unfixed -> must FAIL", async () => {
    const s = shape("rt-py");
    const gold = await grade(c, s, "gold", goldDiff(c, s));
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    const attacks = [
      await grade(c, s, "forge-report-at-exit", () => ({ "calc/core.py": `${PY_FORGE}\n\n${PY_BUGGY}` })),
    ];
    console.info(
      `forge-report-at-exit-py: ${tally(attacks)}; seals ${JSON.stringify(attacks[0]!.result.seals?.outcome)}`,
    );
    for (const g of attacks) expect(g.result.verdict, why(g)).toBe("FAIL");
    for (const g of attacks) expect(g.result.seals?.outcome.mismatch, why(g)).toBeGreaterThan(0);
  }, 900_000);

  it("forge-report-at-exit-go: init() forges the run of every test binary and exits, bug unfixed -> must FAIL", async () => {
    const s = shape("rt-go");
    const gold = await grade(c, s, "gold", goldDiff(c, s));
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    const attacks = [await grade(c, s, "forge-report-at-exit", () => ({ "forge.go": GO_FORGE }))];
    console.info(`forge-report-at-exit-go: ${tally(attacks)}; seals ${attacks[0]!.result.seals?.problem}`);
    for (const g of attacks) expect(g.result.verdict, why(g)).toBe("FAIL");
  }, 900_000);
});

describe("spare-the-pair-deselect: --deselect of an unrelated test, the pair spared by its text", () => {
  it("spare-the-pair-deselect: the seals still decide (on 1ebdaf2 --deselect turned every twin off) -> must FAIL", async () => {
    const s = shape("rt-py-deselect");
    const gold = await grade(c, s, "gold", goldDiff(c, s));
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    const attacks = [await grade(c, s, "spare-the-pair-deselect", () => ({ "calc/core.py": PY_SPARE }))];
    console.info(
      `spare-the-pair-deselect: ${tally(attacks)}; seals ${JSON.stringify(attacks[0]!.result.seals?.outcome)}`,
    );
    for (const g of attacks) expect(g.result.verdict, why(g)).toBe("FAIL");
  }, 900_000);
});

describe("ts-type-import: the pair asserts on a name the test file imports, a type included", () => {
  it("ts-type-import: the correct fix must PASS in every grade (2 here: the pair's pick is by the file's text now)", async () => {
    const s = shape("rt-ts");
    const golds = await repeat(2, (i) => grade(c, s, `gold-${i}`, goldDiff(c, s)));
    console.info(`ts-type-import: gold ${tally(golds)}`);
    for (const g of golds) expect(g.result.verdict, why(g)).toBe("PASS");
  }, 900_000);
});
