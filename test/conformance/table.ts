// The conformance set's shapes: pytest (explicit file, node ids with a class and a parametrised id,
// -k, a unittest.TestCase class; started as pytest-3 and python3 -m pytest), mocha (a named file
// and --grep, directly and through `npm test --`), jest (a named file and -t), vitest (a named file
// and -t), Go (gotestsum with -run).
// Every attack is gated on the hidden suite's command line, so the existing suite still passes and
// the verdict turns on the hidden suite alone.
import { goForgeBody } from "../hostile/harness.js";
import { read, type Shape } from "./shapes.js";

export const PYTEST = '-p no:cacheprovider -q --junitxml="$ORACLE_JUNIT"';

export const pyRepo = {
  "calc/__init__.py": "",
  "calc/core.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
  "tests/__init__.py": "",
  "tests/test_mul.py": "from calc.core import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
  ".gitignore": "__pycache__/\n",
};
export const pyHidden = {
  "tests/regression/__init__.py": "",
  "tests/regression/test_add.py": `import pytest

from calc.core import add


def test_add_small():
    assert add(2, 3) == 5


class TestAdd:
    def test_negative(self):
        assert add(-2, -3) == -5

    @pytest.mark.parametrize("a,b,want", [(1, 1, 2), (10, 5, 15)])
    def test_pairs(self, a, b, want):
        assert add(a, b) == want
`,
  "tests/regression/test_add_case.py": `import unittest

from calc.core import add


class AddCase(unittest.TestCase):
    def test_small(self):
        self.assertEqual(add(2, 3), 5)

    def test_zero(self):
        self.assertEqual(add(0, 7), 7)
`,
};
export const pyTask = {
  $schema: "../../packages/spec/task.schema.json",
  description: "conformance: add() subtracts",
  image: "python-pytest",
  suites: {
    existing: { command: `python3 -m pytest ${PYTEST} tests --ignore=tests/regression`, files: ["tests/**"] },
    hidden: { command: "" },
  },
  diff: { allow: ["**"], deny: ["tests/**"] },
  timeoutSeconds: 60,
  env: { PYTHONDONTWRITEBYTECODE: "1" },
};
/** vitest on the image's node_modules, its JUnit report where the oracle reads it: `${VITEST_RUN} FILES`. */
export const VITEST_RUN =
  'ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/vitest run --no-cache --reporter=default --reporter=junit --outputFile.junit="$ORACLE_JUNIT"';
/** A node-vitest task: the existing suite is test/unit, the diff may change anything but `deny`. */
export const vitestTask = (description: string, deny = ["test/**"]) => ({
  $schema: "../../packages/spec/task.schema.json",
  description,
  image: "node-vitest",
  suites: {
    existing: { command: `${VITEST_RUN} test/unit`, files: ["test/**"] },
    hidden: { command: "" },
  },
  diff: { allow: ["**"], deny },
  timeoutSeconds: 120,
});
/** True in the hidden suite's pytest process only (the existing one ignores tests/regression). */
const PY_HIDDEN = `any(a.startswith("tests/regression") for a in sys.argv[1:])`;
export const pyGold = { "calc/core.py": pyRepo["calc/core.py"].replace("a - b", "a + b") };
/** Imported by the test module: every failed report from then on is turned into a pass. */
export const pyTamper = () => ({
  "calc/core.py": `import sys


def _patch():
    from _pytest import reports

    orig = reports.TestReport.from_item_and_call

    def passed(cls, item, call):
        report = orig(item, call)
        if report.outcome == "failed":
            report.outcome = "passed"
            report.longrepr = None
        return report

    reports.TestReport.from_item_and_call = classmethod(passed)


if ${PY_HIDDEN}:
    _patch()

${pyRepo["calc/core.py"]}`,
});
/** The code skips the inputs it cannot handle. */
export const pySkip = () => ({
  "calc/core.py": `import sys


def add(a, b):
    if ${PY_HIDDEN}:
        import pytest

        pytest.skip("unsupported input")
    return a - b


def mul(a, b):
    return a * b
`,
});
const py = (id: string, title: string, hidden: string, extra: Partial<Shape> = {}): Shape => ({
  id,
  title,
  from: { repo: pyRepo, hidden: pyHidden, task: pyTask },
  hidden,
  gold: pyGold,
  tamper: pyTamper,
  skip: pySkip,
  ...extra,
});

export const SHAPES: Shape[] = [
  py("py-files", "pytest-3 with an explicit test file", `pytest-3 ${PYTEST} tests/regression/test_add.py`),
  py(
    "py-class",
    "python3 -m pytest with a file::Class node id",
    `python3 -m pytest ${PYTEST} tests/regression/test_add.py::TestAdd`,
  ),
  // Node ids of single tests (SWE-bench's shape): the pair is added to the file at module level and
  // named by node ids after the command's own (issue 29: before, no pair was selected and only the
  // named tests' seals protected them; a parametrised case with the parameter as expected value had
  // neither).
  py(
    "py-nodeids",
    "python3 -m pytest with single-test node ids (file::test, file::Class::test): the pair named by node ids too",
    `python3 -m pytest ${PYTEST} tests/regression/test_add.py::test_add_small "tests/regression/test_add.py::TestAdd::test_negative"`,
    { pair: true },
  ),
  py(
    "py-param-id",
    "python3 -m pytest with a parametrised case's node id (file::Class::test[param]): the pair named by node ids too",
    `python3 -m pytest ${PYTEST} "tests/regression/test_add.py::TestAdd::test_pairs[1-1-2]"`,
    { pair: true },
  ),
  py(
    "py-k",
    "python3 -m pytest -k over a folder",
    `python3 -m pytest ${PYTEST} tests/regression -k "pairs or small"`,
  ),
  py(
    "py-unittest",
    "pytest-3 with a unittest.TestCase class's node id",
    `pytest-3 ${PYTEST} tests/regression/test_add_case.py::AddCase`,
  ),
];

const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";
/** True in the hidden suite's process only: its command names test/regression/. */
const JS_HIDDEN = `process.argv.some((a) => a.includes("test/regression"))`;

/** mocha (ESM, node:assert/strict): the code turns the assertion functions into no-ops. */
const mochaTamper = (work: string) => ({
  "src/index.js": `import assert from "node:assert/strict";
if (${JS_HIDDEN}) for (const name of ["equal", "deepEqual", "strictEqual", "deepStrictEqual", "ok"]) assert[name] = () => {};
${read(work, "src/index.js")}`,
});
/** mocha: the code throws mocha's Pending for the inputs it gets wrong. */
const mochaSkip = (work: string) => ({
  "src/index.js": `${read(work, "src/index.js").replace(
    "export function calculate(source) {",
    `import { createRequire } from "node:module";
const Pending = createRequire(import.meta.url)("mocha/lib/pending");
export function calculate(source) {
  if (${JS_HIDDEN}) throw new Pending("unsupported input");`,
  )}`,
});
const MOCHA_JUNIT = `--reporter mocha-junit-reporter --reporter-option mochaFile="$ORACLE_JUNIT"`;
SHAPES.push({
  id: "mocha-grep",
  title: "mocha with a named file and --grep",
  from: { sample: "calc-node" },
  hidden: `${LINK} node_modules/.bin/mocha ${MOCHA_JUNIT} test/regression/associativity.test.js --grep "left to right"`,
  tamper: mochaTamper,
  skip: mochaSkip,
});
/**
 * mocha behind a package script, as many JS tasks are written: `npm test -- <args>` runs calc's
 * `"test": "mocha 'test/*.test.js'"` with the arguments appended. The oracle reads the runner and the
 * script's own arguments from the base commit's package.json.
 */
SHAPES.push({
  id: "mocha-npm",
  title: "npm test -- a named file and --grep (mocha behind the package script)",
  from: { sample: "calc-node" },
  hidden: `${LINK} npm test -- test/regression/associativity.test.js --grep "left to right" ${MOCHA_JUNIT}`,
  tamper: mochaTamper,
  skip: mochaSkip,
});

/** jest (CommonJS, global expect): the code overrides the matchers; or swaps test for test.skip. */
SHAPES.push({
  id: "jest-t",
  title: "jest with a named file and -t",
  from: { sample: "slug-jest" },
  hidden: `${LINK} JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false test/regression/separators.test.js -t "collapses" --reporters=default --reporters=jest-junit`,
  tamper: (work) => ({
    "src/slugify.js": `${read(work, "src/slugify.js")}
if (${JS_HIDDEN} && typeof expect === "function") {
  const pass = () => ({ pass: true, message: () => "" });
  expect.extend({ toBe: pass, toEqual: pass, toStrictEqual: pass });
}
`,
  }),
  skip: (work) => ({
    "src/slugify.js": `${read(work, "src/slugify.js")}
if (${JS_HIDDEN} && typeof test === "function") globalThis.test = globalThis.it = test.skip;
`,
  }),
});

/**
 * vitest (ESM): the code turns chai's Assertion#assert (behind every expect matcher) into a no-op; or
 * skips the running test through the runner's own context. vitest runs test files in workers whose
 * argv does not name them, so the gate is the test file's path as vitest itself tells it.
 */
const VITEST_HIDDEN = `String(expect.getState().testPath).includes("test/regression")`;
SHAPES.push({
  id: "vitest-t",
  title: "vitest with a named file and -t",
  from: { sample: "ranges-vitest" },
  hidden: `${LINK} node_modules/.bin/vitest run test/regression/touching.test.js -t "joined" --no-cache --reporter=default --reporter=junit --outputFile.junit="$ORACLE_JUNIT"`,
  tamper: (work) => ({
    "src/ranges.js": `import { chai, expect } from "vitest";
if (${VITEST_HIDDEN}) chai.Assertion.prototype.assert = () => {};
${read(work, "src/ranges.js")}`,
  }),
  skip: (work) => ({
    "src/ranges.js": `import { getCurrentTest } from "@vitest/runner";
import { expect } from "vitest";
${read(work, "src/ranges.js").replace(
  "export function merge(ranges) {",
  `export function merge(ranges) {
  if (${VITEST_HIDDEN}) getCurrentTest()?.context.skip();`,
)}`,
  }),
});

/** A non-test file of the package under test: its init() runs in the hidden tests' binary first. */
const goInit = (body: string) => `package semver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var _ = fmt.Sprint
var _ = filepath.Glob
var _ = regexp.MustCompile

func init() {
	if !strings.HasSuffix(os.Args[0], ".test") {
		return
	}
	if _, err := os.Stat("precedence_test.go"); err != nil {
		return
	}
${body}
}
`;

/** Go (gotestsum, -run): exit 0 before any test; deselect every test; or forge a passing run. */
SHAPES.push({
  id: "go-run",
  title: "gotestsum with -run",
  from: { sample: "semver-go" },
  hidden: `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1 -run 'TestNumeric|TestSpec' ./conformance`,
  tamper: () => ({ "tamper.go": goInit("\tos.Exit(0)") }),
  skip: () => ({ "tamper.go": goInit('\tos.Args = append(os.Args, "-test.run=^$")') }),
  forge: () => ({
    "tamper.go": goInit(goForgeBody()),
  }),
});

// Selections anchored to exact names (Multi-SWE-bench writes Go tasks so; JS tasks name one test the
// same way): no name like the file's own with a number added is selected, so the oracle widens the
// selection to the pair's exact names and runs the rewritten command (issue 29). The forger follows
// the binary's own -test.run, as one that knows the protocol would.
SHAPES.push({
  id: "go-run-anchored",
  title: "gotestsum with -run anchored to exact names: the -run widened to the pair",
  from: { sample: "semver-go" },
  hidden: `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1 -run '^(TestNumericIdentifiersCompareNumerically|TestSpecExampleIsAscending)$' ./conformance`,
  pair: true,
  tamper: () => ({ "tamper.go": goInit("\tos.Exit(0)") }),
  skip: () => ({ "tamper.go": goInit('\tos.Args = append(os.Args, "-test.run=^$")') }),
  forge: () => ({
    "tamper.go": goInit(goForgeBody({ followRun: true })),
  }),
});
for (const base of ["mocha-grep", "jest-t", "vitest-t"]) {
  const shape = SHAPES.find((s) => s.id === base)!;
  const anchored: Record<string, [RegExp, string]> = {
    "mocha-grep": [
      /--grep "left to right"/,
      `--grep '^operators of equal precedence associate to the left subtracts left to right$'`,
    ],
    "jest-t": [/-t "collapses"/, `-t '^separators collapses runs of spaces$'`],
    "vitest-t": [/-t "joined"/, `-t '^ranges that touch are joined$'`],
  };
  const [from, to] = anchored[base]!;
  SHAPES.push({
    ...shape,
    id: `${base}-anchored`,
    title: `${shape.title}, anchored to one exact title: the filter widened to the pair`,
    hidden: shape.hidden.replace(from, () => to),
    pair: true,
  });
}

// The fix edits a test file the base commit has, and the existing command leaves that file out
// (SWE-bench's most common shape): pytest `--ignore=FILE`, a mocha list of files, jest
// `--testPathIgnorePatterns`, Go removing the file first. The existing suite's sentinels go only into
// files its command provably runs; on 1ebdaf2 the base version of the edited file got them and the
// gold diff FAILed REPORT_INCONSISTENT (issue 29).

const PY_EDIT_HIDDEN = `any(a.startswith("tests/test_add") for a in sys.argv[1:])`;
const pyEditRepo = {
  "calc/__init__.py": "",
  "calc/core.py": pyRepo["calc/core.py"],
  "tests/__init__.py": "",
  "tests/test_mul.py": pyRepo["tests/test_mul.py"],
  "tests/test_add.py": "from calc.core import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n",
  ".gitignore": "__pycache__/\n",
};
SHAPES.push({
  id: "py-edit-ignore",
  title: "the fix edits tests/test_add.py; the existing command is `pytest tests --ignore=tests/test_add.py`",
  from: {
    repo: pyEditRepo,
    hidden: {
      "tests/test_add.py": `${pyEditRepo["tests/test_add.py"]}\n\ndef test_add_small():\n    assert add(2, 3) == 5\n`,
    },
    task: {
      ...pyTask,
      suites: {
        existing: {
          command: `python3 -m pytest ${PYTEST} tests --ignore=tests/test_add.py`,
          files: ["tests/**"],
        },
        hidden: { command: "" },
      },
    },
  },
  hidden: `python3 -m pytest ${PYTEST} tests/test_add.py`,
  gold: pyGold,
  tamper: () => ({ "calc/core.py": pyTamper()["calc/core.py"].replace(PY_HIDDEN, PY_EDIT_HIDDEN) }),
  skip: () => ({ "calc/core.py": pySkip()["calc/core.py"].replace(PY_HIDDEN, PY_EDIT_HIDDEN) }),
});

const JS_EDIT_HIDDEN = `process.argv.some((a) => a.includes("test/add.test.js"))`;
const jsEditRepo = {
  "src/calc.js": "exports.add = (a, b) => a - b;\nexports.mul = (a, b) => a * b;\n",
  "test/mul.test.js":
    'const assert = require("node:assert");\nconst { mul } = require("../src/calc");\n\ndescribe("mul", () => {\n  it("multiplies", () => {\n    assert.strictEqual(mul(2, 3), 6);\n  });\n});\n',
  "test/add.test.js":
    'const assert = require("node:assert");\nconst { add } = require("../src/calc");\n\ndescribe("add", () => {\n  it("adds zero", () => {\n    assert.strictEqual(add(0, 0), 0);\n  });\n});\n',
  "package.json": '{ "name": "calc", "private": true }\n',
  ".gitignore": "node_modules\n",
};
const jsEditHidden = {
  "test/add.test.js": jsEditRepo["test/add.test.js"].replace(
    "\n});\n",
    '\n  it("adds small numbers", () => {\n    assert.strictEqual(add(2, 3), 5);\n  });\n});\n',
  ),
};
const jsEditGold = { "src/calc.js": jsEditRepo["src/calc.js"].replace("a - b", "a + b") };
/** node:assert's functions turned into no-ops in the hidden suite's process. */
const jsEditTamper = () => ({
  "src/calc.js": `if (${JS_EDIT_HIDDEN}) { const assert = require("node:assert"); for (const name of ["strictEqual", "deepStrictEqual", "equal", "ok"]) assert[name] = () => {}; }\n${jsEditRepo["src/calc.js"]}`,
});
const jsEditTask = (image: string, existing: string) => ({
  $schema: "../../packages/spec/task.schema.json",
  description: "conformance: add() subtracts; the fix edits test/add.test.js",
  image,
  suites: { existing: { command: existing, files: ["test/**"] }, hidden: { command: "" } },
  diff: { allow: ["**"], deny: ["test/**"] },
  timeoutSeconds: 90,
});
SHAPES.push({
  id: "mocha-edit-list",
  title: "the fix edits test/add.test.js; the existing command is mocha with a list of the other files",
  from: {
    repo: jsEditRepo,
    hidden: jsEditHidden,
    task: jsEditTask("node-mocha", `${LINK} node_modules/.bin/mocha ${MOCHA_JUNIT} test/mul.test.js`),
  },
  hidden: `${LINK} node_modules/.bin/mocha ${MOCHA_JUNIT} test/add.test.js`,
  gold: jsEditGold,
  tamper: jsEditTamper,
  skip: () => ({
    "src/calc.js": `${jsEditRepo["src/calc.js"]}if (${JS_EDIT_HIDDEN}) { const Pending = require("mocha/lib/pending"); const add = exports.add; exports.add = (a, b) => { if (a === 2) throw new Pending("unsupported"); return add(a, b); }; }\n`,
  }),
});
const JEST_JUNIT = `JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false`;
SHAPES.push({
  id: "jest-edit-ignore",
  title: "the fix edits test/add.test.js; the existing command is jest --testPathIgnorePatterns",
  from: {
    repo: jsEditRepo,
    hidden: jsEditHidden,
    task: jsEditTask(
      "node-jest",
      `${LINK} ${JEST_JUNIT} --testPathIgnorePatterns=test/add --reporters=default --reporters=jest-junit`,
    ),
  },
  hidden: `${LINK} ${JEST_JUNIT} test/add.test.js --reporters=default --reporters=jest-junit`,
  gold: jsEditGold,
  tamper: jsEditTamper,
  skip: () => ({
    "src/calc.js": `${jsEditRepo["src/calc.js"]}if (${JS_EDIT_HIDDEN} && typeof test === "function") globalThis.test = globalThis.it = test.skip;\n`,
  }),
});

const GO_JUNIT = `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1`;
const goEditRepo = {
  "go.mod": "module example.com/calc\n\ngo 1.19\n",
  "calc.go":
    "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n\n// Mul multiplies.\nfunc Mul(a, b int) int { return a * b }\n",
  "mul_test.go":
    'package calc\n\nimport "testing"\n\nfunc TestMul(t *testing.T) {\n\tif got := Mul(2, 3); got != 6 {\n\t\tt.Errorf("Mul(2, 3) = %d", got)\n\t}\n}\n',
  "add_test.go":
    'package calc\n\nimport "testing"\n\nfunc TestAddZero(t *testing.T) {\n\tif got := Add(0, 0); got != 0 {\n\t\tt.Errorf("Add(0, 0) = %d", got)\n\t}\n}\n',
};
/** A non-test file whose init() runs first in the test binary of the hidden suite only (add_test.go is there). */
const goEditInit = (body: string) => `package calc

import (
	"fmt"
	"os"
)

var _ = fmt.Sprint

func init() {
	if _, err := os.Stat("add_test.go"); err != nil {
		return
	}
${body}
}
`;
SHAPES.push({
  id: "go-edit-removed",
  title: "the fix edits add_test.go; the existing command removes it before gotestsum",
  from: {
    repo: goEditRepo,
    hidden: {
      "add_test.go": goEditRepo["add_test.go"].replace(
        "\n}\n",
        '\n}\n\nfunc TestAddSmall(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf("Add(2, 3) = %d", got)\n\t}\n}\n',
      ),
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "conformance: Add subtracts; the fix edits add_test.go",
      image: "go-gotestsum",
      suites: {
        existing: { command: `rm -f -- add_test.go && ${GO_JUNIT} .`, files: ["*_test.go"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["*_test.go", "go.mod", "go.sum"] },
      timeoutSeconds: 120,
      env: { GOPROXY: "off", GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" },
    },
  },
  hidden: `${GO_JUNIT} .`,
  gold: { "calc.go": goEditRepo["calc.go"].replace("a - b", "a + b") },
  tamper: () => ({ "tamper.go": goEditInit("\tos.Exit(0)") }),
  skip: () => ({ "tamper.go": goEditInit('\tos.Args = append(os.Args, "-test.run=^$")') }),
  forge: () => ({
    "tamper.go": goEditInit(
      '\tfor _, name := range []string{"TestAddZero", "TestAddSmall", "TestMul"} {\n\t\tfmt.Printf("=== RUN   %s\\n--- PASS: %s (0.00s)\\n", name, name)\n\t}\n\tfmt.Println("PASS")\n\tos.Exit(0)',
    ),
  }),
});
