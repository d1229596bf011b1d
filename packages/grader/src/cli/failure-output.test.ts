import type { GradeResult, SuiteResult } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { failureOutput, SENTINEL_NOTE } from "./failure-output.js";

const suite = (status: SuiteResult["status"], tail?: { stdout: string; stderr: string }): SuiteResult => ({
  status,
  exitCode: status === "PASS" ? 0 : 1,
  durationMs: 1,
  counts: { passed: 0, failed: 0, error: 0, skipped: 0 },
  tests: [],
  output: { bytes: 0, truncated: false, ...(tail ? { tail } : {}) },
});

const result = (verdict: "PASS" | "FAIL", existing: SuiteResult, hidden: SuiteResult) =>
  ({ verdict, suites: { existing, hidden } }) as GradeResult;

describe("failureOutput", () => {
  it("shows each failed suite's own last lines, framed, and nothing of a suite that passed", () => {
    const text = failureOutput(
      result(
        "FAIL",
        suite("PASS", { stdout: "1 passing", stderr: "" }),
        suite("FAIL", { stdout: "", stderr: "usage: mocha\nerror: unknown option '--ci'" }),
      ),
    );
    expect(text).toBe(
      "hidden suite's stderr, last 2 lines:\n  | usage: mocha\n  | error: unknown option '--ci'\n",
    );
  });

  it("says when a failed suite printed nothing, and is silent on a PASS or when no suite ran", () => {
    const empty = { stdout: "", stderr: "" };
    expect(failureOutput(result("FAIL", suite("FAIL", empty), suite("NOT_RUN")))).toBe(
      "existing suite printed nothing\n",
    );
    expect(failureOutput(result("FAIL", suite("NOT_RUN"), suite("NOT_RUN")))).toBe("");
    expect(failureOutput(result("PASS", suite("PASS", empty), suite("PASS", empty)))).toBe("");
  });

  it("says under a suite's output that a failing test the repository does not have is the oracle's must-fail test", () => {
    const hidden = {
      ...suite("FAIL", { stdout: "=== FAIL: . TestBigCommas74 (0.00s)", stderr: "" }),
      sentinel: {
        state: "collected" as const,
        framework: "go" as const,
        required: true,
        files: ["comma_test.go"],
      },
    };
    expect(failureOutput(result("FAIL", suite("PASS"), hidden))).toBe(
      `hidden suite's stdout, last 1 line:\n  | === FAIL: . TestBigCommas74 (0.00s)\n${SENTINEL_NOTE}\n`,
    );
  });
});
