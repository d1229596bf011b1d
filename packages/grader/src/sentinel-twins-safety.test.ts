import { execFileSync } from "node:child_process";
import type { TestCase } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { openLines } from "./sentinel-lex.js";
import { changedLiteral, goTwins, jsTwins, keyedDraw, pythonTwins } from "./sentinel-twins.js";
import { checkSentinel, planSentinels, sentinelRunner } from "./sentinels.js";

// What a twin must never do to a correct fix: break the file, run a check whose failure cannot
// show, run a body whose second run changes the result, rename what the test reads its name from,
// or take another file's test for its copy. Each case was a correct fix FAILed (a red team's review).

/** Whether Python parses every one of `texts` (one interpreter for all: a start costs 50-300 ms). */
const compiles = (...texts: string[]) => {
  const parse = "import ast, json, sys\nfor t in json.load(sys.stdin): ast.parse(t)";
  execFileSync("python3", ["-c", parse], { input: JSON.stringify(texts) });
  return true;
};
const nodeParses = (text: string) => {
  execFileSync(process.execPath, ["--input-type=module", "--check"], { input: text });
  return true;
};
const originals = (plan: { twins: Array<{ original: string }> } | null) =>
  plan?.twins.map((t) => t.original).sort() ?? [];

describe("openLines", () => {
  it("marks the lines that begin inside a literal spanning lines, per language", () => {
    const py = 'x = """\ndef test_a():\n"""\ny = "a\\\nb"\n# """\nz = 1\n';
    expect([...openLines(py, "python")]).toEqual([1, 2, 4]);
    const js = "const a = `\n});\n`;\n/* x\n*/\n// `\nconst b = '`';\n";
    expect([...openLines(js, "js")]).toEqual([1, 2, 4]);
    const go = "var s = `\n}\n`\n/*\n}\n*/\nvar r = '`'\n";
    expect([...openLines(go, "go")]).toEqual([1, 2, 4, 5]);
  });
});

describe("twins and strings that span lines (the rewritten file must still compile)", () => {
  it("python: a triple-quoted string with column-0 text, or a test inside a string, is not twinned", () => {
    const text = `def test_doc():
    got = render()
    assert got == """a
b
"""


def test_plain():
    assert f(1) == 20


HELP = """
def test_fake():
    assert f(3) == 4
"""
`;
    const texts: string[] = [];
    for (let run = 0; run < 20; run++) {
      const plan = pythonTwins(text, { base: "" });
      expect(originals(plan)).toEqual(["test_plain"]);
      expect(plan!.text).toContain('HELP = """\ndef test_fake():\n    assert f(3) == 4\n"""');
      texts.push(plan!.text);
    }
    expect(compiles(...texts)).toBe(true);
  });

  it("go: a raw string holding a lone `}` line is not taken for the end of the test", () => {
    const text = `package x

import "testing"

func TestRaw(t *testing.T) {
	if Render() != 5 {
		t.Errorf("bad")
	}
	want := \`{
}
\`
	_ = want
}

func TestPlain(t *testing.T) {
	if Add(2, 3) != 5 {
		t.Errorf("bad")
	}
}
`;
    expect(originals(goTwins(text, { base: "" }))).toEqual(["TestPlain"]);
  });

  it("js: a template literal holding `});` is not taken for the end of the test", () => {
    const text = `import assert from "node:assert";
describe("render", () => {
  it("renders a block", () => {
    assert.equal(render(), 5);
    const want = \`x
  });
\`;
  });

  it("adds", () => {
    assert.equal(add(2, 3), 5);
  });
});
`;
    const plan = jsTwins(text, { base: "" });
    expect(originals(plan)).toEqual(["adds"]);
    expect(nodeParses(plan!.text)).toBe(true);
  });
});

describe("twins only of a check whose failure always shows", () => {
  const go = (body: string) => `package x

import "testing"

func TestOne(t *testing.T) {
${body}
}
`;
  it("go: the if's block only reports (t.Error…, t.Fatal…, return), has no else, and is a top-level statement", () => {
    expect(
      originals(goTwins(go('\tif Sum(1, 2) != 3 {\n\t\tt.Errorf("x")\n\t\treturn\n\t}'), { base: "" })),
    ).toEqual(["TestOne"]);
    // The failure reported only when another condition holds: both twins pass on correct code.
    const nested =
      '\tif Sum(1, 2) != 3 {\n\t\tif runtime.GOOS == "windows" {\n\t\t\tt.Errorf("x")\n\t\t}\n\t}';
    expect(goTwins(go(nested), { base: "" })).toBeNull();
    const otherwise = '\tif Sum(1, 2) != 3 {\n\t\tt.Log("x")\n\t} else {\n\t\tt.Errorf("y")\n\t}';
    expect(goTwins(go(otherwise), { base: "" })).toBeNull();
    const logs = '\tif Sum(1, 2) != 3 {\n\t\tt.Log("x")\n\t\tt.Errorf("y")\n\t}';
    expect(goTwins(go(logs), { base: "" })).toBeNull();
    // Inside a loop (an empty range runs neither) or under another if (false on this machine).
    const loop = '\tfor _, c := range cases {\n\t\tif Sum(c, 2) != 3 {\n\t\t\tt.Errorf("x")\n\t\t}\n\t}';
    expect(goTwins(go(loop), { base: "" })).toBeNull();
    const under =
      '\tif runtime.GOOS == "windows" {\n\t\tif Sum(1, 2) != 3 {\n\t\t\tt.Errorf("x")\n\t\t}\n\t}';
    expect(goTwins(go(under), { base: "" })).toBeNull();
  });

  it("js: an assertion inside a callback is not a spot (the callback may never run)", () => {
    const text = `describe("x", () => {
  it("calls back", () => {
    const cb = () => {
      assert.equal(add(2, 3), 5);
    };
  });
});
`;
    expect(jsTwins(text, { base: "" })).toBeNull();
  });
});

describe("twins only of bodies a second run and a new name cannot change", () => {
  it("go: no bare call, increment or assignment to a name the body did not declare; no t.Name()", () => {
    const go = (body: string) =>
      `package x\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n${body}\n\tif got != 10 {\n\t\tt.Errorf("x")\n\t}\n}\n`;
    expect(originals(goTwins(go("\tgot := Count()"), { base: "" }))).toEqual(["TestOne"]);
    expect(goTwins(go("\tRegister()\n\tgot := Count()"), { base: "" })).toBeNull();
    expect(goTwins(go("\tcounter++\n\tgot := counter"), { base: "" })).toBeNull();
    expect(goTwins(go("\ttotal = 1\n\tgot := total"), { base: "" })).toBeNull();
    expect(goTwins(go('\tgot := Golden(t.Name() + ".txt")'), { base: "" })).toBeNull();
    expect(goTwins(go("\tdefer Reset()\n\tgot := Count()"), { base: "" })).toBeNull();
  });

  it("js: no increment, no `this` (mocha's test title), no snapshot, no expect.getState()", () => {
    const js = (body: string) =>
      `describe("x", () => {\n  it("counts", function () {\n${body}\n    assert.equal(got, 10);\n  });\n});\n`;
    expect(originals(jsTwins(js("    const got = count();"), { base: "" }))).toEqual(["counts"]);
    expect(jsTwins(js("    const got = counter++;"), { base: "" })).toBeNull();
    expect(jsTwins(js("    const got = golden(this.test.title);"), { base: "" })).toBeNull();
    expect(
      jsTwins(js("    const got = 1;\n    expect(render()).toMatchSnapshot();"), { base: "" }),
    ).toBeNull();
    expect(jsTwins(js("    const got = named(expect.getState().currentTestName);"), { base: "" })).toBeNull();
  });

  it("python: no body that reads its own name (__name__, request, a snapshot, the frame)", () => {
    const py = (line: string) => `def test_named():\n    ${line}\n    assert got == 10\n`;
    expect(originals(pythonTwins(py("got = f()"), { base: "" }))).toEqual(["test_named"]);
    for (const line of [
      "got = golden(test_named.__name__)",
      "got = f(sys._getframe().f_code.co_name)",
      "got = f(inspect.stack())",
      'got = f(os.environ["PYTEST_CURRENT_TEST"])',
    ])
      expect(pythonTwins(py(line), { base: "" })).toBeNull();
  });

  it("a keyed draw plans the same twins every run (the sweep's gold runs meet the grades' files), another key others", () => {
    const text = [1, 2, 3, 4, 5, 6]
      .map((n) => `def test_f${n}():\n    assert f(${n}) == ${n * 7}\n`)
      .join("\n\n");
    const run = (key: string) => pythonTwins(text, { base: "", draw: keyedDraw(key) })!.text;
    expect(run("gold-a")).toBe(run("gold-a"));
    expect(new Set(["gold-b", "gold-c", "gold-d"].map(run)).has(run("gold-a"))).toBe(false);
    // Through planSentinels: the same key and path, the same rewrite.
    const runner = sentinelRunner({ suites: { hidden: { command: "pytest tests" } } });
    const plan = () =>
      planSentinels(runner, [{ path: "tests/test_f.py", text }], [], new Map(), "key")!.appends[0]!.rewrite;
    expect(plan()).toBe(plan());
  });
});

describe("the copy's value reads like the file's own", () => {
  it("a count stays non-negative; a string becomes another of the file's strings, free text is left alone", () => {
    for (let i = 0; i < 200; i++) {
      expect(Number(changedLiteral("1"))).toBeGreaterThanOrEqual(0);
      expect(Number(changedLiteral("0") ?? 1)).toBeGreaterThan(0);
    }
    // As often in the file as the original (which the pool holds too): a count tells nothing.
    expect(changedLiteral('"error"', undefined, ['"error"', '"error"', '"warn"', '"info"', '"info"'])).toBe(
      '"warn"',
    );
    expect(changedLiteral('"error"', undefined, ['"error"', '"warn"'])).toBeNull();
    expect(changedLiteral('"no such file"')).toBeNull();
    expect(
      changedLiteral('"no such file"', undefined, ['"no such file"', '"no such file"', '"not a dir"']),
    ).toBe('"not a dir"');
  });
});

describe("names the twins and pairs take are the run's alone", () => {
  const file = (n: number) => ({
    path: `tests/test_${n}.py`,
    text: "def test_add():\n    assert add(2, 3) == 5\n",
  });

  it("two hidden files with the same test name get different new names, and none another file holds", () => {
    const runner = sentinelRunner({ suites: { hidden: { command: "pytest tests" } } });
    // Another file holds test_add_2 … test_add_97: only 98 and 99 are left for the two files' twins.
    const crowded = {
      path: "tests/test_other.py",
      text: Array.from({ length: 96 }, (_, i) => `def test_add_${i + 2}():\n    pass\n`).join("\n"),
    };
    for (let run = 0; run < 10; run++) {
      const s = planSentinels(runner, [file(1), file(2), crowded], [], new Map())!;
      const names = s.appends.flatMap((a) => [
        ...(a.twins ?? []).flatMap((t) => [t.renamed, t.copy]),
        ...a.tests.flatMap((t) => t.names),
      ]);
      expect(new Set(names).size).toBe(names.length);
      for (const n of names)
        expect(n === "test_add" || !/^test_add_(?:[2-9]|[1-8]\d|9[0-7])$/.test(n)).toBe(true);
    }
  });

  it("another file's own test named like a copy is not taken for it (checkSentinel by the planned names)", () => {
    const runner = sentinelRunner({ suites: { hidden: { command: "pytest tests" } } });
    // test_b.py's own test_add_2 … test_add_93 pass: none may be taken for a copy (which must fail).
    const other = {
      path: "tests/test_b.py",
      text: Array.from({ length: 92 }, (_, i) => `def test_add_${i + 2}():\n    assert 1\n`).join("\n"),
    };
    const s = planSentinels(runner, [file(1), other], [], new Map())!;
    const a = s.appends.find((x) => x.path === "tests/test_1.py")!;
    const twin = a.twins![0]!;
    const id = (path: string, name: string) =>
      `hidden:${path.replace(/\//g, ".").replace(/\.py$/, "")}::${name}`;
    const report: TestCase[] = [
      { id: id(a.path, twin.renamed), outcome: "passed" },
      { id: id(a.path, twin.copy), outcome: "failed" },
      ...s.appends.flatMap((x) =>
        x.tests.map(
          (t) => ({ id: id(x.path, t.names[0]!), outcome: t.role === "fail" ? "failed" : "passed" }) as const,
        ),
      ),
      ...Array.from(
        { length: 92 },
        (_, i) => ({ id: id(other.path, `test_add_${i + 2}`), outcome: "passed" }) as const,
      ),
    ];
    const checked = checkSentinel(s, report, 1);
    expect(checked.problem).toBeNull();
    expect(checked.tests).toHaveLength(93);
    expect(checked.tests.map((t) => t.id)).toContain(id(a.path, "test_add"));
  });
});

describe("lines the base commit holds anywhere stay as written", () => {
  it("a comparison another base file holds is not changed (the checkout's history would show which twin matches)", () => {
    const runner = sentinelRunner({ suites: { hidden: { command: "pytest tests/test_x.py" } } });
    const text = "def test_add():\n    assert add(2, 3) == 5\n";
    const twins = (base: Map<string, string | null>, others: string[] = []) =>
      planSentinels(
        runner,
        [{ path: "tests/test_x.py", text }],
        others.map((t, i) => ({ path: `tests/test_old${i}.py`, text: t })),
        base,
      )?.appends[0]?.twins?.length ?? 0;
    expect(twins(new Map())).toBe(1);
    expect(twins(new Map([["tests/test_y.py", "def test_y():\n    assert add(2, 3) == 5\n"]]))).toBe(0);
    expect(twins(new Map(), ["def test_z():\n    assert add(2, 3) == 5\n"])).toBe(0);
  });
});

describe("jsTwins and a name filter", () => {
  it("bails out when the file has suite calls it cannot read (describe.each, describe.skip, xdescribe, context, suite)", () => {
    const body = `  it("adds", () => {\n    assert.equal(add(2, 3), 5);\n  });\n`;
    // Their titles are unknown under a name filter, and a skipped suite skips both twins (read as forged).
    for (const head of [
      'describe.each([1])("n %i", () => {',
      'describe.skip("later", () => {',
      'xdescribe("later", () => {',
      'context("when", () => {',
      'suite("s", () => {',
    ]) {
      const text = `${head}\n${body}});\n`;
      expect(jsTwins(text, { base: "", accepts: (t) => t.includes("adds") })).toBeNull();
      expect(jsTwins(text, { base: "" })).toBeNull();
    }
    expect(originals(jsTwins(`describe("d", () => {\n${body}});\n`, { base: "" }))).toEqual(["adds"]);
  });

  it("no twin where something besides the test's body can skip it (round 5): a decorated class, pytestmark, importorskip, Go t.Skip", () => {
    const method = "class TestAdd:\n    def test_small(self):\n        assert add(2, 3) == 5\n";
    expect(originals(pythonTwins(method, { base: "" }))).toEqual(["test_small"]);
    for (const text of [
      `import sys\n\n\n@pytest.mark.skipif(sys.platform == "linux", reason="x")\n${method}`,
      `@unittest.skip("later")\n${method}`,
      `class TestAdd:\n    pytestmark = pytest.mark.skip\n\n    def test_small(self):\n        assert add(2, 3) == 5\n`,
      `pytestmark = pytest.mark.skipif(True, reason="x")\n\n\ndef test_a():\n    assert add(2, 3) == 5\n`,
      `np = pytest.importorskip("numpy")\n\n\ndef test_a():\n    assert add(2, 3) == 5\n`,
    ])
      expect(pythonTwins(text, { base: "" }), text).toBeNull();
    const go = `package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip("short")\n\t}\n\tif Add(2, 3) != 5 {\n\t\tt.Errorf("x")\n\t}\n}\n`;
    expect(goTwins(go, { base: "" })).toBeNull();
  });

  it("a parametrised copy never takes a string with a bracket (it would stand in the row's report id)", () => {
    const text = `import pytest\n\nX = "[A]"\nY = "A"\n\n\n@pytest.mark.parametrize("word, want", [\n    ("a", "A"),\n    ("b", "B"),\n])\ndef test_upper(word, want):\n    assert word.upper() == want\n`;
    for (let k = 0; k < 60; k++) {
      const plan = pythonTwins(text, { base: "", draw: keyedDraw(`k${k}`) });
      if (plan) expect(plan.text.split("def ")[1]!).not.toContain("[A]");
    }
  });
});

describe("a task author's way out", () => {
  it("a comment on the comparison's line keeps a test from being twinned (the GOLD_FAILS hint)", () => {
    expect(pythonTwins("def test_a():\n    assert f(1) == 2  # oracle: no twin\n", { base: "" })).toBeNull();
    const js =
      'describe("x", () => {\n  it("a", () => {\n    assert.equal(f(1), 2); // oracle: no twin\n  });\n});\n';
    expect(jsTwins(js, { base: "" })).toBeNull();
    const go =
      'package x\n\nimport "testing"\n\nfunc TestA(t *testing.T) {\n\tif F(1) != 20 { // oracle: no twin\n\t\tt.Errorf("x")\n\t}\n}\n';
    expect(goTwins(go, { base: "" })).toBeNull();
    expect(goTwins(go.replace(" // oracle: no twin", ""), { base: "" })).not.toBeNull();
  });
});

describe("a test another file names", () => {
  it("is not renamed: a conftest that marks it by name, a Go table that calls it (another file's test of that name is fine)", () => {
    const py = "def test_a():\n    assert f(1) == 20\n";
    expect(pythonTwins(py, { base: "", elsewhere: 'XFAIL = ["test_a"]\n' })).toBeNull();
    expect(pythonTwins(py, { base: "", elsewhere: "def test_a():\n    pass\n" })).not.toBeNull();
    const go =
      'package x\n\nimport "testing"\n\nfunc TestA(t *testing.T) {\n\tif F(1) != 20 {\n\t\tt.Errorf("x")\n\t}\n}\n';
    expect(goTwins(go, { base: "", elsewhere: "var all = []func(*testing.T){TestA}\n" })).toBeNull();
    expect(goTwins(go, { base: "", elsewhere: "func TestA(t *testing.T) {}\n" })).not.toBeNull();
  });
});

const PARAMS = `import pytest

from calc.core import add


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (1, 2, 3),
        (2, 3, 5),
        (-1, 1, 0),
    ],
)
def test_add(a, b, expected):
    assert add(a, b) == expected


class TestMore:
    @pytest.mark.parametrize("word, want", [
        ("ab", "AB"),
        ("c", "C"),
    ])
    def test_upper(self, word, want):
        got = word.upper()
        assert got == want
`;

describe("twins of parametrised pytest tests", () => {
  it("copies the test with its decorator, one row's expected value changed; the module still compiles", () => {
    const plan = pythonTwins(PARAMS, { base: "" })!;
    expect(originals(plan)).toEqual(["test_add", "test_upper"]);
    expect(compiles(plan.text)).toBe(true);
    for (const twin of plan.twins) {
      const decorated = (name: string) => {
        const at = plan.text.indexOf(`def ${name}(`);
        return plan.text.slice(plan.text.lastIndexOf("@pytest.mark.parametrize(", at), at);
      };
      const [a, b] = [decorated(twin.renamed), decorated(twin.copy)];
      const diff = a.split("\n").filter((l, i) => l !== b.split("\n")[i]);
      expect(diff).toHaveLength(1);
      // Only the compared parameter's value (the last of the row) changed: the inputs before it are the same.
      const counterpart = b.split("\n")[a.split("\n").indexOf(diff[0]!)]!;
      const inputs = diff[0]!.slice(0, diff[0]!.indexOf(", ") + 2);
      expect(inputs).toMatch(/^ +\(.+, $/);
      expect(counterpart.startsWith(inputs)).toBe(true);
    }
  });

  it("leaves out a fixture parameter, a second decorator, a compared value that is no literal, and any -k run", () => {
    const one = (head: string, def: string, row = "(1, 2, 3),") =>
      `${head}\n@pytest.mark.parametrize("a, b, expected", [\n    ${row}\n])\n${def}\n    assert add(a, b) == expected\n`;
    expect(pythonTwins(one("", "def test_a(a, b, expected):"), { base: "" })).not.toBeNull();
    expect(pythonTwins(one("", "def test_a(a, b, expected, tmp_path):"), { base: "" })).toBeNull();
    expect(pythonTwins(one("@pytest.mark.slow", "def test_a(a, b, expected):"), { base: "" })).toBeNull();
    expect(pythonTwins(one("", "def test_a(a, b, expected):", "(1, 2, THREE),"), { base: "" })).toBeNull();
    expect(pythonTwins(one("", "def test_a(a, b, expected):"), { base: "", accepts: () => true })).toBeNull();
  });

  it("checkSentinel: every row of both passed is forged; the copy's changed row failing is honest; ids restored", () => {
    const runner = sentinelRunner({ suites: { hidden: { command: "pytest tests/test_p.py" } } });
    const s = planSentinels(runner, [{ path: "tests/test_p.py", text: PARAMS }], [], new Map())!;
    const twin = s.appends[0]!.twins!.find((t) => t.original === "test_add")!;
    const others = s.appends[0]!.twins!.filter((t) => t !== twin);
    const rows = ["1-2-3", "2-3-5", "-1-1-0"];
    const id = (name: string, row: string) => `hidden:tests.test_p::${name}[${row}]`;
    const pair = s.appends[0]!.tests.map(
      (t) =>
        ({
          id: `hidden:tests.test_p::${t.names[0]}`,
          outcome: t.role === "fail" ? "failed" : "passed",
        }) as const,
    );
    const rest = others.flatMap((w) => [
      { id: `hidden:tests.test_p.TestMore::${w.renamed}[ab-AB]`, outcome: "passed" as const },
      { id: `hidden:tests.test_p.TestMore::${w.copy}[ab-AB]`, outcome: "failed" as const },
    ]);
    const report = (copyFails: boolean): TestCase[] => [
      ...rows.map((r) => ({ id: id(twin.renamed, r), outcome: "passed" as const })),
      ...rows.map(
        (r, i) => ({ id: id(twin.copy, r), outcome: copyFails && i === 1 ? "failed" : "passed" }) as const,
      ),
      ...pair,
      ...rest,
    ];
    const honest = checkSentinel(s, report(true), 1);
    expect(honest.problem).toBeNull();
    expect(honest.tests.map((t) => t.id).filter((t) => t.includes("test_add"))).toEqual(
      rows.map((r) => id("test_add", r)),
    );
    expect(checkSentinel(s, report(false), 1).problem).toMatch(/and so did the copy/);
  });
});

// A second review of the twins (each case a reproduction of what it found).
describe("twins: a second review", () => {
  it("a decorator spread over lines, or one above a comment, stays with its test (never moves to the copy)", () => {
    const spread = `@mock.patch(\n    "calc.rates.current", new=lambda: 2\n)\ndef test_price():\n    assert price(10) == 20\n`;
    const commented = `@pytest.mark.skip(reason="x")\n# see issue 12\ndef test_price():\n    assert price(10) == 20\n`;
    for (const text of [spread, commented]) expect(pythonTwins(text, { base: "" })).toBeNull();
    const param = `@pytest.mark.skip(\n    reason="x",\n)\n@pytest.mark.parametrize("a, want", [\n    (1, 10),\n])\ndef test_p(a, want):\n    assert f(a) == want\n`;
    expect(pythonTwins(param, { base: "" })).toBeNull();
  });

  it("js: no planned title ends another (`adds 99`, `sum adds 99`): an honest run keeps both files' tests", () => {
    const runner = sentinelRunner({ suites: { hidden: { command: "npx jest test" } } });
    const mk = (title: string, a: number) =>
      `const { add } = require("../src/add");\n\ntest("${title}", () => {\n  expect(add(${a}, 3)).toBe(${a + 3});\n});\n`;
    const files = [
      { path: "test/a.test.js", text: mk("adds", 2) },
      { path: "test/b.test.js", text: mk("sum adds", 4) },
    ];
    for (let k = 0; k < 300; k++) {
      const s = planSentinels(runner, files, [], new Map(), `key${k}`)!;
      const names = s.appends.flatMap((a) => [
        ...(a.twins ?? []).flatMap((t) => [t.renamed, t.copy]),
        ...a.tests.flatMap((t) => t.names),
      ]);
      for (const n of names)
        expect(names.filter((m) => m !== n && (m.endsWith(` ${n}`) || n.endsWith(` ${m}`)))).toEqual([]);
    }
  });

  it("go: two packages' twins never share a name", () => {
    const runner = sentinelRunner({ suites: { hidden: { command: "go test ./..." } } });
    const mk = (pkg: string) =>
      `package ${pkg}\n\nimport "testing"\n\nfunc TestParse(t *testing.T) {\n\tif got := Parse(10); got != 10 {\n\t\tt.Errorf("got %d", got)\n\t}\n}\n`;
    const files = [
      { path: "a/a_test.go", text: mk("a") },
      { path: "b/b_test.go", text: mk("b") },
    ];
    for (let k = 0; k < 300; k++) {
      const s = planSentinels(runner, files, [], new Map(), `key${k}`)!;
      const names = s.appends.flatMap((a) => (a.twins ?? []).flatMap((t) => [t.renamed, t.copy]));
      expect(names).toHaveLength(4);
      expect(new Set(names).size).toBe(4);
    }
  });

  it("one key, one plan: the pairs' fresh names never move the twins (pytest files sharing a test name, Go)", () => {
    const py = sentinelRunner({ suites: { hidden: { command: "pytest tests" } } });
    const mk = (m: string) =>
      `from calc import ${m}\n\n\ndef test_basic():\n    assert ${m}(2, 3) == 5\n\n\ndef test_more():\n    assert ${m}(4, 3) == 7\n`;
    const files = [
      { path: "tests/test_a.py", text: mk("add") },
      { path: "tests/test_b.py", text: mk("plus") },
    ];
    const rewrites = new Set<string>();
    for (let i = 0; i < 300; i++)
      rewrites.add(
        planSentinels(py, files, [], new Map(), "fixed")!
          .appends.map((a) => a.rewrite)
          .join("\n"),
      );
    expect(rewrites.size).toBe(1);
    const go = sentinelRunner({ suites: { hidden: { command: "go test ./..." } } });
    const text = `package a\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 10 {\n\t\tt.Errorf("x")\n\t}\n}\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 20 {\n\t\tt.Errorf("x")\n\t}\n}\n`;
    const goRewrites = new Set<string>();
    for (let i = 0; i < 300; i++)
      goRewrites.add(
        planSentinels(go, [{ path: "a/a_test.go", text }], [], new Map(), "fixed")!.appends[0]!.rewrite!,
      );
    expect(goRewrites.size).toBe(1);
  });

  it("the must-fail never repeats a twinned test's body (it would show the original's value)", () => {
    const runner = sentinelRunner({ suites: { hidden: { command: "pytest tests/test_calc.py" } } });
    const text = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n";
    for (let k = 0; k < 50; k++) {
      const a = planSentinels(runner, [{ path: "tests/test_calc.py", text }], [], new Map(), `key${k}`)!
        .appends[0]!;
      expect(a.twins).toHaveLength(1);
      expect(a.text).not.toContain("add(2, 3)");
    }
  });

  it("a spot whose value, or the copy's, the test tells elsewhere (a message, a comment, a title, a name) is passed over; the copy changes nothing but its spot", () => {
    // Go `want 5`, a comment, a multi-line message: the test tells its value, so no spot of it is changed.
    const go = (body: string) =>
      `package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n${body}\n}\n`;
    const told = [
      '\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf("Add(2, 3) = %d, want 5", got)\n\t}',
      '\t// Add(2, 3) is 5\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf("x")\n\t}',
      '\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf(\n\t\t\t"want 5, got %d",\n\t\t\tgot,\n\t\t)\n\t}',
    ];
    for (const body of told)
      for (let k = 0; k < 30; k++)
        expect(goTwins(go(body), { base: "", draw: keyedDraw(`k${k}`) })).toBeNull();
    const py = [
      'def test_a():\n    assert add(15, 0) == 15, "want 15"\n',
      "def test_add_15():\n    assert add(15, 0) == 15\n",
    ];
    for (const text of py)
      for (let k = 0; k < 30; k++)
        expect(pythonTwins(text, { base: "", draw: keyedDraw(`k${k}`) })).toBeNull();
    const js = 'it("add(2, 3) returns 5", () => {\n  assert.equal(add(2, 3), 5);\n});\n';
    for (let k = 0; k < 30; k++) expect(jsTwins(js, { base: "", draw: keyedDraw(`k${k}`) })).toBeNull();
    // Symmetric: a test that tells a value the copy could take (`x3`) is passed over when that value is drawn, never otherwise.
    const values = new Set<string>();
    for (let k = 0; k < 200; k++) {
      const plan = goTwins(go('\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf("got %d, not 3", got)\n\t}'), {
        base: "",
        draw: keyedDraw(`k${k}`),
      });
      if (plan) values.add(/got != (\d+)/.exec(plan.text.split(`func ${plan.twins[0]!.copy}(`)[1]!)![1]!);
    }
    expect([...values].sort()).toEqual(["2", "4", "6", "7", "8"]);
  });

  it("the copy repeats every other line as written: a string argument on its own line, black's parametrize head", () => {
    // The input "42" tells the value 42: the test is passed over, or its input kept (never changed with the value).
    const multi = 'def test_parse():\n    got = parse(\n        "42"\n    )\n    assert got == 42\n';
    for (let k = 0; k < 30; k++) {
      const plan = pythonTwins(multi, { base: "", draw: keyedDraw(`k${k}`) });
      if (plan !== null) expect(plan.text.match(/^ {8}"42"$/gm)).toHaveLength(2);
    }
    const black =
      'import pytest\n\n\n@pytest.mark.parametrize(\n    "value, expected",\n    [\n        (1, "e"),\n        (2, "x"),\n    ],\n)\ndef test_spell(value, expected):\n    assert spell(value) == expected\n';
    const texts: string[] = [];
    for (let k = 0; k < 30; k++) {
      const plan = pythonTwins(black, { base: "", draw: keyedDraw(`k${k}`) });
      if (plan === null) continue;
      expect(plan.text.match(/^ {4}"value, expected",$/gm)).toHaveLength(2);
      texts.push(plan.text);
    }
    expect(texts.length).toBeGreaterThan(20);
    expect(compiles(...texts)).toBe(true);
  });
});
