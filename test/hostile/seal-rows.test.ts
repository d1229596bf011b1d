// Attacks on sealed expectations that need no forgery: the diff fixes part of the bug, and the part it
// leaves is where the host's judgement of a sealed comparison does not follow Python's. Found by an
// attack review (session 21) on tasks the sweep had judged healthy: each PASSed with the bug left in
// part, while pytest itself fails the same tests. Every case must FAIL.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const BASE = `def add(a, b, checked=False):
    return a - b


def mul(a, b, checked=False):
    return a + b


def spread(xs):
    m = sum(xs) / len(xs)
    var = sum(x * x for x in xs) / len(xs) - m * m
    return var ** 0.5
`;

const GOLD = `def add(a, b, checked=False):
    return a + b


def mul(a, b, checked=False):
    return a * b


def spread(xs):
    m = sum(xs) / len(xs)
    return (sum((x - m) ** 2 for x in xs) / len(xs)) ** 0.5
`;

/** A parametrised fixture doubles the table's runs; a subclass inherits a table test; approx on a complex. */
const HIDDEN = `import pytest

from calc.core import add, mul, spread


@pytest.fixture(params=[False, True])
def checked(request):
    return request.param


@pytest.mark.parametrize("a,b,want", [(1, 1, 2), (10, 5, 15)])
def test_add_rows(checked, a, b, want):
    assert add(a, b, checked) == want


class TestMul:
    checked = False

    @pytest.mark.parametrize("a,b,want", [(2, 3, 6), (7, 3, 21)])
    def test_mul(self, a, b, want):
        assert mul(a, b, self.checked) == want


class TestMulChecked(TestMul):
    checked = True


def test_spread_of_equal_values():
    assert spread([0.1, 0.1, 0.1]) == pytest.approx(0.0)
`;

const SHAPE: Shape = {
  id: "seal-rows-py",
  title: "pytest: a table run more often than its rows, and approx on a complex",
  from: {
    repo: {
      "calc/__init__.py": "",
      "calc/core.py": BASE,
      "tests/__init__.py": "",
      "tests/test_core.py":
        "from calc.core import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n",
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_rows.py": HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": GOLD },
  tamper: none,
  skip: none,
};

const core = (text: string) => () => ({ "calc/core.py": text });

const CASES = [
  {
    // The fixture's second value runs each row again: those runs had no row to be compared with.
    name: "fixture-multiplies-table-runs",
    diff: core(
      GOLD.replace(
        "def add(a, b, checked=False):\n    return a + b",
        "def add(a, b, checked=False):\n    return a - b if checked else a + b",
      ),
    ),
  },
  {
    // TestMulChecked runs TestMul's table again under its own name.
    name: "subclass-reruns-table-test",
    diff: core(GOLD.replace("    return a * b", "    return a + b if checked else a * b")),
  },
  {
    // The unfixed one-pass variance is a hair below zero, and its square root a complex number whose
    // real part is about 0: approx compares the whole value, as pytest does.
    name: "complex-within-approx",
    diff: core(
      `${GOLD.split("def spread")[0]}def spread(xs):\n    m = sum(xs) / len(xs)\n    var = sum(x * x for x in xs) / len(xs) - m * m\n    return var ** 0.5\n`,
    ),
  },
];

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: a table run more often than its rows, approx on a complex (seal-rows-py)", () => {
  it("the gold diff and a different correct fix PASS; the base FAILs", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      statistics: core(
        `import statistics\n\n\n${GOLD.split("def spread")[0]}def spread(xs):\n    return statistics.pstdev(xs)\n`.replace(
          "return a * b",
          "return b * a",
        ),
      ),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "statistics"], fail: ["baseline"] });
  }, 1_200_000);

  for (const attack of CASES)
    it(`${attack.name}: the bug left where the host judged unlike pytest -> FAIL TESTS_FAILED`, async () => {
      const graded = await gradeNamed(c, SHAPE, { [attack.name]: attack.diff });
      expectVerdicts(graded, { pass: [], fail: [attack.name] });
    }, 1_200_000);
});
