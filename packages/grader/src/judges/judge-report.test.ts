import { describe, expect, it } from "vitest";
import { judgeSuite, type SuiteRun, unbuiltGoPackages } from "./judge-report.js";

const report = (cases: string) => ({
  kind: "ok" as const,
  xml: `<testsuites><testsuite name="s">${cases}</testsuite></testsuites>`,
});
const run = (over: Partial<SuiteRun>): SuiteRun => ({
  suite: "hidden",
  exitCode: 0,
  durationMs: 5,
  report: report('<testcase classname="c" name="a"/>'),
  output: { bytes: 0, truncated: false },
  ...over,
});
const reason = (over: Partial<SuiteRun>) => judgeSuite(run(over)).result.reason ?? "PASS";

describe("judgeSuite", () => {
  it("PASS when every test that ran passed and the runner exited 0", () => {
    const { result } = judgeSuite(run({}));
    expect(result.status).toBe("PASS");
    expect(result.tests).toEqual([{ id: "hidden:c::a", outcome: "passed" }]);
  });
  it("TESTS_FAILED on a failure or an error, whatever the exit code", () => {
    expect(reason({ report: report('<testcase classname="c" name="a"><failure/></testcase>') })).toBe(
      "TESTS_FAILED",
    );
    expect(
      reason({ exitCode: 1, report: report('<testcase classname="c" name="a"><error/></testcase>') }),
    ).toBe("TESTS_FAILED");
  });
  it("REPORT_INCONSISTENT when the runner failed but the report says all passed", () => {
    expect(reason({ exitCode: 1 })).toBe("REPORT_INCONSISTENT");
    expect(reason({ exitCode: null })).toBe("REPORT_INCONSISTENT");
  });
  it("NO_TESTS_RAN when all were skipped or none were collected", () => {
    expect(reason({ report: report('<testcase classname="c" name="a"><skipped/></testcase>') })).toBe(
      "NO_TESTS_RAN",
    );
    expect(reason({ report: report("") })).toBe("NO_TESTS_RAN");
  });
  it("REPORT_MISSING and REPORT_INVALID", () => {
    expect(reason({ report: { kind: "missing" } })).toBe("REPORT_MISSING");
    expect(reason({ report: { kind: "invalid", why: "symlink" } })).toBe("REPORT_INVALID");
    expect(reason({ report: { kind: "ok", xml: "PASSED 10 tests" } })).toBe("REPORT_INVALID");
  });
});

describe("Go packages that do not build", () => {
  const output = [
    "# example.com/m/a [example.com/m/a.test]",
    "a/a.go:9:2: n declared but not used",
    "WARN invalid TestEvent: FAIL\texample.com/m/a [build failed]",
    "bad output from test2json: FAIL\texample.com/m/a [build failed]",
    "FAIL\texample.com/m/b [setup failed]",
    "FAIL\texample.com/m/c 0.01s",
  ].join("\n");

  it("reads each package go test says did not build or set up, once", () => {
    expect(unbuiltGoPackages(output, "")).toEqual(["example.com/m/a", "example.com/m/b"]);
    expect(unbuiltGoPackages("ok  \texample.com/m/c\t0.01s\n")).toEqual([]);
  });

  it("an error entry for a package with none: the run fails as TESTS_FAILED, not REPORT_INCONSISTENT", () => {
    const passing = report('<testcase classname="example.com/m/c" name="TestC"/>');
    expect(reason({ exitCode: 1, report: passing })).toBe("REPORT_INCONSISTENT");
    const judged = judgeSuite(run({ exitCode: 1, report: passing, unbuilt: ["example.com/m/a"] }));
    expect(judged.result.reason).toBe("TESTS_FAILED");
    expect(judged.result.tests).toContainEqual(
      expect.objectContaining({ id: "hidden:example.com/m/a::[build failed]", outcome: "error" }),
    );
  });

  it("no entry for a package the report already has tests of", () => {
    const ran = report('<testcase classname="example.com/m/a" name="TestA"/>');
    const judged = judgeSuite(run({ report: ran, unbuilt: ["example.com/m/a"] }));
    expect(judged.result.reason ?? "PASS").toBe("PASS");
  });
});
