// Red-team round 5, against the seals (on 1ebdaf2, against the twins):
//
// 1. forge-unsealed: a FAIL_TO_PASS test no seal decides (a loop here: the comparison runs a number
//    of times the test's loop decides) beside tests that are sealed. Code under test that rewrites
//    the JUnit report at exit, turning every failure into a pass, PASSes unfixed code when nothing
//    but the report decides that test. What the oracle guarantees is to say so: the test is named in
//    every result's `seals.failToPass.unsealed`, on stderr, and in the sweep's reports.
// 2. rt3-py-param-bracket, rt3-py-skip-class: correct fixes the twins failed (a parametrised row
//    holding a bracket, a class skipped on Linux); they must PASS.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";
import { conformanceHooks, goldDiff, grade, type Shape, sweep } from "../conformance/shapes.js";
import { PYTEST, pyRepo, pyTask } from "../conformance/table.js";
import { tally, why } from "./measure.js";

const FILE = "tests/regression/test_add.py";

/** Two tests unfixed code passes (sealed) and one it fails (a loop over a fixture's cases: no seal). */
const UNTWINNED = `import pytest

from calc.core import add


def test_add_small():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-2, -3) == -5


@pytest.fixture
def cases():
    return [(2, 2, 4), (40, 2, 42)]


def test_add_table(cases):
    for a, b, want in cases:
        assert add(a, b) == want
`;
/** The bug: wrong from 10 on. */
const ADD_BUGGY =
  "def add(a, b):\n    return a + b if a < 10 else a + b + 1\n\n\ndef mul(a, b):\n    return a * b\n";
const ADD_FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";

/**
 * Planted at the top of calc/core.py. At exit it rewrites the JUnit report: an entry named like a
 * planted test (`<name>_<digits>`) is left as it fared; every other failure becomes a pass. It reads
 * no test source and never decides which twin is the copy.
 */
const PY_FORGE_UNTWINNED = `import atexit as _atexit
import os as _os


def _forge():
    import re
    import xml.etree.ElementTree as ET

    path = _os.environ.get("ORACLE_JUNIT")
    if not path or not _os.path.isfile(path):
        return
    tree = ET.parse(path)
    for case in tree.iter("testcase"):
        if re.search(r"_\\d+(\\[.*\\])?$", case.get("name", "")):
            continue
        for child in list(case):
            if child.tag in ("failure", "error"):
                case.remove(child)
    for suite in tree.iter("testsuite"):
        cases = list(suite.iter("testcase"))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
        suite.set("errors", str(sum(1 for c in cases if c.find("error") is not None)))
    tree.write(path)


_atexit.register(_forge)
`;

/** A parametrised test whose rows hold strings, and another string of the file with brackets. */
const PARAM_BRACKET = `import pytest

from calc.fmt import wrap


def test_wrap():
    assert wrap("A") == "[A]"


@pytest.mark.parametrize("s, want", [
    ("a", "A"),
    ("b", "B"),
])
def test_upper(s, want):
    assert wrap(s)[1:-1].upper() == want
`;
const FMT_BUGGY = "def wrap(s):\n    return s\n";
const fmtFixed = (n: number) => `def wrap(s):\n    return f"[{s}]"\n# ${n}\n`;

/** A class skipped wherever the container runs (Linux), with a method the oracle can twin. */
const SKIP_CLASS = `import sys

import pytest

from calc.core import add


def test_add_small():
    assert add(2, 3) == 5


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="Windows paths only")
class TestWindows:
    def test_add_drive(self):
        assert add(3, 4) == 7
`;

const py = (
  id: string,
  title: string,
  files: { repo: Record<string, string>; hidden: string; gold: Record<string, string> },
  expected: { failToPass: string[]; passToPass?: string[] },
): Shape => ({
  id,
  title,
  from: {
    repo: files.repo,
    hidden: { "tests/regression/__init__.py": "", [FILE]: files.hidden },
    task: {
      ...pyTask,
      suites: { ...pyTask.suites, hidden: { command: "", expected } },
    },
  },
  hidden: `python3 -m pytest ${PYTEST} ${FILE}`,
  gold: files.gold,
  tamper: () => ({}),
  skip: () => ({}),
});

const SHAPES: Shape[] = [
  py(
    "rt3-py-untwinned",
    "pytest, a named file: two twinnable tests unfixed code passes, one loop test it fails",
    {
      repo: { ...pyRepo, "calc/core.py": ADD_BUGGY },
      hidden: UNTWINNED,
      gold: { "calc/core.py": ADD_FIXED },
    },
    {
      failToPass: [`${FILE}::test_add_table`],
      passToPass: [`${FILE}::test_add_small`, `${FILE}::test_add_negative`],
    },
  ),
  py(
    "rt3-py-param-bracket",
    "pytest, a named file: a parametrised test of strings beside a string with brackets",
    {
      repo: { ...pyRepo, "calc/fmt.py": FMT_BUGGY },
      hidden: PARAM_BRACKET,
      gold: { "calc/fmt.py": fmtFixed(0) },
    },
    { failToPass: [`${FILE}::test_wrap`, `${FILE}::test_upper`] },
  ),
  py(
    "rt3-py-skip-class",
    "pytest, a named file: a class skipped on Linux holds a twinnable method",
    { repo: pyRepo, hidden: SKIP_CLASS, gold: { "calc/core.py": ADD_FIXED } },
    { failToPass: [`${FILE}::test_add_small`] },
  ),
];

const shape = (id: string): Shape => SHAPES.find((s) => s.id === id)!;

const c = conformanceHooks(SHAPES, () => {
  // A validated task has a gold.diff.
  for (const s of SHAPES) writeFileSync(join(c.corpus.root, "tasks", s.id, "gold.diff"), goldDiff(c, s));
});

describe("forge-unsealed: failures of a test no seal decides, forged passed beside sealed tests", () => {
  // A limit, asserted as the oracle reporting it (docs/security.md, "What still gets through").
  it("forge-unsealed (rt3-py-untwinned): every result names the FAIL_TO_PASS test no strong seal covers", async () => {
    const s = shape("rt3-py-untwinned");
    const gold = await grade(c, s, "gold", goldDiff(c, s));
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    const baseline = await grade(c, s, "baseline");
    expect(baseline.result.reason, why(baseline)).toBe("TESTS_FAILED");
    const attacks = [
      await grade(c, s, "forge-unsealed", () => ({
        "calc/core.py": `${PY_FORGE_UNTWINNED}\n\n${ADD_BUGGY}`,
      })),
    ];
    console.info(
      `forge-unsealed: ${tally(attacks)}; seals ${JSON.stringify(attacks[0]!.result.seals?.failToPass)}`,
    );
    for (const g of [gold, baseline, ...attacks]) {
      expect(g.result.seals?.failToPass?.unsealed, why(g)).toEqual([`${FILE}::test_add_table`]);
      expect(g.stderr).toMatch(
        /1 of 1 FAIL_TO_PASS test\(s\) have no strong seal \(tests\/regression\/test_add\.py::test_add_table \[unsealed\.no-comparison\]\)/,
      );
    }
  }, 900_000);
});

describe("correct fixes the twins failed", () => {
  for (const id of ["rt3-py-param-bracket", "rt3-py-skip-class"])
    it(`${id}: the correct fix must PASS, and the sweep keeps the task`, async () => {
      const s = shape(id);
      // The sweep grades the gold diff (the same gold.diff, so the same twins): healthy is its PASS
      // (a gold run that did not PASS is GOLD_FAILS, or infra-error), and the task kept.
      const validated = await sweep(c, s);
      console.info(`${id}: sweep ${validated.status} ${validated.flags.join(",")}`);
      expect(validated.status, validated.flags.join(",")).toBe("healthy");
    }, 900_000);
});
