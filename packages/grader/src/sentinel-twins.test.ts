import { execFileSync } from "node:child_process";
import type { TestCase } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import {
  changedLiteral,
  goTwins,
  jsTwins,
  MAX_TWINS,
  plainJsOperand,
  plainOperand,
  pythonTwins,
} from "./sentinel-twins.js";
import { checkSentinel, planSentinels, type Sentinel, sentinelRunner } from "./sentinels.js";

const MODULE = `from calc.core import add


def test_add_positive():
    assert add(2, 3) == 5


def test_add_negative():
    """Negative numbers."""
    got = add(-2, -3)
    assert got == -5, "sum of negatives"


def test_add_strings():
    assert add("v1", ".2") == "v1.2"
`;

/** Whether python3 compiles the text (the twins must leave a module that imports). */
/** Whether Python parses every one of `texts` (one interpreter for all: a start costs 50-300 ms). */
const compiles = (...texts: string[]) => {
  const parse = "import ast, json, sys\nfor t in json.load(sys.stdin): ast.parse(t)";
  execFileSync("python3", ["-c", parse], { input: JSON.stringify(texts) });
  return true;
};

const defs = (text: string) => [...text.matchAll(/^def (\w+)\(/gm)].map((m) => m[1]!);

describe("changedLiteral", () => {
  it("moves a number by 1 to 3 (keeping its decimals, never across zero) and changes one digit of a string", () => {
    for (let i = 0; i < 50; i++) {
      const n = Number(changedLiteral("5"));
      expect(Math.abs(n - 5)).toBeGreaterThanOrEqual(1);
      expect(Math.abs(n - 5)).toBeLessThanOrEqual(3);
      const d = changedLiteral("0.25");
      if (d !== null) {
        expect(d).toMatch(/^\d\.\d{2}$/);
        expect([1, 2, 3]).toContain(Math.abs(Math.round((Number(d) - 0.25) * 100) / 100));
      }
      const s = changedLiteral('"v1.2"')!;
      expect(s).toMatch(/^"v\d\.\d"$/);
      expect([...s].filter((c, j) => c !== '"v1.2"'[j])).toHaveLength(1);
    }
    expect(changedLiteral("'--'")).toBeNull();
    expect(changedLiteral('"hello-world"')).toBeNull();
    expect(changedLiteral("true")).toBe("false");
    expect(changedLiteral("False")).toBe("True");
    for (let i = 0; i < 20; i++) {
      const list = changedLiteral("[[1, 5], [7, -2]]");
      if (list === null) continue;
      const before = [1, 5, 7, -2];
      const after = [...list.matchAll(/-?\d+/g)].map((m) => Number(m[0]));
      expect(after.filter((n, j) => n !== before[j])).toHaveLength(1);
      expect(list.replace(/-?\d+/g, "N")).toBe("[[N, N], [N, N]]");
    }
  });

  it("each value is as likely the original as the copy: one of six offsets, none when it crosses zero or an integer size", () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 3000; i++)
      for (const v of ["0", "1"]) {
        const c = changedLiteral(v);
        if (c !== null) seen.set(`${v}>${c}`, (seen.get(`${v}>${c}`) ?? 0) + 1);
      }
    // 0 -> 1 and 1 -> 0 each 1/6 of the time: seeing 0 and 1 says nothing about which is the original.
    expect(Math.abs(seen.get("0>1")! - seen.get("1>0")!)).toBeLessThan(200);
    for (const k of seen.keys()) expect(k).not.toMatch(/>-/);
    for (let i = 0; i < 200; i++) {
      expect(Number(changedLiteral("255") ?? 0)).toBeLessThan(256);
      expect(Number(changedLiteral("-3") ?? -1)).toBeLessThan(0);
    }
  });
});

describe("plainOperand", () => {
  it("an expression that == compares whole; a comma, a boolean operator or another comparison outside brackets is not", () => {
    for (const ok of ["add(2, 3)", "got", "obj.items[0]", "a + b * 2", 'f("x, y or z")', "len(xs)"])
      expect(plainOperand(ok), ok).toBe(true);
    for (const bad of [
      "x, y",
      "f() or x",
      "not x",
      "a if b else c",
      "x in y",
      "a < b",
      "a == b",
      "lambda: 1",
      "(a",
      "add(2, 3), 5",
    ])
      expect(plainOperand(bad), bad).toBe(false);
  });
});

describe("pythonTwins", () => {
  it("renames each plain test, adds a copy beside it with one expected value changed, and the module still compiles", () => {
    const plan = pythonTwins(MODULE, { base: "" })!;
    expect(plan.twins.map((t) => t.original).sort()).toEqual([
      "test_add_negative",
      "test_add_positive",
      "test_add_strings",
    ]);
    expect(compiles(plan.text)).toBe(true);
    const names = defs(plan.text);
    expect(names).toHaveLength(6);
    for (const t of plan.twins) {
      expect(names).not.toContain(t.original);
      expect(t.renamed).toMatch(new RegExp(`^${t.original}_\\d+$`));
      expect(t.copy).toMatch(new RegExp(`^${t.original}_\\d+$`));
      // Side by side, in either order.
      expect(Math.abs(names.indexOf(t.renamed) - names.indexOf(t.copy))).toBe(1);
    }
    const positive = plan.twins.find((t) => t.original === "test_add_positive")!;
    const body = (name: string) =>
      new RegExp(`def ${name}\\(\\):\\n {4}assert add\\(2, 3\\) == (-?\\d+)\\n`).exec(plan.text)?.[1];
    expect(body(positive.renamed)).toBe("5");
    expect(body(positive.copy)).not.toBe("5");
    expect(plan.text).toContain('"""Negative numbers."""');
    expect(plan.text.match(/, "sum of negatives"/g)).toHaveLength(2);
  });

  it("leaves out tests with a fixture, a decorator, a side effect, a name used elsewhere, a loose comparison or no literal to change", () => {
    const text = `import pytest
from calc import core


def test_fixture(tmp_path):
    assert core.add(1, 1) == 2


@pytest.mark.slow
def test_decorated():
    assert core.add(1, 2) == 3


def test_side_effect():
    core.register("x")
    assert core.add(1, 3) == 4


def test_referenced():
    assert core.add(1, 4) == 5


ALIAS = test_referenced


def test_loose():
    assert core.ratio(1, 3) == pytest.approx(0.333)
    assert core.mock_value() == 1


def test_identity():
    assert core.positive(1) is True
`;
    expect(pythonTwins(text, { base: "" })).toBeNull();
  });

  it("twins methods of a pytest class and of a unittest class (self.assertEqual) inside their class", () => {
    const text = `import unittest

from calc.core import add


class TestAdd:
    """Grouped."""

    def test_negative(self):
        assert add(-2, -3) == -5

    @staticmethod
    def helper():
        return 1


class AddCase(unittest.TestCase):
    def test_small(self):
        self.assertEqual(add(2, 3), 5)

    def test_message(self):
        self.assertEqual(add(2, 3), 5, "no")

    def test_or(self):
        assert add(2, 3) or x == 5

    def test_comma(self):
        assert add(2, 3), x == 5
`;
    const plan = pythonTwins(text, { base: "" })!;
    expect(plan.twins.map((t) => t.original).sort()).toEqual(["test_negative", "test_small"]);
    expect(compiles(plan.text)).toBe(true);
    const small = plan.twins.find((t) => t.original === "test_small")!;
    const inClass = (name: string) =>
      new RegExp(
        `\\n {4}def ${name}\\(self\\):\\n {8}self\\.assertEqual\\(add\\(2, 3\\), (-?\\d+)\\)\\n`,
      ).exec(plan.text)?.[1];
    expect(inClass(small.renamed)).toBe("5");
    expect(inClass(small.copy)).not.toBe("5");
    // Both stay methods of AddCase: nothing between the class line and them starts at column 0.
    const at = plan.text.indexOf("class AddCase");
    expect(
      plan.text
        .slice(at)
        .split("\n")
        .slice(1)
        .filter((l) => /^\S/.test(l)),
    ).toEqual([]);
  });

  it("changes no line the base commit's version holds (it would tell the original from its copy)", () => {
    const base = "from calc.core import add\n\n\ndef test_add_positive():\n    assert add(2, 3) == 5\n";
    const plan = pythonTwins(MODULE, { base })!;
    expect(plan.twins.map((t) => t.original)).not.toContain("test_add_positive");
    expect(plan.twins).toHaveLength(2);
  });

  it("twins the same tests in every run of the same file (at most MAX_TWINS), with new names and values each time", () => {
    const tests = Array.from({ length: 12 }, (_, i) => `def test_${i}():\n    assert f(${i}) == ${i * 2}\n`);
    const text = `from m import f\n\n\n${tests.join("\n\n")}`;
    const runs = Array.from({ length: 6 }, () => pythonTwins(text, { base: "" })!);
    const chosen = runs.map((r) =>
      r.twins
        .map((t) => t.original)
        .sort()
        .join(),
    );
    expect(new Set(chosen).size).toBe(1);
    expect(runs[0]!.twins).toHaveLength(MAX_TWINS);
    expect(new Set(runs.map((r) => r.text)).size).toBeGreaterThan(1);
    expect(compiles(...runs.map((r) => r.text))).toBe(true);
  });
});

const runner = (command: string) => sentinelRunner({ suites: { hidden: { command } } });
const plan = (command: string, base: ReadonlyMap<string, string | null> | null = new Map()) =>
  planSentinels(runner(command), [{ path: "tests/test_x.py", text: MODULE }], [], base);

describe("planSentinels: twins", () => {
  it("only where renaming selects the same tests: a whole file, -k that keeps every name, a known base", () => {
    const twinned = (s: Sentinel | null) => s?.appends[0]?.twins?.length ?? 0;
    expect(twinned(plan("python3 -m pytest tests/test_x.py"))).toBe(3);
    expect(twinned(plan("pytest tests"))).toBe(3);
    expect(twinned(plan("pytest tests/test_x.py -k add"))).toBe(3);
    // -k naming one test: renaming it would deselect it, so it is not twinned.
    const k = plan("pytest tests/test_x.py -k test_add_positive");
    expect(k?.appends[0]?.twins?.map((t) => t.original) ?? []).not.toContain("test_add_strings");
    expect(twinned(plan("pytest tests/test_x.py::test_add_positive tests/test_x.py"))).toBe(0);
    // --deselect: the tests it names are not twinned (renamed, they would run), the others are.
    expect(twinned(plan("pytest tests/test_x.py --deselect tests/test_x.py::test_add_strings"))).toBe(2);
    expect(twinned(plan("pytest tests/test_x.py --ff -p no:cacheprovider"))).toBe(3);
    expect(twinned(plan("pytest tests/test_x.py -m 'not slow'"))).toBe(0);
    expect(twinned(plan("pytest tests/test_x.py", null))).toBe(0);
    // file::Class: only that class's methods.
    const cls = planSentinels(
      runner("pytest tests/test_c.py::TestAdd"),
      [
        {
          path: "tests/test_c.py",
          text: `def test_top():\n    assert f(1) == 2\n\n\nclass TestAdd:\n    def test_in(self):\n        assert f(2) == 4\n`,
        },
      ],
      [],
      new Map(),
    );
    expect(cls?.appends[0]?.twins?.map((t) => t.original)).toEqual(["test_in"]);
    expect(twinned(plan("pytest tests/test_x.py", new Map([["tests/test_x.py", null]])))).toBe(0);
    // The pair's names do not reuse the twins'.
    const s = plan("pytest tests/test_x.py")!;
    const append = s.appends[0]!;
    const twinNames = append.twins!.flatMap((t) => [t.renamed, t.copy]);
    for (const t of append.tests) expect(twinNames).not.toContain(t.names[0]);
    expect(compiles(`${append.rewrite}${append.text}`)).toBe(true);
  });
});

describe("checkSentinel: twins", () => {
  const s = plan("pytest tests/test_x.py")!;
  const append = s.appends[0]!;
  const id = (name: string) => `hidden:tests.test_x::${name}`;
  const pair = append.tests.map(
    (t): TestCase => ({ id: id(t.names[0]!), outcome: t.role === "fail" ? "failed" : "passed" }),
  );
  const report = (outcome: (twin: { original: string }) => [TestCase["outcome"], TestCase["outcome"]]) =>
    append.twins!.flatMap((w): TestCase[] => {
      const [original, copy] = outcome(w);
      return [
        { id: id(w.renamed), outcome: original },
        { id: id(w.copy), outcome: copy },
      ];
    });

  it("a correct run: originals passed, copies failed; the copies leave the report, the originals get their names back", () => {
    const checked = checkSentinel(s, [...pair, ...report(() => ["passed", "failed"])], 1);
    expect(checked.problem).toBeNull();
    expect(checked.exitCode).toBe(0);
    expect(checked.tests.map((t) => t.id).sort()).toEqual(
      ["test_add_negative", "test_add_positive", "test_add_strings"].map(id),
    );
    expect(checked.state).toBe("collected");
  });

  it("unfixed code: an original failed and its copy passed or failed is honest; the failure stays", () => {
    const checked = checkSentinel(
      s,
      [
        ...pair,
        ...report((w) => (w.original === "test_add_positive" ? ["failed", "passed"] : ["passed", "failed"])),
      ],
      1,
    );
    expect(checked.problem).toBeNull();
    expect(checked.exitCode).toBe(1);
    expect(checked.tests.find((t) => t.id === id("test_add_positive"))?.outcome).toBe("failed");
  });

  it("an original and its copy both passed, or one of them missing: the report cannot be trusted", () => {
    const both = checkSentinel(s, [...pair, ...report(() => ["passed", "passed"])], 0);
    expect(both.problem).toMatch(
      /passed, and so did the copy the oracle made of it with another expected value/,
    );
    const tests = [...pair, ...report(() => ["passed", "failed"])];
    const copyOfFirst = append.twins![0]!.copy;
    const one = checkSentinel(
      s,
      tests.filter((t) => !t.id.endsWith(`::${copyOfFirst}`)),
      1,
    );
    expect(one.problem).toMatch(/only one of test_add_\w+ in tests\/test_x\.py and the copy/);
  });
});

const MOCHA_FILE = `import assert from "node:assert/strict";
import { calculate, parse } from "../../src/index.js";

describe("operators of equal precedence associate to the left", () => {
  it("subtracts left to right", () => {
    assert.equal(calculate("20 - 6 - 4"), 10);
    assert.equal(calculate("1 - 2 - 3 - 4"), -8);
  });

  it("builds a left-leaning tree", () => {
    assert.deepEqual(parse("1 - 2 - 3"), {
      type: "binary",
    });
  });

  it("registers", () => {
    registry.add("x");
    assert.equal(calculate("1"), 1);
  });
});
`;

/** Whether node parses the text as an ES module. */
const nodeParses = (text: string) => {
  execFileSync(process.execPath, ["--input-type=module", "--check"], { input: text });
  return true;
};

describe("jsTwins", () => {
  it("renames a test with a changeable one-line assertion, copies it beside with one value changed; the file still parses", () => {
    const plan = jsTwins(MOCHA_FILE, { base: "" })!;
    expect(plan.twins.map((t) => t.original)).toEqual(["subtracts left to right"]);
    const [twin] = plan.twins;
    expect(twin!.renamed).toMatch(/^subtracts left to right \d+$/);
    expect(twin!.copy).toMatch(/^subtracts left to right \d+$/);
    expect(plan.text).not.toContain('it("subtracts left to right",');
    expect(nodeParses(plan.text)).toBe(true);
    const block = (title: string) => plan.text.split(`it("${title}", () => {\n`)[1]!.split("  });")[0]!;
    expect(block(twin!.renamed)).toBe(
      '    assert.equal(calculate("20 - 6 - 4"), 10);\n    assert.equal(calculate("1 - 2 - 3 - 4"), -8);\n',
    );
    expect(block(twin!.copy)).not.toBe(block(twin!.renamed));
    expect(
      block(twin!.copy)
        .split("\n")
        .filter((l, i) => l !== block(twin!.renamed).split("\n")[i]),
    ).toHaveLength(1);
    // A body with a bare call (a side effect) is not twinned; nor a line the base holds.
    expect(plan.text).toContain('it("registers", () => {');
    const base =
      '    assert.equal(calculate("20 - 6 - 4"), 10);\n    assert.equal(calculate("1 - 2 - 3 - 4"), -8);\n';
    expect(jsTwins(MOCHA_FILE, { base })).toBeNull();
  });

  it("lists of numbers and booleans are expected values too (toEqual([[1, 5]]), toBe(true))", () => {
    const text = `describe("ranges that touch", () => {
  it("are joined", () => {
    expect(merge([[1, 3], [3, 5]])).toEqual([[1, 5]]);
  });

  it("cover a span", () => {
    expect(covers([[1, 3], [3, 5]], [2, 4])).toBe(true);
  });
});
`;
    const plan = jsTwins(text)!;
    expect(plan.twins.map((t) => t.original).sort()).toEqual(["are joined", "cover a span"]);
    expect(nodeParses(plan.text)).toBe(true);
    const span = plan.twins.find((t) => t.original === "cover a span")!;
    expect(plan.text).toContain(
      `it("${span.copy}", () => {\n    expect(covers([[1, 3], [3, 5]], [2, 4])).toBe(false);`,
    );
  });

  it("expect(...).toBe / toEqual; a title filter must keep the original and both new titles", () => {
    const text = `describe("separators", () => {
  test("collapses runs of spaces", () => {
    expect(count("hello   world")).toBe(11);
  });

  test("trims dashes", () => {
    expect(count(" -a- ")).toEqual(24);
  });
});
`;
    expect(jsTwins(text)!.twins).toHaveLength(2);
    const only = jsTwins(text, { accepts: (t) => t.includes("collapses") })!;
    expect(only.twins.map((t) => t.original)).toEqual(["collapses runs of spaces"]);
    expect(jsTwins(text, { accepts: (t) => t === "separators collapses runs of spaces" })).toBeNull();
  });

  it("plainJsOperand: no top-level comma, ternary, logical or comparison operator", () => {
    for (const ok of ['calculate("1, 2")', "a.b[0]", "f(x) + 1"]) expect(plainJsOperand(ok), ok).toBe(true);
    for (const bad of ["a || b", "a ? b : c", "a, b", "a > b", "`x`", "typeof x", "new X()"])
      expect(plainJsOperand(bad), bad).toBe(false);
  });
});

describe("checkSentinel: JS twins", () => {
  it("restores the original's full title in the report", () => {
    const s = planSentinels(
      runner("node_modules/.bin/mocha test/regression/a.test.js"),
      [{ path: "test/regression/a.test.js", text: MOCHA_FILE }],
      [],
      new Map(),
    )!;
    const append = s.appends[0]!;
    const [twin] = append.twins!;
    const id = (title: string) =>
      `hidden:operators of equal precedence associate to the left::operators of equal precedence associate to the left ${title}`;
    const pair = append.tests.map(
      (t): TestCase => ({
        id: id(t.names[1] ?? t.names[0]!),
        outcome: t.role === "fail" ? "failed" : "passed",
      }),
    );
    const checked = checkSentinel(
      s,
      [...pair, { id: id(twin!.renamed), outcome: "passed" }, { id: id(twin!.copy), outcome: "failed" }],
      2,
    );
    expect(checked.problem).toBeNull();
    expect(checked.tests.map((t) => t.id)).toEqual([id("subtracts left to right")]);
    expect(checked.exitCode).toBe(0);
    const forged = checkSentinel(
      s,
      [...pair, { id: id(twin!.renamed), outcome: "passed" }, { id: id(twin!.copy), outcome: "passed" }],
      0,
    );
    expect(forged.problem).toMatch(/and so did the copy/);
    // mocha-junit-reporter and jest-junit put the title in the classname too: it is restored there as well.
    const both = (title: string) =>
      `hidden:${title}::operators of equal precedence associate to the left ${title}`;
    const restored = checkSentinel(
      s,
      [...pair, { id: both(twin!.renamed), outcome: "passed" }, { id: both(twin!.copy), outcome: "failed" }],
      2,
    );
    expect(restored.tests.map((t) => t.id)).toEqual([both("subtracts left to right")]);
  });
});

describe("goTwins", () => {
  const GO = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("got %d", got)
	}
}

func TestName(t *testing.T) {
	if Name() != "calc2" {
		t.Fatal("bad name")
	}
}

func TestSub(t *testing.T) {
	t.Run("small", func(t *testing.T) {
		if Sub(2, 1) != 1 {
			t.Error("sub")
		}
	})
}

func TestGlobal(t *testing.T) {
	Strict = true
	if Add(1, 1) != 2 {
		t.Error("add")
	}
}
`;
  it("renames a Test func with an `if … != <literal>` that fails the test, copies it with the value changed; gofmt-able", () => {
    const plan = goTwins(GO, { base: "" })!;
    expect(plan.twins.map((t) => t.original).sort()).toEqual(["TestAdd", "TestName"]);
    const add = plan.twins.find((t) => t.original === "TestAdd")!;
    expect(add.renamed).toMatch(/^TestAdd\d+$/);
    const cond = (name: string) =>
      new RegExp(
        `func ${name}\\(t \\*testing\\.T\\) \\{\\n\\tif got := Add\\(2, 3\\); got != (-?\\d+) \\{`,
      ).exec(plan.text)?.[1];
    expect(cond(add.renamed)).toBe("5");
    expect(cond(add.copy)).not.toBe("5");
    expect(plan.text).not.toMatch(/^func TestAdd\(/m);
    expect(plan.text).toMatch(/^func TestSub\(/m);
    // -run must select the original and both new names.
    expect(goTwins(GO, { base: "", run: /^TestAdd$/ })).toBeNull();
    expect(goTwins(GO, { base: "", run: /TestAdd/ })!.twins.map((t) => t.original)).toEqual(["TestAdd"]);
  });

  it("a boolean condition: the original runs as `== false` (for `!x`) or `== true`, its copy as the other", () => {
    const text = `package semver_test

import "testing"

func TestLess(t *testing.T) {
	p := pairs[0]
	if !semver.Less(p[0], p[1]) {
		t.Errorf("want %s < %s", p[0], p[1])
	}
}
`;
    const plan = goTwins(text, { base: "" })!;
    const [twin] = plan.twins;
    const cond = (name: string) =>
      new RegExp(
        `func ${name}\\(t \\*testing\\.T\\) \\{\\n.*\\n\\tif semver\\.Less\\(p\\[0\\], p\\[1\\]\\) == (true|false) \\{`,
      ).exec(plan.text)?.[1];
    expect(cond(twin!.renamed)).toBe("false");
    expect(cond(twin!.copy)).toBe("true");
    expect(plan.text).not.toContain("if !semver.Less");
  });
});
