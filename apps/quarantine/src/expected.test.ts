import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readExpectedRecord } from "@oracle/grader";
import { type LoadedTask, parseTask } from "@oracle/spec";
import { afterEach, describe, expect, it } from "vitest";
import { expectedFindings, recordExpected, recordedSuites, skippedUpstream } from "./expected.js";
import { record } from "./testing/fake-grade.js";
import type { CheckMode, RunObservation } from "./types.js";

const observe = (mode: CheckMode, tests: Record<string, string>): RunObservation => ({
  record: record({ mode, log: `logs/${mode}.jsonl` }),
  tests: new Map(Object.entries(tests)),
  complete: true,
});

const BASELINE = {
  "existing:tests.test_core::test_ok": "passed",
  "hidden:checks.test_x::test_fixed": "failed",
  "hidden:checks.test_x::test_kept": "passed",
  "hidden:checks.test_x::test_flaky": "skipped",
};
const GOLD = {
  "existing:tests.test_core::test_ok": "passed",
  "hidden:checks.test_x::test_fixed": "passed",
  "hidden:checks.test_x::test_kept": "passed",
  "hidden:checks.test_x::test_flaky": "passed",
};

function taskWith(expected?: unknown): LoadedTask["task"] {
  return parseTask({
    id: "t",
    image: "python-pytest",
    repo: { mirror: "repo.bundle", baseCommit: "a".repeat(40) },
    suites: {
      existing: { command: "pytest tests", files: ["tests/**"] },
      hidden: { command: "pytest checks", ...(expected ? { expected } : {}) },
    },
  });
}

describe("declared expected tests, checked against the sweep's runs", () => {
  const loaded = (expected: unknown) => ({ task: taskWith(expected) }) as LoadedTask;
  const flags = (expected: unknown, runs: RunObservation[]) =>
    expectedFindings(loaded(expected), runs).map((f) => `${f.mode} ${f.flag}: ${f.detail}`);

  it("a healthy declaration gives no finding", () => {
    const expected = {
      failToPass: ["checks/test_x.py::test_fixed"],
      passToPass: ["checks/test_x.py::test_kept"],
    };
    expect(flags(expected, [observe("baseline", BASELINE), observe("gold", GOLD)])).toEqual([]);
  });

  it("an id matching nothing, a failToPass that passes and a passToPass that fails at baseline are flagged", () => {
    const expected = {
      failToPass: ["checks/test_x.py::test_kept", "checks/test_x.py::test_typo"],
      passToPass: ["checks/test_x.py::test_fixed"],
    };
    expect(flags(expected, [observe("baseline", BASELINE), observe("gold", GOLD)])).toEqual([
      "baseline EXPECTED_TEST_NOT_FOUND: hidden: 1 not in the report: checks/test_x.py::test_typo",
      "baseline FAIL_TO_PASS_NOT_FAILING: hidden: checks/test_x.py::test_kept (passed)",
      "baseline PASS_TO_PASS_NOT_PASSING: hidden: checks/test_x.py::test_fixed (failed)",
      "gold EXPECTED_TEST_NOT_FOUND: hidden: 1 not in the report: checks/test_x.py::test_typo",
    ]);
  });
});

describe("recording expected tests from validated runs", () => {
  let dir: string | null = null;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = null;
  });

  it("hidden: failed at baseline and passed with gold, or passed at both; existing: passed at both", () => {
    expect(recordedSuites([observe("baseline", BASELINE), observe("gold", GOLD)])).toEqual({
      existing: { failToPass: [], passToPass: ["existing:tests.test_core::test_ok"] },
      hidden: {
        failToPass: ["hidden:checks.test_x::test_fixed"],
        passToPass: ["hidden:checks.test_x::test_kept"],
      },
    });
  });

  it("writes a record the grader reads back as current, and stale once a hidden test changes", async () => {
    dir = await mkdtemp(join(tmpdir(), "oracle-expected-"));
    const task = taskWith();
    await writeFile(join(dir, "task.json"), JSON.stringify(task));
    const hiddenTestsDir = join(dir, "hidden-tests");
    await mkdir(join(hiddenTestsDir, "checks"), { recursive: true });
    await writeFile(join(hiddenTestsDir, "checks", "test_x.py"), "def test_fixed(): pass\n");
    const loaded: LoadedTask = { task, dir, mirrorPath: null, hiddenTestsDir, goldDiff: null };
    const runs = [observe("baseline", BASELINE), observe("gold", GOLD)];
    expect(await recordExpected(loaded, "quarantined", runs)).toBe("not recorded: the task is quarantined");
    expect(await recordExpected(loaded, "healthy", runs)).toMatch(
      /^recorded in tasks\/t\/expected-tests\.recorded\.json: 2 hidden/,
    );
    expect((await readExpectedRecord(loaded)).kind).toBe("current");
    await writeFile(join(hiddenTestsDir, "checks", "test_x.py"), "def test_fixed(): assert True\n");
    const stale = await readExpectedRecord(loaded);
    expect(stale.kind).toBe("stale");
    expect(
      JSON.parse(await readFile(join(dir, "expected-tests.recorded.json"), "utf8")).suites.hidden.failToPass,
    ).toEqual(["hidden:checks.test_x::test_fixed"]);
  });

  it("does not record over a declaration or from runs that did not list every test", async () => {
    const loaded = { task: taskWith({ failToPass: ["x"] }) } as LoadedTask;
    expect(await recordExpected(loaded, "healthy", [])).toBe("declared in task.json");
    const partial = { ...observe("gold", GOLD), complete: false };
    expect(
      await recordExpected({ task: taskWith() } as LoadedTask, "healthy", [
        observe("baseline", BASELINE),
        partial,
      ]),
    ).toMatch(/testsOmitted/);
  });
});

describe("hidden tests upstream skips", () => {
  const loaded = (expected?: unknown) => ({ task: taskWith(expected) }) as LoadedTask;
  const run = (mode: CheckMode, tests: Record<string, string>, reason: string): RunObservation => ({
    record: record({ mode, log: `logs/${mode}.jsonl`, reason: reason as never }),
    tests: new Map(Object.entries(tests)),
    complete: true,
  });
  const skippedAtBoth = { ...BASELINE };
  const goldSkipping = { ...GOLD, "hidden:checks.test_x::test_flaky": "skipped" };

  it("skipped at the base and with gold, and gold failed only on them: the tests to leave out", () => {
    const runs = [
      run("baseline", skippedAtBoth, "TESTS_FAILED"),
      run("gold", goldSkipping, "EXPECTED_TEST_SKIPPED"),
      run("gold", goldSkipping, "EXPECTED_TEST_SKIPPED"),
    ];
    expect(skippedUpstream(loaded(), runs)).toEqual(["hidden:checks.test_x::test_flaky"]);
    // the record leaves them out: failToPass and passToPass only
    expect(recordedSuites(runs).hidden).toEqual({
      failToPass: ["hidden:checks.test_x::test_fixed"],
      passToPass: ["hidden:checks.test_x::test_kept"],
    });
  });

  it("not when a test skipped with gold ran at the base, gold failed otherwise, or tests are declared", () => {
    const ranAtBase = { ...BASELINE, "hidden:checks.test_x::test_flaky": "passed" };
    expect(
      skippedUpstream(loaded(), [
        run("baseline", ranAtBase, "TESTS_FAILED"),
        run("gold", goldSkipping, "EXPECTED_TEST_SKIPPED"),
      ]),
    ).toBeNull();
    expect(
      skippedUpstream(loaded(), [
        run("baseline", skippedAtBoth, "TESTS_FAILED"),
        run("gold", goldSkipping, "TESTS_FAILED"),
      ]),
    ).toBeNull();
    expect(
      skippedUpstream(loaded({ failToPass: ["checks/test_x.py::test_fixed"] }), [
        run("baseline", skippedAtBoth, "TESTS_FAILED"),
        run("gold", goldSkipping, "EXPECTED_TEST_SKIPPED"),
      ]),
    ).toBeNull();
  });
});
