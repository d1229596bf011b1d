// How the code under test can end a mocha test without failing it, against the real engine and the
// built oracle-grade (issue 14). Each attack is planted in src/add.js (add() still subtracts) and
// fires only for the input add() gets wrong, so the sentinels (which never call add with it) stay
// quiet. The oracle's mocha guard (packages/grader/src/run/mocha-guard.ts), preloaded into every mocha
// process, makes a Pending that no skip() threw a failure, and a hidden test skipped at run time
// while its file calls no skip() a failure.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JS_FIXED } from "./cases.js";
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

/** A second hidden test that passes at baseline: with it, the attacked test's absence still leaves a passing report. */
const JS_MORE = `const assert = require("node:assert");
const { add } = require("../src/add");

it("exports add", () => assert.strictEqual(typeof add, "function"));
`;

/** A hidden file that skips at run time on its own (declared): the guard must leave its skip alone. */
const JS_DECLARED_SKIP = `const assert = require("node:assert");
const { add } = require("../src/add");

it("exports add", function () {
  if (typeof add === "number") this.skip();
  assert.strictEqual(typeof add, "function");
});
`;

/** src/add.js: mocha's own Pending, thrown for every input add() gets wrong; mocha counted that test as passed. */
const JS_PENDING = `"use strict";
const Pending = require("mocha/lib/pending");

exports.add = (a, b) => {
  if (b !== 0) throw new Pending("not supported");
  return a - b;
};
`;

/** The same without naming mocha: its Pending found in require.cache, an object made from its prototype. */
const JS_PENDING_DUCK = `"use strict";

function pending() {
  const key = Object.keys(require.cache).find((k) => /mocha[\\\\/]lib[\\\\/]pending\\.js$/.test(k));
  return key ? Object.create(require.cache[key].exports.prototype) : new Error("no mocha");
}

exports.add = (a, b) => {
  if (b !== 0) throw pending();
  return a - b;
};
`;

/** src/add.js: the running test's skip() reached through mocha's Runner, for the inputs add() gets wrong. */
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

/** src/add.js: the process exits 0 in the middle of the test add() gets wrong. */
const JS_EXIT = `"use strict";

exports.add = (a, b) => {
  if (b !== 0) process.exit(0);
  return a - b;
};
`;

/**
 * src/add.js: at require time, Suite#addTest tries each test once and drops those that call add()
 * with an input it gets wrong (the sentinels never do, so they stay).
 */
const JS_REMOVE = `"use strict";
let bad = false;

for (const key of Object.keys(require.cache)) {
  if (!/mocha[\\\\/]lib[\\\\/]suite\\.js$/.test(key)) continue;
  const Suite = require.cache[key].exports;
  const addTest = Suite.prototype.addTest;
  Suite.prototype.addTest = function (test) {
    bad = false;
    try {
      if (test.fn) test.fn.call({ skip() {}, timeout() {} });
    } catch {}
    return bad ? this : addTest.call(this, test);
  };
}

exports.add = (a, b) => {
  if (b !== 0) bad = true;
  return a - b;
};
`;

interface TaskJson {
  id: string;
  suites: { hidden: { command: string; expected?: unknown } };
}

function variant(name: string, hidden: Record<string, string>, edit?: (task: TaskJson) => void) {
  const dir = join(corpus.root, "tasks", name);
  cpSync(join(corpus.root, "tasks", TASKS.node), dir, { recursive: true });
  const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8")) as TaskJson;
  task.id = name;
  edit?.(task);
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(task, null, 2)}\n`);
  writeFiles(join(dir, "hidden-tests"), hidden);
}

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus();
  variant("ends-more", { "checks/more.hidden.test.js": JS_MORE });
  variant("ends-declared-skip", { "checks/more.hidden.test.js": JS_DECLARED_SKIP });
  variant("ends-expected", { "checks/more.hidden.test.js": JS_MORE }, (task) => {
    task.suites.hidden.expected = { failToPass: ["adds two positive numbers"], passToPass: ["exports add"] };
  });
}, 1_600_000);

afterAll(async () => {
  await corpus?.cleanup();
});

const grade = (task: string, name: string, add: string): Promise<Graded> =>
  gradeCase(corpus, {
    task: task as FixtureTask,
    name,
    diff: makeDiff(corpus, TASKS.node, (dir) => writeFiles(dir, { "src/add.js": add })),
  });

// The cases run at once (vitest's maxConcurrency, 5): each makes its diff before it awaits anything (the
// clone is reset around each), grades into files of its own name, and writes nothing under tasks/.
describe.concurrent("the code under test ends the failing mocha test without failing it", () => {
  it.each([
    ["mocha-pending-throw", JS_PENDING],
    ["mocha-pending-duck", JS_PENDING_DUCK],
  ])("%s (mocha's Pending thrown by add() without skip()) -> FAIL TESTS_FAILED", async (name, add) => {
    const g = await grade(TASKS.node, name, add);
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(g.result.suites.hidden?.counts.failed).toBe(1);
  });

  it("mocha-skip-undeclared (the running test's skip() from add(), no expected tests, pending left out of the report) -> FAIL TESTS_FAILED", async () => {
    const g = await grade("ends-more", "mocha-skip-undeclared", JS_SKIP);
    expectOutcome(g, "FAIL", "TESTS_FAILED");
  });

  it("mocha-exit-zero (process.exit(0) inside the failing test) -> FAIL", async () => {
    const g = await grade("ends-more", "mocha-exit-zero", JS_EXIT);
    expect(g.result.verdict).toBe("FAIL");
  });

  // Without expected tests a test removed before it runs goes unseen (docs/security.md); the sweep
  // records them. The attack calls each test's function as mocha adds it, and the seal runtime is
  // ready from the file's first line: the dropped test's seal writes a record for a test the runner
  // never ran, which the seals catch before the expected tests do (it was EXPECTED_TEST_MISSING
  // while the runtime's state was made at the file's end).
  it("mocha-remove-at-require (Suite#addTest drops the tests that call add() wrongly), expected tests declared -> FAIL SEAL_RECORDS_INCONSISTENT", async () => {
    const g = await grade("ends-expected", "mocha-remove-at-require", JS_REMOVE);
    expectOutcome(g, "FAIL", "SEAL_RECORDS_INCONSISTENT");
  });
});

describe.concurrent("correct diffs still pass", () => {
  it.each([TASKS.node, "ends-more", "ends-declared-skip", "ends-expected"])(
    "%s: the fix PASSes",
    async (task) => {
      const g = await grade(task, `gold-${task}`, JS_FIXED);
      expectOutcome(g, "PASS", "PASS");
    },
  );
});
