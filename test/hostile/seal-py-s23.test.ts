// Python sealed comparisons the host judged unlike pytest, found by an attack review (session 23,
// findings 1, 4, 5, 8, 9, 9b) on tasks the sweep had judged healthy or quarantined. One task holds
// each shape: approx between two big ints (the host rounded both to one double), a test class's own
// assertEqual (stricter: a type check; looser: markup without whitespace), approx of a list against a
// dict's values, a constant a conftest fixture reads by name (getattr(request.module, "TEXT")) and a
// test function defined twice. Before the fixes the gold diff FAILed (the emptied TEXT, the records of
// the twice-defined test), a correct fix FAILed and two fixes leaving a bug PASSed.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const BASE = `def to_ns(text):
    whole, _, frac = text.partition(".")
    return int(whole) * 10**9


def parse(text):
    return float(text)


def render(items):
    return "<ul>" + "".join(items) + "</ul>"


def means(groups):
    return [sum(v) for v in groups.values()]


def encode(text):
    return text[::-1]


def decode(text):
    return text


def normalise(s):
    return s.strip()
`;

const GOLD = `def to_ns(text):
    whole, _, frac = text.partition(".")
    return int(whole) * 10**9 + int(frac.ljust(9, "0")[:9])


def parse(text):
    return int(text) if text.isdigit() else float(text)


def render(items):
    return "<ul>" + "".join("<li>%s</li>" % item for item in items) + "</ul>"


def means(groups):
    return [sum(v) / len(v) for v in groups.values()]


def encode(text):
    return text[::-1]


def decode(text):
    return text[::-1]


def normalise(s):
    return " ".join(s.split())
`;

const HIDDEN = `import unittest

from pytest import approx

from calc.core import decode, encode, means, normalise, parse, render, to_ns

TEXT = "Hello, World!"


def test_nanoseconds():
    assert to_ns("1700000000.123456888") == approx(1700000000123456888, abs=100)


def test_means():
    assert means({"a": [1, 2], "b": [3, 5]}) == approx([1.5, 4.0])


def test_roundtrip(text):
    assert decode(encode(text)) == TEXT


def test_inner_runs():
    assert normalise("a  b") == "a b"


def test_inner_runs():
    assert normalise("x   y  z") == "x y z"


class TestParse(unittest.TestCase):
    def assertEqual(self, first, second, msg=None):
        # a parsed number keeps its kind: 7 is an int, 7.0 a float
        self.assertIs(type(first), type(second), msg)
        super().assertEqual(first, second, msg)

    def test_digits_give_an_int(self):
        self.assertEqual(parse("7"), 7)


class TestRender(unittest.TestCase):
    def assertEqual(self, first, second, msg=None):
        # markup is compared without its layout
        super().assertEqual("".join(first.split()), "".join(second.split()), msg)

    def test_items_are_list_items(self):
        self.assertEqual(render(["a", "b"]), "<ul><li>a</li><li>b</li></ul>")
`;

const CONFTEST = `import pytest


@pytest.fixture
def text(request):
    """The test module's TEXT, or a default: modules choose their own sample."""
    return getattr(request.module, "TEXT", "plain")
`;

const SHAPE: Shape = {
  id: "seal-py-s23",
  title:
    "pytest: approx on big ints and dict values, unittest overrides, a fixture's constant, a test defined twice",
  from: {
    repo: {
      "calc/__init__.py": "",
      "calc/core.py": BASE,
      "tests/__init__.py": "",
      "tests/conftest.py": CONFTEST,
      "tests/test_core.py":
        'from calc.core import parse\n\n\ndef test_float():\n    assert parse("2.5") == 2.5\n',
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_s23.py": HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": GOLD },
  tamper: none,
  skip: none,
};

const core = (text: string) => () => ({ "calc/core.py": text });

/** Each leaves one bug that pytest fails and the host once passed. */
const WRONG = [
  {
    // Finding 1: a float rounds the nanoseconds (…768 for …888), and pytest's exact difference is 120.
    name: "ns-float",
    diff: core(
      GOLD.replace(
        'int(whole) * 10**9 + int(frac.ljust(9, "0")[:9])',
        'int(int(whole) * 1e9 + int(frac.ljust(9, "0")[:9]))',
      ),
    ),
  },
  {
    // Finding 9: parse("7") is still 7.0; TestParse's own assertEqual checks the type first.
    name: "parse-left-float",
    diff: core(GOLD.replace("return int(text) if text.isdigit() else float(text)", "return float(text)")),
  },
];

/** Correct, unlike gold: render lays the list out on lines (finding 9b), means returns a dict's values (finding 5). */
const CORRECT = GOLD.replace(
  `    return "<ul>" + "".join("<li>%s</li>" % item for item in items) + "</ul>"`,
  `    return "\\n".join(["<ul>"] + ["  <li>%s</li>" % item for item in items] + ["</ul>"])`,
).replace(
  "    return [sum(v) / len(v) for v in groups.values()]",
  "    return {k: sum(v) / len(v) for k, v in groups.items()}.values()",
);

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: Python shapes the host judged unlike pytest (seal-py-s23)", () => {
  it("the gold diff and a correct fix laid out differently PASS", async () => {
    const graded = await gradeNamed(c, SHAPE, { gold: "gold", "layout-values": core(CORRECT) });
    expectVerdicts(graded, { pass: ["gold", "layout-values"], fail: [] });
  }, 1_200_000);

  for (const attack of WRONG)
    it(`${attack.name}: the bug left where the host judged unlike pytest -> FAIL TESTS_FAILED`, async () => {
      const graded = await gradeNamed(c, SHAPE, { [attack.name]: attack.diff });
      expectVerdicts(graded, { pass: [], fail: [attack.name] });
    }, 1_200_000);
});
