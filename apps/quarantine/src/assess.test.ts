import { quarantineHint } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { assessTask } from "./assess.js";
import { baselineFindings, goldFindings } from "./checks.js";
import { sentinelStatus } from "./run.js";
import { stabilityFindings } from "./stability.js";
import { fakeResult, record } from "./testing/fake-grade.js";
import type { RunObservation, RunRecord, SuiteSummary } from "./types.js";

const TASK = { id: "t", hasGold: true };
const suite = (
  status: SuiteSummary["status"],
  reason: SuiteSummary["reason"],
  failed = 0,
  passed = 0,
): SuiteSummary => ({
  status,
  reason,
  counts: { passed, failed, error: 0, skipped: 0 },
});
const flags = (findings: Array<{ flag: string }>) => findings.map((f) => f.flag);
const observe = (r: RunRecord, tests: Record<string, string> = {}): RunObservation => ({
  record: r,
  tests: new Map(Object.entries(tests)),
  complete: true,
});

describe("baselineFindings", () => {
  it("finds nothing in a healthy baseline: existing PASS, hidden FAIL on a test", () => {
    expect(baselineFindings(record({ mode: "baseline" }))).toEqual([]);
  });

  it("flags an existing suite that fails, and one that ran no test", () => {
    const fails = record({ mode: "baseline", existing: suite("FAIL", "TESTS_FAILED", 1) });
    expect(flags(baselineFindings(fails))).toEqual(["EXISTING_SUITE_FAILS"]);
    const none = record({ mode: "baseline", existing: suite("FAIL", "NO_TESTS_RAN") });
    expect(flags(baselineFindings(none))).toEqual(["NO_EXISTING_TESTS"]);
  });

  it("flags hidden tests that pass at the base commit, or that do not fail on any test", () => {
    const passes = record({ mode: "baseline", hidden: suite("PASS", null, 0, 2) });
    expect(flags(baselineFindings(passes))).toEqual(["HIDDEN_PASS_AT_BASELINE"]);
    const noTests = record({ mode: "baseline", hidden: suite("FAIL", "NO_TESTS_RAN") });
    expect(flags(baselineFindings(noTests))).toEqual(["NO_HIDDEN_TESTS"]);
    const noFailure = record({ mode: "baseline", hidden: suite("FAIL", "TESTS_FAILED", 0, 2) });
    expect(flags(baselineFindings(noFailure))).toEqual(["NO_HIDDEN_TESTS"]);
  });

  it("wants the hidden suite to fail on a test, not on its report, even when a test failed", () => {
    for (const reason of ["REPORT_MISSING", "REPORT_INVALID"] as const) {
      const run = record({ mode: "baseline", hidden: suite("FAIL", reason), message: "no report" });
      expect(baselineFindings(run)).toMatchObject([
        { flag: "HIDDEN_REPORT_UNUSABLE", detail: expect.stringContaining(`${reason}: 0 passed`) },
      ]);
    }
    // A sentinel the command never collected: REPORT_INCONSISTENT though the real hidden test failed.
    const inconsistent = record({ mode: "baseline", hidden: suite("FAIL", "REPORT_INCONSISTENT", 1) });
    expect(flags(baselineFindings(inconsistent))).toEqual(["SENTINEL_NOT_COLLECTED"]);
    const collected = { ...inconsistent, sentinel: "collected" as const };
    expect(flags(baselineFindings(collected))).toEqual(["HIDDEN_REPORT_UNUSABLE"]);
  });

  it("wants the existing suite's sentinel to work: a contradiction or not-collected is EXISTING_SENTINEL_FAILS", () => {
    const inconsistent = record({
      mode: "baseline",
      existing: suite("FAIL", "REPORT_INCONSISTENT"),
      hidden: suite("NOT_RUN", null),
      existingSentinel: "collected",
      existingSentinelNote: "selected by name",
    });
    expect(baselineFindings(inconsistent)).toMatchObject([
      { flag: "EXISTING_SENTINEL_FAILS", detail: expect.stringContaining("(selected by name)") },
    ]);
    const notCollected = record({ mode: "baseline", existingSentinel: "not-collected" });
    expect(flags(baselineFindings(notCollected))).toEqual(["EXISTING_SENTINEL_FAILS"]);
    // Without a sentinel, an inconsistent existing report is the suite's own (its exit code against its report).
    const plain = { ...inconsistent, existingSentinel: "none" as const };
    expect(flags(baselineFindings(plain))).toEqual(["EXISTING_SUITE_FAILS"]);
    // Every test passed and the runner exited 1 (unjs/destr f9c78d4's vitest 0.34): said so, not "narrow".
    const afterPass = {
      ...plain,
      message:
        "existing suite: runner exited 1 but its report says all passed (16 passed, 0 failed, 0 errors, 0 skipped)",
    };
    expect(baselineFindings(afterPass)).toMatchObject([
      {
        flag: "EXISTING_SUITE_FAILS",
        detail: expect.stringContaining("no test failed, what fails runs after the tests"),
      },
    ]);
    expect(baselineFindings(record({ mode: "baseline", existingSentinel: "collected" }))).toEqual([]);
    // No existing test ran: NO_EXISTING_TESTS alone, not a sentinel problem on top.
    const none = record({
      mode: "baseline",
      existing: suite("FAIL", "NO_TESTS_RAN"),
      existingSentinel: "not-collected",
    });
    expect(flags(baselineFindings(none))).toEqual(["NO_EXISTING_TESTS"]);
    expect(quarantineHint("EXISTING_SENTINEL_FAILS", "t")).toMatch(/suites\.existing\.files/);
  });

  it("reads the result's sentinel status: not-collected is flagged whatever the suite says", () => {
    const notCollected = record({ mode: "baseline", sentinel: "not-collected" });
    expect(flags(baselineFindings(notCollected))).toEqual(["SENTINEL_NOT_COLLECTED"]);
    const both = record({
      mode: "baseline",
      sentinel: "not-collected",
      hidden: suite("FAIL", "REPORT_INCONSISTENT", 1),
    });
    expect(flags(baselineFindings(both))).toEqual(["SENTINEL_NOT_COLLECTED"]);
    expect(baselineFindings(record({ mode: "baseline", sentinel: "collected" }))).toEqual([]);
    expect(baselineFindings(record({ mode: "baseline", sentinel: "none" }))).toEqual([]);
    // None because the command stops at its first failure: one flag away from protected, so flagged.
    const stops = record({
      mode: "baseline",
      sentinel: "none",
      sentinelNote: "the hidden command stops at its first failure (-x, --maxfail)",
    });
    const [found] = baselineFindings(stops);
    expect(found?.flag).toBe("SENTINEL_NOT_COLLECTED");
    expect(found?.detail).toMatch(/stops at its first failure/);
    // None because Go's -run selects no test named like the hidden files' (a subtest level): flagged.
    const unnamed = record({
      mode: "baseline",
      sentinel: "none",
      sentinelNote: '-run "Test(A|B)/x" selects no test named like those of pkg/z_test.go, pkg/a_test.go',
    });
    expect(flags(baselineFindings(unnamed))).toEqual(["SENTINEL_NOT_COLLECTED"]);
    expect(baselineFindings(unnamed)[0]?.detail).toMatch(/select the hidden tests by their whole names/);
    const other = record({ mode: "baseline", sentinel: "none", sentinelNote: "no protected runner" });
    expect(baselineFindings(other)).toEqual([]);
  });

  it("does not blame the hidden suite when the existing suite failed first and stopped the run", () => {
    const run = record({
      mode: "baseline",
      existing: suite("FAIL", "TESTS_FAILED", 1),
      hidden: suite("NOT_RUN", null),
    });
    expect(flags(baselineFindings(run))).toEqual(["EXISTING_SUITE_FAILS"]);
  });

  it("maps run-level stops to their flags and says nothing about INFRA_ERROR", () => {
    const stop = (reason: RunRecord["reason"]) =>
      flags(baselineFindings(record({ mode: "baseline", reason, existing: null, hidden: null })));
    expect(stop("TIMEOUT")).toEqual(["TIMEOUT"]);
    expect(stop("IMAGE_NOT_BUILT")).toEqual(["IMAGE_NOT_BUILT"]);
    expect(stop("OUT_OF_MEMORY")).toEqual(["OUT_OF_MEMORY"]);
    expect(stop("CHECKOUT_FAILED")).toEqual(["INVALID_TASK"]);
    expect(stop("TASK_INVALID")).toEqual(["INVALID_TASK"]);
    expect(stop("INFRA_ERROR")).toEqual([]);
  });
});

describe("goldFindings", () => {
  it("wants PASS, and names the grader's reason otherwise", () => {
    expect(goldFindings(record({ mode: "gold" }))).toEqual([]);
    const fails = goldFindings(
      record({ mode: "gold", verdict: "FAIL", reason: "DIFF_DOES_NOT_APPLY", message: "no" }),
    );
    expect(fails).toMatchObject([{ flag: "GOLD_FAILS", detail: "DIFF_DOES_NOT_APPLY: no" }]);
    expect(flags(goldFindings(record({ mode: "gold", verdict: "FAIL", reason: "TIMEOUT" })))).toEqual([
      "TIMEOUT",
    ]);
  });
});

describe("stabilityFindings", () => {
  it("finds nothing when every repeat behaved the same", () => {
    const runs = [1, 2, 3].map((repeat) => observe(record({ mode: "baseline", repeat }), { t: "failed" }));
    expect(stabilityFindings("baseline", runs)).toEqual([]);
  });

  it("calls a check FLAKY when its outcome changes between repeats", () => {
    const runs = [
      observe(record({ mode: "gold", repeat: 1 })),
      observe(record({ mode: "gold", repeat: 2, verdict: "FAIL", reason: "TESTS_FAILED" })),
    ];
    const [flaky] = stabilityFindings("gold", runs);
    expect(flaky).toMatchObject({ flag: "FLAKY", mode: "gold" });
    expect(flaky?.detail).toContain("PASS/PASS/PASS/PASS ×1");
    expect(flaky?.logs).toEqual(["logs/gold-1.jsonl", "logs/gold-2.jsonl"]);
  });

  it("calls a check FLAKY when a single test flips though the suite verdicts agree", () => {
    const runs = [
      observe(record({ mode: "baseline", repeat: 1 }), { a: "failed", r1: "passed" }),
      observe(record({ mode: "baseline", repeat: 2 }), { a: "failed", r1: "failed" }),
    ];
    expect(stabilityFindings("baseline", runs)).toMatchObject([
      { flag: "FLAKY", detail: expect.stringContaining("r1") },
    ]);
  });

  it("calls a check TESTS_HASH_UNSTABLE when different tests ran", () => {
    const runs = [
      observe(record({ mode: "baseline", repeat: 1, testsHash: "a".repeat(64) })),
      observe(record({ mode: "baseline", repeat: 2, testsHash: "b".repeat(64) })),
    ];
    expect(flags(stabilityFindings("baseline", runs))).toEqual(["TESTS_HASH_UNSTABLE"]);
  });

  it("ignores runs the engine failed and the tests of timed-out runs", () => {
    const runs = [
      observe(record({ mode: "baseline", repeat: 1 }), { a: "failed" }),
      observe(
        record({
          mode: "baseline",
          repeat: 2,
          reason: "INFRA_ERROR",
          verdict: null,
          testsHash: "c".repeat(64),
        }),
      ),
    ];
    expect(stabilityFindings("baseline", runs)).toEqual([]);
    const timeouts = [1, 2].map((repeat) =>
      observe(record({ mode: "baseline", repeat, reason: "TIMEOUT", testsHash: `${repeat}`.repeat(64) }), {
        a: `${repeat}`,
      }),
    );
    expect(stabilityFindings("baseline", timeouts)).toEqual([]);
  });
});

describe("assessTask", () => {
  it("a baseline that failed tests and lost the pair is cut short (a Go panic), when every gold run collected it", () => {
    const baseline = record({ mode: "baseline", sentinel: "not-collected" });
    const gold = record({ mode: "gold", sentinel: "collected" });
    expect(assessTask(TASK, [observe(baseline), observe(gold)]).status).toBe("healthy");
    // Gold lost it too: the command does not select it.
    const goldLost = record({ mode: "gold", sentinel: "not-collected" });
    expect(flags(assessTask(TASK, [observe(baseline), observe(goldLost)]).reasons)).toContain(
      "SENTINEL_NOT_COLLECTED",
    );
    // A baseline whose hidden tests did not fail is not explained by a failure.
    const noFailure = record({
      mode: "baseline",
      sentinel: "not-collected",
      hidden: suite("FAIL", "REPORT_INCONSISTENT", 1),
    });
    expect(flags(assessTask(TASK, [observe(noFailure), observe(gold)]).reasons)).toContain(
      "SENTINEL_NOT_COLLECTED",
    );
  });

  it("is healthy when baseline and gold meet their expectations every time", () => {
    const runs = [
      record({ mode: "baseline" }),
      record({ mode: "baseline", repeat: 2 }),
      record({ mode: "gold" }),
    ];
    expect(
      assessTask(
        TASK,
        runs.map((r) => observe(r)),
      ),
    ).toMatchObject({ status: "healthy", reasons: [] });
  });

  it("quarantines a task without gold.diff, however good its baseline, with a hint naming the file", () => {
    const runs = [record({ mode: "baseline" }), record({ mode: "baseline", repeat: 2 })];
    const assessment = assessTask(
      { id: "plain", hasGold: false },
      runs.map((r) => observe(r)),
    );
    expect(assessment.status).toBe("quarantined");
    expect(assessment.reasons).toEqual([
      {
        flag: "NO_GOLD",
        message: expect.stringContaining("no gold.diff"),
        hint: expect.stringContaining("add tasks/plain/gold.diff"),
        evidence: ["tasks/plain/gold.diff"],
      },
    ]);
  });

  it("puts the flag's hint, with the task's id, on every reason", () => {
    const assessment = assessTask({ id: "x", hasGold: false }, [
      observe(record({ mode: "baseline", hidden: suite("FAIL", "REPORT_INCONSISTENT", 1) })),
      observe(record({ mode: "gold", verdict: "FAIL", reason: "TESTS_FAILED" })),
    ]);
    expect(flags(assessment.reasons)).toEqual(["SENTINEL_NOT_COLLECTED", "GOLD_FAILS", "NO_GOLD"]);
    for (const reason of assessment.reasons) expect(reason.hint).toBe(quarantineHint(reason.flag, "x"));
    expect(assessment.reasons[0]?.hint).toMatch(/which selection left the sentinel out/);
    expect(assessment.reasons[1]?.hint).toContain("pnpm grade x --diff tasks/x/gold.diff");
  });

  it("gives one reason per flag, with counts per mode and the logs as evidence", () => {
    const bad = (repeat: number) =>
      record({ mode: "baseline", repeat, existing: suite("FAIL", "TESTS_FAILED", 2) });
    const assessment = assessTask(TASK, [
      observe(bad(1)),
      observe(bad(2)),
      observe(record({ mode: "baseline", repeat: 3 })),
    ]);
    expect(assessment.status).toBe("quarantined");
    expect(flags(assessment.reasons)).toEqual(["EXISTING_SUITE_FAILS", "FLAKY"]);
    const [existing] = assessment.reasons;
    expect(existing?.message).toMatch(/^baseline: 2 of 3 runs: TESTS_FAILED: 0 passed, 2 failed/);
    expect(existing?.evidence).toEqual([
      "baseline: 2 of 3 runs",
      "logs/baseline-1.jsonl",
      "logs/baseline-2.jsonl",
    ]);
  });

  it("reports INFRA_ERROR apart: the task is neither healthy nor quarantined for it", () => {
    const infra = record({
      mode: "baseline",
      repeat: 2,
      reason: "INFRA_ERROR",
      verdict: null,
      attempts: 3,
      message: "engine died",
    });
    infra.retriedLogs = ["logs/r1.jsonl", "logs/r2.jsonl"];
    const assessment = assessTask(TASK, [observe(record({ mode: "baseline" })), observe(infra)]);
    expect(assessment).toMatchObject({ status: "infra-error", reasons: [] });
    expect(assessment.infra).toEqual({
      failedRuns: 1,
      retries: 2,
      messages: ["engine died"],
      logs: ["logs/r1.jsonl", "logs/r2.jsonl", "logs/baseline-2.jsonl"],
    });
  });

  it("quarantines for a real flag even when another run was an infra error", () => {
    const infra = record({ mode: "gold", reason: "INFRA_ERROR", verdict: null });
    const assessment = assessTask(TASK, [
      observe(record({ mode: "baseline", hidden: suite("PASS", null, 0, 1) })),
      observe(infra),
    ]);
    expect(assessment.status).toBe("quarantined");
    expect(flags(assessment.reasons)).toEqual(["HIDDEN_PASS_AT_BASELINE"]);
    expect(assessment.infra.failedRuns).toBe(1);
  });
});

describe("sentinelStatus", () => {
  const options = { root: "/r", task: "t", mode: "baseline" as const };
  it("reads the result's sentinel state, null when the result has none", () => {
    const result = fakeResult(options, {});
    const { sentinel: _none, ...without } = result;
    expect(sentinelStatus(without)).toBeNull();
    for (const state of ["collected", "not-collected", "none"] as const) {
      const sentinel = { state, framework: "pytest" as const, required: state === "collected", files: [] };
      expect(sentinelStatus({ ...result, sentinel })).toBe(state);
    }
  });
});
