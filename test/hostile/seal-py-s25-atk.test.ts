// Python shapes an attack review (session 25, findings 7 and 1) found on tasks new-task made. One task
// holds both: the hidden unittest module imports a function named `total`, and its class's setUp calls
// a helper in tests/helpers.py (a base file that is neither a test file by name nor a conftest) that
// registers an in-order dict comparison with addTypeEqualityFunc. Before the fixes the Python pair's
// `total = sum([a, b])` made `total` local to the pair's function, its `assert total is not None`
// raised UnboundLocalError and gold was REPORT_INCONSISTENT (finding 7: the task could not be made);
// and the helper was never read, so the dict assertEqual was sealed as `==` and unsorted keys PASSed
// (finding 1a) where unittest fails them.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const BASE = `def total(lines):
    out = {}
    for category, amount in lines:
        out[category] = out.get(category, 0) + amount
    return out
`;

const GOLD = `def total(lines):
    out = {}
    for category, amount in lines:
        out[category] = out.get(category, 0) + amount
    return {k: out[k] for k in sorted(out) if out[k] != 0}
`;

const HELPERS = `"""Test support: category totals are compared with their key order, which is what total() sorts."""


def dicts_in_order(case):
    def in_order(first, second, msg=None):
        if list(first.items()) != list(second.items()):
            raise case.failureException(msg or "%r != %r (in order)" % (first, second))

    case.addTypeEqualityFunc(dict, in_order)
`;

const HIDDEN = `import unittest

from cart.core import total
from tests.helpers import dicts_in_order


class TestTotal(unittest.TestCase):
    def setUp(self):
        dicts_in_order(self)

    def test_categories_sorted(self):
        self.assertEqual(total([("b", 1), ("a", 2), ("b", 3)]), {"a": 2, "b": 4})

    def test_zero_dropped(self):
        self.assertEqual(total([("a", 0), ("b", 1)]), {"b": 1})
`;

const SHAPE: Shape = {
  id: "seal-py-s25-atk",
  title: "unittest: a module importing total, a tests/helpers.py addTypeEqualityFunc",
  from: {
    repo: {
      "cart/__init__.py": "",
      "cart/core.py": BASE,
      "tests/__init__.py": "",
      "tests/helpers.py": HELPERS,
      "tests/test_basic.py":
        "from cart.core import total\n\n\ndef test_empty():\n    assert total([]) == {}\n",
      ".gitignore": "__pycache__/\n",
    },
    hidden: {
      "tests/regression/__init__.py": "",
      "tests/regression/test_total.py": HIDDEN,
    },
    // As new-task writes it: the existing suite's files by name, so tests/helpers.py is no suite file.
    task: {
      ...pyTask,
      suites: {
        ...pyTask.suites,
        existing: {
          command: `python3 -m pytest ${PYTEST} tests/test_basic.py`,
          files: ["tests/test_basic.py", "**/conftest.py"],
        },
      },
    },
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "cart/core.py": GOLD },
  tamper: none,
  skip: none,
};

/** Drops the zero totals but does not sort the keys: unittest fails test_categories_sorted. */
const NOSORT = () => ({
  "cart/core.py": GOLD.replace(
    "{k: out[k] for k in sorted(out) if out[k] != 0}",
    "{k: v for k, v in out.items() if v != 0}",
  ),
});

const c = conformanceHooks([SHAPE]);

describe("seals and the pair: Python shapes of attack review s25 (seal-py-s25-atk)", () => {
  it("gold PASSes with `from cart.core import total` (finding 7); unsorted keys FAIL under the helper's in-order assertEqual (finding 1a)", async () => {
    const graded = await gradeNamed(c, SHAPE, { gold: "gold", nosort: NOSORT });
    expectVerdicts(graded, { pass: ["gold"], fail: ["nosort"] });
  }, 1_600_000);
});
