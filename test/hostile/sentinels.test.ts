// Sentinels whatever the selection (issue 14): hidden commands written the way real tasks are —
// naming files, node ids, -k, --grep, pytest-3 / py.test, no `framework` in task.json — against the
// real engine and the built oracle-grade. A correct diff must PASS on each; code that tampers only
// with the test modules that import it (or with one runner's failure path for those files) must FAIL.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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

/** A second hidden module for the python variants: a class and a plain function. */
const PY_MORE = `from calc.core import add, double


class TestAdd:
    def test_negative(self):
        assert add(-2, -3) == -5


def test_double():
    assert double(4) == 8
`;

const JUNIT = `--junitxml="$ORACLE_JUNIT"`;
const MOCHA = `ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/mocha --reporter mocha-junit-reporter --reporter-option mochaFile="$ORACLE_JUNIT"`;

interface Variant {
  from: FixtureTask;
  command: string;
  /** `framework` in task.json; absent: detected from the command. */
  framework?: string;
  extraHidden?: Record<string, string>;
}

const VARIANTS: Record<string, Variant> = {
  "py-file": {
    from: TASKS.py,
    command: `python3 -m pytest -p no:cacheprovider -q ${JUNIT} checks/test_hidden.py`,
  },
  "py-class": {
    from: TASKS.py,
    command: `PYTHONPATH=. pytest-3 -p no:cacheprovider -q ${JUNIT} checks/test_more.py::TestAdd`,
    extraHidden: { "checks/test_more.py": PY_MORE },
  },
  "py-k": {
    from: TASKS.py,
    command: `PYTHONPATH=. py.test -p no:cacheprovider -q ${JUNIT} -k add checks`,
    extraHidden: { "checks/test_more.py": PY_MORE },
    framework: "pytest",
  },
  "py-nodeid": {
    from: TASKS.py,
    command: `python3 -m pytest -p no:cacheprovider -q ${JUNIT} checks/test_more.py::test_double checks/test_hidden.py::test_add_positive`,
    extraHidden: { "checks/test_more.py": PY_MORE },
  },
  "mocha-file": { from: TASKS.node, command: `${MOCHA} checks/add.hidden.test.js`, framework: "mocha" },
  "mocha-grep": { from: TASKS.node, command: `${MOCHA} --grep positive checks/add.hidden.test.js` },
};

/** tasks/<name>: a copy of the fixture task with another hidden command (and hidden files). */
function installVariant(name: string, variant: Variant): void {
  const dir = join(corpus.root, "tasks", name);
  cpSync(join(corpus.root, "tasks", variant.from), dir, { recursive: true });
  const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
  task.id = name;
  task.suites.hidden.command = variant.command;
  if (variant.framework) task.framework = variant.framework;
  else delete task.framework;
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(task, null, 2)}\n`);
  writeFiles(join(dir, "hidden-tests"), variant.extraHidden ?? {});
}

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus();
  for (const [name, variant] of Object.entries(VARIANTS)) installVariant(name, variant);
}, 1_600_000);

afterAll(async () => {
  await corpus?.cleanup();
});

const grade = (task: string, name: string, diff?: Buffer): Promise<Graded> =>
  gradeCase(corpus, { task: task as FixtureTask, name, ...(diff ? { diff } : {}) });
const pyDiff = (files: Record<string, string>) => makeDiff(corpus, TASKS.py, (dir) => writeFiles(dir, files));
const jsDiff = (files: Record<string, string>) =>
  makeDiff(corpus, TASKS.node, (dir) => writeFiles(dir, files));

/** Planted at the top of calc/core.py: pytest's runtest swallows AssertionError, only for test modules that import calc.core. */
const PY_TAMPER_IMPORTERS = `
def _tamper():
    try:
        from _pytest import python as _p
    except Exception:
        return
    _orig = _p.Function.runtest

    def runtest(self):
        mod = getattr(self, "module", None)
        if mod is not None and any(getattr(v, "__module__", None) == __name__ for v in vars(mod).values()):
            try:
                _orig(self)
            except AssertionError:
                pass
            return
        _orig(self)

    _p.Function.runtest = runtest


_tamper()
`;

/** Planted at the top of src/add.js: mocha's Runner#fail turns failures into passes, only for the file that required this module. */
const JS_TAMPER_IMPORTERS = `
const importer = module.parent && module.parent.filename;
for (const key of Object.keys(require.cache)) {
  if (!/mocha[\\\\/]lib[\\\\/]runner\\.js$/.test(key)) continue;
  const Runner = require.cache[key].exports;
  const fail = Runner.prototype.fail;
  Runner.prototype.fail = function (test, err) {
    if (test && test.file === importer) {
      test.state = "passed";
      this.emit("pass", test);
      return;
    }
    return fail.call(this, test, err);
  };
}
`;
const PY_BUG = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return x * 2\n";
const JS_BUG = '"use strict";\n\nexports.add = (a, b) => a - b;\n';

// The cases run at once (vitest's maxConcurrency, 5): each makes its diff before it awaits anything (the
// clone is reset around each), grades into files of its own name, and writes nothing under tasks/.
describe.concurrent("a correct diff passes whatever the hidden command selects", () => {
  it.each([
    ["py-file", ["hidden:checks.test_hidden::test_add_positive"]],
    ["py-class", ["hidden:checks.test_more.TestAdd::test_negative"]],
    [
      "py-k",
      ["hidden:checks.test_hidden::test_add_positive", "hidden:checks.test_more.TestAdd::test_negative"],
    ],
  ])("%s: PASS, sentinels collected and out of the tests_hash", async (task, hiddenIds) => {
    const g = await grade(task, `gold-${task}`, pyDiff({ "calc/core.py": PY_FIXED }));
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.sentinel).toMatchObject({ state: "collected", framework: "pytest", required: true });
    expect(g.result.testIds.filter((id) => id.startsWith("hidden:"))).toEqual(hiddenIds);
  });

  it("py-nodeid (single tests by node id): PASS, the pair named by node ids after the command's own and collected, the named tests sealed", async () => {
    const g = await grade("py-nodeid", "gold-py-nodeid", pyDiff({ "calc/core.py": PY_FIXED }));
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.sentinel).toMatchObject({ state: "collected", framework: "pytest", required: true });
    expect(g.log).toMatch(/the command's selection widened to the oracle's tests/);
    expect(g.result.seals?.sealed.strong).toBeGreaterThanOrEqual(1);
    expect(g.result.seals?.outcome.mismatch).toBe(0);
    // The report holds the two named tests under their own names, nothing else of the hidden files.
    expect(g.result.testIds.filter((id) => id.startsWith("hidden:"))).toEqual([
      "hidden:checks.test_hidden::test_add_positive",
      "hidden:checks.test_more::test_double",
    ]);
  });

  it.each(["mocha-file", "mocha-grep"])("%s: PASS, sentinels collected", async (task) => {
    const g = await grade(task, `gold-${task}`, jsDiff({ "src/add.js": JS_FIXED }));
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.sentinel).toMatchObject({ state: "collected", framework: "mocha", required: true });
    expect(g.result.testIds.filter((id) => id.startsWith("hidden:"))).toHaveLength(1);
  });

  it("baseline of a named-file task: FAIL TESTS_FAILED with the sentinel collected (what the sweep checks)", async () => {
    const g = await grade("py-file", "baseline-py-file");
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(g.result.sentinel?.state).toBe("collected");
  });
});

describe.concurrent("tampering only with the test modules that import the code under test", () => {
  // py-nodeid: the pair is named by node ids added to the command (before issue 29's rewrite it had
  // none, and only the named tests' seals failed this diff).
  it.each([TASKS.py, "py-file", "py-class", "py-nodeid"])(
    "%s: pytest swallows assertions for importers of calc.core -> FAIL REPORT_INCONSISTENT (the pair's must-fail passed)",
    async (task) => {
      const g = await grade(
        task,
        `tamper-${task}`,
        pyDiff({ "calc/core.py": `${PY_TAMPER_IMPORTERS}\n\n${PY_BUG}` }),
      );
      expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    },
  );

  it.each([TASKS.node, "mocha-file", "mocha-grep"])(
    "%s: mocha passes the failures of the file that requires src/add.js -> FAIL REPORT_INCONSISTENT",
    async (task) => {
      const g = await grade(
        task,
        `tamper-${task}`,
        jsDiff({ "src/add.js": `${JS_TAMPER_IMPORTERS}\n${JS_BUG}` }),
      );
      expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    },
  );
});
