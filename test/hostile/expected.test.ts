// Expected tests (issue 14): code under test that skips the hidden tests it cannot handle, or that
// removes the failing ones before collection, against the real engine and the built oracle-grade.
// Without expected tests a skipped hidden test FAILs; with expected tests (declared in task.json or
// recorded by the sweep) a removed one is EXPECTED_TEST_MISSING.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GRADER_VERSION, taskDigest, writeExpectedRecord } from "@oracle/grader";
import { loadTask } from "@oracle/spec";
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JS_FIXED, PY_FIXED } from "./cases.js";
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

let corpus: Corpus;

interface TaskJson {
  id: string;
  suites: { hidden: { command: string; expected?: unknown } };
}

/** A second hidden test that passes at baseline (it does not call add): what "1 passed, 1 skipped" needs. */
const PY_HIDDEN = `from calc.core import add, double


def test_add_positive():
    assert add(2, 3) == 5


def test_double():
    assert double(4) == 8
`;
const JS_MORE = `const assert = require("node:assert");
const { add } = require("../src/add");

it("exports add", () => assert.strictEqual(typeof add, "function"));
`;

/** calc/core.py: add() skips every input it gets wrong (b != 0), through pytest's own skip. */
const PY_SKIP = `def add(a, b):
    if b != 0:
        import pytest

        pytest.skip("input not supported")
    return a - b


def double(x):
    return x * 2
`;

/** Planted in calc/core.py: runs the importing test module's tests that call add() once it is loaded, and deletes the ones that fail. */
const PY_PRUNE = `import sys


def _prune_importer():
    frame = sys._getframe(1)
    while frame is not None and not frame.f_globals.get("__name__", "").rpartition(".")[2].startswith("test_"):
        frame = frame.f_back
    if frame is None:
        return
    target, module = frame, frame.f_globals
    previous = sys.getprofile()

    def watch(frame, event, arg):
        if frame is target and event == "return":
            sys.setprofile(previous)
            for name, fn in list(module.items()):
                # With seals a comparison passes in the test's process whatever the value, so the
                # pruner cannot tell a failing test by running it: it removes every test of add().
                if name.startswith("test_") and "add" in getattr(getattr(fn, "__code__", None), "co_names", ()):
                    del module[name]

    sys.setprofile(watch)


_prune_importer()


def add(a, b):
    return a - b


def double(x):
    return x * 2
`;

/** src/add.js: the test that reaches an input it cannot handle is marked skipped through mocha's own runner. */
const JS_SKIP = `"use strict";

function currentTest() {
  for (const key of Object.keys(require.cache)) {
    if (!/mocha[\\\\/]lib[\\\\/]runner\\.js$/.test(key)) continue;
    const Runner = require.cache[key].exports;
    const runTest = Runner.prototype.runTest;
    if (!runTest.wrapped) {
      Runner.prototype.runTest = function (fn) {
        currentTest.runner = this;
        return runTest.call(this, fn);
      };
      Runner.prototype.runTest.wrapped = true;
    }
  }
  return currentTest.runner && currentTest.runner.test;
}
currentTest();

exports.add = (a, b) => {
  const test = currentTest();
  if (b !== 0 && test) test.skip();
  return a - b;
};
`;

const TASK_EXPECTED = {
  failToPass: ["checks/test_hidden.py::test_add_positive"],
  passToPass: ["checks/test_hidden.py::test_double"],
};

function variant(
  name: string,
  from: FixtureTask,
  hidden: Record<string, string>,
  edit?: (task: TaskJson) => void,
) {
  const dir = join(corpus.root, "tasks", name);
  cpSync(join(corpus.root, "tasks", from), dir, { recursive: true });
  const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8")) as TaskJson;
  task.id = name;
  edit?.(task);
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(task, null, 2)}\n`);
  writeFiles(join(dir, "hidden-tests"), hidden);
}

/** What the sweep would record for exp-recorded: the hidden test that fails at baseline, the one that passes, the existing ones. */
async function recordFor(name: string): Promise<void> {
  const loaded = await loadTask(corpus.root, name);
  await writeExpectedRecord(loaded, {
    version: 1,
    task: name,
    taskDigest: await taskDigest(loaded),
    recordedAt: new Date(0).toISOString(),
    graderVersion: GRADER_VERSION,
    suites: {
      existing: {
        failToPass: [],
        passToPass: ["existing:tests.test_core::test_add_zero", "existing:tests.test_core::test_double"],
      },
      hidden: {
        failToPass: ["hidden:checks.test_hidden::test_add_positive"],
        passToPass: ["hidden:checks.test_hidden::test_double"],
      },
    },
  });
}

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus();
  const pyHidden = { "checks/test_hidden.py": PY_HIDDEN };
  variant("exp-none", TASKS.py, pyHidden);
  variant("exp-declared", TASKS.py, pyHidden, (task) => {
    task.suites.hidden.expected = TASK_EXPECTED;
  });
  variant("exp-recorded", TASKS.py, pyHidden);
  const jsHidden = { "checks/more.hidden.test.js": JS_MORE };
  variant("exp-node", TASKS.node, jsHidden);
  variant("exp-node-declared", TASKS.node, jsHidden, (task) => {
    task.suites.hidden.expected = { failToPass: ["adds two positive numbers"], passToPass: ["exports add"] };
  });
  variant("exp-node-pending", TASKS.node, jsHidden, (task) => {
    task.suites.hidden.command = task.suites.hidden.command.replace(
      "--reporter-option mochaFile=",
      "--reporter-option includePending=true --reporter-option mochaFile=",
    );
  });
  // A record written before the run: the grade must not change the task folder (the harness checks).
  if (!process.env.ORACLE_HOSTILE_GRADE_BIN) await recordFor("exp-recorded");
  else writeFileSync(join(corpus.root, "tasks", "exp-recorded", "expected-tests.recorded.json"), "{}\n");
}, 1_600_000);

afterAll(async () => {
  await corpus?.cleanup();
});

const grade = (task: string, name: string, diff: Buffer): Promise<Graded> =>
  gradeCase(corpus, { task: task as FixtureTask, name, diff });
const pyDiff = (core: string) =>
  makeDiff(corpus, TASKS.py, (dir) => writeFiles(dir, { "calc/core.py": core }));
const jsDiff = (add: string) => makeDiff(corpus, TASKS.node, (dir) => writeFiles(dir, { "src/add.js": add }));

// The cases run at once (vitest's maxConcurrency, 5): each makes its diff before it awaits anything (the
// clone is reset around each), grades into files of its own name, and writes nothing under tasks/.
describe.concurrent("hidden tests skipped by the code under test", () => {
  // The skipped test is twinned: a twin reported skipped is a contradiction (no honest run skips
  // one), which the sentinel check finds first; the expected tests show the skip on their own.
  const SKIP_REASONS = ["REPORT_INCONSISTENT", "EXPECTED_TEST_SKIPPED"];

  it("skip-unhandled (pytest.skip for inputs add() gets wrong), no expected tests -> FAIL REPORT_INCONSISTENT or EXPECTED_TEST_SKIPPED", async () => {
    const g = await grade("exp-none", "skip-unhandled", pyDiff(PY_SKIP));
    expect(g.result.verdict).toBe("FAIL");
    expect(SKIP_REASONS).toContain(g.result.reason);
    expect(g.result.expected).toMatchObject({
      source: "none",
      skipped: { count: 1, ids: ["hidden:checks.test_hidden::test_add_positive"] },
    });
    expect(g.result.expected?.note).toMatch(/^no expected tests: verdict rests on/);
    expect(g.log).toContain("expected.checked");
    expect(g.stderr).toMatch(/expected tests \(none\): 0 missing, 1 skipped/);
  });

  it("skip-unhandled with expected tests declared -> FAIL REPORT_INCONSISTENT or EXPECTED_TEST_SKIPPED", async () => {
    const g = await grade("exp-declared", "skip-unhandled-declared", pyDiff(PY_SKIP));
    expect(g.result.verdict).toBe("FAIL");
    expect(SKIP_REASONS).toContain(g.result.reason);
    expect(g.result.expected?.skipped.ids).toEqual(["hidden:checks/test_hidden.py::test_add_positive"]);
  });

  // mocha-junit-reporter leaves pending tests out of its report unless includePending=true: the
  // skipped test is then missing, which only an expectation shows. The in-process guard sees the
  // skip() first (the hidden file never calls skip()) and fails the test: TESTS_FAILED; the
  // expected tests are the second line, and either ends in FAIL.
  it.each([
    ["exp-node-declared", "EXPECTED_TEST_MISSING"],
    ["exp-node-pending", "EXPECTED_TEST_SKIPPED"],
  ])(
    "mocha-skip-unhandled (the running test's skip() reached from src/add.js), %s -> FAIL TESTS_FAILED or %s",
    async (task, reason) => {
      const g = await grade(task, `mocha-skip-${task}`, jsDiff(JS_SKIP));
      expect(g.result.verdict).toBe("FAIL");
      expect(["TESTS_FAILED", reason]).toContain(g.result.reason);
    },
  );
});

// The pruning also removes the existing suite's must-fail sentinel (it fails, so it goes): the
// existing suite's sentinels catch it first (REPORT_INCONSISTENT); the expected tests show the
// hidden test missing on their own.
const PRUNED = ["EXPECTED_TEST_MISSING", "REPORT_INCONSISTENT"];

describe.concurrent("failing hidden tests removed before collection", () => {
  it("prune-at-import, expected tests declared in task.json -> FAIL (the expected test missing)", async () => {
    const g = await grade("exp-declared", "prune-declared", pyDiff(PY_PRUNE));
    expect(g.result.verdict).toBe("FAIL");
    expect(PRUNED).toContain(g.result.reason);
    expect(g.result.expected).toMatchObject({
      source: "task",
      missing: { count: 1, ids: ["hidden:checks/test_hidden.py::test_add_positive"] },
    });
  });

  it("prune-at-import, expected tests recorded by the sweep -> FAIL (the expected test missing)", async () => {
    const g = await grade("exp-recorded", "prune-recorded", pyDiff(PY_PRUNE));
    expect(g.result.verdict).toBe("FAIL");
    expect(PRUNED).toContain(g.result.reason);
    expect(g.result.expected?.source).toBe("sweep");
    expect(g.result.expected?.missing.count).toBeGreaterThan(0);
  });
});

describe.concurrent("correct diffs still pass", () => {
  it.each(["exp-none", "exp-declared", "exp-recorded"])(
    "%s: the fix PASSes, no unexpected test",
    async (task) => {
      const g = await grade(task, `gold-${task}`, pyDiff(PY_FIXED));
      expectOutcome(g, "PASS", "PASS");
      expect(g.result.expected?.unexpected.count).toBe(0);
    },
  );

  it.each(["exp-node", "exp-node-declared", "exp-node-pending"])("%s: the fix PASSes", async (task) => {
    const g = await grade(task, `gold-${task}`, jsDiff(JS_FIXED));
    expectOutcome(g, "PASS", "PASS");
  });
});
