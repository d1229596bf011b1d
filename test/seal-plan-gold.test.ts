// Correct fixes under hidden Python files whose plan once broke them: a constant another hidden file
// imports, a loop variable read after its loop, `ids=str` naming the runs by their values. Found by
// an attack review (session 22, findings 17, 18, 20): the plan emptied each value (None in the
// container), the gold diff FAILed (TESTS_FAILED, EXPECTED_TEST_MISSING) and the sweep quarantined
// the valid tasks GOLD_FAILS. Graded unswept, as a grade of a new task is.

import { describe, expect, it } from "vitest";
import { conformanceHooks, goldDiff, grade, type Shape } from "./conformance/shapes.js";
import { PYTEST, pyRepo, pyTask } from "./conformance/table.js";
import { outcome, why } from "./hostile/measure.js";

const none = () => ({});

const PY: Shape = {
  id: "seal-plan-py",
  title: "pytest: a constant another hidden file imports, a loop variable read after its loop, ids=str",
  from: {
    repo: pyRepo,
    hidden: {
      "tests/regression/__init__.py": "",
      "tests/regression/test_table.py": `import pytest

from calc.core import add

SUMS = [5, 30]


def test_sums():
    assert [add(2, 3), add(10, 20)] == SUMS


def test_rows():
    for a, b, want in [(1, 1, 2), (2, 3, 5)]:
        assert add(a, b) == want
    assert want == 5


@pytest.mark.parametrize("a, want", [(3, 6), (4, 8)], ids=str)
def test_double(a, want):
    assert add(a, a) == want
`,
      "tests/regression/test_shared.py": `from calc.core import add
from tests.regression.test_table import SUMS


def test_shared():
    assert add(SUMS[0], SUMS[1]) == 35
`,
    },
    task: {
      ...pyTask,
      suites: {
        ...pyTask.suites,
        hidden: {
          command: "",
          expected: {
            failToPass: [
              "tests/regression/test_table.py::test_sums",
              "tests/regression/test_table.py::test_rows",
              "tests/regression/test_table.py::test_double[3-6]",
              "tests/regression/test_table.py::test_double[4-8]",
              "tests/regression/test_shared.py::test_shared",
            ],
          },
        },
      },
    },
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": pyRepo["calc/core.py"].replace("a - b", "a + b") },
  tamper: none,
  skip: none,
};

const c = conformanceHooks([PY]);

describe("Python plans that leave what other code reads", () => {
  it(`${PY.title}: the gold diff PASSes with its seals run; the base FAILs (${PY.id})`, async () => {
    const [gold, base] = await Promise.all([grade(c, PY, "gold", goldDiff(c, PY)), grade(c, PY, "baseline")]);
    expect(outcome(gold), why(gold)).toEqual({ verdict: "PASS", reason: "PASS" });
    expect(gold.result.seals?.ran?.strong ?? 0, why(gold)).toBeGreaterThan(0);
    expect(outcome(base), why(base)).toEqual({ verdict: "FAIL", reason: "TESTS_FAILED" });
  }, 1_200_000);
});
