import { join, resolve } from "node:path";
import { z } from "zod";
import { readJsonFile } from "./parse.js";

/** The closed set of reasons a task is quarantined. docs/reference.md documents each. */
export const QUARANTINE_FLAGS = {
  INVALID_TASK: "task.json or the task folder does not load.",
  IMAGE_NOT_BUILT: "The task's image has no current recorded digest.",
  EXISTING_SUITE_FAILS: "At the base commit, the existing suite does not pass.",
  NO_EXISTING_TESTS: "At the base commit, no test of the existing suite ran.",
  NO_HIDDEN_TESTS: "At the base commit, no hidden test ran.",
  HIDDEN_PASS_AT_BASELINE: "At the base commit, the hidden tests pass: they test nothing the diff must fix.",
  HIDDEN_REPORT_UNUSABLE:
    "At the base commit, the hidden suite failed on its report (missing, invalid, or contradicting the runner's exit code), not on a test that ran and failed.",
  SENTINEL_NOT_COLLECTED:
    "At the base commit, the hidden command did not run the oracle's sentinel test: no graded run of the task could be trusted, a correct diff would FAIL.",
  EXISTING_SENTINEL_FAILS:
    "At the base commit, the oracle's sentinel in the existing suite did not work: its must-fail test did not fail, its must-pass test did not pass, or the existing command did not run it.",
  EXPECTED_TEST_NOT_FOUND:
    "An expected test task.json declares matches no test in a baseline or gold run's report.",
  FAIL_TO_PASS_NOT_FAILING: "At the base commit, a failToPass test passed or was skipped instead of failing.",
  PASS_TO_PASS_NOT_PASSING: "At the base commit, a passToPass test failed or was skipped.",
  GOLD_FAILS: "The task's gold.diff does not PASS.",
  FLAKY: "Repeated runs of the same check gave different outcomes.",
  TESTS_HASH_UNSTABLE: "Repeated runs of the same check ran different tests.",
  TIMEOUT: "A check ran past the task's wall-clock limit.",
  OUT_OF_MEMORY: "A check was OOM-killed at the task's memory limit.",
  NO_GOLD: "The task has no gold.diff: nothing shows that a correct diff can PASS.",
  INFRA_ERROR: "The engine failed on every retry; reported apart, not the task's fault.",
} as const;
export type QuarantineFlag = keyof typeof QUARANTINE_FLAGS;

/**
 * What fixes each flag, for the task's author; `<task>` stands for the task's id. docs/reference.md lists
 * each, and the sweep puts it on every reason it writes.
 */
export const QUARANTINE_HINTS: Record<QuarantineFlag, string> = {
  INVALID_TASK:
    "fix tasks/<task>/task.json (the message names the field) or the mirror's baseCommit, then run pnpm quarantine-sweep --tasks <task>",
  IMAGE_NOT_BUILT: "run pnpm build-images (the task's image has no current build)",
  EXISTING_SUITE_FAILS:
    "read the existing suite's output in the run's log the finding lists (pnpm oracle-log LOG), or run pnpm grade <task> --baseline --allow-quarantined; narrow suites.existing.command to tests that pass at baseCommit",
  NO_EXISTING_TESTS:
    "make suites.existing.command select tests that exist at baseCommit (check its paths and patterns)",
  NO_HIDDEN_TESTS:
    "make suites.hidden.command select the files under tasks/<task>/hidden-tests/ (paths as they are in the checkout) and check that they import at baseCommit",
  HIDDEN_PASS_AT_BASELINE:
    "the hidden tests must fail at baseCommit: check baseCommit is the commit before the fix and that the hidden tests test the fix",
  HIDDEN_REPORT_UNUSABLE:
    'make suites.hidden.command write JUnit XML to $ORACLE_JUNIT (pytest --junitxml="$ORACLE_JUNIT") and exit non-zero exactly when a test fails (do not mask its exit code); pnpm grade <task> --baseline --allow-quarantined shows the suite\'s output',
  SENTINEL_NOT_COLLECTED:
    "the finding says which selection left the sentinel out: select the hidden test files, classes or single tests by node id (pytest hidden/test_x.py, file::TestClass, file::test_name; -m markers are not followed), or one -k / --grep / -t / -run pattern (a pattern anchored to exact names is widened by the oracle to its own tests' names; one given twice, or through a package script such as npm test -- -t X, cannot be); or set framework in task.json to the runner the command starts; drop -x / --maxfail / --stepwise / --bail / -failfast from the hidden command (a run that stops at its first failure cannot carry the must-fail test); do not set framework to other, which turns the check off",
  EXISTING_SENTINEL_FAILS:
    "the oracle appends its two tests to the base commit's files that suites.existing.files matches: make those globs name only test files suites.existing.command runs, and select them by file, folder, class or node id (not -x / --bail); pnpm grade <task> --baseline --allow-quarantined --result r.json shows suites.existing.sentinel and its note",
  EXPECTED_TEST_NOT_FOUND:
    "write each id in suites.{existing,hidden}.expected of tasks/<task>/task.json as the report names it (pytest tests/test_x.py::TestC::test_n, Go TestX, a JS full title, or the hidden:CLASSNAME::NAME ids of pnpm grade <task> --baseline --allow-quarantined --result r.json); mocha-junit-reporter drops skipped tests unless the command adds --reporter-options includePending=true",
  FAIL_TO_PASS_NOT_FAILING:
    "move the test to passToPass in tasks/<task>/task.json, or check that baseCommit is the commit before the fix",
  PASS_TO_PASS_NOT_PASSING:
    "remove the test from passToPass in tasks/<task>/task.json (a hidden one that fails at baseCommit belongs in failToPass), or fix what it depends on at baseCommit",
  GOLD_FAILS:
    "read the failing suite's output in the run's log the finding lists (pnpm oracle-log LOG), or run pnpm grade <task> --diff tasks/<task>/gold.diff --allow-quarantined; fix gold.diff (a diff of the fix without the test files) or the hidden tests; a sealed comparison gold cannot pass (its value differs on the host, or is not plain data) is left unsealed by the sweep, which then checks again: if the sweep still says GOLD_FAILS, the message names the test, the line and both values (docs/security.md, Sealed expectations)",
  FLAKY:
    "run pnpm quarantine-sweep --tasks <task> --repeat 5 and fix what the flipping tests depend on (time, randomness, order, network)",
  TESTS_HASH_UNSTABLE:
    "give every test a stable id: no random or time-based parametrize ids, no tests generated from the environment",
  TIMEOUT: "speed up the suites or raise timeoutSeconds in task.json",
  OUT_OF_MEMORY: "raise resources.memoryMb in task.json, or run fewer test workers",
  NO_GOLD:
    "add tasks/<task>/gold.diff: the upstream fix as a unified diff against baseCommit, without the test files the hidden suite brings",
  INFRA_ERROR: "check the Docker engine (docker info) and run the sweep again",
};

/** The hint of a flag, for one task. */
export function quarantineHint(flag: QuarantineFlag, task: string): string {
  return QUARANTINE_HINTS[flag].replaceAll("<task>", task);
}

export const QuarantineReasonSchema = z.strictObject({
  flag: z.enum(Object.keys(QUARANTINE_FLAGS) as [QuarantineFlag, ...QuarantineFlag[]]),
  message: z.string(),
  /** What fixes it (QUARANTINE_HINTS); absent in lists written before hints existed. */
  hint: z.string().optional(),
  evidence: z.array(z.string()).default([]),
});
export type QuarantineReason = z.output<typeof QuarantineReasonSchema>;

export const QuarantineEntrySchema = z.strictObject({
  reasons: z.array(QuarantineReasonSchema).min(1),
  firstSeen: z.iso.datetime(),
  lastChecked: z.iso.datetime(),
});
export type QuarantineEntry = z.output<typeof QuarantineEntrySchema>;

export const QuarantineFileSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  tasks: z.record(z.string(), QuarantineEntrySchema),
});
export type QuarantineFile = z.output<typeof QuarantineFileSchema>;

export function quarantineFilePath(root: string): string {
  return join(resolve(root), "tasks", "quarantine.json");
}

/** Reads tasks/quarantine.json; a missing file is an empty list. */
export async function readQuarantineFile(root: string): Promise<QuarantineFile> {
  try {
    return await readJsonFile(QuarantineFileSchema, quarantineFilePath(root), "tasks/quarantine.json");
  } catch (error) {
    if ((error as { cause?: NodeJS.ErrnoException }).cause?.code === "ENOENT")
      return { version: 1, tasks: {} };
    throw error;
  }
}
