import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TaskReport } from "../types.js";
import {
  brokenTests,
  existingOutcomes,
  exitAfterPass,
  firstError,
  goldHiddenFailures,
  hiddenBroken,
  leaveOut,
} from "./broken.js";
import { suiteCommand } from "./templates.js";

/** An oracle log line listing the existing suite's tests, as the grader writes it. */
const listed = (tests: string[], omitted = 0) =>
  `${JSON.stringify({ level: "info", message: "existing suite: …", suite: "existing", tests, testsOmitted: omitted })}\n`;

async function logs(runs: Record<string, string[]>): Promise<{ root: string; task: TaskReport }> {
  const root = await mkdtemp(join(tmpdir(), "nt-broken-"));
  const records = [];
  for (const [name, tests] of Object.entries(runs)) {
    await writeFile(join(root, `${name}.jsonl`), `{"message":"start"}\n${listed(tests)}`);
    records.push({
      mode: name.startsWith("gold") ? "gold" : "baseline",
      log: `${name}.jsonl`,
      existing: { status: "FAIL" },
    });
  }
  return { root, task: { id: "t", runs: records } as unknown as TaskReport };
}

describe("brokenTests: existing tests that fail at the base commit and with gold.diff alike", () => {
  it("jmespath.py c501751: the tests Python 3.11 breaks fail in every run, the fix's breakage only with gold", async () => {
    const base = [
      "passed existing:tests.test_lexer.TestLexer::test_empty",
      "failed existing:tests.test_functions.TestFunctions::test_can_max_datetimes",
      "error existing:::extra.test_hypothesis",
      "passed existing:tests.test_search.TestSearch::test_broken_by_fix",
      "skipped existing:tests.test_search.TestSearch::test_long_ints",
    ];
    const gold = [
      "passed existing:tests.test_lexer.TestLexer::test_empty",
      "failed existing:tests.test_functions.TestFunctions::test_can_max_datetimes",
      "error existing:::extra.test_hypothesis",
      "failed existing:tests.test_search.TestSearch::test_broken_by_fix",
    ];
    const { root, task } = await logs({
      "baseline-1": base,
      "baseline-2": base,
      "gold-1": gold,
      "gold-2": gold,
    });
    expect(await brokenTests(root, task)).toEqual({
      atBase: [
        "existing:::extra.test_hypothesis",
        "existing:tests.test_functions.TestFunctions::test_can_max_datetimes",
      ],
      goldOnly: ["existing:tests.test_search.TestSearch::test_broken_by_fix"],
      passedAtBase: 2,
      flaky: [],
      runs: 4,
    });
  });

  it("a test that fails in one baseline run only is flaky, not broken; a log that omits tests says nothing", async () => {
    const { root, task } = await logs({
      "baseline-1": ["failed existing:a::t", "passed existing:a::u"],
      "baseline-2": ["passed existing:a::t", "passed existing:a::u"],
    });
    expect((await brokenTests(root, task))?.atBase).toEqual([]);
    expect((await brokenTests(root, task))?.flaky).toEqual(["existing:a::t"]);
    // A run that timed out in the existing suite says nothing (its log lists no test).
    (task.runs[1] as { existing: unknown }).existing = { status: "NOT_RUN" };
    expect((await brokenTests(root, task))?.atBase).toEqual(["existing:a::t"]);
    await writeFile(join(root, "omitted.jsonl"), listed(["failed existing:a::t"], 3));
    expect(await existingOutcomes(join(root, "omitted.jsonl"))).toBeNull();
  });
});

describe("brokenTests: flaky existing tests", () => {
  // sqlparse 53ff44b and ac3b9e0 (s24's --mine): the timing test fails under load in some runs only.
  const timing = "existing:tests.test_dos_prevention.TestDoSPrevention::test_nested_case_within_cap_under_1s";
  const other = "existing:tests.test_format.TestFormat::test_keywordcase";
  it("a test that fails in one gold run and passes in the other is flaky, not gold's breakage", async () => {
    const { root, task } = await logs({
      "baseline-1": [`passed ${timing}`, `passed ${other}`],
      "baseline-2": [`passed ${timing}`, `passed ${other}`],
      "gold-1": [`failed ${timing}`, `passed ${other}`],
      "gold-2": [`passed ${timing}`, `passed ${other}`],
    });
    expect(await brokenTests(root, task)).toEqual({
      atBase: [],
      goldOnly: [],
      passedAtBase: 2,
      flaky: [timing],
      runs: 4,
    });
  });
  it("failing at both baseline runs and one gold run, passing in the other: flaky, not broken at the base", async () => {
    const { root, task } = await logs({
      "baseline-1": [`failed ${timing}`, `passed ${other}`],
      "baseline-2": [`failed ${timing}`, `passed ${other}`],
      "gold-1": [`failed ${timing}`, `passed ${other}`],
      "gold-2": [`passed ${timing}`, `passed ${other}`],
    });
    expect(await brokenTests(root, task)).toEqual({
      atBase: [],
      goldOnly: [],
      passedAtBase: 1,
      flaky: [timing],
      runs: 4,
    });
  });
});

describe("leaveOut: the existing command's flags that leave tests out", () => {
  const files = ["extra/test_hypothesis.py", "tests/test_functions.py", "tests/unit/test_x.py"];
  it("pytest: --deselect by node id; a file that fails to import is dropped whole", () => {
    expect(
      leaveOut("pytest", files, [
        "existing:::extra.test_hypothesis",
        "existing:tests.test_functions.TestFunctions::test_can_max_datetimes",
        "existing:tests.unit.test_x::test_p[a-1]",
      ]),
    ).toEqual({
      leave: {
        flags: [
          "--deselect",
          "tests/test_functions.py::TestFunctions::test_can_max_datetimes",
          "--deselect",
          "'tests/unit/test_x.py::test_p[a-1]'",
        ],
        files: ["extra/test_hypothesis.py"],
      },
      unplaced: [],
    });
    expect(leaveOut("pytest", files, ["existing:other.mod::test_y"]).unplaced).toEqual([
      "existing:other.mod::test_y",
    ]);
  });
  it("Go: -skip of the top-level names; mocha: an inverted --grep of the full titles", () => {
    expect(
      leaveOut("go", [], ["existing:example.com/m/a::TestA/sub", "existing:example.com/m::TestB"]).leave
        .flags,
    ).toEqual(["-skip", "'^(TestA|TestB)$'"]);
    expect(leaveOut("go", [], ["existing:m::TestA"], "gotestsum -- -skip '^X$' .").unplaced).toEqual([
      "existing:m::TestA",
    ]);
    expect(leaveOut("mocha", [], ["existing:works (x)::lookup works (x)"]).leave.flags).toEqual([
      "--grep",
      "'^lookup works \\(x\\)$'",
      "--invert",
    ]);
  });
  it("vitest: -t, a negative lookahead of the full names joined by spaces as vitest's -t reads them, anchored at their end (unjs/destr's ids); not over the command's own -t", () => {
    const ids = [
      "existing:test/index.test.ts::destr > parses number",
      "existing:test/index.test.ts::destr > parses string 'NaN' as `Number.NaN` case-insensitively",
    ];
    // Run in destr f9c78d4's image (vitest 0.34.6) and the template's (2.1.9): 15 passed, these 2 skipped.
    expect(leaveOut("vitest", ["test/index.test.ts"], ids).leave.flags).toEqual([
      "-t",
      "'^(?!.*(?:destr parses number|destr parses string '\\''NaN'\\'' as `Number\\.NaN` case-insensitively)$)'",
    ]);
    const command = suiteCommand("vitest", ["test/index.test.ts"], [], [], undefined, ["-t", "'x'"]);
    expect(command).toContain(" --no-cache -t 'x' --reporter=default ");
    expect(leaveOut("vitest", [], ids, command).unplaced).toEqual(ids);
  });
  it("jest: -t, a negative lookahead of the full names (vercel/ms's ids), anchored; not over the command's own -t", () => {
    const ids = [
      "existing:parse(string) should convert from m to ms::parse(string) should convert from m to ms",
      "existing:ms(string) works::ms(string) works",
    ];
    const { leave, unplaced } = leaveOut("jest", [], ids);
    expect(unplaced).toEqual([]);
    expect(leave.flags).toEqual([
      "-t",
      "'^(?!(?:parse\\(string\\) should convert from m to ms|ms\\(string\\) works)$)'",
    ]);
    // What jest runs: every test but those two, by full name (ignoring case, as jest does).
    // (the flag without its shell quotes)
    const pattern = new RegExp(leave.flags[1]!.slice(1, -1), "i");
    expect(pattern.test("parse(string) should convert from m to ms")).toBe(false);
    expect(pattern.test("ms(string) works")).toBe(false);
    expect(pattern.test("ms(string) works too")).toBe(true);
    expect(pattern.test("parse(string) should preserve ms")).toBe(true);
    expect(leaveOut("jest", [], ids, "jest -t 'x' a.test.js").unplaced).toEqual(ids);
  });
});

describe("goldHiddenFailures: the hidden tests gold.diff fails, and the first error", () => {
  it("jmespath.py c501751: the fix's own test fails at the base and with gold.diff on Python 3.11", async () => {
    const root = await mkdtemp(join(tmpdir(), "nt-gold-"));
    const hidden = (tests: string[]) =>
      `${JSON.stringify({ message: "suite.output", suite: "hidden", text: "    random.sample(self._CACHE.keys(), n)\nE   TypeError: Population must be a sequence.  For dicts or sets, use sorted(d).\n" })}\n${JSON.stringify({ message: "hidden suite: …", suite: "hidden", tests })}\n`;
    const failing = [
      "passed hidden:tests.test_parser.TestParser::test_dot",
      "failed hidden:tests.test_parser.TestParserCaching::test_free_cache_entries",
    ];
    await writeFile(join(root, "b.jsonl"), hidden(failing));
    await writeFile(join(root, "g.jsonl"), hidden(failing));
    const task = {
      runs: [
        { mode: "baseline", log: "b.jsonl", hidden: { status: "FAIL" } },
        { mode: "gold", log: "g.jsonl", hidden: { status: "FAIL" } },
      ],
    } as unknown as TaskReport;
    expect(await goldHiddenFailures(root, task)).toEqual({
      failed: ["hidden:tests.test_parser.TestParserCaching::test_free_cache_entries"],
      atBaseToo: ["hidden:tests.test_parser.TestParserCaching::test_free_cache_entries"],
      error: "TypeError: Population must be a sequence.  For dicts or sets, use sorted(d).",
      log: "g.jsonl",
    });
    expect(firstError("  ● x\n    TypeError: a is not a function\n")).toBe("TypeError: a is not a function");
    expect(
      firstError(
        "E           StopIteration\n\nE           importlib.metadata.PackageNotFoundError: wcwidth\n",
      ),
    ).toBe("importlib.metadata.PackageNotFoundError: wcwidth");
    // pytest in colour (the jmespath.py run): the escapes are no part of the line.
    expect(firstError("\x1b[1m\x1b[31mE   TypeError: Population must be a sequence\x1b[0m\n")).toBe(
      "TypeError: Population must be a sequence",
    );
  });
});

describe("hiddenBroken: hidden tests that fail whatever the diff", () => {
  async function hiddenLogs(runs: Record<string, string[]>): Promise<{ root: string; task: TaskReport }> {
    const root = await mkdtemp(join(tmpdir(), "nt-hidden-"));
    const records = [];
    for (const [name, tests] of Object.entries(runs)) {
      await writeFile(
        join(root, `${name}.jsonl`),
        `${JSON.stringify({ message: "hidden suite: …", suite: "hidden", tests })}\n`,
      );
      records.push({
        mode: name.startsWith("gold") ? "gold" : "baseline",
        log: `${name}.jsonl`,
        hidden: { status: "FAIL" },
      });
    }
    return { root, task: { id: "t", runs: records } as unknown as TaskReport };
  }
  const version = "hidden:tests/test_core.py::test_package_version";
  const regression = "hidden:tests/test_core.py::test_wcswidth_substr";

  it("wcwidth 4c91403: test_package_version fails in every run, the fix's regression test passes with gold only", async () => {
    const base = [
      `failed ${version}`,
      `failed ${regression}`,
      "passed hidden:tests/test_core.py::test_hello_jp",
    ];
    const gold = [
      `failed ${version}`,
      `passed ${regression}`,
      "passed hidden:tests/test_core.py::test_hello_jp",
    ];
    const { root, task } = await hiddenLogs({
      "baseline-1": base,
      "baseline-2": base,
      "gold-1": gold,
      "gold-2": gold,
    });
    expect(await hiddenBroken(root, task)).toEqual({
      everywhere: [version],
      goldOnly: [],
      failToPass: [regression],
    });
    // pytest's report named the file (junit_family=xunit1): the node id is the id itself.
    expect(leaveOut("pytest", ["tests/test_core.py"], [version]).leave).toEqual({
      flags: ["--deselect", "tests/test_core.py::test_package_version"],
      files: [],
    });
  });

  it("a test gold fails that the base passes is gold's own failure; with no regression test left, nothing to keep", async () => {
    const { root, task } = await hiddenLogs({
      "baseline-1": [`passed ${version}`, `failed ${regression}`],
      "gold-1": [`failed ${version}`, `passed ${regression}`],
      "gold-2": [`failed ${version}`, `passed ${regression}`],
    });
    expect(await hiddenBroken(root, task)).toEqual({
      everywhere: [],
      goldOnly: [version],
      failToPass: [regression],
    });
    // jmespath.py c501751: the fix's own test fails in every run; it is the only one the base fails.
    const only = await hiddenLogs({
      "baseline-1": [`failed ${regression}`, `passed ${version}`],
      "gold-1": [`failed ${regression}`, `passed ${version}`],
    });
    expect(await hiddenBroken(only.root, only.task)).toEqual({
      everywhere: [regression],
      goldOnly: [],
      failToPass: [],
    });
  });
});

describe("exitAfterPass: a runner that exited non-zero with every test passed", () => {
  it("unjs/destr f9c78d4: vitest 0.34 exits 1 after 16 passed tests, its results cache unwritable; the error after the tests is named", async () => {
    const root = await mkdtemp(join(tmpdir(), "nt-after-"));
    const chunks = [
      "stderr | test/index.test.ts > destr > throws in strict mode\nSyntaxError: [destr] Invalid JSON\n",
      " Test Files  1 passed (1)\n      Tests  16 passed (16)\n\n⎯⎯⎯⎯⎯⎯ Unhandled Error ⎯⎯⎯⎯⎯⎯⎯\nError: ENOENT: no such file or directory, mkd",
      "ir '/work/repo/node_modules/.vitest'\n",
    ];
    await writeFile(
      join(root, "b.jsonl"),
      chunks
        .map((text) => `${JSON.stringify({ message: "suite.output", suite: "existing", text })}\n`)
        .join(""),
    );
    const run = (message: string) => ({
      mode: "baseline",
      log: "b.jsonl",
      reason: "REPORT_INCONSISTENT",
      message,
    });
    const task = (message: string) => ({ runs: [run(message)] }) as unknown as TaskReport;
    expect(
      await exitAfterPass(
        root,
        task(
          "existing suite: runner exited 1 but its report says all passed (16 passed, 0 failed, 0 errors, 0 skipped)",
        ),
      ),
    ).toEqual({
      suite: "existing",
      code: 1,
      passed: 16,
      error: "Error: ENOENT: no such file or directory, mkdir '/work/repo/node_modules/.vitest'",
      log: "b.jsonl",
    });
    // Another REPORT_INCONSISTENT (a report that lists tests the run did not) is no such case.
    expect(await exitAfterPass(root, task("existing suite: the report lists a test twice"))).toBeNull();
  });
});
