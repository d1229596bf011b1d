import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { goPassedWithoutNewline, JUnitStream, parseJUnit, REPORT_CAPS, ReportInvalidError } from "./junit.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/junit/${name}`, import.meta.url), "utf8");
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
      "passed hidden: top level:: top level",
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

describe("raw control characters (jest-junit and mocha-junit-reporter write a title's \\f, \\u0001, \\u001b unescaped)", () => {
  const suite = (body: string) => `<testsuites><testsuite name="s">${body}</testsuite></testsuites>`;
  const invalid = (xml: string) => () => parseJUnit(xml, "hidden");
  const ids = (xml: string) => parseJUnit(xml, "hidden").map((t) => `${t.outcome} ${t.id}`);
  const parse = "Parse Collected selectors (qwery, sizzle, nwmatcher)";

  it("reads them in titles and failure messages as the characters themselves", () => {
    const tests = parseJUnit(fixture("jest-junit-control-chars.xml"), "hidden");
    expect(tests.map((t) => `${t.outcome} ${t.id}`)).toEqual([
      `passed hidden:${parse} \f#qunit-fixture p::${parse} \f#qunit-fixture p`,
      `passed hidden:${parse}  #qunit-fixture p::${parse}  #qunit-fixture p`,
      `failed hidden:${parse} #qunit-fixture p\f::${parse} #qunit-fixture p\f`,
      "failed hidden:Parse Own tests \u0001start of heading \u001b[1m::Parse Own tests \u0001start of heading \u001b[1m",
    ]);
    expect(tests[2]?.message).toContain('\u001b[32m-     "name": "p\f",\u001b[39m');
    expect(tests[3]?.message).toBe("Error: boom \u0001\u001b[2K");
  });

  it("keeps every title its own id: one character is never another, nor dropped", () => {
    const titles = [
      "a\fb",
      "a b",
      "ab",
      "a\u0001b",
      "a\u001bb",
      "a\u000bb",
      "a\u0000b",
      "a\ufffdb",
      "a\\fb",
      "a#x0Cb",
    ];
    const xml = suite(titles.map((t) => `<testcase classname="c" name="${t}"/>`).join(""));
    expect(ids(xml)).toEqual(titles.map((t) => `passed hidden:c::${t}`));
  });

  it("leaves a failure, error or skip beside them as it is", () => {
    expect(
      ids(
        suite(
          '<testcase name="\f"><failure message="\f"/></testcase><testcase name="\u0001"><error>\u0002</error></testcase>' +
            '<testcase name="\u001b"><skipped message="\u001b"/></testcase><testcase name="\u0003\u0004"/>',
        ),
      ),
    ).toEqual([
      "failed hidden:s::\f",
      "error hidden:s::\u0001",
      "skipped hidden:s::\u001b",
      "passed hidden:s::\u0003\u0004",
    ]);
  });

  it("are refused wherever XML has markup (a name, between attributes, outside the root)", () => {
    expect(invalid(suite('<testcase\fname="a"/>'))).toThrow(ReportInvalidError);
    expect(invalid(suite('<testcase name="a"\fclassname="b"/>'))).toThrow(ReportInvalidError);
    expect(invalid(suite('<test\u0001case name="a"/>'))).toThrow(ReportInvalidError);
    expect(invalid(suite('<testcase n\u0001ame="a"/>'))).toThrow(ReportInvalidError);
    expect(invalid(suite('<testcase name="a"><failure\f/></testcase>'))).toThrow(ReportInvalidError);
    expect(invalid(suite('<testcase name="a"></testcase\f>'))).toThrow(ReportInvalidError);
    expect(invalid(`\f${suite('<testcase name="a"/>')}`)).toThrow(ReportInvalidError);
    expect(invalid(`${suite('<testcase name="a"/>')}\u0001`)).toThrow(ReportInvalidError);
  });

  it("leave everything else strict: a truncated report, character references, other forbidden characters", () => {
    expect(invalid('<testsuites><testsuite name="s"><testcase name="\f"/>')).toThrow(/not well-formed/);
    expect(invalid('<testsuites><testsuite name="s"><testcase name="\f')).toThrow(/not well-formed/);
    expect(invalid(suite('<testcase name="&#12;"/>'))).toThrow(/not well-formed/);
    expect(invalid(suite('<testcase name="&#x1b;"/>'))).toThrow(/not well-formed/);
    expect(invalid(suite('<testcase name="a\ufffeb"/>'))).toThrow(/not well-formed/);
    expect(invalid(suite('<testcase name="a\uffffb"/>'))).toThrow(/not well-formed/);
    expect(invalid(suite('<testcase name="a<\fb"/>'))).toThrow(/not well-formed/);
  });

  it("read a byte at a time as whole", () => {
    const xml = fixture("jest-junit-control-chars.xml");
    const stream = new JUnitStream("hidden");
    const bytes = Buffer.from(xml, "utf8");
    for (let i = 0; i < bytes.length; i += 1) stream.write(bytes.subarray(i, i + 1));
    expect(stream.end()).toEqual(parseJUnit(xml, "hidden"));
  });
});

describe("parseJUnit bounds what a report can cost (REPORT_CAPS, while streaming)", () => {
  const cases = (count: number, name = (i: number) => `t${i}`) =>
    Array.from({ length: count }, (_, i) => `<testcase name="${name(i)}"/>`).join("");
  const suite = (body: string) => `<testsuites><testsuite name="s">${body}</testsuite></testsuites>`;
  const invalid = (xml: string) => () => parseJUnit(xml, "hidden");

  it("takes exactly the testcase cap, refuses one more", () => {
    expect(parseJUnit(suite(cases(REPORT_CAPS.testcases)), "hidden")).toHaveLength(REPORT_CAPS.testcases);
    expect(invalid(suite(cases(REPORT_CAPS.testcases + 1)))).toThrow(/more than 50000 testcases/);
  });

  it("stops at the cap: 700,000 testcases (16 MiB) are refused without reading to the end", () => {
    // Were the whole report read, the broken tail would be the error.
    const xml = `<testsuites><testsuite>${cases(700_000, (i) => i.toString(36).padStart(4, "0"))}<broken`;
    expect(invalid(xml)).toThrow(/more than 50000 testcases/);
  });

  it("refuses nesting deeper than the cap, even 700,000 levels, without recursion", () => {
    const nested = (depth: number) =>
      `<testsuites>${"<testsuite>".repeat(depth - 1)}${"</testsuite>".repeat(depth - 1)}</testsuites>`;
    expect(parseJUnit(nested(REPORT_CAPS.depth), "hidden")).toEqual([]);
    expect(invalid(nested(REPORT_CAPS.depth + 1))).toThrow(/nested deeper than 64 elements/);
    expect(invalid(nested(700_000))).toThrow(ReportInvalidError);
  });

  it("refuses an element with too many attributes, a long identifier, and too many identifier characters", () => {
    const attrs = Array.from({ length: REPORT_CAPS.attributes + 1 }, (_, i) => `a${i}=""`).join(" ");
    expect(invalid(suite(`<testcase name="a" ${attrs}/>`))).toThrow(/more than 64 attributes/);
    expect(invalid(suite(`<testcase name="${"x".repeat(REPORT_CAPS.idChars)}"/>`))).toThrow(
      /longer than 4096/,
    );
    // A long testsuite name, inherited by every testcase that names no file or class.
    const long = "n".repeat(4000);
    const inherited = `<testsuites><testsuite name="${long}">${cases(5000)}</testsuite></testsuites>`;
    expect(invalid(inherited)).toThrow(/characters in all/);
  });

  it("keeps a failure's text when it has no message attribute, bounded", () => {
    const [test] = parseJUnit(
      suite(`<testcase name="a"><failure>${"y".repeat(5000)}</failure></testcase>`),
      "hidden",
    );
    expect(test?.outcome).toBe("failed");
    expect(test?.message).toBe(`${"y".repeat(2000)}…`);
  });

  it("keeps messages up to a total, then drops them (the tests still count)", () => {
    const failing = cases(600).replaceAll("/>", `><failure message="${"m".repeat(1999)}"/></testcase>`);
    const tests = parseJUnit(suite(failing), "hidden");
    expect(tests.filter((t) => t.outcome === "failed")).toHaveLength(600);
    const kept = tests.filter((t) => t.message).length;
    expect(kept).toBe(Math.floor(REPORT_CAPS.allMessageChars / 1999));
  });

  it("reads DOCTYPE as text inside CDATA (test output), refuses a real one", () => {
    const out = "<system-out><![CDATA[<!DOCTYPE html><html></html>]]></system-out>";
    expect(parseJUnit(suite(`<testcase name="a">${out}</testcase>`), "hidden")).toHaveLength(1);
    expect(invalid(`<!DOCTYPE testsuites><testsuites/>`)).toThrow(/DTD/);
  });

  it("refuses an undeclared entity and a second root", () => {
    expect(invalid(suite('<testcase name="&lol;"/>'))).toThrow(/not well-formed/);
    expect(invalid("<testsuites/><testsuites/>")).toThrow(/not well-formed/);
  });
});

describe("JUnitStream", () => {
  const xml =
    '<testsuites><testsuite name="s"><testcase classname="c" name="é 日本 🙂"/>' +
    '<testcase classname="c" name="b"><failure message="boom">x</failure></testcase></testsuite></testsuites>';

  it("reads a report fed a byte at a time (characters split between chunks) as parseJUnit reads it whole", () => {
    const stream = new JUnitStream("hidden");
    const bytes = Buffer.from(xml, "utf8");
    for (let i = 0; i < bytes.length; i += 1) stream.write(bytes.subarray(i, i + 1));
    expect(stream.end()).toEqual(parseJUnit(xml, "hidden"));
  });

  it("stops at the first problem and says it, without throwing", () => {
    const stream = new JUnitStream("hidden");
    stream.write(Buffer.from('<!DOCTYPE x [<!ENTITY a "b">]><testsuites/>'));
    stream.write(Buffer.from("<more/>"));
    expect(stream.end()).toBe("the report declares a DTD or entities");
    const cut = new JUnitStream("hidden");
    cut.write(Buffer.from("<testsuites><testsuite>"));
    expect(cut.end()).toMatch(/^not well-formed XML/);
  });
});

describe("a Go test whose output ran into its pass line (Go 1.19's test2json, gotestsum)", () => {
  // gotestsum-no-newline.xml is what gotestsum wrote in the go-gotestsum image for a test that
  // printed "no newline" without a newline and passed: `go test` said ok, the report said failed.
  const go = (xml: string) =>
    parseJUnit(xml, "hidden", { goPassWithoutNewline: true }).map((t) => `${t.outcome} ${t.id}`);
  const one = (text: string, message = "Failed") =>
    `<testsuite name="p"><testcase classname="p" name="TestX"><failure message="${message}">${text}</failure></testcase></testsuite>`;

  it("is read as passed in a Go suite's report, and as gotestsum wrote it in any other", () => {
    const xml = fixture("gotestsum-no-newline.xml");
    expect(go(xml)).toEqual([
      "passed hidden:example.com/nl::TestPrints",
      "passed hidden:example.com/nl::TestOther",
    ]);
    expect(summary("gotestsum-no-newline.xml")).toEqual([
      "failed hidden:example.com/nl::TestPrints",
      "passed hidden:example.com/nl::TestOther",
    ]);
  });

  it("stays failed unless Go's own pass line for that test ran into other output, with no fail line", () => {
    expect(go(one("=== RUN   TestX&#xA;x--- PASS: TestX (0.00s)&#xA;"))).toEqual(["passed hidden:p::TestX"]);
    // Go's fail line anywhere (a test that failed after printing the pass line itself)
    expect(go(one("x--- PASS: TestX (0.00s)&#xA;y--- FAIL: TestX (0.00s)&#xA;"))).toEqual([
      "failed hidden:p::TestX",
    ]);
    // the pass line at a line's start was read by test2json: gotestsum failed the test for another reason
    expect(go(one("--- PASS: TestX (0.00s)&#xA;"))).toEqual(["failed hidden:p::TestX"]);
    // another test's pass line (a longer name), and a message that is not gotestsum's "Failed"
    expect(go(one("x--- PASS: TestXY (0.00s)&#xA;"))).toEqual(["failed hidden:p::TestX"]);
    expect(go(one("x--- PASS: TestX (0.00s)&#xA;", "expected 1, got 2"))).toEqual(["failed hidden:p::TestX"]);
    // a text past what is read for it
    expect(go(one(`${"a".repeat(70_000)}x--- PASS: TestX (0.00s)&#xA;`))).toEqual(["failed hidden:p::TestX"]);
  });

  it("names and subtests are matched literally", () => {
    expect(goPassedWithoutNewline("TestA/sub_(1)", "x--- PASS: TestA/sub_(1) (0.00s)\n")).toBe(true);
    expect(goPassedWithoutNewline("TestA/sub.1", "x--- PASS: TestA/subx1 (0.00s)\n")).toBe(false);
    // a subtest's indented pass line, with the output run into its indentation
    expect(goPassedWithoutNewline("TestT/a", ".    --- PASS: TestT/a (0.00s)\n")).toBe(true);
    expect(goPassedWithoutNewline("TestT/a", "    --- PASS: TestT/a (0.00s)\n")).toBe(false);
  });
});
