import { describe, expect, it } from "vitest";
import type { TaskReport } from "../types.js";
import { nearFix, suiteTooLarge } from "./narrow.js";

describe("nearFix: the existing suite's files next to what the fix touches", () => {
  it("Go: the test files of every package the fix changes a file in", () => {
    const existing = ["a/a_test.go", "a/more_test.go", "b/b_test.go", "c/deep/c_test.go", "x_test.go"];
    expect(nearFix("go", existing, ["a/a.go", "c/deep/c.go"], ["b/new_test.go"])).toEqual([
      "a/a_test.go",
      "a/more_test.go",
      "b/b_test.go",
      "c/deep/c_test.go",
    ]);
  });

  it("Python and JS: the test files beside the fix's tests, and those named after a changed code file", () => {
    const existing = [
      "tests/test_parse.py",
      "tests/unit/test_other.py",
      "tests/unit/test_format.py",
      "tests/test_utils.py",
      "docs/test_docs.py",
    ];
    expect(
      nearFix("pytest", existing, ["src/pkg/parse.py", "src/pkg/utils.py"], ["tests/unit/test_new.py"]),
    ).toEqual(["tests/test_parse.py", "tests/unit/test_format.py", "tests/unit/test_other.py"]);
    expect(
      nearFix(
        "mocha",
        ["test/scan.test.js", "test/big/all.test.js", "test/index.test.js"],
        ["lib/scan.js", "lib/index.js"],
        ["test/unit/x.test.js"],
      ),
    ).toEqual(["test/scan.test.js"]);
  });

  it("is empty when nothing is near", () => {
    expect(nearFix("pytest", ["tests/test_a.py"], ["src/b.py"], ["other/test_c.py"])).toEqual([]);
  });
});

describe("suiteTooLarge", () => {
  const run = (partial: Partial<TaskReport["runs"][number]>) =>
    ({
      mode: "baseline",
      reason: "TESTS_FAILED",
      message: "",
      existing: { passed: 1 },
      ...partial,
    }) as TaskReport["runs"][number];
  const task = (runs: TaskReport["runs"]) => ({ runs }) as TaskReport;

  it("reads a baseline run whose existing report passed a cap, or that timed out before the existing suite reported", () => {
    const cap = "existing suite's report: more than 50000 testcases in one report";
    expect(suiteTooLarge(task([run({ reason: "REPORT_INVALID", message: cap })]))).toEqual({
      why: cap,
      timeout: false,
    });
    expect(
      suiteTooLarge(
        task([run({ reason: "TIMEOUT", message: "the run passed its 300 s limit", existing: null })]),
      ),
    ).toEqual({ why: "the run passed its 300 s limit in the existing suite", timeout: true });
    // jmespath.py c501751: the result lists the existing suite, NOT_RUN, when the limit killed it.
    const notRun = {
      status: "NOT_RUN",
      reason: null,
      counts: { passed: 0, failed: 0, error: 0, skipped: 0 },
    };
    expect(
      suiteTooLarge(
        task([
          run({ reason: "TIMEOUT", message: "the run passed its 300 s limit", existing: notRun as never }),
        ]),
      ),
    ).toEqual({ why: "the run passed its 300 s limit in the existing suite", timeout: true });
  });

  it("ignores the hidden suite's report, a gold run, and a timeout after the existing suite reported", () => {
    expect(
      suiteTooLarge(
        task([
          run({ reason: "REPORT_INVALID", message: "hidden suite's report: more than 50000 testcases" }),
        ]),
      ),
    ).toBeNull();
    expect(
      suiteTooLarge(
        task([
          run({ mode: "gold", reason: "REPORT_INVALID", message: "existing suite's report: more than 1" }),
        ]),
      ),
    ).toBeNull();
    expect(suiteTooLarge(task([run({ reason: "TIMEOUT", message: "t" })]))).toBeNull();
  });

  it("reads a timeout in some runs while another run finished the existing suite as the machine's load, not the suite's size (uuidjs/uuid fcd7388)", () => {
    const killed = run({ reason: "TIMEOUT", message: "the run passed its 300 s limit", existing: null });
    expect(suiteTooLarge(task([killed, killed]))?.timeout).toBe(true);
    expect(suiteTooLarge(task([killed, run({ mode: "gold", reason: "PASSED" as never })]))).toBeNull();
  });
});
