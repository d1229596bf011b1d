// pytest.approx of an int against a Decimal: pytest takes `expected - actual` in Decimal arithmetic
// (exact, rounded to the context's 28 digits), the host took it in doubles. A Decimal built through
// a float (120 ns off, the same double as the expected value) PASSed `approx(…, abs=100)`, which
// pytest fails, and a correct fix keeping a tenth of a nanosecond FAILed `approx(1, abs=0.1)`
// (Decimal 0.1 is within the float 0.1; in doubles 1.1 - 1 is not), which pytest passes.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const module = (body: string) => `from decimal import Decimal


def to_ns(stamp):
    """A 'SECONDS.FRACTION' stamp as nanoseconds, a Decimal."""
${body}
`;

const BASE = module("    return Decimal(int(float(stamp))) * 1_000_000_000");
const GOLD = module(`    whole, _, frac = stamp.partition(".")
    return Decimal(whole) * 1_000_000_000 + Decimal(frac.ljust(9, "0")[:9])`);

const HIDDEN = `import pytest

from tsdec import to_ns


def test_fraction_is_kept():
    assert to_ns("1700000000.123456888") == pytest.approx(1700000000123456888, abs=100)


def test_a_tenth_of_a_nanosecond_is_close_enough():
    assert to_ns("0.0000000011") == pytest.approx(1, abs=0.1)
`;

const SHAPE: Shape = {
  id: "seal-decimal",
  title: "pytest: approx of an int against a Decimal",
  from: {
    repo: {
      "tsdec/__init__.py": BASE,
      "tests/__init__.py": "",
      "tests/test_basic.py":
        'from tsdec import to_ns\n\n\ndef test_whole_seconds():\n    assert to_ns("5") == 5_000_000_000\n',
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_frac.py": HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "tsdec/__init__.py": GOLD },
  tamper: none,
  skip: none,
};

const tsdec = (body: string) => () => ({ "tsdec/__init__.py": module(body) });

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: pytest.approx of an int against a Decimal (seal-decimal)", () => {
  it("the gold diff and a correct fix keeping the tenth of a nanosecond PASS", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      "decimal-exact": tsdec("    return Decimal(stamp) * 1_000_000_000"),
    });
    expectVerdicts(graded, { pass: ["gold", "decimal-exact"], fail: [] });
  }, 1_200_000);

  it("decimal-float: the nanoseconds built through a float (120 ns off) -> FAIL TESTS_FAILED", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      "decimal-float": tsdec(`    whole, _, frac = stamp.partition(".")
    return Decimal(int(whole) * 1e9 + int(frac.ljust(9, "0")[:9]))`),
    });
    expectVerdicts(graded, { pass: [], fail: ["decimal-float"] });
  }, 1_200_000);
});
