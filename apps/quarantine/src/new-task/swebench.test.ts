// A SWE-bench row of a JS repository whose devDependencies do not resolve together: the import
// falls back, as --fix does, to the packages its suites import (read from the base with the test
// patch applied). Resolved with npm against the registry, so it takes seconds.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planDataset } from "./swebench.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "oracle-swebench-imports-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
  GIT_CONFIG_GLOBAL: "/dev/null",
};
const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-C", repo, ...args], { env: GIT_ENV, encoding: "utf8" }).trim();

async function write(repo: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
}

describe("oracle-new-task --swebench: a JS repository whose devDependencies clash", () => {
  it("builds the image from the packages the suites import, the hidden tests' included", async () => {
    const repo = join(dir, "repos", "a", "b");
    await mkdir(repo, { recursive: true });
    git(repo, "init", "-q", "-b", "main");
    // react-dom 18 wants react 18: npm refuses the whole set (ERESOLVE).
    await write(repo, {
      "package.json": JSON.stringify({
        name: "b",
        version: "1.0.0",
        dependencies: { react: "17.0.2" },
        devDependencies: {
          "react-dom": "18.2.0",
          mocha: "10.8.2",
          "left-pad": "1.3.0",
          "is-number": "7.0.0",
        },
      }),
      "src/pad.js": "module.exports = (s) => s;\n",
      "test/other.test.js":
        "const assert = require('assert');\nit('adds', () => assert.strictEqual(1 + 1, 2));\n",
    });
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "base");
    const base = git(repo, "rev-parse", "HEAD");
    // The fix, and a hidden test that imports left-pad (at the base no file does).
    await write(repo, {
      "src/pad.js": "const leftPad = require('left-pad');\nmodule.exports = (s) => leftPad(s, 3);\n",
      "test/pad.test.js":
        "const assert = require('assert');\nconst leftPad = require('left-pad');\nconst pad = require('../src/pad');\nit('pads', () => assert.strictEqual(pad('a'), leftPad('a', 3)));\n",
    });
    git(repo, "add", "-N", "test/pad.test.js");
    const diff = (path: string) => `${git(repo, "diff", "--", path)}\n`;
    const patch = diff("src");
    const testPatch = diff("test");
    const dataset = join(dir, "rows.jsonl");
    const row = {
      instance_id: "a__b-1",
      repo: "a/b",
      base_commit: base,
      patch,
      test_patch: testPatch,
      FAIL_TO_PASS: ["test/pad.test.js::pads"],
      PASS_TO_PASS: [],
    };
    await writeFile(dataset, `${JSON.stringify(row)}\n`);
    const root = join(dir, "root");
    await mkdir(join(root, "images"), { recursive: true });
    const { images } = await planDataset({ root, dataset, repos: join(dir, "repos") });
    const manifest = JSON.parse(
      await readFile(join(root, "images", images[0]!.name, "package.json"), "utf8"),
    );
    expect(Object.keys(manifest.devDependencies)).toContain("left-pad");
    expect(Object.keys(manifest.devDependencies)).not.toContain("react-dom");
    expect(images[0]!.notes.join("\n")).toMatch(/only the packages the suites import/);
  }, 300_000);
});

describe("oracle-new-task --swebench: what --fix gives a jest repository", () => {
  it("a jest.config.ts without ts-node in the package.json: the image adds it; the suites get jest's workers and test timeout", async () => {
    const repo = join(dir, "repos", "c", "d");
    await mkdir(repo, { recursive: true });
    git(repo, "init", "-q", "-b", "main");
    await write(repo, {
      "package.json": JSON.stringify({ name: "d", version: "1.0.0", devDependencies: { jest: "30.5.2" } }),
      "jest.config.ts": "export default { testEnvironment: 'node' };\n",
      "src/one.js": "module.exports = () => 1;\n",
      "test/other.test.js": "test('adds', () => expect(1 + 1).toBe(2));\n",
    });
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "base");
    const base = git(repo, "rev-parse", "HEAD");
    await write(repo, {
      "src/one.js": "module.exports = () => 2;\n",
      "test/one.test.js": "const one = require('../src/one');\ntest('two', () => expect(one()).toBe(2));\n",
    });
    git(repo, "add", "-N", "test/one.test.js");
    const diff = (path: string) => `${git(repo, "diff", "--", path)}\n`;
    const dataset = join(dir, "rows-jest.jsonl");
    const row = {
      instance_id: "c__d-1",
      repo: "c/d",
      base_commit: base,
      patch: diff("src"),
      test_patch: diff("test"),
      FAIL_TO_PASS: ["test/one.test.js::two"],
      PASS_TO_PASS: [],
    };
    await writeFile(dataset, `${JSON.stringify(row)}\n`);
    const root = join(dir, "root-jest");
    await mkdir(join(root, "images"), { recursive: true });
    const { plans, images } = await planDataset({ root, dataset, repos: join(dir, "repos") });
    const manifest = JSON.parse(
      await readFile(join(root, "images", images[0]!.name, "package.json"), "utf8"),
    );
    expect(manifest.devDependencies["ts-node"]).toBeDefined();
    expect(images[0]!.notes.join("\n")).toMatch(/jest reads the repository's TypeScript config with ts-node/);
    const suites = plans[0]!.task.suites as { existing: { command: string }; hidden: { command: string } };
    expect(suites.hidden.command).toContain("--testTimeout=30000");
    expect(suites.existing.command).toContain("--maxWorkers=2");
  }, 300_000);
});

describe("oracle-new-task --swebench: a Python row is read as --fix reads its repository", () => {
  it("the check that the tests import the repository's own copy of a module the image has too, and the stand-in for a version file the build writes", async () => {
    // Issue 31: rows got neither (from-fix.ts had them to itself); both now come from repoSuiteInputs
    // and addOwnModulesCheck, which --fix and --swebench share.
    const repo = join(dir, "repos", "e", "f");
    await mkdir(repo, { recursive: true });
    git(repo, "init", "-q", "-b", "main");
    await write(repo, {
      "pyproject.toml": '[tool.setuptools_scm]\nwrite_to = "packaging/_version.py"\n',
      "packaging/__init__.py": "def one():\n    return 1\n",
      "tests/test_other.py": "import packaging\n\ndef test_other():\n    assert packaging.one() == 1\n",
    });
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "base");
    const base = git(repo, "rev-parse", "HEAD");
    await write(repo, {
      "packaging/__init__.py": "def one():\n    return 1\n\ndef two():\n    return 2\n",
      "tests/test_two.py": "import packaging\n\ndef test_two():\n    assert packaging.two() == 2\n",
    });
    git(repo, "add", "-N", "tests/test_two.py");
    const diff = (path: string) => `${git(repo, "diff", "--", path)}\n`;
    const dataset = join(dir, "rows-py.jsonl");
    const row = {
      instance_id: "e__f-1",
      repo: "e/f",
      base_commit: base,
      patch: diff("packaging"),
      test_patch: diff("tests"),
      FAIL_TO_PASS: ["tests/test_two.py::test_two"],
      PASS_TO_PASS: ["tests/test_other.py::test_other"],
    };
    await writeFile(dataset, `${JSON.stringify(row)}\n`);
    const root = join(dir, "root-py");
    await mkdir(join(root, "images"), { recursive: true });
    const { plans } = await planDataset({ root, dataset, repos: join(dir, "repos") });
    const suites = plans[0]!.task.suites as { existing: { command: string }; hidden: { command: string } };
    for (const command of [suites.existing.command, suites.hidden.command]) {
      expect(command).toMatch(/import importlib\.util as u.* packaging && /);
      expect(command).toContain("> packaging/_version.py && ");
    }
    expect(plans[0]!.warnings.join("\n")).toMatch(/the image has a copy of its own of packaging/);
  }, 120_000);
});
