// Red-team round 4: wrong verdicts against the real engine, written against the twins (on bd302de
// all eleven failed: 4/4 PASS on unfixed code, the gold FAILed 2/2). Each case asserts the verdict
// a correct grader must give; the attacks meet the seals now. Each case prints its counts.
//
// 1. skip-under-made-up-scope: the code under test rewrites pytest's JUnit report at exit: each of
//    a test's entries named like a planted one is marked SKIPPED and moved under one made-up
//    classname (`zzz`), and a PASSED entry under the real classname with the original name is added.
//    The seals' records hold the unfixed values, and the forged entry passes with no record of its own.
// 2. planted-test-duplicates: a correct fix must PASS when one test honestly has two or more report
//    entries (a test class inherited by two collected classes, an `it` in a loop, gotestsum
//    --rerun-fails, go test -count=2: "has N entries in the report"), a parametrised row whose id
//    holds a bracket from a raw string (r"[a-c]": the bracket check reads only plain quotes), a
//    --deselect of a class or of a test the pair is named after (pytest deselects by node id
//    PREFIX: `::TestSlow` takes the twins of its methods, `::test_flaky` the pair's `test_flaky_N`), or the
//    node id rewrite leaves a subclass's node id naming the renamed method (pytest: "not found").
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, run } from "@oracle/test-utils";
import { describe, expect, it } from "vitest";
import { conformanceHooks, goldDiff, grade, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyGold, pyRepo, pySkip, pyTamper, pyTask } from "../conformance/table.js";
import { tally, why } from "./measure.js";

/** Twinnable module-level tests, a class method, a parametrised method, and one with a fixture. */
const HIDDEN = `import pytest

from calc.core import add


def test_add_positive():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-2, -3) == -5


class TestAddMore:
    def test_zero(self):
        assert add(0, 7) == 7

    @pytest.mark.parametrize("a, b, want", [
        (1, 1, 2),
        (10, 5, 15),
    ])
    def test_pairs(self, a, b, want):
        assert add(a, b) == want


@pytest.fixture
def pair():
    return (4, 6)


def test_add_fixture(pair):
    assert add(*pair) == 10
`;
const FILE = "tests/regression/test_add.py";
/** SWE-bench's shape: FAIL_TO_PASS as node ids. */
const IDS = [
  `${FILE}::test_add_positive`,
  `${FILE}::test_add_negative`,
  `${FILE}::TestAddMore::test_zero`,
  `${FILE}::TestAddMore::test_pairs[1-1-2]`,
  `${FILE}::TestAddMore::test_pairs[10-5-15]`,
  `${FILE}::test_add_fixture`,
];

/**
 * Planted at the top of calc/core.py. At exit it rewrites the JUnit report from the test modules'
 * text alone: the pair (told by its literal sum) as it really fared, every other failure removed,
 * each twin (a name \`<base>_N\` whose \`<base>\` is defined nowhere) skipped under classname \`zzz\`,
 * and \`<classname>::<base>\` added as passed. It never decides which twin is the copy.
 */
const PY_SKIP_SCOPE = `import atexit as _atexit
import os as _os


def _forge():
    import re
    import xml.etree.ElementTree as ET

    path = _os.environ.get("ORACLE_JUNIT")
    if not path or not _os.path.isfile(path):
        return
    tree = ET.parse(path)
    parents = {c: p for p in tree.iter() for c in p}
    sources = {}

    def module_text(classname):
        parts = classname.split(".")
        for cut in range(len(parts), 0, -1):
            f = _os.path.join(*parts[:cut]) + ".py"
            if _os.path.isfile(f):
                if f not in sources:
                    sources[f] = open(f).read()
                return sources[f]
        return ""

    def body(text, name):
        m = re.search(r"^([ \\t]*)def " + re.escape(name) + r"\\(.*?(?=^\\1\\S|^\\S|\\Z)", text, re.M | re.S)
        return m.group(0) if m else ""

    def pair(text, name):
        m = re.search(
            r"(\\w+) = (\\d+) \\+ (\\d+)\\s*(?:assert \\1 == |self\\.assertEqual\\(\\1, )(\\d+)",
            body(text, name),
        )
        return None if m is None else int(m[2]) + int(m[3]) == int(m[4])

    failed = False
    for case in list(tree.iter("testcase")):
        classname = case.get("classname", "")
        name = case.get("name", "")
        text = module_text(classname)
        plain = name.split("[")[0]
        honest = pair(text, plain)
        for child in list(case):
            if child.tag in ("failure", "error", "skipped"):
                case.remove(child)
        if honest is not None:
            # The oracle's pair (told by its literal sum): report what it really does.
            if not honest:
                ET.SubElement(case, "failure", {"message": "assert"})
                failed = True
            continue
        base = re.sub(r"_\\d+$", "", plain)
        defined = re.search(r"def " + re.escape(base) + r"\\(", text) is not None
        if base != plain and not defined:
            # One of two twins, whichever it is: skipped, under a scope no expected entry names;
            # the original name passes under the real one.
            case.set("classname", "zzz")
            ET.SubElement(case, "skipped", {"message": "skip"})
            parent = parents[case]
            real = name.replace(plain, base, 1)
            if not any(c.get("classname") == classname and c.get("name") == real for c in parent):
                ET.SubElement(parent, "testcase", {"classname": classname, "name": real, "time": "0.001"})
    tree.write(path)
    _os._exit(1 if failed else 0)


_atexit.register(_forge)
`;
const PY_BUGGY = pyRepo["calc/core.py"];

const IMPLS = `from calc.core import add


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

const SUBCLASS = `from calc.core import add


class TestAdd:
    def test_small(self):
        assert add(2, 3) == 5


class TestAddAgain(TestAdd):
    pass
`;

/** A regular expression per row, in a raw string: pytest's row ids show its brackets. */
const REGEX_PARAM = `import pytest

from calc.text import count_matches


@pytest.mark.parametrize("pattern, text, want", [
    (r"[a-c]", "abcabc xyz", 6),
    (r"[x-z]+", "ab xyz zz", 2),
])
def test_count_matches(pattern, text, want):
    assert count_matches(pattern, text) == want
`;
const TEXT_BUGGY =
  "import re\n\n\ndef count_matches(pattern, text):\n    return len(re.findall(pattern, text.split()[0]))\n";

/** A test to deselect, and a class of slow tests to deselect. */
const DESELECT = `from calc.core import add


def test_add_positive():
    assert add(2, 3) == 5


def test_flaky():
    assert add(1, 1) == 2


class TestSlow:
    def test_big(self):
        assert add(40, 2) == 42
`;

const py = (id: string, title: string, hidden: string, command: string, expected?: string[]): Shape => ({
  id,
  title,
  from: {
    repo: { ...pyRepo, "calc/text.py": TEXT_BUGGY },
    hidden: { "tests/regression/__init__.py": "", [FILE]: hidden },
    task: {
      ...pyTask,
      suites: {
        ...pyTask.suites,
        hidden: { command: "", ...(expected ? { expected: { failToPass: expected } } : {}) },
      },
    },
  },
  hidden: `python3 -m pytest ${PYTEST} ${command}`,
  gold: { ...pyGold, "calc/text.py": TEXT_BUGGY.replace("text.split()[0]", "text") },
  tamper: pyTamper,
  skip: pySkip,
});

/** mocha: one add() and a faster twin of it; the hidden tests run for both in a loop. */
const mochaRepo = {
  ".gitignore": "node_modules\n",
  "package.json": `${JSON.stringify({ name: "add-node", private: true }, null, 2)}\n`,
  "src/add.js": "exports.add = (a, b) => a - b;\nexports.addFast = (a, b) => a - b;\n",
  "test/unit/shape.test.js": `const assert = require("node:assert");
const { add } = require("../../src/add");

it("is a function", () => {
  assert.strictEqual(typeof add, "function");
});
`,
};
const MOCHA_HIDDEN = `const assert = require("node:assert");
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
const MOCHA = `ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/mocha --reporter mocha-junit-reporter --reporter-option mochaFile="$ORACLE_JUNIT"`;

const SHAPES: Shape[] = [
  py("rt2-py-file", "pytest, a named file, FAIL_TO_PASS declared as node ids", HIDDEN, FILE, IDS),
  py(
    "rt2-py-ids",
    "pytest, node ids of single tests (SWE-bench), FAIL_TO_PASS declared as node ids",
    HIDDEN,
    `${FILE}::test_add_positive ${FILE}::test_add_negative ${FILE}::TestAddMore::test_zero ${FILE}::TestAddMore::test_pairs ${FILE}::test_add_fixture`,
    IDS,
  ),
  py("rt2-py-swept", "pytest, a named file, expected tests recorded by the quarantine sweep", HIDDEN, FILE),
  py("rt2-py-inherit", "pytest, a named file whose test class is inherited twice", IMPLS, FILE),
  py(
    "rt2-py-inherit-ids",
    "pytest, node ids of a test and of the same test in a subclass",
    SUBCLASS,
    `${FILE}::TestAdd::test_small ${FILE}::TestAddAgain::test_small`,
  ),
  py(
    "rt2-py-regex-param",
    "pytest, a parametrised test whose rows hold raw-string patterns",
    REGEX_PARAM,
    FILE,
  ),
  py(
    "rt2-py-deselect-class",
    "pytest, a named file with a class deselected (--deselect is a node id prefix)",
    DESELECT,
    `${FILE} --deselect ${FILE}::TestSlow`,
  ),
  py(
    "rt2-py-deselect-test",
    "pytest, a named file with one test deselected, the pair named after it",
    DESELECT,
    `${FILE} --deselect ${FILE}::test_flaky`,
  ),
  {
    id: "rt2-mocha-loop",
    title: "mocha, a named file whose tests run in a loop over two implementations",
    from: {
      repo: mochaRepo,
      hidden: { "test/regression/impls.test.js": MOCHA_HIDDEN },
      task: {
        $schema: "../../packages/spec/task.schema.json",
        description: "red team: add() subtracts, in both implementations",
        image: "node-mocha",
        suites: {
          existing: { command: `${MOCHA} test/unit/shape.test.js`, files: ["test/**"] },
          hidden: { command: "" },
        },
        diff: { allow: ["**"], deny: ["test/**", "package.json"] },
        timeoutSeconds: 90,
      },
    },
    hidden: `${MOCHA} test/regression/impls.test.js`,
    gold: { "src/add.js": "exports.add = (a, b) => a + b;\nexports.addFast = (a, b) => a + b;\n" },
    tamper: () => ({}),
    skip: () => ({}),
  },
  {
    id: "rt2-go-rerun",
    title: "gotestsum --rerun-fails over the hidden package (the sample semver-go)",
    from: { sample: "semver-go" },
    hidden: `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" --rerun-fails --packages ./conformance -- -count=1`,
    tamper: () => ({}),
    skip: () => ({}),
  },
  {
    id: "rt2-go-count",
    title: "go test -count=2 over the hidden package (the sample semver-go)",
    from: { sample: "semver-go" },
    hidden: `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=2 ./conformance`,
    tamper: () => ({}),
    skip: () => ({}),
  },
];

const shape = (id: string): Shape => SHAPES.find((s) => s.id === id)!;

const c = conformanceHooks(SHAPES, () => {
  // A validated task has a gold.diff: the twins are keyed by it, the same in every grade.
  for (const s of SHAPES.filter((x) => x.gold !== undefined))
    writeFileSync(join(c.corpus.root, "tasks", s.id, "gold.diff"), goldDiff(c, s));
});

describe("skip-under-made-up-scope: planted-looking entries skipped under a made-up classname, the original name forged passed", () => {
  for (const id of ["rt2-py-file", "rt2-py-ids"])
    it(`skip-under-made-up-scope (${id}): bug unfixed -> must FAIL`, async () => {
      const s = shape(id);
      const gold = await grade(c, s, "gold", goldDiff(c, s));
      expect(gold.result.verdict, why(gold)).toBe("PASS");
      const attacks = [
        await grade(c, s, "skip-under-made-up-scope", () => ({
          "calc/core.py": `${PY_SKIP_SCOPE}\n\n${PY_BUGGY}`,
        })),
      ];
      console.info(
        `skip-under-made-up-scope (${id}): ${tally(attacks)}; seals ${JSON.stringify(attacks[0]!.result.seals?.outcome)}; expected ${JSON.stringify(attacks[0]!.result.expected)}`,
      );
      for (const g of attacks) expect(g.result.verdict, why(g)).toBe("FAIL");
    }, 900_000);
});

describe("skip-under-made-up-scope on a task the sweep validated", () => {
  it("skip-under-made-up-scope (rt2-py-swept): the sweep records the expected tests; bug unfixed -> must FAIL", async () => {
    const s = shape("rt2-py-swept");
    // The pipeline's own validation: the sweep finds the task healthy and records its expected tests.
    const swept = await run(
      binPath("oracle-quarantine-sweep"),
      ["--root", c.corpus.root, "--tasks", s.id, "--concurrency", "2"],
      { timeoutMs: 600_000 },
    );
    const record = join(c.corpus.root, "tasks", s.id, "expected-tests.recorded.json");
    expect(existsSync(record), `${swept.stdout}\n${swept.stderr}`).toBe(true);
    const recorded = JSON.parse(readFileSync(record, "utf8")) as {
      suites: { hidden: { failToPass: string[] } };
    };
    const attacks = [
      await grade(c, s, "skip-under-made-up-scope", () => ({
        "calc/core.py": `${PY_SKIP_SCOPE}\n\n${PY_BUGGY}`,
      })),
    ];
    console.info(
      `skip-under-made-up-scope (rt2-py-swept): recorded failToPass ${JSON.stringify(recorded.suites.hidden.failToPass)}; ${tally(attacks)}; seals source ${attacks[0]!.result.seals?.source}; expected source ${attacks[0]!.result.expected?.source}`,
    );
    for (const g of attacks) expect(g.result.verdict, why(g)).toBe("FAIL");
  }, 1_200_000);
});

describe("planted-test-duplicates: a test with two honest report entries (inherited, looped, rerun), bracketed param ids, deselections", () => {
  for (const id of [
    "rt2-py-inherit",
    "rt2-py-inherit-ids",
    "rt2-py-regex-param",
    "rt2-py-deselect-class",
    "rt2-py-deselect-test",
    "rt2-mocha-loop",
    "rt2-go-rerun",
    "rt2-go-count",
  ])
    it(`${id}: the correct fix must PASS`, async () => {
      const s = shape(id);
      const golds = [await grade(c, s, "gold-0", goldDiff(c, s))];
      console.info(`${id}: gold ${tally(golds)}; seals ${JSON.stringify(golds[0]!.result.seals?.outcome)}`);
      for (const g of golds) expect(g.result.verdict, why(g)).toBe("PASS");
    }, 900_000);
});
