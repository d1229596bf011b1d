import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestCase } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { judgeSuite } from "../judges/judge-report.js";
import { findRunner } from "./runner-command.js";
import { jsAssertStyle, looksPure, pythonPlainBodies } from "./sentinel-text.js";
import { checkSentinel, planSentinels, type Sentinel, sentinelRunner } from "./sentinels.js";

const PY = "from calc.core import add\n\n\ndef test_add_positive():\n    assert add(2, 3) == 5\n";
const PY_CLASS =
  "import unittest\n\n\nclass TestAdd(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(1, 1)\n";
const JS =
  'const assert = require("node:assert");\n\nit("adds two positive numbers", () => assert.strictEqual(1, 1));\n';
const JS_DESCRIBE =
  'import assert from "node:assert/strict";\n\ndescribe("operators", () => {\n  it("subtracts", () => {});\n});\n';

const plan = (command: string, files: Record<string, string>, framework?: "pytest" | "mocha" | "other") =>
  planSentinels(
    sentinelRunner({ framework, suites: { hidden: { command } } }),
    Object.entries(files).map(([path, text]) => ({ path, text })),
  );

describe("sentinelRunner", () => {
  it("detects the runner from the command when task.json names none; other turns them off", () => {
    const task = (command: string, framework?: "pytest" | "mocha" | "other") => ({
      framework,
      suites: { hidden: { command } },
    });
    expect(sentinelRunner(task("python3 -m pytest tests/test_x.py"))?.framework).toBe("pytest");
    expect(sentinelRunner(task("python3 -m xmlrunner tests.test_x"))).toBeNull();
    expect(sentinelRunner(task("pytest", "other"))).toBeNull();
    expect(sentinelRunner(task("./run-tests.sh", "mocha"))).toEqual({ framework: "mocha", args: null });
  });
});

describe("checkSentinel: one report entry per planted test (red team round 3)", () => {
  const s = plan("pytest tests/test_x.py", { "tests/test_x.py": PY })!;
  const append = s.appends[0]!;
  const id = (n: string) => `hidden:tests.test_x::${n}`;
  const pair = append.tests.map(
    (t): TestCase => ({ id: id(t.names[0]!), outcome: t.role === "fail" ? "failed" : "passed" }),
  );
  const [first, second] = append.tests.map((t) => t.names[0]!);

  it("an honest report: no problem", () => {
    expect(checkSentinel(s, [...pair, { id: id("test_add_positive"), outcome: "passed" }], 1)).toMatchObject({
      problem: null,
      exitCode: 0,
      state: "collected",
    });
  });

  it("one forged entry that names both planted tests answers for neither: both are missing from a passing report", () => {
    const forged: TestCase[] = [
      { id: id(`${first} ${second}`), outcome: "passed" },
      { id: id("test_add_positive"), outcome: "passed" },
    ];
    expect(checkSentinel(s, forged, 0).problem).toMatch(/missing from the report/);
  });

  it("a planted test's several honest entries (an inherited class, a rerun) are no contradiction", () => {
    const sub = (n: string) => `hidden:tests.test_x.TestSub::${n}`;
    const inherited: TestCase[] = [
      ...pair,
      ...append.tests.map(
        (t): TestCase => ({ id: sub(t.names[0]!), outcome: t.role === "fail" ? "failed" : "passed" }),
      ),
    ];
    expect(checkSentinel(s, inherited, 1)).toMatchObject({ problem: null, exitCode: 0 });
  });
});

describe("planSentinels: pytest", () => {
  it("appends to the hidden module a command names, in its own style, names like its tests", () => {
    const s = plan("pytest -q tests/test_x.py", { "tests/test_x.py": PY, "tests/test_y.py": PY })!;
    expect(s.appends.map((a) => a.path)).toEqual(["tests/test_x.py"]);
    expect(s.required).toEqual(["tests/test_x.py"]);
    const [append] = s.appends;
    expect(append!.text).toMatch(
      /^\n\n\ndef test_add_positive_\d+\(\):\n {4}assert add is not None\n( {4}total = \d+ \+ \d+\n {4}assert total == \d+\n| {4}try:\n {8}assert add\(2, 3\) == 5\n {4}finally:\n {8}total = \d+ \+ \d+\n {8}assert total == \d+\n)/,
    );
    expect(append!.text).not.toMatch(/sentinel|must|oracle|'/i);
    expect(append!.tests.map((t) => t.role).sort()).toEqual(["fail", "pass"]);
    for (const t of append!.tests) expect(t.names[0]).toMatch(/^test_add_positive_\d+$/);
  });

  it("the pair's value shares no name with the module: an imported `total` or `sum` (s25 attack finding 7)", () => {
    // `total = sum([a, b])` made `total` local to the whole function, so `assert total is not None`
    // raised UnboundLocalError, and a module's own `sum` (vec.sum, pyspark's) gave a wrong sum: the
    // must-pass failed, the grade was REPORT_INCONSISTENT for gold too and new-task quarantined the task.
    const modules: Record<string, string> = {
      "cart.py": "def total(prices):\n    return round(sum(prices), 2)\n",
      "vec.py":
        "def sum(rows):\n    return [x + y for x, y in zip(*rows)] if rows and isinstance(rows[0], list) else [0]\n",
    };
    const tests: Record<string, string> = {
      "test_cart.py": "from cart import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n",
      "test_vec.py":
        "from vec import sum\n\n\ndef test_rows():\n    assert sum([[1, 2], [3, 4]]) == [4, 6]\n",
    };
    for (const [file, text] of Object.entries(tests)) {
      const append = plan(`python3 -m pytest ${file}`, { [file]: text })!.appends[0]!;
      const dir = mkdtempSync(join(tmpdir(), "py-pair-"));
      try {
        mkdirSync(dir, { recursive: true });
        for (const [m, t] of Object.entries(modules)) writeFileSync(join(dir, m), t);
        writeFileSync(join(dir, file), text + append.text);
        const run = spawnSync("python3", ["-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", file], {
          cwd: dir,
          encoding: "utf8",
        });
        for (const t of append.tests)
          expect(run.stdout, `${file} ${t.role}`).toContain(
            `${t.role === "pass" ? "PASSED" : "FAILED"} ${file}::${t.names[0]}`,
          );
        expect(run.stdout).not.toMatch(/UnboundLocalError/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it("a folder, the whole rootdir, a glob, a cd: the test files under it", () => {
    const files = {
      "tests/test_x.py": PY,
      "tests/sub/test_y.py": PY,
      "other/test_z.py": PY,
      "tests/helper.py": "x = 1\n",
    };
    expect(plan("python3 -m pytest tests", files)!.required).toEqual([
      "tests/test_x.py",
      "tests/sub/test_y.py",
    ]);
    expect(plan("pytest", files)!.required).toHaveLength(3);
    expect(plan("pytest tests/test_*.py", files)!.required).toEqual(["tests/test_x.py"]);
    expect(plan("cd tests && pytest sub", files)!.required).toEqual(["tests/sub/test_y.py"]);
  });

  it("file::Class: methods of that class; node ids of single tests: the pair named by node ids added to the command", () => {
    const s = plan("pytest tests/test_c.py::TestAdd", { "tests/test_c.py": PY_CLASS })!;
    expect(s.required).toEqual(["tests/test_c.py"]);
    expect(s.appends[0]!.className).toBe("TestAdd");
    expect(s.appends[0]!.text).toMatch(
      /def test_small_\d+\(self\):[\s\S]*TestAdd\.test_small_\d+ = test_small_\d+\ndel test_small_\d+\n/,
    );
    expect(s.command).toBeUndefined();
    // A parametrised case, quoted: the pair's node ids follow it, each quoted; the pair is module-level.
    const node = plan(`cd sub && pytest -q "tests/test_x.py::test_add_positive[1-2]" -p no:cacheprovider`, {
      "sub/tests/test_x.py": PY,
    })!;
    const [a, b] = node.appends[0]!.tests.map((t) => t.names[0]!);
    expect(node.required).toEqual(["sub/tests/test_x.py"]);
    expect(node.appends[0]!.className).toBeUndefined();
    expect(node.command).toBe(
      `cd sub && pytest -q "tests/test_x.py::test_add_positive[1-2]" 'tests/test_x.py::${a}' 'tests/test_x.py::${b}' -p no:cacheprovider`,
    );
    // Class methods named by node ids: the pair still at module level, named after one node id of the file.
    const methods = plan("pytest tests/test_c.py::TestAdd::test_small tests/test_c.py::TestAdd::test_big", {
      "tests/test_c.py": PY_CLASS,
    })!;
    expect(methods.command).toMatch(
      /^pytest tests\/test_c\.py::TestAdd::test_small 'tests\/test_c\.py::test_\w+_\d+' 'tests\/test_c\.py::test_\w+_\d+' tests\/test_c\.py::TestAdd::test_big$/,
    );
    // The pair copies no test body of the file (the command left its other tests out on purpose), and
    // a module-level name is one pytest's python_functions takes (`test_…`), whatever the methods' style.
    expect(node.appends[0]!.text).not.toMatch(/try:|finally:/);
    const camel =
      "import unittest\n\n\nclass TestU(unittest.TestCase):\n    def testSmall(self):\n        self.assertEqual(1, 1)\n";
    const u = plan("pytest tests/test_u.py::TestU::testSmall", { "tests/test_u.py": camel })!;
    for (const t of u.appends[0]!.tests) expect(t.names[0]).toMatch(/^test_Small_\d+$/);
    // The command cannot be rewritten (the node id is a package script's): no pair.
    expect(
      planSentinels({ framework: "pytest", args: ["tests/test_x.py::test_add_positive"], cwd: "" }, [
        { path: "tests/test_x.py", text: PY },
      ]),
    ).toBeNull();
  });

  it("-k: a plain name or any expression; names it provably keeps, else not required; -x gets none", () => {
    const s = plan("pytest -k positive tests", { "tests/test_x.py": PY })!;
    expect(s.required).toEqual(["tests/test_x.py"]);
    for (const t of s.appends[0]!.tests) expect(t.names[0]).toContain("positive");
    for (const k of [
      "add and not slow",
      "Positive or merge",
      "(test_x and not 3x) or TestNone",
      "not merge",
    ]) {
      const e = plan(`pytest -k '${k}' tests`, { "tests/test_x.py": PY })!;
      expect(e.required, k).toEqual(["tests/test_x.py"]);
    }
    const two = `${PY}\n\ndef test_merge():\n    assert add(1, 1) == 2\n`;
    const merge = plan("pytest -k 'merge and not positive' tests", { "tests/test_x.py": two })!;
    for (const t of merge.appends[0]!.tests) expect(t.names[0]).toMatch(/^test_merge_\d+$/);
    const none = plan("pytest -k 'frobnicate' tests", { "tests/test_x.py": PY })!;
    expect(none).toBeNull();
    const bad = plan("pytest -k 'add and' tests", { "tests/test_x.py": PY })!;
    expect(bad.required).toEqual([]);
    expect(bad.note).toMatch(/not a pytest expression/);
    const marked = `import pytest\npytestmark = pytest.mark.slow\n${PY}`;
    expect(plan("pytest -k 'not slow' tests", { "tests/test_x.py": marked })).toBeNull();
    expect(plan("pytest -k 'not tests' tests", { "tests/test_x.py": PY })).toBeNull();
    expect(plan("pytest -x tests", { "tests/test_x.py": PY })).toBeNull();
    expect(plan("pytest -qx tests", { "tests/test_x.py": PY })).toBeNull();
  });

  it("-k with a class: the class name counts; a unittest class asserts with self.assertEqual", () => {
    const s = plan("pytest tests/test_c.py::TestAdd -k 'TestAdd and not test_small'", {
      "tests/test_c.py": PY_CLASS,
    });
    expect(s).toBeNull();
    const c = plan("pytest tests/test_c.py::TestAdd -k 'testadd or nothing'", {
      "tests/test_c.py": PY_CLASS,
    })!;
    expect(c.required).toEqual(["tests/test_c.py"]);
    expect(c.appends[0]!.text).toMatch(/ {4}assert unittest is not None|self\.assertEqual\(total, \d+\)/);
    expect(c.appends[0]!.text).toContain("self.assertEqual(total, ");
    expect(c.appends[0]!.text).not.toMatch(/^ {4}assert total/m);
  });

  it("touches an imported name; the must-fail runs a fixture-less test's body, then fails in finally", () => {
    const text = `import pytest\nfrom calc.core import (add,\n  sub as minus)\nimport calc.util as u, os\n\n\ndef test_a():\n    assert add(1, 2) == 3\n\n\ndef test_b(tmp_path):\n    assert minus(2, 1) == 1\n`;
    const s = plan("pytest tests/test_x.py", { "tests/test_x.py": text })!;
    const append = s.appends[0]!;
    expect(append.text).toMatch(/ {4}assert (add|minus|u|os|calc) is not None\n/);
    expect(append.text).not.toMatch(/assert pytest is not None/);
    const fail = append.tests.find((t) => t.role === "fail")!.names[0]!;
    const pass = append.tests.find((t) => t.role === "pass")!.names[0]!;
    expect(append.text).toMatch(
      new RegExp(
        `def ${fail}\\(\\):\\n.*\\n {4}try:\\n {8}assert add\\(1, 2\\) == 3\\n {4}finally:\\n {8}total`,
      ),
    );
    expect(append.text).not.toMatch(new RegExp(`def ${pass}\\(\\):\\n.*\\n {4}try:`));
    expect(append.text).not.toMatch(/minus\(2, 1\)/);
  });

  it("looksPure: asserts and assignments to local names only; a bare call, an attribute write, a block rule a body out", () => {
    const pure = (lines: string[]) => looksPure(lines, "    ");
    expect(pure(["    assert add(1, 2) == 3"])).toBe(true);
    expect(
      pure([
        "    x, y = add(1, 2), add(",
        "        3, 4)",
        "    assert x == 3  # a comment (",
        "",
        "    assert y == 7",
      ]),
    ).toBe(true);
    expect(pure(["    got: int = add(1, 2)", "    assert got == \\", "        3"])).toBe(true);
    expect(pure(['    core.register("add")', "    assert core.add(2, 3) == 5"])).toBe(false);
    expect(pure(["    core.STATE = 1", "    assert core.add(2, 3) == 5"])).toBe(false);
    expect(pure(["    items[0] = 1"])).toBe(false);
    expect(pure(["    global CACHE", "    assert CACHE"])).toBe(false);
    expect(pure(['    with open("f", "w") as f:', '        f.write("x")'])).toBe(false);
    expect(pure(["    for i in range(3):", "        assert add(i, 0) == i"])).toBe(false);
    expect(pure(["    import os"])).toBe(false);
    expect(pure(['    x = f("(")', "    assert x"])).toBe(false);
    expect(pure(["    assert x == 1 or \\"])).toBe(false);
  });

  it("the must-fail never copies a body with a side effect (attack-sentinel-side-effect): a registering test is left out", () => {
    const text = `from calc import core\n\n\ndef test_add_registers():\n    core.register("add")\n    assert core.add(2, 3) == 5\n\n\ndef test_add_zero():\n    assert core.add(0, 7) == 7\n`;
    expect(pythonPlainBodies(text)).toEqual([["        assert core.add(0, 7) == 7"]]);
    for (let i = 0; i < 8; i++) {
      const append = plan("pytest t/test_x.py", { "t/test_x.py": text })!.appends[0]!.text;
      expect(append).not.toContain("core.register");
      expect(append).toMatch(/try:\n {8}assert core\.add\(0, 7\) == 7\n {4}finally:/);
    }
  });

  it("the must-fail copies the same body in every run of the same file (attack-sentinel-side-effect), names and values still random", () => {
    const bodies = Array.from(
      { length: 8 },
      (_, i) => `def test_${i}():\n    assert add(${i}, 1) == ${i + 1}\n`,
    );
    const text = `from calc.core import add\n\n\n${bodies.join("\n\n")}`;
    const copied = (t: string) => /try:\n {8}(assert add\(\d, 1\))/.exec(t)?.[1];
    const runs = Array.from({ length: 12 }, () => plan("pytest t/test_x.py", { "t/test_x.py": text })!);
    expect(new Set(runs.map((r) => copied(r.appends[0]!.text))).size).toBe(1);
    expect(copied(runs[0]!.appends[0]!.text)).toBeDefined();
    expect(new Set(runs.map((r) => r.appends[0]!.text)).size).toBeGreaterThan(1);
    // Another file text may pick another body.
    const picks = new Set(
      Array.from({ length: 16 }, (_, i) =>
        copied(plan("pytest t/test_x.py", { "t/test_x.py": `${text}\n# ${i}\n` })!.appends[0]!.text),
      ),
    );
    expect(picks.size).toBeGreaterThan(1);
  });
});

describe("planSentinels: mocha", () => {
  it("a named file, a quoted glob, the default ./test folder", () => {
    const files = { "test/a.js": JS, "test/regression/b.test.js": JS_DESCRIBE, "test/fixture.json": "{}" };
    expect(plan("npx mocha test/a.js", files)!.required).toEqual(["test/a.js"]);
    expect(plan("node_modules/.bin/mocha 'test/regression/*.test.js'", files)!.required).toEqual([
      "test/regression/b.test.js",
    ]);
    expect(plan("mocha", files)!.required).toEqual(["test/a.js"]);
    expect(plan("mocha --recursive", files)!.required).toEqual(["test/a.js", "test/regression/b.test.js"]);
  });

  it("uses the file's it, assert binding and describe; titles like its tests", () => {
    const s = plan("mocha test/a.js", { "test/a.js": JS })!;
    expect(s.appends[0]!.text).toMatch(
      /^\nit\("adds two positive numbers \d+", \(\) => \{\n {2}assert\.strictEqual\(\d+ \+ \d+, \d+\);\n\}\);/,
    );
    expect(s.appends[0]!.text).not.toMatch(/sentinel|must|oracle|'/i);
    const d = plan("mocha test/b.test.js", { "test/b.test.js": JS_DESCRIBE })!;
    expect(d.appends[0]!.text).toMatch(/^\ndescribe\("operators", \(\) => \{\n {2}it\("subtracts \d+"/);
    expect(d.appends[0]!.tests[0]!.names).toEqual([
      expect.stringMatching(/^operators subtracts \d+$/),
      expect.stringMatching(/^subtracts \d+$/),
    ]);
  });

  it("--grep, --fgrep, --invert: titles the runner's own RegExp keeps, over the full title; --bail gets none", () => {
    const s = plan("mocha --grep positive test/a.js", { "test/a.js": JS })!;
    expect(s.required).toEqual(["test/a.js"]);
    for (const grep of [
      "^add",
      "numbers( \\d+)?$",
      "/ADDS/i",
      "two|three",
      "^adds two positive numbers$|\\d$",
    ]) {
      const g = plan(`mocha --grep '${grep}' test/a.js`, { "test/a.js": JS })!;
      expect(g.required, grep).toEqual(["test/a.js"]);
      const m = /^\/(.*)\/([gimy]{0,4})$|.*/.exec(grep)!;
      for (const t of g.appends[0]!.tests)
        expect(new RegExp(m[1] ?? m[0], m[2]).test(t.names[0]!)).toBe(true);
    }
    const d = plan("mocha -g '^operators sub' test/b.js", { "test/b.js": JS_DESCRIBE })!;
    expect(d.required).toEqual(["test/b.js"]);
    const inv = plan("mocha --grep slow --invert test/a.js", { "test/a.js": JS })!;
    expect(inv.required).toEqual(["test/a.js"]);
    for (const t of inv.appends[0]!.tests) expect(t.names[0]).not.toMatch(/slow/);
    // Anchored to one exact title: the filter is widened to the pair's titles, exactly.
    const exact = plan("mocha --grep '^adds two positive numbers$' test/a.js", { "test/a.js": JS })!;
    expect(exact.required).toEqual(["test/a.js"]);
    const titles = exact.appends[0]!.tests.map((t) => t.names[0]!);
    expect(exact.command).toBe(
      `mocha --grep '^adds two positive numbers$|(?:^| )(?:${titles.map((t) => t.replace(/[()]/g, "\\$&")).join("|")})$' test/a.js`,
    );
    const grep = new RegExp(/--grep '(.*)' /.exec(exact.command!)![1]!);
    for (const t of ["adds two positive numbers", ...titles]) expect(t).toMatch(grep);
    for (const t of [
      "adds two positive numbers 1",
      "adds two positive numbers 100",
      `${titles[0]} x`,
      `x${titles[0]}`,
    ])
      expect(t).not.toMatch(grep);
    // After the titles of the suites around it (mocha's qunit `suite("s");` before the pair).
    expect(`suite ${titles[0]}`).toMatch(grep);
    // `/re/flags` keeps its flags; --invert and --fgrep are not widened.
    expect(
      plan("mocha --grep '/^ADDS TWO POSITIVE NUMBERS$/i' test/a.js", { "test/a.js": JS }),
    ).toMatchObject({
      required: ["test/a.js"],
    });
    expect(
      plan("mocha --grep '/^ADDS TWO POSITIVE NUMBERS$/i' test/a.js", { "test/a.js": JS })!.command,
    ).toMatch(/^mocha --grep '\/\^ADDS TWO POSITIVE NUMBERS\$\|\(\?:\^\| \)\(\?:.*\)\$\/i' test\/a\.js$/);
    expect(plan("mocha --grep 'adds' --invert test/a.js", { "test/a.js": JS })).toBeNull();
    expect(plan("mocha --fgrep 'nothing like it' test/a.js", { "test/a.js": JS })).toBeNull();
    expect(plan("mocha -f 'two pos' test/a.js", { "test/a.js": JS })!.required).toEqual(["test/a.js"]);
    expect(plan("mocha --grep '(' test/a.js", { "test/a.js": JS })!.note).toMatch(/not a valid regular/);
    expect(plan("mocha --bail test/a.js", { "test/a.js": JS })).toBeNull();
  });

  it("asserts first on a binding the file takes from the code, with the file's own assertion", () => {
    const text = `const assert = require("node:assert");\nconst { add, sub: minus } = require("../src/calc");\n\nit("adds", () => assert.strictEqual(add(1, 2), 3));\n`;
    const s = plan("mocha test/a.js", { "test/a.js": text })!;
    expect(s.appends[0]!.text).toMatch(
      / {2}assert\.strictEqual\(typeof (add|minus) === "undefined", false\);\n/,
    );
    expect(s.appends[0]!.text).not.toMatch(/typeof assert/);
  });

  it("assertion styles: require/import bindings, destructured functions, chai and jest expect, else a throw", () => {
    const style = (text: string, fw: "mocha" | "jest" = "mocha") => jsAssertStyle(text, fw)("1 + 2", 3);
    expect(style('const a = require("assert");')).toBe("a.strictEqual(1 + 2, 3);");
    expect(style('import * as ok from "node:assert";')).toBe("ok.strictEqual(1 + 2, 3);");
    expect(style('import { strict as t } from "assert";')).toBe("t.strictEqual(1 + 2, 3);");
    expect(style('const { equal, ok } = require("node:assert/strict");')).toBe("equal(1 + 2, 3);");
    expect(style('const { expect } = require("chai");\nexpect(1)')).toBe("expect(1 + 2).to.equal(3);");
    expect(style("expect(1)", "jest")).toBe("expect(1 + 2).toBe(3);");
    expect(style("")).toMatch(/^if \(\(1 \+ 2\) !== 3\) throw new Error/);
  });
});

describe("planSentinels: jest and vitest", () => {
  it("jest's default testMatch runs a bare test.js or spec.ts in any folder: its pair is required there; vitest's include does not take it (brief s28 fix, item 4)", () => {
    const files = {
      "test.js": 'test("x", () => expect(1).toBe(1));\n',
      "src/spec.ts": 'it("y", () => {});\n',
    };
    expect(plan("npx jest", files)!.required.sort()).toEqual(["src/spec.ts", "test.js"]);
    expect(plan("npx jest test.js", files)!.required).toEqual(["test.js"]);
    const vitest = plan("npx vitest run", files);
    expect(vitest?.required ?? []).toEqual([]);
    // Not a name jest's default takes: tests.js, mytest.js.
    expect(
      plan("npx jest", { "tests.js": files["test.js"], "mytest.js": files["test.js"] })?.required ?? [],
    ).toEqual([]);
  });

  it("path patterns select the files, -t like --grep", () => {
    const files = {
      "src/a.test.js": 'test("x", () => expect(1).toBe(1));\n',
      "src/b.test.js": 'it("y", () => {});\n',
    };
    expect(plan("npx jest src/a", files)!.required).toEqual(["src/a.test.js"]);
    expect(plan("npx jest", files)!.required).toHaveLength(2);
    expect(plan("npx vitest run b.test", files)!.required).toEqual(["src/b.test.js"]);
    const t = plan("npx jest -t '^X( |$)' src/a", files)!;
    expect(t.required).toEqual(["src/a.test.js"]);
    for (const s of t.appends[0]!.tests) expect(s.names[0]).toMatch(/^x /i);
    // vitest's -t is case-sensitive: '^X' keeps no name like the files' own: widened to the pairs'.
    const widened = plan("npx vitest run -t '^X'", files)!;
    expect(widened.required).toHaveLength(2);
    expect(widened.command).toMatch(/^npx vitest run -t '\^X\|\(\?:\^\| \)\(\?:[^']+\)\$'$/);
    // `-t=X` is X to jest and vitest (yargs, cac), not `=X` (review: the rewrite wrote `-t==X`).
    const joined = plan("npx jest '-t=^X$'", files)!;
    expect(joined.command).toMatch(/^npx jest '-t=\^X\$\|\(\?:\^\| \)\(\?:[^']+\)\$'$/);
    // Given twice (the last wins): not rewritten.
    expect(plan("npx vitest run -t a -t '^X'", files)).toBeNull();
    const nested = { "src/c.test.js": 'describe("parser", () => {\n  it("reads", () => {});\n});\n' };
    expect(plan("npx vitest run -t '^parser reads'", nested)!.required).toEqual(["src/c.test.js"]);
    expect(plan("npx jest src/a", files)!.appends[0]!.text).toMatch(
      /^\ntest\("x \d+", \(\) => \{\n {2}expect\(\d+ \+ \d+\)\.toBe\(\d+\);/,
    );
  });

  it("a file written only with test.each / it.concurrent / test.for gets its pair, with the function it imports (attack-unprotected-jest-each)", () => {
    const each = `const { slugify } = require("../src/slugify");\n\ndescribe("table", () => {\n  test.each([["a b", "a-b"]])("slugify(%j)", (input, want) => {\n    expect(slugify(input)).toBe(want);\n  });\n});\n`;
    const jest = plan("npx jest test/each.test.js", { "test/each.test.js": each })!;
    expect(jest.required).toEqual(["test/each.test.js"]);
    expect(jest.appends[0]!.text).toMatch(/^\ndescribe\("table", \(\) => \{\n {2}test\("/);
    const vitest = `import { expect, test } from "vitest";\nimport { merge } from "../src/ranges.js";\n\ntest.for([[1, 2]])("merges %s", ([a, b]) => {\n  expect(merge([[a, b]])).toEqual([[a, b]]);\n});\n`;
    const v = plan("npx vitest run test/v.test.js", { "test/v.test.js": vitest })!;
    expect(v.required).toEqual(["test/v.test.js"]);
    expect(v.appends[0]!.text).toMatch(/^\ntest\("/);
    const concurrent = 'it.concurrent("adds", async () => {});\n';
    expect(plan("npx jest c.test.js", { "c.test.js": concurrent })!.appends[0]!.text).toMatch(/^\nit\("/);
    // Only .only / .skip / .todo: nothing plain runs there, so neither would the oracle's pair.
    expect(plan("npx jest s.test.js", { "s.test.js": 'it.skip("later", () => {});\n' })).toBeNull();
  });
});

describe("the pair touches a name the file uses as a value, the same in every run (red team round 3)", () => {
  it("never a TypeScript type (`type Range`, `import type`), nor a Python name the module never calls", () => {
    const ts = `import { describe, expect, it } from "vitest";
import { merge, type Range } from "../../src/ranges";
import type { Span } from "../../src/span";
import { helper } from "../../src/helper";

describe("merge", () => {
  it("joins touching ranges", () => {
    const r: Range = [1, 3];
    expect(merge([r, [3, 5]])).toEqual([[1, 5]]);
  });
});
`;
    const touched = new Set<string>();
    for (let run = 0; run < 40; run++) {
      const s = plan("npx vitest run test/regression/ranges.test.ts", {
        "test/regression/ranges.test.ts": ts,
      })!;
      touched.add(/typeof (\w+)/.exec(s.appends[0]!.text)![1]!);
    }
    expect([...touched]).toEqual(["merge"]);
    const py =
      "from calc.core import add, FLAG\nimport calc\n\n\ndef test_add():\n    assert add(2, 3) == 5\n";
    const names = new Set<string>();
    for (let run = 0; run < 40; run++)
      names.add(
        /assert (\w+) is not None/.exec(
          plan("pytest tests/test_x.py", { "tests/test_x.py": py })!.appends[0]!.text,
        )![1]!,
      );
    expect([...names]).toEqual(["add"]);
  });
});

describe("checkSentinel", () => {
  const sentinel = plan("pytest checks", { "checks/test_h.py": PY })!;
  const [first, second] = sentinel.appends[0]!.tests;
  const byRole = (role: string) => (first!.role === role ? first! : second!);
  const fail: TestCase = { id: `hidden:checks.test_h::${byRole("fail").names[0]}`, outcome: "failed" };
  const pass: TestCase = { id: `hidden:checks.test_h::${byRole("pass").names[0]}`, outcome: "passed" };
  const real: TestCase = { id: "hidden:checks.test_h::test_add_positive", outcome: "passed" };

  it("honest report: sentinel tests removed, exit 1 explained by them", () => {
    expect(checkSentinel(sentinel, [fail, pass, real], 1)).toEqual({
      tests: [real],
      exitCode: 0,
      problem: null,
      state: "collected",
    });
    expect(checkSentinel(sentinel, [fail, pass, real], 3).exitCode).toBe(3);
  });

  it("forged: the must-fail passed, the must-pass failed, both dropped, exit 0 despite the failure", () => {
    expect(checkSentinel(sentinel, [{ ...fail, outcome: "passed" }, pass, real], 0).problem).toMatch(
      /must fail is passed/,
    );
    expect(checkSentinel(sentinel, [fail, { ...pass, outcome: "failed" }], 1).problem).toMatch(
      /must pass is failed/,
    );
    expect(checkSentinel(sentinel, [real], 0).problem).toMatch(/missing from the report/);
    expect(checkSentinel(sentinel, [pass, real], 0).problem).toMatch(/only one of the two/);
    expect(checkSentinel(sentinel, [fail, pass, real], 0).problem).toMatch(/exited 0/);
  });

  it("required but missing in a run that fails anyway (a module that does not import): no contradiction", () => {
    const broken: TestCase = { id: "hidden:::checks.test_h", outcome: "error" };
    expect(checkSentinel(sentinel, [broken], 2)).toMatchObject({
      problem: null,
      state: "not-collected",
      exitCode: 2,
    });
  });

  it("not required and missing: noted, the rest judged alone", () => {
    const optional: Sentinel = { ...sentinel, required: [] };
    expect(checkSentinel(optional, [real], 0)).toEqual({
      tests: [real],
      exitCode: 0,
      problem: null,
      state: "not-collected",
    });
  });
});

describe("a mocha hidden suite judged with its sentinels", () => {
  const sentinel = plan("mocha checks/add.test.js", { "checks/add.test.js": JS_DESCRIBE })!;
  const [a, b] = sentinel.appends[0]!.tests;
  const xml = (outcome: (role: string) => string, real: string) =>
    `<testsuites><testsuite name="operators">` +
    [a!, b!]
      .map((t) => `<testcase name="${t.names[0]}" classname="${t.names[1]}">${outcome(t.role)}</testcase>`)
      .join("") +
    `<testcase name="operators subtracts" classname="subtracts">${real}</testcase></testsuite></testsuites>`;
  const honest = (role: string) => (role === "fail" ? '<failure message="x"/>' : "");
  const run = (report: string, exitCode: number) =>
    judgeSuite({
      suite: "hidden",
      exitCode,
      durationMs: 1,
      report: { kind: "ok", xml: report },
      output: { bytes: 0, truncated: false },
      sentinel,
    });

  it("honest pass: PASS without the sentinels' tests (mocha exits with its failure count)", () => {
    const { result, sentinel: state } = run(xml(honest, ""), 1);
    expect(result.status).toBe("PASS");
    expect(state).toBe("collected");
    expect(result.tests.map((t) => t.id)).toEqual(["hidden:subtracts::operators subtracts"]);
  });

  it("honest failure: TESTS_FAILED; forged: REPORT_INCONSISTENT", () => {
    expect(run(xml(honest, '<failure message="y"/>'), 2).result.reason).toBe("TESTS_FAILED");
    const { result, message } = run(
      xml(() => "", ""),
      0,
    );
    expect(result.reason).toBe("REPORT_INCONSISTENT");
    expect(message).toMatch(
      /contradicts the oracle's sentinels \(mocha\): a test the oracle added to checks\/add.test.js that must fail is passed/,
    );
  });
});

it("findRunner and planSentinels agree on the sample tasks' commands", () => {
  const command = `ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/mocha --reporter mocha-junit-reporter --reporter-option mochaFile="$ORACLE_JUNIT" 'test/regression/*.test.js'`;
  expect(findRunner(command)?.framework).toBe("mocha");
  expect(plan(command, { "test/regression/associativity.test.js": JS_DESCRIBE })!.required).toEqual([
    "test/regression/associativity.test.js",
  ]);
});
