import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseJUnit, ReportInvalidError } from "./junit.js";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/junit/${name}`, import.meta.url), "utf8");
const summary = (name: string, suite: "existing" | "hidden" = "hidden") =>
  parseJUnit(fixture(name), suite).map((t) => `${t.outcome} ${t.id}`);

describe("parseJUnit on real report shapes", () => {
  it("pytest (xunit2: no file attribute, so classname)", () => {
    expect(summary("pytest.xml")).toEqual([
      "passed hidden:test_sample::test_passes",
      "failed hidden:test_sample::test_fails",
      "skipped hidden:test_sample::test_skipped",
      "passed hidden:test_sample::test_param[1]",
      "passed hidden:test_sample::test_param[2]",
      "passed hidden:test_sample.TestGroup::test_in_class",
      "error hidden:test_sample::test_errors",
    ]);
  });

  it("pytest xunit1 (file attribute wins over classname)", () => {
    const ids = summary("pytest-xunit1.xml", "existing");
    expect(ids).toContain("passed existing:test_sample.py::test_in_class");
    expect(ids).toContain("error existing:test_sample.py::test_errors");
  });

  it("mocha-junit-reporter (nested testsuites, entities decoded)", () => {
    expect(summary("mocha-junit-reporter.xml")).toEqual([
      "passed hidden:adds::calc adds",
      "failed hidden:fails <&>::calc fails <&>",
      "passed hidden:works::calc nested works",
    ]);
  });

  it("node:test junit reporter (testcases directly under testsuites, todo skipped)", () => {
    expect(summary("node-test.xml")).toEqual([
      "passed hidden:test::top level passes",
      "failed hidden:test::top level fails",
      "skipped hidden:test::skipped",
      "skipped hidden:test::todo",
      "passed hidden:test::inner passes",
      "failed hidden:test::inner fails",
    ]);
  });

  it("vitest", () => {
    expect(summary("vitest.xml")).toEqual([
      "passed hidden:sample.test.ts::calc > adds",
      "failed hidden:sample.test.ts::calc > fails",
      "skipped hidden:sample.test.ts::calc > skipped",
      "skipped hidden:sample.test.ts::calc > todo",
      "passed hidden:sample.test.ts::top",
    ]);
  });

  it("gotestsum", () => {
    expect(summary("gotestsum.xml")).toEqual([
      "failed hidden:example.com/sample::TestFails",
      "skipped hidden:example.com/sample::TestSkipped",
      "passed hidden:example.com/sample::TestPasses",
      "passed hidden:example.com/sample::TestSub/one",
      "passed hidden:example.com/sample::TestSub/two",
      "passed hidden:example.com/sample::TestSub",
    ]);
  });

  it("jest-junit (file attribute when present)", () => {
    expect(summary("jest-junit.xml")).toEqual([
      "passed hidden:calc adds::calc adds",
      "failed hidden:calc fails::calc fails",
      "skipped hidden:calc skipped::calc skipped",
      "passed hidden:src/calc.test.js::calc nested works",
    ]);
  });

  it("cargo nextest (flakyFailure alone is a pass, failure with reruns a failure)", () => {
    expect(summary("nextest.xml")).toEqual([
      "passed hidden:semver::tests::parses",
      "failed hidden:semver::tests::compares",
      "passed hidden:semver::tests::flaky_then_passed",
      "skipped hidden:semver::tests::ignored",
      "passed hidden:semver::tests::prerelease",
    ]);
  });

  it("Maven surefire (root <testsuite>, error element)", () => {
    expect(summary("surefire.xml")).toEqual([
      "passed hidden:com.example.CalcTest::adds",
      "error hidden:com.example.CalcTest::divides",
      "skipped hidden:com.example.CalcTest::ignored",
      "passed hidden:com.example.CalcTest::subtracts",
    ]);
  });

  it("keeps failure messages", () => {
    const failed = parseJUnit(fixture("surefire.xml"), "hidden").find((t) => t.outcome === "error");
    expect(failed?.message).toBe("/ by zero");
  });
});

describe("parseJUnit refuses what is not JUnit", () => {
  const invalid = (xml: string) => () => parseJUnit(xml, "hidden");
  it("malformed XML", () =>
    expect(invalid("<testsuites><testcase name='a'></testsuites>")).toThrow(ReportInvalidError));
  it("another root", () =>
    expect(invalid("<results><testcase name='a'/></results>")).toThrow(/root element/));
  it("a DTD with entities (no expansion, no billion laughs)", () =>
    expect(
      invalid(
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><testsuites><testcase name="&a;"/></testsuites>',
      ),
    ).toThrow(/DTD/));
  it("a testcase without a name", () =>
    expect(invalid("<testsuite><testcase classname='c'/></testsuite>")).toThrow(/without a name/));
  it("empty text", () => expect(invalid("")).toThrow(ReportInvalidError));
  it("an empty but valid report has no tests", () =>
    expect(parseJUnit("<testsuites></testsuites>", "hidden")).toEqual([]));
});
