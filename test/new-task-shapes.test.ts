// `oracle-new-task --repo --fix`, unaided, on the shapes real repositories have (issue 31): a Python
// src layout whose pytest configuration lives in pyproject.toml (testpaths, addopts with
// --strict-markers, markers) and whose hidden file holds a test upstream skips at the base and the
// fix alike; a repository whose only test file is the one the fix changes; existing tests broken at
// the base in the image, and an import the image lacks; a Go package whose tests print without a
// final newline; a JS repository whose lockfile pins a version older than the newest its range
// takes. Each must come out healthy with no flag.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binPath, makeTempRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo } from "./fixtures/repos/make-repo.js";

let temp: { root: string; cleanup: () => Promise<void> };
let scratch: string;

const newTask = (args: string[]) =>
  run(binPath("oracle-new-task"), ["--root", temp.root, ...args], { timeoutMs: 900_000 });
const readTask = async (id: string) =>
  JSON.parse(await readFile(join(temp.root, "tasks", id, "task.json"), "utf8"));
const grade = (id: string, args: string[]) =>
  run(binPath("oracle-grade"), [id, "--root", temp.root, ...args], { timeoutMs: 300_000 });

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ images: "images" });
  scratch = await mkdtemp(join(tmpdir(), "oracle-new-task-shapes-"));
});

afterAll(async () => {
  await temp?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("oracle-new-task on the shapes of real repositories, with no flag", () => {
  it("Python: a src layout, pytest's configuration in pyproject.toml, a hidden test upstream skips, and one that fails whatever the diff", async () => {
    const repo = join(scratch, "calc-src");
    // wcwidth 4c91403: a hidden test reads the installed package's version, and the image installs
    // nothing of the repository: it fails at the base and with gold alike, and is left out.
    const skipped =
      '\n\n@pytest.mark.skip(reason="todo")\ndef test_mul_matrices():\n    assert False\n\n\ndef test_version():\n    import importlib.metadata\n\n    assert importlib.metadata.version("calc")\n';
    await makeRepo(repo, [
      {
        "pyproject.toml":
          '[project]\nname = "calc"\nversion = "1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "--strict-markers"\nmarkers = ["slow: takes long"]\n',
        "src/calc/__init__.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n",
        "tests/test_add.py":
          "import pytest\n\nfrom calc import add\n\n\n@pytest.mark.slow\ndef test_add():\n    assert add(2, 3) == 5\n",
        "tests/test_mul.py": `import pytest\n\nfrom calc import mul\n\n\ndef test_mul_one():\n    assert mul(1, 1) == 2${skipped}`,
      },
      {
        "src/calc/__init__.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
        "tests/test_mul.py": `import pytest\n\nfrom calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6${skipped}`,
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "calc-src", "--repeat", "1"]);
    expect(result.stderr).toMatch(
      /note: hidden test hidden:tests\.test_mul::test_version fails at the base commit and with gold\.diff alike, in every run \(the first error: importlib\.metadata\.PackageNotFoundError: .*\), so it is neither FAIL_TO_PASS nor PASS_TO_PASS: left out of the hidden suite/,
    );
    expect(result.stdout, result.stderr).toContain("tasks/calc-src: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("calc-src");
    expect(task.suites.hidden.command).toContain("--deselect tests/test_mul.py::test_version ");
    expect(task.env).toMatchObject({ PYTHONPATH: "src" });
    expect(task.suites.existing.files).toContain("pyproject.toml");
    // The test upstream skips is skipped, never failed: the sweep's record leaves it out of both lists.
    const record = JSON.parse(
      await readFile(join(temp.root, "tasks", "calc-src", "expected-tests.recorded.json"), "utf8"),
    );
    expect(record.suites.hidden.failToPass).toEqual(["hidden:tests.test_mul::test_mul"]);
    expect(JSON.stringify(record)).not.toContain("test_mul_matrices");
    // healthy above: the validation graded this folder's gold.diff PASS and its baseline FAIL; graded
    // again, the baseline still FAILs (the folder is the one validated).
    expect((await grade("calc-src", ["--baseline"])).code).toBe(1);
  });

  it("a repository whose only test file is the one the fix changes (jshttp/mime-types): the existing suite is its base version", async () => {
    const repo = join(scratch, "clamp-one-file");
    const low = "def test_low():\n    assert clamp(-1, 0, 9) == 0\n";
    await makeRepo(repo, [
      {
        "calc.py": "def clamp(v, lo, hi):\n    return max(lo, v)\n",
        // The fix rewrites the second test, which asserts the old behaviour.
        "tests/test_calc.py": `from calc import clamp\n\n\n${low}\n\ndef test_high_is_unbounded():\n    assert clamp(10, 0, 9) == 10\n`,
      },
      {
        "calc.py": "def clamp(v, lo, hi):\n    return min(hi, max(lo, v))\n",
        "tests/test_calc.py": `from calc import clamp\n\n\n${low}\n\ndef test_high():\n    assert clamp(10, 0, 9) == 9\n`,
      },
    ]);
    const result = await newTask([
      "--repo",
      repo,
      "--fix",
      "HEAD",
      "--id",
      "clamp-one-file",
      "--repeat",
      "1",
    ]);
    expect(result.stderr).toMatch(/the existing suite runs the base version of tests\/test_calc\.py/);
    expect(result.stderr).toMatch(
      /1 test of the base version of the fix's test files fails only with gold\.diff .*: left out of the existing suite: existing:tests\.test_calc::test_high_is_unbounded/,
    );
    expect(result.stdout, result.stderr).toContain("tasks/clamp-one-file: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("clamp-one-file");
    expect(task.suites.existing.command).toMatch(
      / --deselect tests\/test_calc\.py::test_high_is_unbounded tests\/test_calc\.py$/,
    );
    expect(task.suites.existing.files).toContain("tests/test_calc.py");
  });

  it("existing tests broken at the base in this image are left out and named, and an import the image lacks is named with its remedy", async () => {
    const repo = join(scratch, "clamp-broken");
    await makeRepo(repo, [
      {
        "calc.py": "def clamp(v, lo, hi):\n    return max(lo, v)\n",
        "tests/test_low.py": "from calc import clamp\n\n\ndef test_low():\n    assert clamp(-1, 0, 9) == 0\n",
        // Python 3.11 rejects a sample of a dict's keys (jmespath.py): it fails at the base and the fix alike.
        "tests/test_pick.py":
          "import random\n\n\ndef test_pick():\n    assert random.sample({'a': 1}.keys(), 1) == ['a']\n\n\ndef test_fine():\n    assert True\n",
        // A third-party module new-task does not know, which the image lacks.
        "tests/test_param.py":
          "from parameterized import parameterized\n\nfrom calc import clamp\n\n\n@parameterized.expand([(1,), (2,)])\ndef test_in(v):\n    assert clamp(v, 0, 9) == v\n",
      },
      {
        "calc.py": "def clamp(v, lo, hi):\n    return min(hi, max(lo, v))\n",
        "tests/test_high.py":
          "from calc import clamp\n\n\ndef test_high():\n    assert clamp(10, 0, 9) == 9\n",
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "clamp-broken", "--repeat", "1"]);
    expect(result.stderr).toMatch(
      /note: tests\/test_param\.py imports parameterized, which images\/python-pytest lacks: .*apt-cache search python3-parameterized.* --image NAME --force/,
    );
    // pytest stops at a file that fails to import before running any test: the broken test shows next.
    expect(result.stderr).toMatch(
      /1 existing test fails at the base commit in this image, before any diff, and with gold\.diff alike .*: left out of the existing suite: existing:::tests\.test_param\n/,
    );
    expect(result.stderr).toMatch(/left out of the existing suite: existing:tests\.test_pick::test_pick\n/);
    expect(result.stdout, result.stderr).toContain("tasks/clamp-broken: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("clamp-broken");
    expect(task.suites.existing.command).toMatch(
      / --deselect tests\/test_pick\.py::test_pick tests\/test_low\.py tests\/test_pick\.py$/,
    );
    expect(task.suites.existing.files).not.toContain("tests/test_param.py");
  });

  it("JS: a jest test that parses process.argv as a program would (commander.js) runs as upstream runs it, and one broken at the base is left out by -t", async () => {
    const repo = join(scratch, "clamp-argv");
    const manifest = {
      name: "clamp",
      version: "1.0.0",
      scripts: { test: "jest" },
      devDependencies: { jest: "30.5.2" },
    };
    await makeRepo(repo, [
      {
        "package.json": `${JSON.stringify(manifest, null, 2)}\n`,
        "src/clamp.js": "exports.clamp = (v, lo, hi) => Math.max(lo, v);\n",
        "tests/low.test.js":
          "const { clamp } = require('../src/clamp');\ntest('low', () => expect(clamp(-1, 0, 9)).toBe(0));\n",
        // Array.prototype.toSorted came with Node 20; the image has Node 18: broken at the base and the fix alike.
        "tests/sort.test.js":
          "describe('arrays (node 20)', () => {\n  test('toSorted', () => expect([2, 1].toSorted()).toEqual([1, 2]));\n  test('sort', () => expect([2, 1].sort()).toEqual([1, 2]));\n});\n",
        // commander's `program.parse()` reads process.argv: upstream's jest gives it no flags.
        "tests/argv.test.js":
          "test('the program gets no flags of the runner', () => {\n  expect(process.argv.slice(2).filter((a) => a.startsWith('-'))).toEqual([]);\n});\n",
      },
      {
        "src/clamp.js": "exports.clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));\n",
        "tests/high.test.js":
          "const { clamp } = require('../src/clamp');\ntest('high', () => expect(clamp(10, 0, 9)).toBe(9));\n",
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "clamp-argv", "--repeat", "1"]);
    expect(result.stderr).toMatch(
      /1 existing test fails at the base commit in this image, .*: left out of the existing suite: existing:arrays \(node 20\) toSorted::arrays \(node 20\) toSorted\n/,
    );
    expect(result.stdout, result.stderr).toContain("tasks/clamp-argv: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("clamp-argv");
    expect(task.suites.existing.command).toContain("--maxWorkers=2 --testTimeout=30000");
    // jest's -t: every test but the broken one, by its full name (the record keeps `sort`).
    expect(task.suites.existing.command).toContain(" -t '^(?!(?:arrays \\(node 20\\) toSorted)$)' ");
    const record = await readFile(
      join(temp.root, "tasks", "clamp-argv", "expected-tests.recorded.json"),
      "utf8",
    );
    expect(record).toContain("arrays (node 20) sort");
    expect(record).not.toContain("toSorted");
    // Two validations (the first finds the broken test): more than the default 180 s on a loaded machine.
  }, 600_000);

  it("JS: a vitest test broken at the base is left out by -t, as vitest reads full names", async () => {
    const repo = join(scratch, "clamp-vitest");
    const manifest = {
      name: "clamp",
      version: "1.0.0",
      type: "module",
      scripts: { test: "vitest run" },
      devDependencies: { vitest: "2.1.9" },
    };
    const vt = "import { describe, expect, test } from 'vitest';\nimport { clamp } from '../src/clamp.js';\n";
    await makeRepo(repo, [
      {
        "package.json": `${JSON.stringify(manifest, null, 2)}\n`,
        "src/clamp.js": "export const clamp = (v, lo, hi) => Math.max(lo, v);\n",
        "tests/low.test.js": `${vt}test('low', () => expect(clamp(-1, 0, 9)).toBe(0));\n`,
        // Array.prototype.toSorted came with Node 20; the image has Node 18: broken at the base and the fix alike.
        "tests/sort.test.js":
          "import { describe, expect, test } from 'vitest';\ndescribe('arrays (node 20)', () => {\n  test('toSorted', () => expect([2, 1].toSorted()).toEqual([1, 2]));\n  test('sort', () => expect([2, 1].sort()).toEqual([1, 2]));\n});\n",
      },
      {
        "src/clamp.js": "export const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));\n",
        "tests/high.test.js": `${vt}test('high', () => expect(clamp(10, 0, 9)).toBe(9));\n`,
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "clamp-vitest", "--repeat", "1"]);
    expect(result.stderr).toMatch(
      /1 existing test fails at the base commit in this image, .*: left out of the existing suite: existing:tests\/sort\.test\.js::arrays \(node 20\) > toSorted\n/,
    );
    expect(result.stdout, result.stderr).toContain("tasks/clamp-vitest: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("clamp-vitest");
    expect(task.suites.existing.command).toContain(" -t '^(?!.*(?:arrays \\(node 20\\) toSorted)$)' ");
    const record = await readFile(
      join(temp.root, "tasks", "clamp-vitest", "expected-tests.recorded.json"),
      "utf8",
    );
    expect(record).toContain("arrays (node 20) > sort");
    expect(record).not.toContain("toSorted");
  }, 600_000);

  it("Go: tests that print without a final newline pass, as `go test` says", async () => {
    const repo = join(scratch, "clamp-print");
    const inside =
      'package clamp\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\nfunc TestInside(t *testing.T) {\n\tfmt.Print("checking inside")\n\tif Clamp(5, 0, 9) != 5 {\n\t\tt.Fatal("inside")\n\t}\n}\n';
    await makeRepo(repo, [
      {
        "go.mod": "module example.com/clamp\n\ngo 1.19\n",
        "clamp.go":
          "package clamp\n\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\treturn v\n}\n",
        "inside_test.go": inside,
      },
      {
        "clamp.go":
          "package clamp\n\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\tif v > hi {\n\t\treturn hi\n\t}\n\treturn v\n}\n",
        "high_test.go":
          'package clamp\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\nfunc TestHigh(t *testing.T) {\n\tfmt.Printf("clamping %d", 10)\n\tif Clamp(10, 0, 9) != 9 {\n\t\tt.Fatal("high")\n\t}\n}\n',
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "clamp-print", "--repeat", "1"]);
    expect(result.stdout, result.stderr).toContain("tasks/clamp-print: healthy");
    expect(result.code).toBe(0);
  });

  it("Go: a whole suite over the report's cap is narrowed to the packages the fix touches, and validated again", async () => {
    const repo = join(scratch, "clamp-big");
    // Another package's table test runs 50,001 subtests: every package together passes the oracle's
    // cap of 50,000 testcases in one report (REPORT_INVALID), as a large module's whole suite does.
    const big =
      'package big\n\nimport (\n\t"strconv"\n\t"testing"\n)\n\nfunc TestMany(t *testing.T) {\n\tfor i := 0; i <= 50000; i++ {\n\t\tt.Run(strconv.Itoa(i), func(t *testing.T) {})\n\t}\n}\n';
    await makeRepo(repo, [
      {
        "go.mod": "module example.com/clamp\n\ngo 1.19\n",
        "big/big.go": "package big\n",
        "big/big_test.go": big,
        "clamp/clamp.go":
          "package clamp\n\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\treturn v\n}\n",
        "clamp/inside_test.go":
          'package clamp\n\nimport "testing"\n\nfunc TestInside(t *testing.T) {\n\tif Clamp(5, 0, 9) != 5 {\n\t\tt.Fatal("inside")\n\t}\n}\n',
      },
      {
        "clamp/clamp.go":
          "package clamp\n\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\tif v > hi {\n\t\treturn hi\n\t}\n\treturn v\n}\n",
        "clamp/high_test.go":
          'package clamp\n\nimport "testing"\n\nfunc TestHigh(t *testing.T) {\n\tif Clamp(10, 0, 9) != 9 {\n\t\tt.Fatal("high")\n\t}\n}\n',
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "clamp-big", "--repeat", "1"]);
    expect(result.stderr).toMatch(/more than 50000 testcases/);
    expect(result.stderr).toMatch(/narrow/);
    expect(result.stdout, result.stderr).toContain("tasks/clamp-big: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("clamp-big");
    expect(task.suites.existing.files).toContain("clamp/inside_test.go");
    expect(task.suites.existing.files).not.toContain("big/big_test.go");
    expect(task.suites.existing.command).toMatch(/ \.\/clamp$/);
  });

  it("JS: the repository's lockfile decides the versions (older than the newest its ranges take)", async () => {
    const repo = join(scratch, "pad-lock");
    // The lockfile pins left-pad 1.1.3 under the range ^1.1.0 (the newest is 1.3.0); the existing
    // suite checks the version it runs against, as a suite that passes only with its pins would.
    const lockDir = await mkdtemp(join(tmpdir(), "oracle-lock-"));
    try {
      await writeFile(join(lockDir, "package.json"), JSON.stringify({ name: "pad", version: "1.0.0" }));
      execFileSync(
        "npm",
        [
          "install",
          "--package-lock-only",
          "--save-exact",
          "--no-audit",
          "--no-fund",
          "--ignore-scripts",
          "left-pad@1.1.3",
          "mocha@10.8.2",
        ],
        { cwd: lockDir, stdio: "pipe" },
      );
      const manifest = {
        name: "pad",
        version: "1.0.0",
        devDependencies: { "left-pad": "^1.1.0", mocha: "10.8.2" },
      };
      const lock = JSON.parse(await readFile(join(lockDir, "package-lock.json"), "utf8"));
      delete lock.packages[""].dependencies;
      lock.packages[""].devDependencies = manifest.devDependencies;
      for (const name of ["left-pad", "mocha"]) lock.packages[`node_modules/${name}`].dev = true;
      await makeRepo(repo, [
        {
          "package.json": `${JSON.stringify(manifest, null, 2)}\n`,
          "package-lock.json": `${JSON.stringify(lock, null, 2)}\n`,
          "src/pad.js": "const leftPad = require('left-pad');\nexports.pad = (s, n) => leftPad(s, n - 1);\n",
          "test/version.test.js":
            "const assert = require('node:assert');\nit('runs the pinned left-pad', () => assert.strictEqual(require('left-pad/package.json').version, '1.1.3'));\n",
        },
        {
          "src/pad.js": "const leftPad = require('left-pad');\nexports.pad = (s, n) => leftPad(s, n);\n",
          "test/pad.test.js":
            "const assert = require('node:assert');\nconst { pad } = require('../src/pad');\nit('pads to the width', () => assert.strictEqual(pad('a', 3), '  a'));\n",
        },
      ]);
    } finally {
      await rm(lockDir, { recursive: true, force: true });
    }
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "pad-lock", "--repeat", "1"]);
    expect(result.stdout, result.stderr).toContain("tasks/pad-lock: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("pad-lock");
    const imageLock = JSON.parse(
      await readFile(join(temp.root, "images", task.image, "package-lock.json"), "utf8"),
    );
    expect(imageLock.packages["node_modules/left-pad"].version).toBe("1.1.3");
  });
});
