import { loadParsers, planSeals } from "@oracle/test-set";
import { describe, expect, it } from "vitest";
import { describeTask } from "./new-task/validate.js";
import { buildReport } from "./report.js";
import { ruleCounts, sealSummary } from "./seals.js";
import type { TaskOutcome } from "./task-sweep.js";

const HIDDEN = `from text import normalise, is_blank


def check(raw, want):
    assert normalise(raw) == want


def test_helper():
    check("a  b", "a b")


def test_truth():
    assert is_blank("  ")


def test_strong():
    assert normalise("c  d") == "c d"
`;
const id = (name: string) => `tests/test_x.py::${name}`;

describe("the sweep's unsealed FAIL_TO_PASS tests, by rule", () => {
  it("names each test's rule from the plan, counts them per rule, and new-task prints them", async () => {
    const plan = planSeals(await loadParsers(["python"]), [{ path: "tests/test_x.py", text: HIDDEN }]);
    const record = {
      version: 1 as const,
      task: "t",
      taskDigest: "d",
      plan: plan.fingerprint,
      recordedAt: "2026-12-07T00:00:00.000Z",
      graderVersion: "0",
      demoted: [],
      executions: {},
      failToPass: [
        { test: id("test_helper"), seal: "none" as const },
        { test: id("test_truth"), seal: "weak" as const },
        { test: id("test_strong"), seal: "strong" as const },
      ],
    };
    const seals = sealSummary(record, "recorded", plan)!;
    expect(seals).toMatchObject({
      failToPass: 3,
      sealed: 1,
      unsealed: [id("test_helper"), id("test_truth")],
      rules: { [id("test_helper")]: "unsealed.helper-check", [id("test_truth")]: "unsealed.weak" },
    });
    // Without a plan (it could not be made) the tests are listed alone.
    expect(sealSummary(record, "recorded")?.rules).toBeUndefined();

    const outcome: TaskOutcome = {
      id: "t",
      hasGold: true,
      unprotected: false,
      seals,
      expected: "recorded",
      runs: [],
      runMs: 0,
      status: "healthy",
      reasons: [],
      infra: { failedRuns: 0, retries: 0, messages: [], logs: [] },
    };
    const report = buildReport({
      root: "/r",
      paths: { sweepLog: "/r/logs/sweep/s/sweep.jsonl", reportDir: "/r/logs/sweep/s" },
      settings: { tasks: [], repeat: 1, concurrency: 1, infraRetries: 0 },
      outcomes: [outcome, { ...outcome, id: "u" }],
      before: { version: 1, tasks: {} },
      update: { file: { version: 1, tasks: {} }, newlyQuarantined: [], released: [], removed: [] },
      startedAt: new Date(0),
      finishedAt: new Date(1000),
    });
    expect(report.counts.unsealedByRule).toEqual({ "unsealed.helper-check": 2, "unsealed.weak": 2 });
    expect(ruleCounts({ "unsealed.weak": 1, "unsealed.helper-check": 2, "unsealed.gold": 1 })).toBe(
      "unsealed.helper-check 2, unsealed.gold 1, unsealed.weak 1",
    );
    expect(describeTask(report.tasks[0]!)).toContain(
      `  sealed: 1 of 3 FAIL_TO_PASS test(s) strong; no strong seal, by the rule of docs/security.md (Sealed expectations) that leaves each so: ${id("test_helper")} [unsealed.helper-check], ${id("test_truth")} [unsealed.weak]`,
    );
    // fb55/entities: every FAIL_TO_PASS test strongly sealed printed no sealed: line at all.
    const all = { ...report.tasks[0]!, seals: { ...seals, sealed: 1, failToPass: 1, unsealed: [] } };
    expect(describeTask(all).split("\n")).toContain("  sealed: 1 of 1 FAIL_TO_PASS test(s) strong");
  });
});

describe("new-task's account of a task (brief s28 fix, item 5)", () => {
  const task = {
    id: "t",
    status: "quarantined" as const,
    reasons: [
      {
        flag: "GOLD_FAILS" as const,
        message: "gold.diff FAILs",
        evidence: [],
        hint: "read the failing suite's output",
      },
    ],
    infra: { failedRuns: 0, retries: 0, messages: [], logs: [] },
    wasQuarantined: false,
    change: "new" as const,
    firstSeen: null,
    hasGold: true,
    unprotected: false,
    expected: "not recorded: the task is quarantined",
    runs: [],
    runMs: 0,
  } as unknown as Parameters<typeof describeTask>[0];

  it("a quarantined task: the commands that show its runs carry --allow-quarantined (plain --baseline answers TASK_QUARANTINED)", () => {
    const text = describeTask(task);
    expect(text).toContain(
      "  to see its runs: pnpm grade t --baseline --allow-quarantined, pnpm grade t --diff tasks/t/gold.diff --allow-quarantined",
    );
    for (const command of text.matchAll(/pnpm grade [^,;(]*/g))
      expect(command[0], command[0]).toMatch(/--allow-quarantined/);
    expect(describeTask({ ...task, hasGold: false })).not.toContain("--diff tasks/t/gold.diff");
    expect(describeTask({ ...task, status: "healthy", reasons: [] })).not.toContain("to see its runs");
  });

  it("no seal record written: one line says so, where it printed nothing", () => {
    expect(describeTask(task, false).split("\n")).toContain(
      "  sealed: no seal record written (tasks/t/seals.recorded.json): no run sealed a comparison of the hidden tests, so none of its FAIL_TO_PASS tests is sealed (docs/security.md, Sealed expectations)",
    );
    expect(describeTask(task, true)).toMatch(
      /^ {2}sealed: tasks\/t\/seals\.recorded\.json names no FAIL_TO_PASS test/m,
    );
  });
});
