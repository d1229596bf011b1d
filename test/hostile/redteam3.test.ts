// Red-team round 5: wrong verdicts against the real engine after dd25cd4 (twins never skipped, the
// twins' rules per scope). On 130c990 each case failed (the attack PASSed 4/4, the correct fixes
// FAILed 2/2). Cases 2 and 3 pass since 0da1a76 (no bracket in a parametrised copy; no twin of a
// test something besides its body can skip); case 1 is a limit the oracle now reports (below).
//
// 1. attack-untwinned (a documented limit, asserted as the oracle reporting it): the twins protect
//    only the tests they copy. A hidden file whose failing test
//    cannot be twinned (a loop here; a fixture, `pytest.raises`, `assert x`, a seventh test…) next to
//    tests that can: the run has twins, so no "pair only" warning and the sweep does not list the
//    task, yet code under test that rewrites the JUnit report at exit, leaving every entry named like
//    a planted test (`<name>_<digits>`: the pair and both twins, honest outcomes) alone and turning
//    every other failure into a pass, never has to tell a copy from an original or a must-fail from
//    a must-pass. PASS on unfixed code, every time, with the failing test declared FAIL_TO_PASS.
// 2. rt3-py-param-bracket: a parametrised twin's copy takes another string of the file, which may
//    hold a bracket (`"[A]"`); pytest's row id then shows it (`test_upper_2[a-[A]]`), the sentinel
//    check reads no such id as the copy's row, and the correct fix FAILs REPORT_INCONSISTENT ("reported
//    apart", "both passed") for every grade of a task whose gold.diff draws it (1 key in 6 here).
// 3. rt3-py-skip-class: a twinnable method of a class that is skipped in the container
//    (`@pytest.mark.skipif` on the class, not the method): both twins are honestly skipped, which
//    "a twin is never skipped" (dd25cd4) reads as forgery; the correct fix FAILs every time.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planSentinels, sentinelRunner } from "../../packages/grader/src/sentinels.js";
import {
  type Conformance,
  goldDiff,
  grade,
  makeConformance,
  type Shape,
  sweep,
} from "../conformance/shapes.js";
import { PYTEST, pyRepo, pyTask } from "../conformance/table.js";
import { repeat, tally, twinsOf, why } from "./measure.js";

const FILE = "tests/regression/test_add.py";

/** Two tests unfixed code passes (twinnable) and one it fails (a loop: not twinnable). */
const UNTWINNED = `from calc.core import add


def test_add_small():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-2, -3) == -5


def test_add_table():
    for a, b, want in [(2, 2, 4), (40, 2, 42)]:
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

let c: Conformance;
/** rt3-py-param-bracket's gold: one whose diff's key draws a copy row with `"[A]"` (7 keys in 40 on 130c990), else the first. */
let bracketShape: Shape;
/** How many of 200 golds' keys drew the bracketed copy: none since 0da1a76. */
let bracketDraws = 0;

/** Whether the run keyed by `gold` makes the copy of test_upper take the string `"[A]"`. */
function drawsBracket(gold: Buffer): boolean {
  const key = createHash("sha256").update("oracle twins\0").update(gold).digest("hex");
  const command = `python3 -m pytest ${PYTEST} ${FILE}`;
  const plan = planSentinels(
    sentinelRunner({ suites: { hidden: { command } } }),
    [{ path: FILE, text: PARAM_BRACKET }],
    [{ path: "tests/test_mul.py", text: pyRepo["tests/test_mul.py"] }],
    new Map(),
    key,
  );
  const append = plan?.appends.find((a) => a.path === FILE);
  return /\("a", "\[A\]"\),/.test(append?.rewrite ?? "");
}

beforeAll(async () => {
  await requireDocker();
  c = await makeConformance(SHAPES);
  // A validated task has a gold.diff: the twins are keyed by it, the same in every grade.
  for (const s of SHAPES.filter((x) => x.id !== "rt3-py-param-bracket"))
    writeFileSync(join(c.corpus.root, "tasks", s.id, "gold.diff"), goldDiff(c, s));
  const s = shape("rt3-py-param-bracket");
  let chosen = 0;
  for (let n = 0; n < 200; n++) {
    if (!drawsBracket(goldDiff(c, { ...s, gold: { "calc/fmt.py": fmtFixed(n) } }))) continue;
    if (bracketDraws === 0) chosen = n;
    bracketDraws++;
  }
  bracketShape = { ...s, gold: { "calc/fmt.py": fmtFixed(chosen) } };
  writeFileSync(join(c.corpus.root, "tasks", s.id, "gold.diff"), goldDiff(c, bracketShape));
}, 1_600_000);

afterAll(async () => {
  await c?.cleanup();
});

describe("attack-untwinned: failures of tests that are not twinned, forged passed beside honest twins", () => {
  // Not closed: no in-process check can protect a test that has no twin (docs/security.md, "What
  // still gets through"). What the oracle guarantees is to say so: the FAIL_TO_PASS test without a
  // twin is named in every result and on stderr, and the sweep's reports list it; and a test that
  // can be twinned is twinned before any other (rt3 round 5, sentinels.test.ts).
  it("attack-untwinned (rt3-py-untwinned): every result names the FAIL_TO_PASS test no twin was made of", async () => {
    const s = shape("rt3-py-untwinned");
    const gold = await grade(c, s, "gold", goldDiff(c, s));
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    expect(twinsOf(gold), "the run has twins").toBeGreaterThan(0);
    const baseline = await grade(c, s, "baseline");
    expect(baseline.result.reason, why(baseline)).toBe("TESTS_FAILED");
    const attacks = await repeat(2, (i) =>
      grade(c, s, `attack-untwinned-${i}`, () => ({
        "calc/core.py": `${PY_FORGE_UNTWINNED}\n\n${ADD_BUGGY}`,
      })),
    );
    console.info(
      `attack-untwinned: ${tally(attacks)}; twins ${twinsOf(attacks[0]!)}; sentinel ${JSON.stringify(attacks[0]!.result.sentinel)}`,
    );
    for (const g of [gold, baseline, ...attacks]) {
      expect(g.result.sentinel?.untwinned, why(g)).toEqual([`${FILE}::test_add_table`]);
      expect(g.stderr).toMatch(
        /1 FAIL_TO_PASS test\(s\) not twinned \(tests\/regression\/test_add\.py::test_add_table\)/,
      );
    }
  }, 900_000);
});

describe("correct fixes the twins' rules reject", () => {
  // Keyed by the gold.diff, the twins are the same in every grade: one grade shows them.
  for (const id of ["rt3-py-param-bracket", "rt3-py-skip-class"])
    it(`${id}: the correct fix must PASS`, async () => {
      const s = id === "rt3-py-param-bracket" ? bracketShape : shape(id);
      if (id === "rt3-py-param-bracket")
        expect(bracketDraws, "golds whose key draws a bracketed copy").toBe(0);
      const diff = goldDiff(c, s);
      const golds = [await grade(c, s, "gold-0", diff)];
      // What validation makes of it: a task the sweep quarantines is lost; one it passes is graded wrong.
      const validated = await sweep(c, s);
      console.info(
        `${id}: gold ${tally(golds)}; twins ${twinsOf(golds[0]!)}; sweep ${validated.status} ${validated.flags.join(",")}`,
      );
      for (const g of golds) expect(g.result.verdict, why(g)).toBe("PASS");
    }, 900_000);
});
