import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  assertPatchedIn,
  assertsSwappedIn,
  chaiPluginIn,
  equalityTestersIn,
  expectRebound,
  extendedMatchers,
  setupModuleText,
} from "@oracle/test-set";
import { afterAll, describe, expect, it } from "vitest";
import {
  basePackageScripts,
  baseTestTexts,
  commandConfigs,
  planExisting,
  SETUP_SHAPES,
  type SetupReader,
} from "./existing-sentinels.js";

const work = mkdtempSync(join(tmpdir(), "oracle-scripts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A repository whose base commit holds `files`; a later commit changes the root's test script. */
let repos = 0;
/** A repository of its own per call (two of the same size once shared one: the later saw the earlier's files). */
function repoWith(files: Record<string, string>): { gitDir: string; base: string } {
  const dir = join(work, `repo-${++repos}`);
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      encoding: "utf8",
    });
  mkdirSync(dir, { recursive: true });
  git("init", "-q");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git("add", "-A");
  git("commit", "-qm", "base");
  const base = git("rev-parse", "HEAD").trim();
  writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "jest" } }));
  git("commit", "-qam", "later");
  return { gitDir: join(dir, ".git"), base };
}

describe("basePackageScripts", () => {
  it("reads the base commit's scripts of the packages the commands run in, upwards, and nothing else", async () => {
    const { gitDir, base } = repoWith({
      "package.json": JSON.stringify({ scripts: { test: "mocha 'test/*.test.js'", n: 3 } }),
      "web/package.json": JSON.stringify({ scripts: { test: "vitest run" } }),
      "bad/package.json": "{ not json",
      "bom/package.json": `\uFEFF${JSON.stringify({ name: "bom" })}`,
      "other/package.json": JSON.stringify({ scripts: { test: "jest" } }),
    });
    const scripts = await basePackageScripts(gitDir, base, [
      "cd web/src && npm test -- a.js",
      "cd bad && npm test",
      "cd bom && npm test",
      "mocha test",
    ]);
    // The root's script as the base commit has it (the later commit's jest is not read); a script
    // that is not a string is dropped; other/ is named by no command; bad/ is there but not JSON.
    expect(Object.fromEntries(scripts)).toEqual({
      "": { test: "mocha 'test/*.test.js'" },
      web: { test: "vitest run" },
      bad: null,
      // A byte-order mark is read past, as npm does; no scripts is none.
      bom: {},
    });
  });

  it("reads nothing for commands that run no package script", async () => {
    const { gitDir, base } = repoWith({ "package.json": "{}", "a.txt": "" });
    expect((await basePackageScripts(gitDir, base, ["pytest tests", "go test ./..."])).size).toBe(0);
  });
});

describe("baseTestTexts", () => {
  it("reads the files that register matchers or equality testers outside the suite's globs (setup files), for the seal plan", async () => {
    const { gitDir, base } = repoWith({
      "package.json": JSON.stringify({ jest: { setupFilesAfterEnv: ["<rootDir>/jest.setup.js"] } }),
      "jest.setup.js": 'const matchers = require("./support/matchers");\nexpect.extend(matchers);\n',
      "support/matchers.js": "module.exports = { toBe() {} };\n",
      "support/testers.ts": "expect\n  .addEqualityTesters([cents]);\n",
      "test/unit/a.test.js": 'expect.extend({ toBeWithin() {} });\ntest("a", () => {});\n',
      "node_modules/expect/build/index.js": "expect.extend = function () {};\n",
      "docs/setup.md": "expect.extend(matchers)\n",
      "src/x.js": "module.exports = 1;\n",
    });
    const read = await baseTestTexts(gitDir, base, ["test/unit/**"]);
    expect(read.texts.map((t) => t.path)).toEqual(["test/unit/a.test.js"]);
    // The suite's own file once; node_modules and what is not JS/TS are not read.
    expect(read.setup?.map((t) => t.path).sort()).toEqual(["jest.setup.js", "support/testers.ts"]);
    expect(read.setup?.find((t) => t.path === "jest.setup.js")?.text).toContain("expect.extend(matchers)");
    // Nothing registers anything: none.
    const plain = repoWith({
      "package.json": "{}",
      "src/y.js": "module.exports = 2;\n",
      "test/a.test.js": "",
      "README.md": "",
    });
    expect((await baseTestTexts(plain.gitDir, plain.base, ["test/**"])).setup).toEqual([]);
  });

  it("reads a setup file that loads a chai plugin (a vitest setupFiles entry, a .mocharc require)", async () => {
    const { gitDir, base } = repoWith({
      "package.json": "{}",
      "vitest.config.js": 'export default { test: { setupFiles: ["./setup/chai.js"] } };\n',
      "setup/chai.js":
        'import * as chai from "chai";\nimport almost from "chai-almost";\nchai\n  .use(almost());\n',
      "setup/overwrite.js": 'chai.Assertion.overwriteMethod("equal", (_super) => _super);\n',
      "setup/proto.js": "chai.Assertion.prototype.near = function () {};\n",
      "setup/plain.js": 'import { expect } from "chai";\nglobalThis.expect = expect;\n',
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    // setup/plain.js rebinds the global expect to chai's: read too (the next case); the config names
    // setup/chai.js, whose chai-almost is a package the planner does not read (the case after).
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "setup/chai.js",
      "setup/chai.js: imports chai-almost",
      "setup/overwrite.js",
      "setup/plain.js",
      "setup/proto.js",
    ]);
  });

  it("reads a setup file that rebinds expect, extends it through an alias or takes chai's use by name (brief s25 sealjs2)", async () => {
    const { gitDir, base } = repoWith({
      "package.json": "{}",
      "support/wrap.js":
        "const builtin = expect;\nglobalThis.expect = Object.assign((v) => builtin(Number(v)), builtin);\n",
      "support/bare.js": "expect = wrap(expect);\n",
      "support/define.js": 'Object.defineProperty(global, "expect", { value: wrap(expect) });\n',
      "support/alias.js": "const e = expect;\ne.extend(matchers);\n",
      "support/named.js": 'import { expect as check } from "vitest";\ncheck.extend({ toBe: loose });\n',
      "support/use.js": 'import { use } from "chai";\nimport near from "near-plugin";\nuse(near);\n',
      "support/reexport.js": 'export { use, expect } from "chai";\n',
      "support/chai-plain.js": 'const expect = require("chai").expect;\nmodule.exports = { expect };\n',
      "support/user.js": 'import { expect } from "chai";\nexport const user = { name: "Ada" };\n',
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "support/alias.js",
      "support/bare.js",
      "support/define.js",
      "support/named.js",
      "support/reexport.js",
      "support/use.js",
      "support/wrap.js",
    ]);
  });

  it("reads the setup files a jest or vitest config names; a package, a computed entry or a package such a file imports stands as a module the planner cannot read (brief s25 sealjs2 item 1)", async () => {
    const { gitDir, base } = repoWith({
      "package.json": JSON.stringify({
        jest: {
          setupFilesAfterEnv: ["jest-extended/all", "<rootDir>/support/quiet.js"],
          setupFiles: ["./support/env"],
          testEnvironment: "jsdom",
          globalSetup: "some-global-setup",
        },
      }),
      "support/quiet.js":
        'import "@testing-library/jest-dom";\nimport fs from "node:fs";\nrequire("path");\nrequire("./helpers");\n',
      "support/env/index.js": "process.env.TZ = 'UTC';\n",
      "web/vitest.config.ts":
        'import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { environment: "happy-dom", setupFiles: ["./setup.ts", "some-package/setup"] } });\n',
      "web/setup.ts": 'import { expect } from "vitest";\n',
      "app/vite.config.js":
        '// the setupFiles below\nexport default { test: { setupFiles: [resolve(__dirname, "s.js")], environment: "./env/custom.js" } };\n',
      "app/env/custom.js": "module.exports = class {};\n",
      "test/a.test.js": 'test("a", () => {});\n',
      "README.md": "A repository with runner configs.\n",
    });
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    // jsdom and happy-dom are the runners' own environments; globalSetup runs outside the tests.
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "app/vite.config.js: environment ./env/custom.js",
      "app/vite.config.js: setupFiles (computed)",
      "app/vite.config.js: setupFiles s.js",
      "package.json: setupFilesAfterEnv jest-extended/all",
      "support/env/index.js",
      "support/quiet.js",
      "support/quiet.js: imports @testing-library/jest-dom",
      "web/setup.ts",
      "web/vitest.config.ts: setupFiles some-package/setup",
    ]);
    const unread = read.setup?.filter((t) => t.path.includes(": ")).map((t) => t.text.slice(0, 60)) ?? [];
    expect(unread).toHaveLength(6);
    // Nothing else: a repository with no runner config names none.
    const plain = repoWith({ "package.json": '{ "name": "x" }', "test/a.test.js": "" });
    expect((await baseTestTexts(plain.gitDir, plain.base, ["test/**"])).setup).toEqual([]);
  });
});

describe("baseTestTexts: setup files the s25 attack review hid", () => {
  it("reads a setup file that extends expect through an alias, sets chai's config.deepEqual, or patches assert (attack review s25, findings 3, 4, 6)", async () => {
    const { gitDir, base } = repoWith({
      "package.json": "{}",
      "jest.setup.js":
        'const { expect: jestExpect } = require("@jest/globals");\njestExpect.extend({ toBe() {} });\n',
      "setup/key.js": 'expect["extend"]({ toBe() {} });\n',
      "setup/money.js": 'import * as chai from "chai";\nchai.config.deepEqual = cents;\n',
      "setup/strict.js": 'const assert = require("assert");\nassert.equal = assert.strictEqual;\n',
      "setup/assign.js": "Object.assign(nodeAssert, { equal: strict });\n",
      "setup/chained.js": 'require("node:assert").deepEqual = require("node:assert").deepStrictEqual;\n',
      "setup/reads.js":
        'const assert = require("assert").strict;\nif (assert.equal == null) throw 1;\nconst e = expected.extend;\n',
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "jest.setup.js",
      "setup/assign.js",
      "setup/chained.js",
      "setup/key.js",
      "setup/money.js",
      "setup/strict.js",
    ]);
  });

  it("reads a setup file that patches assert through Reflect, sinon, jest/vitest or node:test's mock (attack review s26, finding 2)", async () => {
    const { gitDir, base } = repoWith({
      "package.json": "{}",
      ".mocharc.json": '{ "require": ["test/strict.cjs"] }',
      "test/strict.cjs":
        'const assert = require("node:assert");\nfor (const [loose, strict] of pairs)\n  Reflect.set(assert, loose, assert[strict]);\n',
      "setup/define.js": 'Reflect.defineProperty(require("assert"), "equal", { value: strict });\n',
      "setup/sinon.js": 'sinon.replace(chai.assert, "equal", strict);\n',
      "setup/spy.js": 'jest.spyOn(assert, "deepEqual").mockImplementation(assert.deepStrictEqual);\n',
      "setup/mock.js": 'mock.method(nodeAssert, "equal", nodeAssert.strictEqual);\n',
      "setup/other.js": 'Reflect.set(config, "equal", 1);\njest.spyOn(console, "log");\n',
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const read = await baseTestTexts(gitDir, base, ["test/**/*.test.js"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "setup/define.js",
      "setup/mock.js",
      "setup/sinon.js",
      "setup/spy.js",
      "test/strict.cjs",
    ]);
  });

  it("reads a setup file that rebinds the global expect through Reflect, defineProperties or an alias of the global object (attack review s26, finding 3)", async () => {
    const { gitDir, base } = repoWith({
      "package.json": "{}",
      "support/reflect.js": 'Reflect.set(globalThis, "expect", Object.assign(textExpect, jestExpect));\n',
      "support/props.js": "Object.defineProperties(global, {\n  expect: { value: wrap(expect) },\n});\n",
      "support/alias.js": "const g = globalThis;\ng.expect = wrap(g.expect);\n",
      "support/key.js": 'const root = global;\nroot["expect"] = wrap(root["expect"]);\n',
      "support/plain.js": 'import { expect } from "@jest/globals";\nglobal.fetch = jest.fn();\n',
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "support/alias.js",
      "support/key.js",
      "support/props.js",
      "support/reflect.js",
    ]);
  });

  it("reads a Python file anywhere that may swap unittest's asserts (attack review s25, finding 1a)", async () => {
    const { gitDir, base } = repoWith({
      "tests/helpers.py":
        "def dicts_in_order(case):\n    case.addTypeEqualityFunc(dict, lambda a, b, msg=None: None)\n",
      "tests/__init__.py":
        "import unittest\n\nunittest.TestCase.assertEqual = lambda s, a, b, msg=None: None\n",
      "support/plugin.py": "def loosen(case):\n    type(case).assertDictEqual = case.assertEqual\n",
      "tests/plain.py": "def add(a, b):\n    return a + b\n",
      "src/calc.py": "failures = []\nassertion_count = 0\n",
      ".venv/lib/python3.11/site-packages/x/case.py": "TestCase.assertEqual = f\n",
      "lib/site-packages/y.py": "case.addTypeEqualityFunc(dict, f)\n",
      "tests/test_a.py": "def test_a():\n    assert 1 == 1\n",
      "package.json": "{}",
      "docs/notes.md": "case.addTypeEqualityFunc(dict, f)\n",
    });
    const read = await baseTestTexts(gitDir, base, ["tests/test_*.py"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "support/plugin.py",
      "tests/__init__.py",
      "tests/helpers.py",
    ]);
    // One too large to read stands for a swap, in Python's words (the JS stand-in swapped nothing unittest has).
    const big = repoWith({
      "tests/big_helpers.py": `def in_order(case):\n    case.addTypeEqualityFunc(dict, f)\n${"#".repeat(3 * 1024 * 1024)}\n`,
      "tests/test_a.py": "def test_a():\n    assert 1 == 1\n",
      "package.json": "{}",
      "a.md": "",
      "b.md": "",
      "c.md": "",
      "d.md": "",
      "e.md": "",
      "f.md": "",
      "g.md": "",
      "h.md": "",
    });
    const large = await baseTestTexts(big.gitDir, big.base, ["tests/test_*.py"]);
    expect(large.setup?.find((t) => t.path === "tests/big_helpers.py")?.text).toMatch(/addTypeEqualityFunc/);
  });

  it("reads a Python file patching an assert by a string or TestCase by setattr (attack review s26, findings 1 and 1b)", async () => {
    const { gitDir, base } = repoWith({
      "tests/p1.py": 'with mock.patch.object(unittest.TestCase, "assertDictEqual", in_order):\n    pass\n',
      "tests/p2.py": 'monkeypatch.setattr("unittest.TestCase.assertDictEqual", in_order)\n',
      "tests/p3.py": 'type.__setattr__(unittest.TestCase, "assertDictEqual", in_order)\n',
      "tests/p4.py": "def swap(name, f):\n    setattr(unittest.TestCase, name, f)\n",
      "tests/p5.py": 'vars(unittest.case)["TestCase"].assertDictEqual = in_order\n',
      "tests/p6.py": 'mock.patch.object(TestCase, "fail", lambda *a, **k: None).start()\n',
      "tests/p7.py": "patcher = mock.patch.object(TestCase, name, f)\n",
      "tests/p8.py": "mock.patch.multiple(unittest.TestCase, assertEqual=f)\n",
      "tests/p9.py": "import unittest\n\nunittest.TestCase = OrderedCase\n",
      "tests/p10.py": 'setattr(unittest, "TestCase", OrderedCase)\n',
      "tests/plain.py":
        '__all__ = ["TestCase", "LegacyTestCase"]\nmonkeypatch.setattr("canon.io.write", f)\nmock.patch.object(Client, "send")\nmock.patch("canon.fail")\nsetattr(settings, name, value)\ncase.assertEqual(status, "fail")\n',
      "tests/test_a.py": "def test_a():\n    assert 1 == 1\n",
      "package.json": "{}",
    });
    const read = await baseTestTexts(gitDir, base, ["tests/test_*.py"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "tests/p1.py",
      "tests/p10.py",
      "tests/p2.py",
      "tests/p3.py",
      "tests/p4.py",
      "tests/p5.py",
      "tests/p6.py",
      "tests/p7.py",
      "tests/p8.py",
      "tests/p9.py",
    ]);
  });
});

describe("planExisting: only files the existing command provably runs (plant only what can be proven)", () => {
  const py = (path: string) => ({
    path,
    text: "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
  });
  const js = (path: string) => ({
    path,
    text: 'const assert = require("assert");\n\nit("adds", () => assert.strictEqual(1, 1));\n',
  });
  const go = (path: string) => ({
    path,
    text: 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif 1 != 1 {\n\t\tt.Errorf("no")\n\t}\n}\n',
  });
  const task = (command: string, framework?: "pytest" | "mocha" | "jest" | "go") =>
    ({
      suites: { existing: { command, files: ["**"] }, hidden: { command: "true" } },
      ...(framework ? { framework } : {}),
    }) as never;
  const files = (plan: ReturnType<typeof planExisting>) =>
    plan.sentinel?.appends.map((a) => a.path).sort() ?? [];

  it("pytest --ignore=FILE, --ignore=DIR, --ignore-glob: nothing in what they leave out", () => {
    const base = {
      texts: [py("tests/test_a.py"), py("tests/test_b.py"), py("tests/sub/test_c.py")],
      capped: false,
    };
    expect(files(planExisting(task("pytest tests --ignore=tests/test_b.py"), base))).toEqual([
      "tests/sub/test_c.py",
      "tests/test_a.py",
    ]);
    expect(files(planExisting(task("pytest tests --ignore tests/sub"), base))).toEqual([
      "tests/test_a.py",
      "tests/test_b.py",
    ]);
    expect(files(planExisting(task("cd tests && pytest . --ignore-glob=*_b.py"), base))).toEqual([
      "tests/sub/test_c.py",
      "tests/test_a.py",
    ]);
  });

  it("a hidden test file the base commit has (the fix edits it) gets nothing, whatever the command selects", () => {
    const base = { texts: [py("tests/test_a.py"), py("tests/test_b.py")], capped: false };
    expect(files(planExisting(task("pytest tests"), base, null, ["tests/test_b.py"]))).toEqual([
      "tests/test_a.py",
    ]);
  });

  it("mocha: a list of files, --ignore/--exclude globs", () => {
    const base = { texts: [js("test/a.js"), js("test/b.js"), js("test/c.js")], capped: false };
    expect(files(planExisting(task("mocha test/a.js test/c.js"), base))).toEqual(["test/a.js", "test/c.js"]);
    expect(files(planExisting(task("mocha test --exclude 'test/b.js'"), base))).toEqual([
      "test/a.js",
      "test/c.js",
    ]);
  });

  it("jest --testPathIgnorePatterns", () => {
    const base = { texts: [js("src/a.test.js"), js("src/b.test.js")], capped: false };
    expect(files(planExisting(task("jest --testPathIgnorePatterns=b\\.test"), base))).toEqual([
      "src/a.test.js",
    ]);
  });

  it("Go: a file the command removes first gets nothing; its package's pair goes into another file", () => {
    const base = { texts: [go("calc/a_test.go"), go("calc/b_test.go")], capped: false };
    const plan = planExisting(task("rm -f -- calc/a_test.go && gotestsum --junitfile x -- ./calc"), base);
    expect(files(plan)).toEqual(["calc/b_test.go"]);
  });

  it("a command substitution, a loop, an unknown program before the runner: nothing, and the note says why", () => {
    const base = { texts: [py("tests/test_a.py")], capped: false };
    for (const command of [
      "pytest $(ls tests/test_*.py | grep -v test_b)",
      "for f in tests/*.py; do pytest $f; done",
      "find tests -name 'test_b*' -delete && pytest tests",
    ]) {
      const plan = planExisting(task(command, "pytest"), base);
      expect(plan.sentinel, command).toBeNull();
      expect(plan.none?.note, command).toMatch(/^cannot prove which test files the existing command runs/);
    }
  });

  it("the runner's configuration may change the selection: nothing planted, the file named", () => {
    const texts = [py("tests/test_a.py")];
    const configs = (path: string, text: string) => ({
      texts,
      capped: false,
      configs: new Map([[path, text]]),
    });
    const plan = planExisting(
      task("pytest tests"),
      configs("pytest.ini", "[pytest]\npython_files = check_*.py\n"),
    );
    expect(plan.none?.note).toMatch(/pytest\.ini sets options that change which tests pytest collects/);
    expect(
      planExisting(task("pytest tests"), configs("tests/conftest.py", 'collect_ignore = ["test_a.py"]\n'))
        .sentinel,
    ).toBeNull();
    expect(
      planExisting(task("pytest tests"), configs("pyproject.toml", "[tool.black]\nline-length = 99\n"))
        .sentinel,
    ).not.toBeNull();
    // testpaths only counts when the command names no path.
    const testpaths = configs("setup.cfg", "[tool:pytest]\ntestpaths = tests\n");
    expect(planExisting(task("pytest tests"), testpaths).sentinel).not.toBeNull();
    expect(planExisting(task("pytest -q"), testpaths).sentinel).toBeNull();
    const jsTexts = { texts: [js("src/a.test.js")], capped: false };
    expect(
      planExisting(task("jest"), {
        ...jsTexts,
        configs: new Map([["jest.config.js", "module.exports = { testMatch: ['**/x/*.js'] };"]]),
      }).none?.note,
    ).toMatch(/jest\.config\.js may change which files jest runs/);
    expect(
      planExisting(task("jest"), {
        ...jsTexts,
        configs: new Map([["jest.config.js", "module.exports = { verbose: true };"]]),
      }).sentinel,
    ).not.toBeNull();
  });

  it("a --config FILE is read instead of the default names (jest, vitest, mocha; brief s28 fix, item 3)", () => {
    const jsTexts = { texts: [js("src/a.test.js")], capped: false };
    const testTexts = { texts: [js("test/a.js")], capped: false };
    const note = (command: string, base: typeof jsTexts, configs: Record<string, string | null>) =>
      planExisting(task(command), { ...base, configs: new Map(Object.entries(configs)) }).none?.note ?? null;
    const narrowing = "module.exports = { testMatch: ['**/x/*.js'] };";
    // The file the command names narrows the selection: nothing planted, that file named.
    expect(note("jest --config jest.ci.js", jsTexts, { "jest.ci.js": narrowing })).toMatch(
      /jest\.ci\.js \(its --config\) may change which files jest runs/,
    );
    expect(note("jest -c jest.ci.js", jsTexts, { "jest.ci.js": narrowing })).toMatch(/its --config/);
    expect(note("jest --config=jest.ci.js", jsTexts, { "jest.ci.js": narrowing })).toMatch(/its --config/);
    expect(
      note("vitest run --config vitest.unit.mts", jsTexts, {
        "vitest.unit.mts": "export default { test: { include: ['x/**'] } }",
      }),
    ).toMatch(/vitest\.unit\.mts \(its --config\) may change which files vitest runs/);
    expect(
      note("mocha --config .mocharc.ci.yml test", testTexts, { ".mocharc.ci.yml": "ignore: test/a.js\n" }),
    ).toMatch(/\.mocharc\.ci\.yml \(its --config\) may change which files mocha runs/);
    // The default names are not read then: a narrowing jest.config.js beside a named plain one is jest's to ignore.
    const plain = "module.exports = { verbose: true };";
    const named = { "jest.config.js": narrowing, "jest.ci.js": plain, "ci/jest.ci.js": plain };
    expect(note("jest --config jest.ci.js", jsTexts, named)).toBeNull();
    expect(note("jest", jsTexts, named)).toMatch(/^cannot prove[\s\S]*jest\.config\.js may change/);
    // A plain one in another folder makes that folder jest's rootDir: tests are looked for there.
    expect(note("jest --config ci/jest.ci.js", jsTexts, named)).toMatch(
      /ci\/jest\.ci\.js \(its --config\) makes its own folder jest's rootDir/,
    );
    // A named file the oracle did not read, one outside the checkout, or an inline config that narrows.
    expect(note("jest --config ci/missing.js", jsTexts, {})).toMatch(
      /--config ci\/missing\.js is not a file of the base commit the oracle read/,
    );
    expect(note("jest --config /etc/jest.js", jsTexts, {})).toMatch(/names a file the oracle cannot read/);
    expect(note(`jest --config '{"testMatch":["**/x/*.js"]}'`, jsTexts, {})).toMatch(
      /the --config given inline may change which files jest runs/,
    );
    expect(note(`jest --config '{"verbose":true}'`, jsTexts, {})).toBeNull();
    // mocha's -c is --colors, not its config.
    expect(note("mocha -c test", testTexts, {})).toBeNull();
  });
});

describe("SETUP_SHAPES: the grep for setup files and the seal plan's readers (brief s26 sealjs3, item 5)", () => {
  const READERS: Record<SetupReader, (text: string) => boolean> = {
    extendedMatchers: (text) => extendedMatchers([{ text }]).size > 0,
    equalityTestersIn,
    chaiPluginIn,
    assertPatchedIn,
    expectRebound,
    ASSERTS_SWAPPED: assertsSwappedIn,
  };
  it("each row's example is found by its own patterns and accepted by the reader it names; baseTestTexts reads them all", async () => {
    const files = Object.fromEntries(
      SETUP_SHAPES.map((row, i) => [`setup/row${i}.${row.sources === "python" ? "py" : "js"}`, row.example]),
    );
    const { gitDir, base } = repoWith({ ...files, "package.json": "{}", "test/a.test.js": "" });
    SETUP_SHAPES.forEach((row, i) => {
      const found = execFileSync(
        "git",
        [
          "--git-dir",
          gitDir,
          "grep",
          "-l",
          "-I",
          "-E",
          "--all-match",
          ...row.patterns.flatMap((p) => ["-e", p]),
          base,
        ],
        { encoding: "utf8" },
      );
      expect(found, row.why).toContain(`setup/row${i}.`);
      expect(READERS[row.reader](row.example), row.why).toBe(true);
    });
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual(Object.keys(files).sort());
  });
  it("a setup file giving assert or expect another name before patching it is read (global.t = assert; t.equal = …)", async () => {
    const { gitDir, base } = repoWith({
      "package.json": "{}",
      "test/setup/strict.js":
        'const assert = require("assert");\nglobal.t = assert;\nt.equal = t.strictEqual;\n',
      "test/setup/check.js": "Object.assign(globalThis, { expect: wrap(expect) });\n",
      "test/setup/plain.js": 'import assert from "node:assert";\nexport const ok = () => assert.ok(true);\n',
      "test/unit/a.test.js": "",
    });
    const read = await baseTestTexts(gitDir, base, ["test/unit/**"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual(["test/setup/check.js", "test/setup/strict.js"]);
  });
});

describe("setup modules of jest projects, presets and roots (brief s26 sealjs3, items 1 and 2)", () => {
  it("an inline project's setup files, a repository preset's (resolved from the config's root), and setup entries under rootDir are read; a package preset other than ts-jest's is a module the planner cannot read", async () => {
    const { gitDir, base } = repoWith({
      "package.json": JSON.stringify({
        jest: {
          projects: [{ displayName: "a", setupFilesAfterEnv: ["<rootDir>/a/setup.js"] }, "<rootDir>/web"],
        },
      }),
      "a/setup.js": "global.loose = true;\n",
      "web/jest.config.js": 'module.exports = { preset: "./jest-preset.js" };\n',
      "web/jest-preset.js":
        'module.exports = { setupFilesAfterEnv: ["jest-extended/all", "<rootDir>/tools/setup.js"] };\n',
      "web/tools/setup.js": "global.tools = 1;\n",
      "lib/jest.config.js":
        'module.exports = { rootDir: "src", preset: "ts-jest", setupFiles: ["<rootDir>/setup.js", "./env.js"] };\n',
      "lib/setup.js": "// not this one: the root is src\n",
      "lib/src/setup.js": "global.lib = 1;\n",
      "lib/src/env.js": "global.env = 1;\n",
      "app/jest.config.json": JSON.stringify({ preset: "<rootDir>/config", rootDir: "." }),
      "app/config/jest-preset.json": JSON.stringify({ setupFiles: ["./app-setup.js"] }),
      "app/app-setup.js": "global.app = 1;\n",
      "mobile/jest.config.js": 'module.exports = { preset: "jest-expo" };\n',
      "computed/jest.config.js":
        'module.exports = { rootDir: path.resolve(__dirname, "src"), setupFiles: ["<rootDir>/s.js"] };\n',
      "computed/s.js": "global.s = 1;\n",
      "here/jest.config.js": 'module.exports = { rootDir: __dirname, setupFiles: ["<rootDir>/h.js"] };\n',
      "here/h.js": "global.h = 1;\n",
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "a/setup.js",
      "app/app-setup.js",
      "computed/jest.config.js: setupFiles <rootDir>/s.js",
      "here/h.js",
      "lib/src/env.js",
      "lib/src/setup.js",
      "mobile/jest.config.js: preset jest-expo",
      "web/jest-preset.js: setupFilesAfterEnv jest-extended/all",
      "web/tools/setup.js",
    ]);
  });
  it("a project given as a config file (projects: ['<rootDir>/config/jest.unit.js']) is read as a config of its own folder", async () => {
    const { gitDir, base } = repoWith({
      "package.json": JSON.stringify({
        jest: { projects: ["<rootDir>/config/jest.unit.js", "<rootDir>/pkgs/*"] },
      }),
      "config/jest.unit.js":
        'module.exports = { setupFilesAfterEnv: ["<rootDir>/unit-setup.js", "jest-extended/all"] };\n',
      "config/unit-setup.js": "global.unit = 1;\n",
      "e2e/jest.config.js":
        'module.exports = { projects: ["<rootDir>/jest.e2e.config.cjs", { displayName: "x" }] };\n',
      "e2e/jest.e2e.config.cjs": 'module.exports = { setupFiles: ["./e2e-setup.js"] };\n',
      "e2e/e2e-setup.js": "global.e2e = 1;\n",
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "config/jest.unit.js: setupFilesAfterEnv jest-extended/all",
      "config/unit-setup.js",
      "e2e/e2e-setup.js",
    ]);
  });
  it("an environment that is not the runner's own, a repository file too, is a module the planner cannot read: it builds the tests' global object (this.global.Object.is)", async () => {
    const { gitDir, base } = repoWith({
      "package.json": JSON.stringify({ jest: { testEnvironment: "./test/loose-env.js" } }),
      "test/loose-env.js":
        'const { TestEnvironment } = require("jest-environment-node");\nmodule.exports = class extends TestEnvironment {};\n',
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const read = await baseTestTexts(gitDir, base, ["test/a.test.js"]);
    expect(read.setup?.map((t) => t.path)).toEqual(["package.json: testEnvironment ./test/loose-env.js"]);
  });
});

describe("setup files past the cap (brief s26 sealjs3, item 4)", () => {
  it("a setup file or a runner config past the first 200 is read as one that redefines everything, not dropped", async () => {
    const files: Record<string, string> = { "test/a.test.js": "", "package.json": "{}" };
    for (let i = 0; i < 200; i++)
      files[`setup/m${String(i).padStart(3, "0")}.js`] = "expect.extend({ toBeFoo() {} });\n";
    files["setup/zz.js"] = "expect.extend({ toBe(r, e) { return { pass: r == e }; } });\n";
    files["tests/zz_helpers.py"] = "case.addTypeEqualityFunc(dict, f)\n";
    for (let i = 0; i < 200; i++) files[`pkgs/p${String(i).padStart(3, "0")}/package.json`] = "{}";
    files["zz/jest.config.js"] = 'module.exports = { setupFilesAfterEnv: ["jest-extended/all"] };\n';
    const { gitDir, base } = repoWith(files);
    const read = await baseTestTexts(gitDir, base, ["test/**"]);
    const text = (path: string) => read.setup?.find((t) => t.path === path)?.text;
    expect(text("setup/m000.js")).toBe("expect.extend({ toBeFoo() {} });\n");
    expect(text("setup/zz.js")).toMatch(/expect\.extend\(unread\)/);
    expect(text("setup/zz.js")).toMatch(/assert\.unread = unread/);
    expect(text("tests/zz_helpers.py")).toMatch(/addTypeEqualityFunc/);
    expect(
      read.setup?.filter((t) => /runner configs past the first 200/.test(t.path)).map((t) => t.text),
    ).toEqual([setupModuleText("jest", "a config past the first 200")]);
  });
});

describe("configs a suite's command names by --config (brief s27 jsfix, item 1)", () => {
  it("reads the config that jest --config, vitest -c or a package script names, whatever its name, and the setup flags of the command line", () => {
    const scripts = new Map([["web", { test: "vitest run -c config/vt.mts" }]]);
    const named = commandConfigs(
      [
        "ln -sfn x y && JEST_JUNIT_OUTPUT_FILE=r node_modules/.bin/jest --ci --config=jest.ci.js test/regression",
        "cd web && npm test -- test/a.test.ts",
        'npx jest --setupFilesAfterEnv ./s1.js ./s2.js --env=./env.js -c \'{"setupFiles":["p"]}\' test',
        "jest --config ../elsewhere.js",
        "mocha --config .mocharc.ci.json",
      ],
      scripts,
    );
    expect(
      named.map(({ runner, config, outside, inline, entries }) => ({
        runner,
        config,
        outside,
        inline,
        entries,
      })),
    ).toEqual([
      { runner: "jest", config: "jest.ci.js", outside: null, inline: null, entries: [] },
      { runner: "vitest", config: "web/config/vt.mts", outside: null, inline: null, entries: [] },
      {
        runner: "jest",
        config: null,
        outside: null,
        inline: '{"setupFiles":["p"]}',
        entries: [
          { key: "setupFilesAfterEnv", value: "./s1.js" },
          { key: "setupFilesAfterEnv", value: "./s2.js" },
          { key: "testEnvironment", value: "./env.js" },
        ],
      },
      { runner: "jest", config: null, outside: "../elsewhere.js", inline: null, entries: [] },
    ]);
  });

  it("a setup module or environment named only in such a config is read; a config the checkout does not hold is a module the planner cannot read", async () => {
    const { gitDir, base } = repoWith({
      "package.json": JSON.stringify({ scripts: { test: "jest --config config/jest.ci.js" } }),
      "config/jest.ci.js":
        'module.exports = { rootDir: "..", testEnvironment: "./test/loose-env.js", setupFilesAfterEnv: ["<rootDir>/test/setup.js", "jest-extended/all"] };\n',
      "test/loose-env.js": "module.exports = class {};\n",
      "test/setup.js": "global.loose = 1;\n",
      "web/vt.config.ts":
        'export default { test: { setupFiles: ["./web-setup.ts"], environment: "./web-env.ts" } };\n',
      "web/web-setup.ts": "globalThis.web = 1;\n",
      "test/a.test.js": 'test("a", () => {});\n',
    });
    const scripts = await basePackageScripts(gitDir, base, ["npm test"]);
    const commands = commandConfigs(
      [
        "npm test",
        "cd web && vitest run --config vt.config.ts",
        "jest --config missing.js",
        "jest -c /abs/jest.js",
      ],
      scripts,
    );
    const read = await baseTestTexts(gitDir, base, ["test/a.test.js"], commands);
    expect(read.setup?.map((t) => t.path).sort()).toEqual([
      "config/jest.ci.js: setupFilesAfterEnv jest-extended/all",
      "config/jest.ci.js: testEnvironment ./test/loose-env.js",
      "jest --config /abs/jest.js: config /abs/jest.js",
      "jest --config missing.js: config missing.js",
      "test/setup.js",
      "web/vt.config.ts: environment ./web-env.ts",
      "web/web-setup.ts",
    ]);
    // Without the commands, none of them is seen (the fix's case: the config's name is not a config name).
    expect((await baseTestTexts(gitDir, base, ["test/a.test.js"])).setup?.map((t) => t.path)).toEqual([]);
  });
});
