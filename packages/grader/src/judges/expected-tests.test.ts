import { readFileSync } from "node:fs";
import type { TestCase } from "@oracle/spec";
import { entryKeys, matchEntries } from "@oracle/test-set";
import { describe, expect, it } from "vitest";
import { parseJUnit } from "../reports/junit.js";
import { deselectedByName } from "../sentinels/sentinel-selection.js";
import { checkExpected, type Expectation, NO_EXPECTATION_NOTE } from "./expected-judge.js";

const report = (name: string): TestCase[] =>
  parseJUnit(readFileSync(new URL(`../fixtures/junit/${name}`, import.meta.url), "utf8"), "hidden");
const statuses = (name: string, entries: string[]) =>
  Object.fromEntries(matchEntries(entries, report(name)).map((m) => [m.entry, m.status]));

describe("matching a task author's ids against real report shapes", () => {
  it("pytest (xunit2 classname): node ids, classes, parametrisations", () => {
    expect(
      statuses("pytest.xml", [
        "test_sample.py::test_passes",
        "test_sample.py::TestGroup::test_in_class",
        "test_sample.py::test_param[2]",
        "test_sample.py::test_param",
        "test_sample.py::test_fails",
        "test_sample.py::test_skipped",
        "test_sample.py::test_in_class",
        "test_other.py::test_passes",
        "hidden:test_sample::test_passes",
      ]),
    ).toEqual({
      "test_sample.py::test_passes": "passed",
      "test_sample.py::TestGroup::test_in_class": "passed",
      "test_sample.py::test_param[2]": "passed",
      "test_sample.py::test_param": "passed",
      "test_sample.py::test_fails": "failed",
      "test_sample.py::test_skipped": "skipped",
      // A method is not a module-level function of the same name.
      "test_sample.py::test_in_class": "missing",
      "test_other.py::test_passes": "missing",
      "hidden:test_sample::test_passes": "passed",
    });
    expect(matchEntries(["test_sample.py::test_param"], report("pytest.xml"))[0]?.tests).toHaveLength(2);
  });

  it("pytest xunit1 (file attribute) and a folder prefix", () => {
    expect(
      statuses("pytest-xunit1.xml", ["test_sample.py::test_passes", "./test_sample.py::test_fails"]),
    ).toEqual({ "test_sample.py::test_passes": "passed", "./test_sample.py::test_fails": "failed" });
    expect(entryKeys("tests/unit/test_x.py::TestC::test_n[p-1]")).toEqual([
      "sn:tests.unit.test_x.TestC::test_n[p-1]",
      "sn:tests/unit/test_x.py::test_n[p-1]",
    ]);
  });

  it("gotestsum: test names, subtests, import path::name", () => {
    expect(
      statuses("gotestsum.xml", [
        "TestPasses",
        "TestSub/one",
        "TestSub",
        "TestSkipped",
        "example.com/sample::TestFails",
        "TestNope",
      ]),
    ).toEqual({
      TestPasses: "passed",
      "TestSub/one": "passed",
      TestSub: "passed",
      TestSkipped: "skipped",
      "example.com/sample::TestFails": "failed",
      TestNope: "missing",
    });
  });

  it("JS full titles: mocha-junit-reporter, jest-junit, vitest", () => {
    expect(statuses("mocha-junit-reporter.xml", ["calc adds", "calc nested works", "adds"])).toEqual({
      "calc adds": "passed",
      "calc nested works": "passed",
      // the bare test title is mocha-junit-reporter's classname, not a full title
      adds: "missing",
    });
    // jest-junit names a test outside any describe " top level" (a leading space).
    expect(
      statuses("jest-junit.xml", ["calc adds", "calc nested works", "calc skipped", "top level"]),
    ).toEqual({
      "calc adds": "passed",
      "calc nested works": "passed",
      "calc skipped": "skipped",
      "top level": "passed",
    });
    // A title ending in `:` or holding `::` (mocha-junit-reporter: classname the title, name the full
    // title): micromatch/picomatch's "… the `nonegate` option:" was read as the name ":options …", and
    // a correct fix FAILed SEAL_RECORDS_INCONSISTENT.
    const colons = [
      t("hidden:should support the `nonegate` option:::options should support the `nonegate` option:"),
      t("hidden:Router::match finds a route::router Router::match finds a route", "failed"),
    ];
    expect(
      Object.fromEntries(
        matchEntries(
          ["options should support the `nonegate` option:", "router Router::match finds a route"],
          colons,
        ).map((m) => [m.entry, m.status]),
      ),
    ).toEqual({
      "options should support the `nonegate` option:": "passed",
      "router Router::match finds a route": "failed",
    });
    // …but a later split is read only where the name ends with the classname: a title `calc::ops x`
    // beside a test `ops x` is not a second run of `ops x` (every diff FAILed SEAL_RECORDS_INCONSISTENT).
    const namespaced = [
      t("hidden:subtracts left to right::calc::operators subtracts left to right", "failed"),
      t("hidden:subtracts left to right::operators subtracts left to right"),
    ];
    expect(matchEntries(["operators subtracts left to right"], namespaced)[0]).toMatchObject({
      status: "passed",
      tests: [namespaced[1]],
    });
    expect(statuses("vitest.xml", ["calc adds", "calc > adds", "top", "calc fails"])).toEqual({
      "calc adds": "passed",
      "calc > adds": "passed",
      top: "passed",
      "calc fails": "failed",
    });
  });
});

const t = (id: string, outcome: TestCase["outcome"] = "passed"): TestCase => ({ id, outcome });

describe("checkExpected", () => {
  it("no expectation: a skipped hidden test is EXPECTED_TEST_SKIPPED, skipped existing tests are allowed", () => {
    const check = checkExpected(
      { source: "none", suites: { existing: null, hidden: null } },
      {
        existing: [t("existing:tests.t::a"), t("existing:tests.t::b", "skipped")],
        hidden: [t("hidden:checks.t::a"), t("hidden:checks.t::b", "skipped")],
      },
    );
    expect(check.problems.existing).toBeUndefined();
    expect(check.problems.hidden?.reason).toBe("EXPECTED_TEST_SKIPPED");
    expect(check.result).toMatchObject({
      source: "none",
      skipped: { count: 1, ids: ["hidden:checks.t::b"] },
      note: NO_EXPECTATION_NOTE,
    });
  });

  it("no expectation: a test the hidden command's -t leaves out is deselected, not skipped (jest, vitest)", () => {
    const none: Expectation = { source: "none", suites: { existing: null, hidden: null } };
    const vitest = deselectedByName("ln -sfn /x node_modules && node_modules/.bin/vitest run t/ -t joined");
    const hidden = [
      t("hidden:t/a.test.js::ranges > are joined"),
      t("hidden:t/a.test.js::ranges > stay apart", "skipped"),
    ];
    expect(checkExpected(none, { existing: [], hidden }, vitest).problems.hidden).toBeUndefined();
    // A test the filter keeps that is skipped all the same was skipped by the code: still a FAIL.
    const kept = [t("hidden:t/a.test.js::ranges > are joined", "skipped")];
    expect(checkExpected(none, { existing: [], hidden: kept }, vitest).problems.hidden?.reason).toBe(
      "EXPECTED_TEST_SKIPPED",
    );
    // jest's -t is case-insensitive; jest-junit names a test by its full title.
    const jest = deselectedByName(
      'JEST_JUNIT_OUTPUT_FILE=x jest --ci t/a.test.js -t "Collapses" --reporters=jest-junit',
    );
    expect(jest?.(t("hidden:separators trims::separators trims", "skipped"))).toBe(true);
    expect(jest?.(t("hidden:separators collapses runs::separators collapses runs", "skipped"))).toBe(false);
    // No name filter, or a runner whose report leaves filtered tests out: nothing is deselected.
    expect(deselectedByName("npx vitest run t/")).toBeNull();
    expect(deselectedByName("mocha --grep x t/a.test.js")).toBeNull();
    expect(deselectedByName("pytest -k x tests")).toBeNull();
  });

  it("declared: missing beats skipped, failures are left to the suite, unexpected tests are listed", () => {
    const check = checkExpected(
      {
        source: "task",
        suites: { existing: null, hidden: ["checks/t.py::a", "checks/t.py::gone", "checks/t.py::s"] },
      },
      {
        existing: [],
        hidden: [t("hidden:checks.t::a"), t("hidden:checks.t::s", "skipped"), t("hidden:checks.t::extra")],
      },
    );
    expect(check.problems.hidden?.reason).toBe("EXPECTED_TEST_MISSING");
    expect(check.result.missing).toEqual({ count: 1, ids: ["hidden:checks/t.py::gone"] });
    expect(check.result.skipped).toEqual({ count: 1, ids: ["hidden:checks/t.py::s"] });
    expect(check.result.unexpected).toEqual({ count: 1, ids: ["hidden:checks.t::extra"] });
    const failed = checkExpected(
      { source: "task", suites: { existing: null, hidden: ["checks/t.py::a"] } },
      { existing: [], hidden: [t("hidden:checks.t::a", "failed")] },
    );
    expect(failed.problems).toEqual({});
  });
});
