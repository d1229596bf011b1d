// The runner cannot be shadowed from the checkout (issue 13, classes 2 and 3): a diff that replaces
// pytest, _pytest or pluggy through the checkout's place on sys.path, that registers a pytest11
// plugin through packaging metadata in any letter case, or that plants node_modules/.bin/mocha.
// Each hostile diff leaves the bug unfixed, so a defence that does not hold shows as a wrong PASS.
// docs/security.md names each case.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Corpus,
  expectOutcome,
  type FixtureTask,
  type Graded,
  gradeCase,
  makeCorpus,
  makeDiff,
  TASKS,
  writeFiles,
} from "./harness.js";

/** hostile-py with PYTHONPATH=lib (a folder the base commit does not have). */
const PY_PATH = "hostile-py-pythonpath";
/** hostile-node without the default deny list. */
const NODE_OPEN = "hostile-node-open";

let corpus: Corpus;

interface TaskFile {
  id: string;
  env: Record<string, string>;
  diff: { denyDefaults?: boolean };
}

function variant(from: string, id: string, edit: (task: TaskFile) => void): void {
  const dir = join(corpus.root, "tasks", id);
  cpSync(join(corpus.root, "tasks", from), dir, { recursive: true });
  const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8")) as TaskFile;
  task.id = id;
  edit(task);
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(task, null, 2)}\n`);
}

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus();
  variant(TASKS.py, PY_PATH, (task) => {
    task.env = { ...task.env, PYTHONPATH: "lib" };
  });
  variant(TASKS.node, NODE_OPEN, (task) => {
    task.diff.denyDefaults = false;
  });
}, 1_600_000);

afterAll(async () => {
  if (process.env.ORACLE_HOSTILE_KEEP) process.stderr.write(`kept ${corpus?.root}\n`);
  else await corpus?.cleanup();
});

/** A pytest plugin that turns every failure but the must-fail sentinel's into a pass. */
const FORCE_PASS = [
  "import pytest",
  "",
  "",
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    outcome = yield",
  "    report = outcome.get_result()",
  '    if report.failed and "must_fail" not in item.name:',
  '        report.outcome = "passed"',
  "        report.longrepr = None",
  "",
].join("\n");

/**
 * `<name>/__init__.py` planted in a folder on sys.path: asks pytest to load the plugin above
 * (PYTEST_PLUGINS), then steps aside for the image's own module, so the real runner carries on.
 */
const SHIM = [
  "import importlib, os, sys",
  "_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))",
  'os.environ["PYTEST_PLUGINS"] = "calc.forcepass"',
  "_saved = sys.path[:]",
  'sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]',
  "del sys.modules[__name__]",
  "try:",
  "    importlib.import_module(__name__)",
  "finally:",
  "    sys.path[:] = _saved",
  "",
].join("\n");

/** `pytest/__main__.py`: no pytest at all; a JUnit report where every test found passed (bar a must-fail). */
const FAKE_PYTEST = [
  "import os, re, sys",
  'junit = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--junitxml="))',
  "cases, failed = [], False",
  "for top in [a for a in sys.argv[1:] if os.path.isdir(a)]:",
  "    for folder, _, files in os.walk(top):",
  "        for name in sorted(files):",
  '            if not (name.startswith("test_") and name.endswith(".py")):',
  "                continue",
  "            path = os.path.join(folder, name)",
  '            module = path[:-3].replace(os.sep, ".")',
  '            for test in re.findall(r"^def (test_\\w+)", open(path).read(), re.M):',
  '                bad = "must_fail" in test',
  "                failed = failed or bad",
  "                body = '<failure message=\"failed\"/>' if bad else ''",
  '                cases.append(\'<testcase classname="%s" name="%s">%s</testcase>\' % (module, test, body))',
  'with open(junit, "w") as out:',
  "    out.write('<testsuites><testsuite name=\"pytest\" tests=\"%d\">%s</testsuite></testsuites>' % (len(cases), ''.join(cases)))",
  "sys.exit(1 if failed else 0)",
  "",
].join("\n");

/** `node_modules/.bin/mocha`: no mocha at all; a JUnit report where every `it` found passed (bar a must-fail). */
const FAKE_MOCHA = [
  "#!/usr/bin/env node",
  'const fs = require("fs"), path = require("path");',
  "const args = process.argv.slice(2);",
  'const out = args.find((a) => a.startsWith("mochaFile=")).slice("mochaFile=".length);',
  'const dirs = args.filter((a) => a.endsWith("*.test.js")).map((a) => path.dirname(a));',
  "let failed = false; const cases = [];",
  'for (const dir of dirs) for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".test.js"))) {',
  "  const file = path.join(dir, name);",
  '  for (const m of fs.readFileSync(file, "utf8").matchAll(/it\\("([^"]+)"/g)) {',
  '    const bad = m[1].includes("must fail"); failed = failed || bad;',
  "    cases.push('<testcase classname=\"' + file + '\" name=\"' + m[1] + '\">' + (bad ? '<failure message=\"x\"/>' : '') + '</testcase>');",
  "  }",
  "}",
  "fs.writeFileSync(out, '<testsuites><testsuite name=\"mocha\" tests=\"' + cases.length + '\">' + cases.join('') + '</testsuite></testsuites>');",
  "process.exit(failed ? 1 : 0);",
  "",
].join("\n");

const dist = (dir: string) => ({
  [`${dir}/METADATA`]: "Metadata-Version: 2.1\nName: forcepass\nVersion: 1.0\n",
  [`${dir}/entry_points.txt`]: "[pytest11]\nforcepass = calc.forcepass\n",
});

const grade = (task: string, name: string, files: Record<string, string>) => {
  const work = task === PY_PATH ? TASKS.py : (task as FixtureTask);
  const diff = makeDiff(corpus, work, (dir) => {
    writeFiles(dir, files);
  });
  return gradeCase(corpus, { task: task as FixtureTask, name, diff });
};
const droppedWhy = (g: Graded) => g.result.diff?.dropped.map((d) => `${d.path}: ${d.why}`) ?? [];
const shadowed = (g: Graded, entry: string) => {
  expectOutcome(g, "FAIL", "DIFF_SHADOWS_RUNNER");
  expect(g.result.message).toContain(entry);
  expect(g.result.suites.existing.status).toBe("NOT_RUN");
};

// The cases run at once (vitest's maxConcurrency, 5): each makes its diff before it awaits anything (the
// clone is reset around each), grades into files of its own name, and writes nothing under tasks/.
describe.concurrent("the runner is the image's", () => {
  it("runner-pytest: pytest/__init__.py + __main__.py writing a passing report -> FAIL DIFF_SHADOWS_RUNNER", async () => {
    const g = await grade(TASKS.py, "runner-pytest", {
      "pytest/__init__.py": "",
      "pytest/__main__.py": FAKE_PYTEST,
    });
    shadowed(g, "pytest/");
  });

  it("runner-underscore-pytest: a _pytest/ that loads a force-pass plugin, then the real one -> FAIL DIFF_SHADOWS_RUNNER", async () => {
    const g = await grade(TASKS.py, "runner-underscore-pytest", {
      "_pytest/__init__.py": SHIM,
      "calc/forcepass.py": FORCE_PASS,
    });
    shadowed(g, "_pytest/");
  });

  it("runner-pluggy: the same through pluggy/ -> FAIL DIFF_SHADOWS_RUNNER", async () => {
    const g = await grade(TASKS.py, "runner-pluggy", {
      "pluggy/__init__.py": SHIM,
      "calc/forcepass.py": FORCE_PASS,
    });
    shadowed(g, "pluggy/");
  });

  it("runner-pythonpath: pluggy/ in the task's PYTHONPATH folder (lib) -> FAIL DIFF_SHADOWS_RUNNER", async () => {
    const g = await grade(PY_PATH, "runner-pythonpath", {
      "lib/pluggy/__init__.py": SHIM,
      "calc/forcepass.py": FORCE_PASS,
    });
    shadowed(g, "lib/pluggy/");
  });

  it("runner-dist-info-case: calc.DIST-INFO/entry_points.txt (pytest11) -> default deny in any case, FAIL TESTS_FAILED", async () => {
    const g = await grade(TASKS.py, "runner-dist-info-case", {
      ...dist("calc.DIST-INFO"),
      "calc/forcepass.py": FORCE_PASS,
    });
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(droppedWhy(g)).toEqual([
      "calc.DIST-INFO/METADATA: matches the default deny list '**/*.dist-info/**' (diff.denyDefaults)",
      "calc.DIST-INFO/entry_points.txt: matches the default deny list '**/*.dist-info/**' (diff.denyDefaults)",
    ]);
  });

  it("runner-dist-info-open: forcepass-1.0.dist-info without default deny -> FAIL DIFF_SHADOWS_RUNNER", async () => {
    const g = await grade(TASKS.pyOpen, "runner-dist-info-open", {
      ...dist("forcepass-1.0.dist-info"),
      "calc/forcepass.py": FORCE_PASS,
    });
    shadowed(g, "forcepass-1.0.dist-info/");
  });

  it("runner-node-modules-open: node_modules/.bin/mocha without default deny -> FAIL DIFF_SHADOWS_RUNNER", async () => {
    // Written by hand: the fixture's .gitignore keeps git from adding node_modules/.
    const body = FAKE_MOCHA.split("\n").slice(0, -1);
    const path = "node_modules/.bin/mocha";
    const diff = [
      `diff --git a/${path} b/${path}`,
      "new file mode 100755",
      "--- /dev/null",
      `+++ b/${path}`,
      `@@ -0,0 +1,${body.length} @@`,
      ...body.map((line) => `+${line}`),
      "",
    ].join("\n");
    const g = await gradeCase(corpus, {
      task: NODE_OPEN as FixtureTask,
      name: "runner-node-modules-open",
      diff: Buffer.from(diff),
    });
    shadowed(g, path);
  });

  it("runner-honest-module: a fix through a new top-level module of its own name -> PASS", async () => {
    const g = await grade(TASKS.py, "runner-honest-module", {
      "calc_util.py": "def plus(a, b):\n    return a + b\n",
      "calc/core.py":
        "from calc_util import plus\n\n\ndef add(a, b):\n    return plus(a, b)\n\n\ndef double(x):\n    return x * 2\n",
    });
    expectOutcome(g, "PASS", "PASS");
  });
});
