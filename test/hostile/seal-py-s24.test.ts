// Python sealed comparisons the host judged unlike pytest, found by an attack review (session 24,
// findings 1, 1b, 2 and 4) on tasks the sweep had judged healthy. One task holds each shape: a module's
// `approx = partial(pytest.approx, abs=1e-3)` (and `rel=1e-12`) the plan read as pytest's default
// tolerance, a module-level helper that a unittest class's setUp calls to register an in-order dict
// comparison (addTypeEqualityFunc), and `tally(...).keys() == {...}` on an OrderedDict. Before the
// fixes a percentage rounded within the file's tolerance and an OrderedDict FAILed (correct fixes), a
// ratio outside the file's tolerance and unsorted keys PASSed (wrong ones).

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const BASE = `def percent(part, whole):
    return 100 * part // whole


def ratio(a, b):
    return a // b


def canon(doc):
    return dict(doc)


def tally(words):
    out = {}
    for w in words:
        out[w] = out.get(w, 0) + 1
    return out
`;

const GOLD = `def percent(part, whole):
    return 100 * part / whole


def ratio(a, b):
    return a / b


def canon(doc):
    return {k: doc[k] for k in sorted(doc) if doc[k] is not None}


def tally(words):
    out = {}
    for w in words:
        w = w.lower()
        out[w] = out.get(w, 0) + 1
    return out
`;

const PCT = `from functools import partial

import pytest

from calc.core import percent

# Percentages are shown to two decimals: a thousandth is close enough.
approx = partial(pytest.approx, abs=1e-3)


def test_thirds():
    assert percent(1, 3) == approx(33.333333)
`;

const RATIO = `import functools

import pytest

from calc.core import ratio

# Ratios feed further computation: tighter than pytest's default.
approx = functools.partial(pytest.approx, rel=1e-12)


def test_sevenths():
    assert ratio(1, 7) == approx(0.14285714285714285)
`;

const CANON = `import unittest

from calc.core import canon


def compare_in_order(case):
    """Canonical objects are compared with their key order: the order is what canon() is for."""

    def dicts_in_order(first, second, msg=None):
        if list(first.items()) != list(second.items()):
            raise case.failureException(msg or "%r != %r (in order)" % (first, second))

    case.addTypeEqualityFunc(dict, dicts_in_order)


class TestCanon(unittest.TestCase):
    def setUp(self):
        compare_in_order(self)

    def test_keys_are_sorted(self):
        self.assertEqual(canon({"b": 1, "a": 2}), {"a": 2, "b": 1})

    def test_none_is_dropped(self):
        self.assertEqual(canon({"a": None, "b": 1}), {"b": 1})
`;

const TALLY = `from calc.core import tally


def test_words_are_case_folded():
    assert tally(["a", "A", "b"]).keys() == {"a", "b"}


def test_counts_are_case_folded():
    assert tally(["a", "A", "b"]).items() == {("a", 2), ("b", 1)}
`;

const SHAPE: Shape = {
  id: "seal-py-s24",
  title: "pytest: a module's partial(pytest.approx), a helper's addTypeEqualityFunc, an OrderedDict's views",
  from: {
    repo: {
      "calc/__init__.py": "",
      "calc/core.py": BASE,
      "tests/__init__.py": "",
      "tests/test_basic.py":
        "from calc.core import percent, tally\n\n\ndef test_whole():\n    assert percent(2, 2) == 100\n    assert tally([]) == {}\n",
      ".gitignore": "__pycache__/\n",
    },
    hidden: {
      "tests/regression/__init__.py": "",
      "tests/regression/test_pct.py": PCT,
      "tests/regression/test_ratio.py": RATIO,
      "tests/regression/test_canon.py": CANON,
      "tests/regression/test_tally.py": TALLY,
    },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": GOLD },
  tamper: none,
  skip: none,
};

const core = (text: string) => () => ({ "calc/core.py": text });

/** Correct, unlike gold: the percentage rounded within the file's abs=1e-3 (1b), the counts in an OrderedDict (4). */
const CORRECT = `from collections import OrderedDict

${GOLD.replace("return 100 * part / whole", "return round(100 * part / whole, 3)").replace("out = {}", "out = OrderedDict()")}`;

/** Each leaves one bug that pytest fails and the host passed. */
const WRONG = [
  // Finding 1: 0.1428571 is outside the file's rel=1e-12 (inside pytest's default 1e-6).
  { name: "ratio7", diff: core(GOLD.replace("return a / b", "return round(a / b, 7)")) },
  // Finding 2: the keys are not sorted; the class compares dicts in order (setUp's helper).
  {
    name: "nosort",
    diff: core(
      GOLD.replace(
        "{k: doc[k] for k in sorted(doc) if doc[k] is not None}",
        "{k: v for k, v in doc.items() if v is not None}",
      ),
    ),
  },
];

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: Python shapes the host judged unlike pytest (seal-py-s24)", () => {
  it("the gold diff and a correct fix (rounded within the file's tolerance, an OrderedDict) PASS; wrong ones FAIL", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      "round3-odict": core(CORRECT),
      ...Object.fromEntries(WRONG.map((w) => [w.name, w.diff])),
    });
    expectVerdicts(graded, { pass: ["gold", "round3-odict"], fail: WRONG.map((w) => w.name) });
  }, 1_600_000);
});
