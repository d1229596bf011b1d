// unittest's assertAlmostEqual as the host judged it unlike unittest (sealpy2, issue 29): a Decimal's
// difference is Python's Decimal subtraction, rounded to the context's 28 digits before `<= delta`
// reads it, and `places=3.0` is `round(diff, 3.0)`, a TypeError for any value not equal. Before the
// fixes a mean 1e-3 plus 2e-20 off (in a 40-digit context) PASSed `delta=1e-3`, and a mean 1e-4 off
// PASSed `places=3.0`; unittest fails both (pytest 7.2 in the python-pytest image: 1 failed each).

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const module = (body: string) => `from decimal import Decimal, localcontext


def mean(values):
    """The mean of decimal strings, a Decimal."""
    xs = [Decimal(v) for v in values]
${body}
`;

const BASE = module("    return sum(xs) / (len(xs) + 1)");
const GOLD = module("    return sum(xs) / len(xs)");

const HIDDEN = `import unittest

from stats import mean


class TestMean(unittest.TestCase):
    def test_mean_within_a_thousandth(self):
        self.assertAlmostEqual(mean(["0.5", "1.5"]), 1, delta=1e-3)

    def test_mean_of_equal_values(self):
        self.assertAlmostEqual(mean(["2", "2"]), 2, places=3.0)
`;

const SHAPE: Shape = {
  id: "seal-py-s25",
  title: "unittest: assertAlmostEqual with a Decimal under delta, places as a float",
  from: {
    repo: {
      "stats/__init__.py": BASE,
      "tests/__init__.py": "",
      "tests/test_basic.py": 'from stats import mean\n\n\ndef test_zero():\n    assert mean(["0"]) == 0\n',
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_mean.py": HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "stats/__init__.py": GOLD },
  tamper: none,
  skip: none,
};

const stats = (body: string) => () => ({ "stats/__init__.py": module(body) });

/** Each is a wrong mean that unittest fails and the host passed. */
const WRONG = [
  // A bias of 1e-3 + 2.08e-20 per unit of spread, in a 40-digit context: exactly within delta=1e-3,
  // not once Python's Decimal subtraction rounds the difference to 28 digits.
  {
    name: "delta-edge",
    diff: stats(`    with localcontext() as ctx:
        ctx.prec = 40
        return sum(xs) / len(xs) + (max(xs) - min(xs)) * Decimal("0.0010000000000000000208166817117")`),
  },
  // 1e-4 off per value past the first: round(Decimal("0.0001"), 3.0) raises TypeError; only an equal
  // value passes places=3.0.
  { name: "places-float", diff: stats('    return sum(xs) / len(xs) + Decimal("0.0001") * (len(xs) - 1)') },
];

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: unittest's assertAlmostEqual as unittest judges it (seal-py-s25)", () => {
  it("the gold diff PASSes; a Decimal just outside delta and a close value under places=3.0 FAIL", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      ...Object.fromEntries(WRONG.map((w) => [w.name, w.diff])),
    });
    expectVerdicts(graded, { pass: ["gold"], fail: WRONG.map((w) => w.name) });
  }, 1_600_000);
});
