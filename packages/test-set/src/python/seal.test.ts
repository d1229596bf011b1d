import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { planSeals } from "../seal/seal-run.js";
import { sealPython } from "./seal.js";

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["python"]);
});

const FREEBUSY = `from freebusy import Interval, free_slots, merge, parse_intervals

DAY = Interval(9 * 60, 17 * 60)


def test_a_contained_interval_does_not_shrink_its_container():
    assert merge([Interval(540, 720), Interval(600, 630)]) == [Interval(540, 720)]


def test_identical_intervals_merge_to_one():
    assert merge([Interval(600, 660), Interval(600, 660)]) == [Interval(600, 660)]
`;

const plan = (text: string, path = "tests/test_x.py") => sealPython(parsers, { path, text, index: 0 })!;

describe("sealPython", () => {
  it("a literal expected value leaves the file; the runtime is appended; line numbers stay", () => {
    const p = plan(
      `from calc import add, name\n\n\ndef test_add():\n    assert add(2, 3) == 5, "add(2, 3) should be 5"\n    assert name() == "calc"\n`,
    );
    expect(p.sites.map((s) => [s.key, s.kind, s.expected, s.line, s.strength])).toEqual([
      ["0.0", "py.eq", { t: "int", v: "5" }, 5, "strong"],
      ["0.1", "py.eq", { t: "str", v: "calc" }, 6, "strong"],
    ]);
    const body = p.text.split("# --- oracle seal runtime")[0]!;
    expect(body).toContain('    assert _oracle_seal("0.0", add(2, 3))\n');
    expect(body).toContain('    assert _oracle_seal("0.1", name())\n');
    expect(body).not.toMatch(/== 5|"calc"|should be 5/);
    expect(p.text).toContain("def _oracle_seal(key, value):");
    expect(p.tests).toEqual([
      { test: { file: "tests/test_x.py", entry: "tests/test_x.py::test_add" }, keys: ["0.0", "0.1"] },
    ]);
  });

  it("a computed expected side is checked: both sides recorded, the comparison kept", () => {
    const p = plan(FREEBUSY);
    expect(p.sites.map((s) => [s.kind, s.strength, s.expected])).toEqual([
      ["py.eq", "checked", undefined],
      ["py.eq", "checked", undefined],
    ]);
    expect(p.text).toContain(
      'assert _oracle_side("0.0", 0, merge([Interval(540, 720), Interval(600, 630)])) == _oracle_side("0.0", 1, [Interval(540, 720)])',
    );
  });

  it("truth, not, is None, approx, unittest forms", () => {
    const p = plan(`import pytest
import unittest


def test_forms():
    assert ok(1)
    assert not ok(2)
    assert find(3) is None
    assert ratio() == pytest.approx(0.333, rel=1e-3)


class TestCase(unittest.TestCase):
    def test_unittest(self):
        self.assertEqual(total([1, 2]), 3)
        self.assertTrue(ok(4), msg="four")
        self.assertIsNone(find(5))
        self.assertIn(6, items())
        self.assertAlmostEqual(ratio(), 0.5, places=3)
`);
    expect(p.sites.map((s) => [s.kind, s.expected, s.options ?? null])).toEqual([
      ["py.truth", { t: "bool", v: true }, null],
      ["py.truth", { t: "bool", v: false }, null],
      ["py.is", { t: "none" }, null],
      ["py.approx", { t: "float", d: "0.333" }, { rel: 0.001 }],
      ["py.eq", { t: "int", v: "3" }, null],
      ["py.truth", { t: "bool", v: true }, null],
      ["py.is", { t: "none" }, null],
      ["py.truth", { t: "bool", v: true }, null],
      ["py.almost", { t: "float", d: "0.5" }, { places: 3 }],
    ]);
    expect(p.text).toContain('assert _oracle_truth("0.1", ok(2))');
    expect(p.text).toContain('_oracle_truth("0.7", (6) in (items()))');
    expect(p.tests.map((t) => t.test.entry)).toEqual([
      "tests/test_x.py::test_forms",
      "tests/test_x.py::TestCase::test_unittest",
    ]);
  });

  it("unittest's typed asserts keep their type check (kinds of their own); a str literal of surrogate escapes is not a literal", () => {
    const p = plan(`import unittest


class TestCase(unittest.TestCase):
    def test_typed(self):
        self.assertListEqual(f(), [1])
        self.assertTupleEqual(f(), (1,))
        self.assertDictEqual(f(), {})
        self.assertSetEqual(f(), {1})
        self.assertMultiLineEqual(f(), "a")
        self.assertEqual(f(), "\\ud83d\\ude00")
`);
    expect(p.sites.map((s) => [s.kind, s.expected === undefined ? "checked" : s.expected.t])).toEqual([
      ["py.listEq", "list"],
      ["py.tupleEq", "tuple"],
      ["py.dictEq", "dict"],
      ["py.setEq", "set"],
      ["py.strEq", "str"],
      ["py.eq", "checked"],
    ]);
  });

  it("a module constant read only by sealed comparisons leaves the file; one read elsewhere stays, and its seal is exposed", () => {
    const p = plan(
      `WANT = "hello-world"\nINPUT = "x"\nBOTH = "a-b"\n\n\ndef test_a():\n    assert slug("Hello World") == WANT\n    assert slug(INPUT) == "x"\n    assert slug("A b") == BOTH\n    assert BOTH\n`,
    );
    expect(p.text).toMatch(/^WANT = None\nINPUT = "x"\nBOTH = "a-b"\n/);
    expect(p.sites.map((s) => [s.expected, s.strength])).toEqual([
      [{ t: "str", v: "hello-world" }, "strong"],
      [{ t: "str", v: "x" }, "exposed"],
      [{ t: "str", v: "a-b" }, "exposed"],
      [{ t: "bool", v: true }, "weak"],
    ]);
  });

  it("comparisons inside blocks are left alone; xfail and early exits leave the test unsealed", () => {
    const p = plan(`import pytest


def test_loop():
    for x in compute():
        assert f(x) == x


@pytest.mark.xfail
def test_xfail():
    assert f(1) == 2


def test_returns():
    if g():
        return
    assert f(1) == 1
`);
    expect(p.sites).toEqual([]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["tests/test_x.py::test_loop", "unsealed.no-comparison"],
      ["tests/test_x.py::test_xfail", "unsealed.xfail"],
      ["tests/test_x.py::test_returns", "unsealed.early-exit"],
    ]);
    expect(p.text).not.toContain("_oracle_");
  });

  it("a test whose only comparison is in a helper of its file is unsealed.helper-check, named apart from no comparison", () => {
    const p = plan(`from text import normalise


def check(raw, want):
    assert normalise(raw) == want


class TestText:
    def _same(self, raw, want):
        assert normalise(raw) == want

    def test_method(self):
        self._same(" a ", "a")


def test_inner_runs_collapse():
    check("a  b", "a b")


def test_prints():
    print(normalise("a"))
`);
    expect(p.sites).toEqual([]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["tests/test_x.py::TestText::test_method", "unsealed.helper-check"],
      ["tests/test_x.py::test_inner_runs_collapse", "unsealed.helper-check"],
      ["tests/test_x.py::test_prints", "unsealed.no-comparison"],
    ]);
  });

  it("a file that does not parse is not sealed", () => {
    expect(sealPython(parsers, { path: "t.py", text: "def test_x(:\n  assert 1\n", index: 0 })).toBeNull();
  });
});

describe("sealPython: literal tables", () => {
  it("a loop over a literal table: its column leaves the file, each row is one run of the comparison", () => {
    const p = plan(`from calc import add


def test_table():
    for a, b, want in [(2, 2, 4), (40, 2, 42)]:
        assert add(a, b) == want
    for i in range(2):
        assert add(i, 0) == i + 0
`);
    expect(p.sites.map((s) => [s.key, s.kind, s.rows ?? null, s.rowsBy ?? null, s.strength])).toEqual([
      [
        "0.0",
        "py.eq",
        [
          { t: "int", v: "4" },
          { t: "int", v: "42" },
        ],
        null,
        "strong",
      ],
      ["0.1", "py.eq", null, null, "checked"],
    ]);
    expect(p.tests[0]!.keys).toEqual(["0.0", "0.0", "0.1", "0.1"]);
    expect(p.text).toContain(
      '    for a, b, want in [(2, 2, None), (40, 2, None)]:\n        assert _oracle_seal("0.0", add(a, b))\n',
    );
  });

  it("a column the loop reads elsewhere stays (the seal is then exposed); a loop that can leave early is not sealed", () => {
    const p = plan(`def test_table():
    for x, want in [(1, "one"), (2, "two")]:
        assert name(x) == want, want
        print(want)
    for x in [1, 2]:
        if x > 1:
            break
        assert f(x) == 1
`);
    expect(p.sites.map((s) => [s.rows?.length, s.strength])).toEqual([[2, "exposed"]]);
    expect(p.text).toContain('[(1, "one"), (2, "two")]');
  });

  it("a parametrised test: its rows are its runs; the column stays unless explicit ids name the runs", () => {
    const p = plan(`import pytest


@pytest.mark.parametrize("a, b, want", [(1, 2, 3), (10, 5, 15)])
def test_add(a, b, want):
    assert add(a, b) == want


@pytest.mark.parametrize("s, want", [("a", "A"), ("b", "B")], ids=["lower-a", "lower-b"])
def test_upper(s, want):
    assert upper(s) == want
`);
    expect(p.sites.map((s) => [s.rowsBy, s.rows, s.strength])).toEqual([
      [
        "run",
        [
          { t: "int", v: "3" },
          { t: "int", v: "15" },
        ],
        "exposed",
      ],
      [
        "run",
        [
          { t: "str", v: "A" },
          { t: "str", v: "B" },
        ],
        "strong",
      ],
    ]);
    expect(p.text).toContain("[(1, 2, 3), (10, 5, 15)]");
    expect(p.text).toContain('[("a", None), ("b", None)], ids=["lower-a", "lower-b"]');
  });

  it("runs that are not one row each are not read by run: a fixture argument, a class's method, a module's parametrisation", () => {
    const rowsBy = (text: string) => plan(text).sites.map((s) => [s.rowsBy ?? null, s.strength]);
    const TABLE = '@pytest.mark.parametrize("text, seconds", [("1h", 3600), ("2m", 120)])';
    expect(
      rowsBy(`import pytest\n\n\n${TABLE}\ndef test_d(text, seconds):\n    assert parse(text) == seconds\n`),
    ).toEqual([["run", "exposed"]]);
    for (const text of [
      `import pytest\n\n\n${TABLE}\ndef test_d(strict, text, seconds):\n    assert parse(text, strict) == seconds\n`,
      `import pytest\n\n\nclass TestA:\n    ${TABLE}\n    def test_d(self, text, seconds):\n        assert parse(text) == seconds\n`,
      `import pytest\n\npytestmark = pytest.mark.parametrize("strict", [False, True])\n\n\n${TABLE}\ndef test_d(text, seconds):\n    assert parse(text) == seconds\n`,
      `import pytest\n\n\ndef pytest_generate_tests(metafunc):\n    pass\n\n\n${TABLE}\ndef test_d(text, seconds):\n    assert parse(text) == seconds\n`,
      `import pytest\n\n\n@pytest.mark.usefixtures("strict")\n${TABLE}\ndef test_d(text, seconds):\n    assert parse(text) == seconds\n`,
    ])
      expect(rowsBy(text)).toEqual([[null, "checked"]]);
  });

  it("a name the test binds is not the module constant there (assignment, op=, parameter, for, with, walrus, import, del, global)", () => {
    const expectedOf = (body: string, params = "") =>
      plan(
        `import os\n\nTIMEOUT = 30\n\n\ndef test_t(${params}):\n${body}    assert Client().timeout == TIMEOUT\n`,
      ).sites.map((s) => s.expected ?? null);
    expect(expectedOf("")).toEqual([{ t: "int", v: "30" }]);
    // Bound once to a literal before the read: the test's own literal (seal.local-literal), not the module's.
    expect(expectedOf("    TIMEOUT = 45\n")).toEqual([{ t: "int", v: "45" }]);
    for (const [body, params] of [
      ["    TIMEOUT = 45\n    TIMEOUT = 46\n", ""],
      ["    TIMEOUT += 15\n", ""],
      ["", "TIMEOUT"],
      ["", "x=TIMEOUT"],
      ["    for TIMEOUT in [45]:\n        pass\n", ""],
      ["    with open(os.devnull) as TIMEOUT:\n        pass\n", ""],
      ["    if (TIMEOUT := 45):\n        pass\n", ""],
      ["    from config import TIMEOUT\n", ""],
      ["    global TIMEOUT\n    TIMEOUT = 45\n", ""],
      ["    try:\n        pass\n    except ValueError as TIMEOUT:\n        pass\n", ""],
    ] as const)
      expect(expectedOf(body, params), body || params).toEqual([null]);
    // Rebound anywhere in the module (a function's `global`, a later module-level binding): no constant at all.
    const other = (extra: string) =>
      plan(`TIMEOUT = 30\n${extra}\n\ndef test_t():\n    assert Client().timeout == TIMEOUT\n`).sites.map(
        (s) => s.expected ?? null,
      );
    expect(other("\n\ndef configure():\n    global TIMEOUT\n    TIMEOUT = 45\n")).toEqual([null]);
    expect(other("for TIMEOUT in [45]:\n    pass\n")).toEqual([null]);
  });
});

describe("sealPython: what the plan must leave as it is (an attack review's gold FAILs)", () => {
  it("a module that runs tests as it loads is not sealed: the runtime after its last line would not exist yet", () => {
    const TEST = `import unittest\nfrom txt import shout\n\n\nclass T(unittest.TestCase):\n    def test_shout(self):\n        self.assertEqual(shout("abc"), "ABC!")\n`;
    for (const tail of [
      "\nsuite = unittest.TestSuite()\nsuite.addTest(unittest.makeSuite(T))\nrunner = unittest.TextTestRunner(verbosity=1)\nresult = runner.run(suite)\n",
      "\nunittest.main()\n",
    ]) {
      const p = plan(`${TEST}${tail}`);
      expect(p.text).toBe(`${TEST}${tail}`);
      expect(p.sites).toEqual([]);
      expect(p.unsealed.map((u) => u.rule)).toEqual(["unsealed.runs-at-import"]);
    }
    for (const guarded of ['\nif __name__ == "__main__":\n    unittest.main()\n', "\nCASES = [1, 2]\n"])
      expect(plan(`${TEST}${guarded}`).sites).toHaveLength(1);
  });

  it("a file declaring another encoding, or holding an undecodable byte, is not sealed: its text stays byte for byte", () => {
    const TEST = `from txt import shout\n\n\ndef test_shout():\n    assert shout("abc") == "ABC!"\n`;
    for (const text of [
      `# -*- coding: latin-1 -*-\n${TEST}`,
      `#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n${TEST}`,
      `${TEST}\n\ndef test_accents():\n    assert shout("caf\uFFFD") == "CAF\uFFFD!"\n`,
    ]) {
      const p = plan(text);
      expect(p.text).toBe(text);
      expect(p.sites).toEqual([]);
      expect(p.unsealed.map((u) => u.rule)).toContain("unsealed.encoding");
    }
    for (const cookie of ["# -*- coding: utf-8 -*-\n", "# coding=ascii\n", "# coding: UTF8\n"])
      expect(plan(`${cookie}${TEST}`).sites).toHaveLength(1);
  });

  it("a parametrised column stays unless the ids are a literal list of strings (ids=str computes them from the values)", () => {
    const text = (ids: string) =>
      `import pytest\n\n\n@pytest.mark.parametrize("n, want", [(3, 9), (4, 16)], ids=${ids})\ndef test_square(n, want):\n    assert square(n) == want\n`;
    for (const ids of ["str", "lambda v: f'v{v}'", '["a", None]', "IDS", '("a", f"b{1}")']) {
      const p = plan(text(ids));
      expect(p.text, ids).toContain("[(3, 9), (4, 16)]");
      expect(p.sites.map((s) => s.rowsBy)).toEqual(["run"]);
    }
    expect(plan(text('("three", "four")')).text).toContain("[(3, None), (4, None)]");
  });

  it("a loop's column stays when the loop variable is read after the loop (it outlives it)", () => {
    const text = (after: string) =>
      `def test_rows():\n    for n, want in [(1, "x"), (3, "xxx")]:\n        assert rep(n) == want\n${after}`;
    expect(plan(text("    assert len(want) == 3\n")).text).toContain('[(1, "x"), (3, "xxx")]');
    expect(plan(text("    check = lambda: want\n    assert check()\n")).text).toContain(
      '[(1, "x"), (3, "xxx")]',
    );
    expect(plan(text("")).text).toContain("[(1, None), (3, None)]");
  });

  it("a module constant another hidden file imports stays (from tests.test_order import ORDERED, import … as m)", () => {
    const ORDER = `from words import vowels_first\n\nORDERED = ["apple", "egg", "kiwi", "plum"]\n\n\ndef test_vowels_first():\n    assert vowels_first(["kiwi", "apple", "plum", "egg"]) == ORDERED\n`;
    const order = { path: "tests/test_order.py", text: ORDER };
    const textOf = (other: string) =>
      planSeals(parsers, [order, { path: "tests/test_stable.py", text: other }]).files.find(
        (f) => f.path === order.path,
      )!.text;
    for (const other of [
      "from tests.test_order import ORDERED\n\n\ndef test_s():\n    assert list(ORDERED)\n",
      "import tests.test_order as m\n\n\ndef test_s():\n    assert list(m.ORDERED)\n",
      "from .test_order import ORDERED\n\n\ndef test_s():\n    assert list(ORDERED)\n",
    ])
      expect(textOf(other), other).toContain('ORDERED = ["apple", "egg", "kiwi", "plum"]');
    expect(textOf("def test_s():\n    assert list(range(2))\n")).toContain("ORDERED = None");
    expect(planSeals(parsers, [order]).files[0]!.text).toContain("ORDERED = None");
  });
});

describe("sealPython: unittest asserts a test class redefines (attack review s23, findings 9 and 9b)", () => {
  const keysOf = (text: string) => plan(text).sites.map((s) => s.test.entry.split("::").slice(1).join("::"));
  it("a class, or a base of the file, that defines or swaps an assert… leaves self.assert… unsealed", () => {
    const OVR = `import unittest

from fmt2 import parse, render


class TestParse(unittest.TestCase):
    def assertEqual(self, first, second, msg=None):
        self.assertIs(type(first), type(second), msg)
        super().assertEqual(first, second, msg)

    def test_digits_give_an_int(self):
        self.assertEqual(parse("7"), 7)


class Markup(unittest.TestCase):
    def assertEqual(self, first, second, msg=None):
        super().assertEqual("".join(first.split()), "".join(second.split()), msg)


class TestRender(Markup):
    def test_items_are_list_items(self):
        self.assertEqual(render(["a", "b"]), "<ul><li>a</li><li>b</li></ul>")
        assert render([]) == "<ul></ul>"


class TestSwapped(unittest.TestCase):
    assertEqual = unittest.TestCase.assertIs

    def test_swapped(self):
        self.assertEqual(parse("7"), 7)


class TestTyped(unittest.TestCase):
    def setUp(self):
        self.addTypeEqualityFunc(str, lambda a, b, msg=None: None)

    def test_typed(self):
        self.assertEqual(render([]), "<ul></ul>")


class TestPlain(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(parse("7"), 7)
`;
    const p = plan(OVR);
    // An assert statement is Python's own: still sealed, after the unjudged call.
    expect(
      p.sites.map((s) => [s.test.entry.split("::").slice(1).join("::"), s.afterUnsealed ?? false]),
    ).toEqual([
      ["TestRender::test_items_are_list_items", true],
      ["TestPlain::test_plain", false],
    ]);
    expect(p.text).toContain('self.assertEqual(parse("7"), 7)');
    expect(p.text).toContain('self.assertEqual(render(["a", "b"]), "<ul><li>a</li><li>b</li></ul>")');
  });

  it("a base from another module, or a mixin, may define them: unsealed; TestCase from unittest is unittest's", () => {
    const body = '    def test_x(self):\n        self.assertEqual(parse("7"), 7)\n';
    expect(
      keysOf(`from tests.base import Base\nfrom fmt2 import parse\n\n\nclass TestX(Base):\n${body}`),
    ).toEqual([]);
    expect(
      keysOf(
        `import unittest\nfrom tests.base import Mixin\nfrom fmt2 import parse\n\n\nclass TestX(Mixin, unittest.TestCase):\n${body}`,
      ),
    ).toEqual([]);
    expect(
      keysOf(`from django.test import TestCase\nfrom fmt2 import parse\n\n\nclass TestX(TestCase):\n${body}`),
    ).toEqual([]);
    expect(
      keysOf(`from unittest import TestCase\nfrom fmt2 import parse\n\n\nclass TestX(TestCase):\n${body}`),
    ).toEqual(["TestX::test_x"]);
    expect(
      keysOf(
        `import unittest\nfrom fmt2 import parse\n\n\nclass Base(unittest.TestCase):\n    def setUp(self):\n        self.n = 1\n\n\nclass TestX(Base):\n${body}`,
      ),
    ).toEqual(["TestX::test_x"]);
  });

  it("a subclass in another hidden file that redefines one runs the base's tests with it: unsealed", () => {
    const base = {
      path: "tests/test_base.py",
      text: `import unittest\n\nfrom fmt2 import parse\n\n\nclass TestBase(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(parse("7"), 7)\n`,
    };
    const strict = {
      path: "tests/test_strict.py",
      text: `from tests.test_base import TestBase\n\n\nclass TestStrict(TestBase):\n    def assertEqual(self, a, b, msg=None):\n        assert type(a) is type(b)\n`,
    };
    const loose = {
      path: "tests/test_loose.py",
      text: `from tests.test_base import TestBase\n\n\nclass TestLoose(TestBase):\n    pass\n`,
    };
    const sitesOf = (...files: Array<{ path: string; text: string }>) =>
      planSeals(parsers, files).files.find((f) => f.path === base.path)!.sites.length;
    expect(sitesOf(base, loose)).toBe(1);
    expect(sitesOf(base, strict)).toBe(0);
  });
});

describe("sealPython: a constant a fixture reads by name (attack review s23, finding 4)", () => {
  it("stays when another Python file, hidden or of the base commit, names it (getattr(request.module, 'TEXT'))", () => {
    const test = {
      path: "tests/test_roundtrip.py",
      text: `from codec import decode, encode\n\nTEXT = "Hello, World!"\n\n\ndef test_roundtrip(text):\n    assert decode(encode(text)) == TEXT\n`,
    };
    const conftest = {
      path: "tests/conftest.py",
      text: `import pytest\n\n\n@pytest.fixture\ndef text(request):\n    return getattr(request.module, "TEXT", "plain")\n`,
    };
    const sealed = (
      files: Array<{ path: string; text: string }>,
      context?: Array<{ path: string; text: string }>,
    ) => planSeals(parsers, files, context ? { context } : {}).files.find((f) => f.path === test.path)!;
    expect(sealed([test]).text).toContain("TEXT = None");
    for (const p of [sealed([test], [conftest]), sealed([test, conftest])]) {
      expect(p.text).toContain('TEXT = "Hello, World!"');
      expect(p.sites.map((s) => [s.kind, s.strength])).toEqual([["py.eq", "exposed"]]);
    }
    // A file that does not name it, or a Go file, changes nothing.
    expect(sealed([test], [{ path: "tests/conftest.py", text: "import pytest\n" }]).text).toContain(
      "TEXT = None",
    );
    expect(sealed([test], [{ path: "x_test.go", text: "// TEXT\n" }]).text).toContain("TEXT = None");
  });
});

describe("approx is sealed only when it is pytest.approx (attack review s24, finding 1)", () => {
  const kinds = (text: string) =>
    plan(text).sites.map((s) => [s.kind, s.expected ?? null, s.options ?? null, s.strength]);
  it("a module partial's literal keywords are read under the call's own", () => {
    expect(
      kinds(`from functools import partial

import pytest

# Percentages are shown to two decimals.
approx = partial(pytest.approx, abs=1e-3)


def test_thirds():
    assert percent(1, 3) == approx(33.333333)
    assert ratio(1, 7) == approx(0.142857, rel=1e-12)
`),
    ).toEqual([
      ["py.approx", { t: "float", d: "33.333333" }, { abs: 0.001 }, "strong"],
      ["py.approx", { t: "float", d: "0.142857" }, { abs: 0.001, rel: 1e-12 }, "strong"],
    ]);
    expect(
      kinds(
        `import functools\nimport pytest\nfrom pytest import raises\n\napprox = functools.partial(pytest.approx, rel=1e-12)\n\n\ndef test_r():\n    assert ratio(1, 7) == approx(0.14285714285714285)\n`,
      )[0]?.[2],
    ).toEqual({ rel: 1e-12 });
    expect(
      kinds(`from pytest import approx, raises\n\n\ndef test_r():\n    assert r() == approx(0.5)\n`)[0],
    ).toEqual(["py.approx", { t: "float", d: "0.5" }, {}, "strong"]);
  });
  it.each([
    ["a local def", `import pytest\n\ndef approx(x):\n    return pytest.approx(x, abs=0.1)\n`],
    ["a class", `class approx:\n    def __init__(self, x):\n        self.x = x\n`],
    ["another library's", `from mylib.testing import approx\n`],
    [
      "a partial with a computed keyword",
      `import pytest\nfrom functools import partial\n\napprox = partial(pytest.approx, abs=TOL)\n`,
    ],
    ["a rebinding after the import", `from pytest import approx\n\napprox = make(approx)\n`],
    ["a star import after it", `from pytest import approx\nfrom helpers import *\n`],
    ["pytest rebound", `import pytest\n\npytest = fake\n`],
  ])("%s: the container's comparison decides (a truth seal)", (_name, head) => {
    const text = `${head}\n\ndef test_r():\n    assert r() == approx(0.5)\n    assert r() == pytest.approx(0.5)\n`;
    const p = plan(text);
    expect(p.sites.map((s) => s.kind)).toEqual(
      head.includes("import pytest\n") && !head.includes("pytest = fake")
        ? ["py.truth", "py.approx"]
        : ["py.truth", "py.truth"],
    );
    expect(p.text).toContain('assert _oracle_truth("0.0", r() == approx(0.5))');
  });
  it("a test that binds approx itself", () => {
    expect(
      kinds(
        `from pytest import approx\n\n\ndef test_r():\n    approx = make()\n    assert r() == approx(0.5)\n`,
      )[0]?.[0],
    ).toBe("py.truth");
  });
});

describe("unittest's asserts swapped outside a class body are not sealed (attack review s24, finding 2)", () => {
  const CANON = `import unittest

from canon import canon


def compare_in_order(case):
    """Canonical objects are compared with their key order."""

    def dicts_in_order(first, second, msg=None):
        if list(first.items()) != list(second.items()):
            raise case.failureException(msg)

    case.addTypeEqualityFunc(dict, dicts_in_order)


class TestCanon(unittest.TestCase):
    def setUp(self):
        compare_in_order(self)

    def test_keys_are_sorted(self):
        self.assertEqual(canon({"b": 1, "a": 2}), {"a": 2, "b": 1})

    def test_plain_assert(self):
        assert canon({}) == {}
`;
  const PLAIN = `import unittest

from canon import canon


class TestPlain(unittest.TestCase):
    def test_one(self):
        self.assertEqual(canon({"a": 1}), {"a": 1})
`;
  const run = (
    files: Array<{ path: string; text: string }>,
    context?: Array<{ path: string; text: string }>,
  ) => planSeals(parsers, files, context ? { context } : {});
  it("a helper's addTypeEqualityFunc: the unittest asserts are left to the runner, a plain assert stays sealed", () => {
    const r = run([{ path: "tests/test_canon.py", text: CANON }]);
    expect(r.sites.map((s) => [s.test.entry, s.kind])).toEqual([
      ["tests/test_canon.py::TestCanon::test_plain_assert", "py.eq"],
    ]);
    expect(r.unsealed).toEqual([
      {
        test: { file: "tests/test_canon.py", entry: "tests/test_canon.py::TestCanon::test_keys_are_sorted" },
        rule: "unsealed.equality-testers",
      },
    ]);
  });
  it.each([
    [
      "a conftest assigning TestCase.assertEqual",
      "import unittest\n\nunittest.TestCase.assertEqual = lambda s, a, b, msg=None: None\n",
    ],
    ["a helper's setattr", 'def loosen(case):\n    setattr(case, "assertEqual", case.assertAlmostEqual)\n'],
    ["the registry read by name", "def reset(case):\n    case._type_equality_funcs.clear()\n"],
  ])("%s in a base file: every file's unittest asserts unsealed", (_name, text) => {
    expect(run([{ path: "tests/test_plain.py", text: PLAIN }]).sites).toHaveLength(1);
    const r = run([{ path: "tests/test_plain.py", text: PLAIN }], [{ path: "tests/conftest.py", text }]);
    expect(r.sites).toEqual([]);
    expect(r.unsealed.map((u) => u.rule)).toEqual(["unsealed.equality-testers"]);
  });
  it.each([
    [
      'an autouse fixture\'s mock.patch.object(TestCase, "assertDictEqual", f)',
      'import unittest\nfrom unittest import mock\n\nimport pytest\n\n\n@pytest.fixture(autouse=True)\ndef ordered():\n    with mock.patch.object(unittest.TestCase, "assertDictEqual", in_order):\n        yield\n',
    ],
    [
      "monkeypatch.setattr with a dotted string target",
      '@pytest.fixture(autouse=True)\ndef ordered(monkeypatch):\n    monkeypatch.setattr("unittest.TestCase.assertDictEqual", in_order)\n',
    ],
    [
      "mock.patch with a dotted string target",
      'mock.patch("unittest.TestCase.assertDictEqual", in_order).start()\n',
    ],
    ["type.__setattr__", 'type.__setattr__(unittest.TestCase, "assertDictEqual", in_order)\n'],
    ["setattr with the name in a variable", "def swap(name, f):\n    setattr(unittest.TestCase, name, f)\n"],
    [
      "patch.object with the name in a variable",
      "def swap(name, f):\n    return mock.patch.object(TestCase, name, f)\n",
    ],
    ['vars(…)["TestCase"].assertX =', 'vars(unittest.case)["TestCase"].assertDictEqual = in_order\n'],
    [
      '__globals__["TestCase"].assertX =',
      'unittest.TestCase.__init__.__globals__["TestCase"].assertDictEqual = in_order\n',
    ],
    ["fail patched by name", 'mock.patch.object(unittest.TestCase, "fail", lambda *a, **k: None).start()\n'],
    ["patch.multiple", "mock.patch.multiple(unittest.TestCase, assertDictEqual=in_order).start()\n"],
    ["the class replaced by a string target", 'mock.patch("unittest.TestCase", OrderedCase).start()\n'],
    ["the class replaced by an assignment", "import unittest\n\nunittest.TestCase = OrderedCase\n"],
  ])(
    "%s in a conftest: the unittest asserts are left to the runner (s26 attack findings 1, 1b)",
    (_name, text) => {
      const r = run([{ path: "tests/test_plain.py", text: PLAIN }], [{ path: "tests/conftest.py", text }]);
      expect(r.sites).toEqual([]);
      expect(r.unsealed.map((u) => u.rule)).toEqual(["unsealed.equality-testers"]);
    },
  );
  it.each([
    [
      "patch.multiple on TestCase imported as another name",
      "from unittest import TestCase as Case\nfrom unittest import mock\n\n\n@pytest.fixture(autouse=True)\ndef ordered():\n    with mock.patch.multiple(Case, assertDictEqual=in_order):\n        yield\n",
    ],
    [
      "monkeypatch.setattr on an alias, the name computed",
      'TC = unittest.TestCase\n\n\n@pytest.fixture(autouse=True)\ndef ordered(monkeypatch):\n    name = "assert%sEqual" % "Dict"\n    monkeypatch.setattr(TC, name, in_order)\n',
    ],
    [
      "setattr on an alias of an alias",
      "Base = unittest.case.TestCase\nTC = Base\n\nfor name, f in STRICT.items():\n    setattr(TC, name, f)\n",
    ],
    [
      'type.__setattr__ on getattr(unittest, "TestCase") bound to a name',
      'TC = getattr(unittest, "TestCase")\ntype.__setattr__(TC, NAME, in_order)\n',
    ],
    [
      "patch.object on an alias, the name in a variable",
      "from unittest import (\n    TestCase as Case,\n)\n\nmock.patch.object(Case, NAME, in_order).start()\n",
    ],
    [
      'getattr(unittest, "TestCase") assigned to',
      'getattr(unittest, "TestCase").assertDictEqual = in_order\n',
    ],
    ['setattr on getattr(unittest, "TestCase")', 'setattr(getattr(unittest, "TestCase"), NAME, in_order)\n'],
  ])(
    "%s in a conftest: the unittest asserts are left to the runner (brief s27 pyfix, item 1)",
    (_name, text) => {
      const r = run([{ path: "tests/test_plain.py", text: PLAIN }], [{ path: "tests/conftest.py", text }]);
      expect(r.sites).toEqual([]);
      expect(r.unsealed.map((u) => u.rule)).toEqual(["unsealed.equality-testers"]);
    },
  );
  it("an alias of TestCase that patches nothing, or sets a literal name that is no assert, keeps them sealed; vars(TC) and TC.__dict__ cannot be written", () => {
    const conftest = [
      "from unittest import TestCase as Case",
      "TC = unittest.TestCase",
      "",
      'setattr(TC, "maxDiff", None)',
      "Case.maxDiff = None",
      "print(vars(TC), TC.__dict__)",
      "setattr(settings, name, value)",
      "",
    ].join("\n");
    const r = run(
      [{ path: "tests/test_plain.py", text: PLAIN }],
      [{ path: "tests/conftest.py", text: conftest }],
    );
    expect(r.sites).toHaveLength(1);
  });
  it("ordinary patches, setattr and strings keep the unittest asserts sealed (s26 attack findings 1, 1b)", () => {
    const conftest = [
      "import pytest",
      "from unittest import mock",
      "",
      "",
      "@pytest.fixture(autouse=True)",
      "def quiet(monkeypatch):",
      '    monkeypatch.setattr("canon.io.write", lambda *a: None)',
      "    setattr(settings, name, value)",
      '    with mock.patch.object(Client, "send"), mock.patch("canon.fail"):',
      "        yield",
      "",
      "",
      '__all__ = ["TestCase", "check"]',
      "",
      "",
      "def check(case, status):",
      '    case.assertEqual(status, "fail")',
      '    assert status != "assertion" and status != "failed"',
      "",
    ].join("\n");
    const r = run(
      [{ path: "tests/test_plain.py", text: PLAIN }],
      [{ path: "tests/conftest.py", text: conftest }],
    );
    expect(r.sites).toHaveLength(1);
  });
  it.each([
    [
      "__init_subclass__ assigning cls.assertEqual",
      "class CanonCase(unittest.TestCase):\n    def __init_subclass__(cls, **kwargs):\n        super().__init_subclass__(**kwargs)\n        cls.assertEqual = in_order\n\n\nclass TestPlain(CanonCase):",
    ],
    [
      "setUpClass assigning cls.assertDictEqual",
      "class Base(unittest.TestCase):\n    @classmethod\n    def setUpClass(cls):\n        cls.assertDictEqual = in_order\n\n\nclass TestPlain(Base):",
    ],
    [
      "setUp assigning type(self).assertEqual",
      "class TestPlain(unittest.TestCase):\n    def setUp(self):\n        type(self).assertEqual = in_order\n",
    ],
    [
      "setUp assigning self.__class__.assertEqual",
      "class TestPlain(unittest.TestCase):\n    def setUp(self):\n        self.__class__.assertEqual = in_order\n",
    ],
  ])("%s: the class's unittest asserts are not sealed (s25 attack finding 1b)", (_name, header) => {
    const text = PLAIN.replace("class TestPlain(unittest.TestCase):", header);
    const r = run([{ path: "tests/test_plain.py", text }]);
    expect(r.sites).toEqual([]);
    expect(r.unsealed).toHaveLength(1);
  });
  it("a helper module assigning through any object swaps the asserts (s25 attack finding 1b)", () => {
    const helper = "def loosen(case):\n    type(case).assertEqual = case.assertAlmostEqual\n";
    const r = run(
      [{ path: "tests/test_plain.py", text: PLAIN }],
      [{ path: "tests/helpers.py", text: helper }],
    );
    expect(r.sites).toEqual([]);
    // An attribute that only starts like one is not an assert: `self.failures = []`, `result.assertion_count = 0`.
    const plain = "def reset(result):\n    result.failures = []\n    result.assertion_count = 0\n";
    expect(
      run([{ path: "tests/test_plain.py", text: PLAIN }], [{ path: "tests/helpers.py", text: plain }]).sites,
    ).toHaveLength(1);
  });
  it("a decorated class is not trusted with its asserts", () => {
    const r = run([
      { path: "tests/test_plain.py", text: PLAIN.replace("class TestPlain", "@loosen\nclass TestPlain") },
    ]);
    expect(r.sites).toEqual([]);
  });
});

describe("a value a parametrize id, a comment or a docstring spells is exposed, not strong (attack review s24, finding 5b)", () => {
  it("pytest hands the id to the code (PYTEST_CURRENT_TEST)", () => {
    const p = plan(`import pytest

from slug import slug


@pytest.mark.parametrize(
    "title,want",
    [("Hello   big  World", "hello-big-world"), ("A  B", "a-b")],
    ids=["Hello   big  World -> hello-big-world", "A  B -> a-b"],
)
def test_runs_of_spaces(title, want):
    assert slug(title) == want


def test_docstring():
    """x  y gives x-y"""
    assert slug("x  y") == "x-y"
    assert slug("p  q") == "p-q-r"
    assert slug("a  b") == "ab"  # two characters: not counted as read
`);
    expect(p.sites.map((s) => s.strength)).toEqual(["exposed", "exposed", "strong", "strong"]);
  });
});

describe("pytest.approx in a unittest assert or inside a container (sealpy2)", () => {
  const kinds = (text: string) =>
    plan(text).sites.map((s) => [s.kind, s.expected ?? null, s.options ?? null, s.strength]);
  it("assertEqual(x, pytest.approx(…)) is x == approx(…): sealed as pytest's approx, either way round", () => {
    const p = plan(`import unittest

import pytest
from pytest import approx


class T(unittest.TestCase):
    def test_share(self):
        self.assertEqual(share(1, 3), pytest.approx(0.333333, rel=1e-3), msg="a third")
        self.assertEqual(approx(0.5), share(1, 2))
`);
    expect(p.sites.map((s) => [s.kind, s.expected, s.options, s.strength])).toEqual([
      ["py.approx", { t: "float", d: "0.333333" }, { rel: 0.001 }, "strong"],
      ["py.approx", { t: "float", d: "0.5" }, {}, "strong"],
    ]);
    expect(p.text).toContain('_oracle_seal("0.0", share(1, 3))');
    expect(p.text).toContain('_oracle_seal("0.1", share(1, 2))');
  });

  it("any other unittest equality naming approx is left to the runner; assertTrue stays a truth seal", () => {
    expect(
      kinds(`import unittest

import pytest
from pytest import approx


class T(unittest.TestCase):
    def test_forms(self):
        self.assertEqual(shares(), [approx(0.5), 2])
        self.assertListEqual(shares(), [approx(0.5), 2])
        self.assertNotEqual(share(1, 3), approx(0.5))
        self.assertEqual(share(1, 3), approx(0.5, abs=TOL))
        self.assertEqual(pytest.approx(0.5), approx(0.5))
        self.assertTrue(share(1, 2) == approx(0.5))
`),
    ).toEqual([["py.truth", { t: "bool", v: true }, null, "weak"]]);
    expect(
      plan(
        `import unittest

from pytest import approx


class T(unittest.TestCase):
    def test_shares(self):
        self.assertEqual(shares(), [approx(0.5), 2])
`,
      ).unsealed.map((u) => u.rule),
    ).toEqual(["unsealed.approx"]);
  });

  it("an assert with approx inside a container, reversed or negated is a truth seal, not a checked one", () => {
    const p = plan(`import pytest
from pytest import approx


def test_forms():
    assert shares() == [pytest.approx(0.5), 2]
    assert {"a": approx(0.3)} == table()
    assert approx(0.3) == total()
    assert total() != approx(0.3)
    assert pairs() == (approx(0.1), approx(0.2))
`);
    expect(p.sites.map((s) => s.kind)).toEqual(["py.truth", "py.truth", "py.approx", "py.truth", "py.truth"]);
    expect(p.text).toContain('assert _oracle_truth("0.0", shares() == [pytest.approx(0.5), 2])');
    expect(p.text.split("# --- oracle seal runtime")[0]).not.toContain("_oracle_side");
  });
});

describe("assertAlmostEqual's places is an int (sealpy2)", () => {
  it("places=7.0 is round(x, 7.0), a TypeError for any value not equal: not sealed", () => {
    const p = plan(`import unittest


class T(unittest.TestCase):
    def test_mean(self):
        self.assertAlmostEqual(mean(), 1, places=7.0)
        self.assertAlmostEqual(mean(), 1, places=7)
        self.assertAlmostEqual(mean(), 1, delta=0.5)
`);
    expect(p.sites.map((s) => [s.kind, s.options])).toEqual([
      ["py.almost", { places: 7 }],
      ["py.almost", { delta: 0.5 }],
    ]);
  });
});

describe("a binding that calls a test-support module's helper marks the seals after it (attack review s25, finding 5)", () => {
  const marks = (text: string) =>
    plan(text).sites.map((s) => [s.test.entry.split("::").at(-1), s.afterUnsealed ?? false]);
  it("`out = roundtrip(x)` from helpers, tests.helpers, a relative or a module import: afterUnsealed", () => {
    for (const [imports, call] of [
      ["from helpers import roundtrip", "roundtrip"],
      ["from tests.helpers import roundtrip as rt", "rt"],
      ["from .support import roundtrip", "roundtrip"],
      ["from tests import helpers", "helpers.roundtrip"],
      ["import tests.test_utils as tu", "tu.roundtrip"],
    ])
      expect(
        marks(
          `${imports}\n\n\ndef test_spaces():\n    out = ${call}("x y z")\n    assert out == "x%20y%20z"\n`,
        ),
        imports,
      ).toEqual([["test_spaces", true]]);
  });
  it("`out = roundtrip(x)` through a fixture, an attribute of one, or self. on a class not unittest's own: afterUnsealed (attack review s26, finding 4)", () => {
    for (const text of [
      'def test_spaces(roundtrip):\n    out = roundtrip("x y z")\n    assert out == "x%20y%20z"\n',
      'def test_spaces(codec):\n    out = codec.roundtrip("x y z")\n    assert out == "x%20y%20z"\n',
      'def test_spaces(tmp_path, codec=None):\n    out = codec.pair.roundtrip("x y z")\n    assert out == "x%20y%20z"\n',
      'from codec_base import CodecBase\n\n\nclass TestCodec(CodecBase):\n    def test_spaces(self):\n        out = self.roundtrip("x y z")\n        assert out == "x%20y%20z"\n',
    ])
      expect(marks(text), text).toEqual([["test_spaces", true]]);
  });
  it("pytest's own fixtures, a plain-data parametrize column and a unittest class's self stay judged (attack review s26, finding 4)", () => {
    for (const text of [
      'from urlcodec import encode\n\n\ndef test_spaces(capsys, tmp_path):\n    out, err = capsys.readouterr()\n    path = tmp_path.joinpath("x")\n    assert encode(out) == ""\n',
      'import pytest\n\n\n@pytest.mark.parametrize("text", ["a b", "c d"])\ndef test_spaces(text):\n    out = text.replace(" ", "%20")\n    assert out == "a%20b"\n',
      'import unittest\n\nfrom urlcodec import encode\n\n\nclass TestCodec(unittest.TestCase):\n    def test_spaces(self):\n        out = encode(self.id())\n        self.assertEqual(out, "x")\n',
    ])
      expect(marks(text), text).toEqual([["test_spaces", false]]);
  });
  it("a binding calling the code under test stays judged", () => {
    expect(
      marks(
        'from urlcodec import encode\n\n\ndef test_spaces():\n    out = encode("x y z")\n    assert out == "x%20y%20z"\n',
      ),
    ).toEqual([["test_spaces", false]]);
  });
});

describe("a number a parametrize id, a comment or a docstring spells is exposed (attack review s25, finding 2b)", () => {
  it("ids=['0.1+0.2=0.3'], a docstring's 59.97, a comment over a container; not a string argument", () => {
    const p = plan(`import pytest

from cart import cart_total, parse


@pytest.mark.parametrize("prices, want", [([0.1, 0.2], 0.3)], ids=["0.1+0.2=0.3"])
def test_cents(prices, want):
    assert cart_total(prices) == want


def test_docstring():
    """The cart of three 19.99 items totals 59.97 (17.5 off, 0.40 tax)."""
    assert cart_total([19.99, 19.99, 19.99]) == 59.97
    assert cart_total([1, 2]) == [3, "three"]  # [3, 'three']
    assert parse("734") == 734
    assert cart_total([5, 2.5]) == 7.5
    assert cart_total([20, 20]) == 40
`);
    expect(p.sites.map((s) => s.strength)).toEqual([
      "exposed",
      "exposed",
      "exposed",
      "strong",
      "strong",
      "strong",
    ]);
  });
});

describe("a test's own local literal (seal.local-literal) and pytest's old alias py.test (six's tests)", () => {
  const SIX = `import py
import six


@py.test.mark.skipif("sys.version_info[:2] < (3, 3)")
def test_add_metaclass_nested():
    class A:
        class B: pass

    expected = 'test_add_metaclass_nested.<locals>.A.B'

    assert A.B.__qualname__ == expected

    class A:
        @six.add_metaclass(type)
        class B: pass

    assert A.B.__qualname__ == expected


@py.test.mark.parametrize("x, want", [("a", "A!"), ("b", "B!")])
def test_upper(x, want):
    assert six.u(x).upper() + "!" == want
`;

  it("a name bound once to a literal before it is read, read only by sealed comparisons, is that literal: it leaves the file, the name stays bound to None", () => {
    const p = plan(SIX, "test_six.py");
    expect(
      p.sites.map((s) => [s.key, s.test.entry, s.expected?.v ?? s.rows?.map((r) => r.v), s.strength]),
    ).toEqual([
      ["0.0", "test_six.py::test_add_metaclass_nested", "test_add_metaclass_nested.<locals>.A.B", "strong"],
      ["0.1", "test_six.py::test_add_metaclass_nested", "test_add_metaclass_nested.<locals>.A.B", "strong"],
      // py.test.mark.parametrize is pytest's: its rows are read (they stay in the file, whose ids they make).
      ["0.2", "test_six.py::test_upper", ["A!", "B!"], "exposed"],
    ]);
    expect(p.text).toContain("    expected = None\n");
    expect(p.text).not.toContain("<locals>.A.B'");
  });

  it("what is no local literal: bound twice or in a loop, read before its binding, named by global, passed to the code (a list: checked; a str: sealed, the value stays)", () => {
    const p = plan(
      `from m import f, g


def test_twice():
    want = "abc"
    assert f() == want
    want = "def"
    assert g() == want


def test_loop():
    for want in ["abc"]:
        pass
    assert f() == want


def test_global():
    global want2
    want2 = "xyz"
    assert f() == want2


def test_passed_list():
    want = [1, 2, 3]
    assert f(want) == want


def test_passed_str():
    want = "qrs"
    assert g(want) == want


def test_nested_read():
    want = "tuv"
    assert f() == want
    check = lambda: want
    check()
`,
    );
    expect(p.sites.map((s) => [s.test.entry.split("::")[1], s.expected?.v ?? null, s.strength])).toEqual([
      ["test_twice", null, "checked"],
      ["test_twice", null, "checked"],
      ["test_loop", null, "checked"],
      ["test_global", null, "checked"],
      ["test_passed_list", null, "checked"],
      ["test_passed_str", "qrs", "exposed"],
      ["test_nested_read", "tuv", "exposed"],
    ]);
    expect(p.text).toContain("    want = [1, 2, 3]\n");
    expect(p.text).toContain('    want = "qrs"\n');
    expect(p.text).toContain('    want = "tuv"\n');
  });
});
