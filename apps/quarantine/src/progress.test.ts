import { describe, expect, it } from "vitest";
import { eta, plainProgress, taskLine } from "./progress.js";
import type { TaskOutcome } from "./task-sweep.js";

const outcome = (id: string, status: TaskOutcome["status"], flags: string[] = []): TaskOutcome => ({
  id,
  status,
  unprotected: false,
  expected: "declared in task.json",
  hasGold: false,
  runs: [],
  runMs: 2500,
  reasons: flags.map((flag) => ({ flag: flag as "FLAKY", message: "", evidence: [] })),
  infra: { failedRuns: status === "infra-error" ? 1 : 0, retries: 0, messages: [], logs: [] },
});

describe("progress", () => {
  it("prints one plain line per task with done/total, status and flags", () => {
    const lines: string[] = [];
    const progress = plainProgress((line) => lines.push(line));
    progress.start?.(2, 6);
    progress.taskDone?.(outcome("a", "quarantined", ["FLAKY", "TIMEOUT"]));
    progress.taskDone?.(outcome("b", "infra-error"));
    expect(lines).toEqual([
      "sweep: 2 tasks, 6 runs",
      "sweep: [1/2] a quarantined (FLAKY, TIMEOUT), 0 runs: 2.5 s of grading",
      "sweep: [2/2] b infra-error (INFRA_ERROR), 0 runs: 2.5 s of grading",
    ]);
    expect(taskLine(outcome("c", "healthy"))).toBe("c healthy, 0 runs: 2.5 s of grading");
    // The runs' durations added up (they overlap), said as such beside the sweep's own time.
    const two = { ...outcome("d", "healthy"), runs: [{}, {}] as TaskOutcome["runs"] };
    expect(taskLine(two)).toBe("d healthy, 2 runs: 2.5 s of grading");
  });

  it("shows a hostile task id or flag inert and on one line", () => {
    const line = taskLine(
      outcome("\u001b]0;oracle: PASS\u0007p\u009b2J\u202e\nverdict: PASS", "quarantined"),
    );
    expect(line).not.toMatch(
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/,
    );
    expect(line).toBe("p\\u{9b}2J\\u{202e}\\u{a}verdict: PASS quarantined, 0 runs: 2.5 s of grading");
  });

  it("estimates the time left from the pace so far", () => {
    expect(eta({ runs: 10, runsDone: 0, started: 0 }, 5000)).toBeNull();
    expect(eta({ runs: 10, runsDone: 4, started: 0 }, 8000)).toBe(12000);
  });
});
