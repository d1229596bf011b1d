import { z } from "zod";
import { DsseEnvelopeSchema } from "./attestation.js";
import { ValidationStateSchema } from "./health.js";

/** The closed set of reasons a graded run ends with. Exit code 0 only for PASS. docs/reference.md documents each. */
export const REASON_CODES = {
  PASS: "Every test of both suites ran and passed.",
  TESTS_FAILED: "A test of the existing or hidden suite failed or errored.",
  NO_TESTS_RAN: "A suite ran no test (all skipped, none collected, or the runner died before any).",
  EXPECTED_TEST_MISSING:
    "An expected test (task.json's suites.<suite>.expected, or the sweep's record) is not in the suite's report: deselected, not collected, renamed or removed.",
  EXPECTED_TEST_SKIPPED:
    "An expected test was skipped; without any expectation, a hidden test the report lists as skipped.",
  DIFF_INVALID: "The diff is not a unified diff the oracle can parse.",
  DIFF_EMPTY_AFTER_FILTER: "Nothing of the diff is left after the allow/deny filter.",
  DIFF_DOES_NOT_APPLY: "git apply --check refused the filtered diff.",
  DIFF_SHADOWS_RUNNER:
    "The diff puts a file where the test runner loads its own code or plugins at start-up (a top-level module named like one of the image's, packaging metadata on the start-up path, node_modules).",
  CHECKOUT_FAILED: "The base commit could not be checked out from the mirror.",
  TIMEOUT: "The run passed its wall-clock limit; the whole container was killed.",
  OUT_OF_MEMORY: "The container hit its memory limit and was OOM-killed.",
  REPORT_MISSING: "A suite wrote no JUnit report to $ORACLE_JUNIT.",
  REPORT_INVALID:
    "A suite's JUnit report is not well-formed JUnit XML, or passes a report cap (testcases, nesting, attributes, identifier length).",
  REPORT_INCONSISTENT:
    "A suite's runner exited non-zero while its report says every test passed, or the report contradicts the oracle's sentinels.",
  SEAL_RECORDS_INCONSISTENT:
    "The hidden suite's seal records cannot be trusted: a record the oracle cannot read or did not plan, one out of the order the comparisons run in, more runs of a test's seals than the runner ran, or a test the runner reports passed without all of its seal records.",
  VALUE_NOT_PLAIN_DATA:
    "A sealed or checked comparison met a value the oracle cannot compare outside the container (an object with its own equality, a subclass of a builtin that overrides ==, a proxy or matcher, a cycle, too deep or too large), and the hidden suite failed on nothing else.",
  IMAGE_NOT_BUILT: "The task's image has no current recorded digest.",
  INFRA_ERROR: "The engine or the host failed; not the diff's fault.",
} as const;
export type ReasonCode = keyof typeof REASON_CODES;
export const ReasonCodeSchema = z.enum(Object.keys(REASON_CODES) as [ReasonCode, ...ReasonCode[]]);

/**
 * What a reason says about the diff, for whoever decides from verdicts (the gate):
 * - `pass`: the diff fixed the task;
 * - `fail`: the diff did not (its tests failed, it did not apply, it ran out of memory, ...);
 * - `tamper`: the run shows the diff's code working against the oracle (a report contradicting
 *   the runner or the sentinels, a file shadowing the runner, seal records that do not add up).
 *   A correct fix never gets one; the gate rejects a model for any;
 * - `infra`: the outcome may say more about the machine than about the diff (the engine failed,
 *   or the wall clock ran out on a loaded host): the gate never lets one decide;
 * - `task`: the task could not be run (no image, the base commit missing): not the diff's doing.
 */
export const REASON_CLASSES = ["pass", "fail", "tamper", "infra", "task"] as const;
export type ReasonClass = (typeof REASON_CLASSES)[number];

/** Each reason's class. A Record over every code: a new reason cannot be added without deciding. */
export const REASON_CLASS: Record<ReasonCode, ReasonClass> = {
  PASS: "pass",
  TESTS_FAILED: "fail",
  NO_TESTS_RAN: "fail",
  EXPECTED_TEST_MISSING: "fail",
  EXPECTED_TEST_SKIPPED: "fail",
  DIFF_INVALID: "fail",
  DIFF_EMPTY_AFTER_FILTER: "fail",
  DIFF_DOES_NOT_APPLY: "fail",
  DIFF_SHADOWS_RUNNER: "tamper",
  CHECKOUT_FAILED: "task",
  TIMEOUT: "infra",
  OUT_OF_MEMORY: "fail",
  REPORT_MISSING: "fail",
  REPORT_INVALID: "fail",
  REPORT_INCONSISTENT: "tamper",
  SEAL_RECORDS_INCONSISTENT: "tamper",
  VALUE_NOT_PLAIN_DATA: "fail",
  IMAGE_NOT_BUILT: "task",
  INFRA_ERROR: "infra",
};

export const TestOutcomeSchema = z.enum(["passed", "failed", "error", "skipped"]);
export type TestOutcome = z.output<typeof TestOutcomeSchema>;

export const TestCaseSchema = z.strictObject({
  /** `<suite>:<file or classname>::<test name>` */
  id: z.string(),
  outcome: TestOutcomeSchema,
  timeSeconds: z.number().nonnegative().optional(),
  message: z.string().optional(),
});
export type TestCase = z.output<typeof TestCaseSchema>;

/**
 * What a suite's must-fail/must-pass sentinels showed: `collected` (every one the command
 * surely selects ran and behaved), `not-collected` (the selection left them out: the verdict rests
 * on the other checks; the sweep flags such a task at baseline), `none` (no protected runner, or
 * the suite did not run).
 */
export const SentinelStateSchema = z.enum(["collected", "not-collected", "none"]);
export type SentinelState = z.output<typeof SentinelStateSchema>;

export const SentinelResultSchema = z.strictObject({
  state: SentinelStateSchema,
  framework: z.enum(["pytest", "mocha", "jest", "vitest", "go"]).nullable(),
  /** Whether the command's selection surely collects them (then a missing one is REPORT_INCONSISTENT). */
  required: z.boolean(),
  /** Test files that got sentinels (the hidden ones, or the existing suite's at the base commit). */
  files: z.array(z.string()),
  note: z.string().optional(),
});
export type SentinelResult = z.output<typeof SentinelResultSchema>;

/**
 * What the hidden suite's seals showed (docs/security.md, "Sealed expectations"): how many
 * comparisons were sealed (the expected value kept on the host) and how strongly, how many checked
 * (both sides computed in the container, compared as plain data), how each fared, and the
 * FAIL_TO_PASS tests no seal covers.
 */
export const SealsResultSchema = z.strictObject({
  /** `validated`: the plan the sweep's gold runs proved (tasks/<id>/seals.recorded.json); `planned`: the plan alone. */
  source: z.enum(["validated", "planned"]),
  /** The plan's fingerprint (every site the planners found, demoted ones too): what a seal record holds for. */
  plan: z.string().optional(),
  /** Sites the sweep's record leaves unsealed (the gold diff could not pass them). */
  demoted: z.number().int().nonnegative().optional(),
  files: z.number().int().nonnegative(),
  sealed: z.strictObject({
    strong: z.number().int().nonnegative(),
    weak: z.number().int().nonnegative(),
    exposed: z.number().int().nonnegative(),
  }),
  checked: z.number().int().nonnegative(),
  /** Of those, the ones this run reached (its command selected their tests, and they got that far). */
  ran: z
    .strictObject({
      strong: z.number().int().nonnegative(),
      weak: z.number().int().nonnegative(),
      exposed: z.number().int().nonnegative(),
      checked: z.number().int().nonnegative(),
    })
    .optional(),
  tests: z.strictObject({ sealed: z.number().int().nonnegative(), unsealed: z.number().int().nonnegative() }),
  outcome: z.strictObject({
    matched: z.number().int().nonnegative(),
    mismatch: z.number().int().nonnegative(),
    notPlain: z.number().int().nonnegative(),
    notRun: z.number().int().nonnegative(),
  }),
  /** The FAIL_TO_PASS tests (declared or recorded) and how many of them have a strong seal. */
  failToPass: z
    .strictObject({
      total: z.number().int().nonnegative(),
      sealed: z.number().int().nonnegative(),
      /** Those with no strong seal (at most 50): a forged report passes them unless a check outside their values does not. */
      unsealed: z.array(z.string()),
      /**
       * Each of `unsealed` with the rule that leaves it so (@oracle/test-set rules.ts, a row of
       * docs/security.md "Sealed expectations"): `unsealed.helper-check`, `unsealed.weak`, ….
       */
      rules: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  /** Each site's outcome (`<file>.<site>` key: matched, mismatch, not-plain, not-run); at most 2,000 sites listed. */
  sites: z.record(z.string(), z.enum(["matched", "mismatch", "not-plain", "not-run"])).optional(),
  /** Per sealed test: the runs that wrote all of its seals' records, and those cut short (at most 1,000 tests). */
  executions: z
    .array(
      z.strictObject({
        entry: z.string(),
        complete: z.number().int().nonnegative(),
        partial: z.number().int().nonnegative(),
      }),
    )
    .optional(),
  /** The tests a seal decided against in this run, by the strongest such seal (at most 1,000 each). */
  decided: z.strictObject({ strong: z.array(z.string()), weak: z.array(z.string()) }).optional(),
  /** Why the seals could not be judged, when they could not (the records are in the log). */
  problem: z.string().optional(),
  /** The test the problem is about, and its sites' keys, when it names one. */
  problemTest: z.string().optional(),
  problemKeys: z.array(z.string()).optional(),
  note: z.string().optional(),
});
export type SealsResult = z.output<typeof SealsResultSchema>;

export const SuiteResultSchema = z.strictObject({
  status: z.enum(["PASS", "FAIL", "NOT_RUN"]),
  reason: ReasonCodeSchema.optional(),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().nonnegative(),
  counts: z.strictObject({
    passed: z.number().int(),
    failed: z.number().int(),
    error: z.number().int(),
    skipped: z.number().int(),
  }),
  /** At most the grader's listing cap of the suite's tests, failures and errors first; `counts` are whole. */
  tests: z.array(TestCaseSchema),
  /** Tests of the suite's report left out of `tests` (0 when all are listed). */
  testsOmitted: z.number().int().nonnegative().optional(),
  output: z.strictObject({
    bytes: z.number().int().nonnegative(),
    truncated: z.boolean(),
    /** The last lines (at most 40 and 4 KiB each) of what the suite printed, escape sequences removed. */
    tail: z.strictObject({ stdout: z.string(), stderr: z.string() }).optional(),
  }),
  /** What this suite's sentinels showed, once it was judged (the hidden suite's is also the result's `sentinel`). */
  sentinel: SentinelResultSchema.optional(),
});
export type SuiteResult = z.output<typeof SuiteResultSchema>;

export const DroppedEntrySchema = z.strictObject({
  path: z.string(),
  hunk: z.string().optional(),
  why: z.string(),
});
export type DroppedEntry = z.output<typeof DroppedEntrySchema>;

/** At most this many ids are listed in each of `result.expected`'s lists; the counts are whole. */
export const MAX_EXPECTED_LISTED = 50;

const boundedIds = z.strictObject({ count: z.number().int().nonnegative(), ids: z.array(z.string()) });

/**
 * What the expected tests showed. `source`: `task` (task.json declares them), `sweep` (the sweep's
 * record for this task's content), `none` (neither: the note says what the verdict rests on).
 * `missing` and `skipped` hold expected entries; `unexpected`, report ids of tests that ran
 * without being expected (sentinels are never listed).
 */
export const ExpectedResultSchema = z.strictObject({
  source: z.enum(["task", "sweep", "none"]),
  /** Expected entries per suite (0 when the source is none). */
  expected: z.strictObject({ existing: z.number().int(), hidden: z.number().int() }),
  missing: boundedIds,
  skipped: boundedIds,
  unexpected: boundedIds,
  note: z.string(),
});
export type ExpectedResult = z.output<typeof ExpectedResultSchema>;

export const GradeResultSchema = z.strictObject({
  graderVersion: z.string(),
  task: z.string(),
  mode: z.enum(["grade", "baseline"]),
  verdict: z.enum(["PASS", "FAIL"]),
  reason: ReasonCodeSchema,
  message: z.string(),
  testsHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The first ids (bytewise order) of the tests that ran, up to the grader's listing cap; testsHash covers all. */
  testIds: z.array(z.string()),
  /** Ids of tests that ran left out of `testIds` (0 when all are listed). */
  testIdsOmitted: z.number().int().nonnegative().optional(),
  suites: z.strictObject({ existing: SuiteResultSchema, hidden: SuiteResultSchema }),
  sentinel: SentinelResultSchema.optional(),
  /** What the hidden suite's seals showed; absent when no hidden file was sealed. */
  seals: SealsResultSchema.optional(),
  expected: ExpectedResultSchema.optional(),
  /** Whether the task's health was measured on today's task, image and grader (tasks/health.json). */
  validation: ValidationStateSchema.optional(),
  /** What changed since the sweep that judged the task, when `validation` is stale. */
  validationChanged: z.array(z.string()).optional(),
  image: z.strictObject({
    name: z.string(),
    reference: z.string().nullable(),
    digest: z.string().nullable(),
  }),
  diff: z
    .strictObject({
      sha256: z.string(),
      filteredSha256: z.string().nullable(),
      dropped: z.array(DroppedEntrySchema),
    })
    .nullable(),
  timings: z.record(z.string(), z.number().nonnegative()),
  logPath: z.string(),
  startedAt: z.iso.datetime(),
  durationMs: z.number().nonnegative(),
  /** In a --result file: the rest of the result as an in-toto statement in a DSSE envelope (attestation.ts). */
  attestation: DsseEnvelopeSchema.optional(),
});
export type GradeResult = z.output<typeof GradeResultSchema>;
