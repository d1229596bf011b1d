// Hostile reports (issue 13, class 4): code under test that replaces its runner's JUnit report, at
// the end of the run, with one built to exhaust the grader (hundreds of thousands of testcases) or to
// crash its parser (deep nesting). Both must end FAIL REPORT_INVALID — never INFRA_ERROR, which a
// batch would not count against the prediction — with the grader's memory, time, log and result
// bounded. gradeCase checks the shared invariants (grader RSS < 200 MB, nothing left behind).
// docs/security.md names each case and the defence it exercises.
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Corpus,
  expectOutcome,
  type Graded,
  gradeCase,
  makeCorpus,
  makeDiff,
  TASKS,
  writeFiles,
} from "./harness.js";

/** The report cap of the driver's channel (MAX_REPORT_BYTES): every hostile report stays under it. */
const REPORT_BYTES = 16 * 1024 * 1024;
/**
 * The grader's CPU time in a run (user + system of the oracle-grade process; the suites run in
 * containers and are not counted). Judging the reports is most of it beyond start-up. A bound on
 * CPU, not on wall time: a wall-clock bound measured the machine's load as much as the grader (a
 * CI run with both cores busy stretches every wall time; CPU time barely moves). About 1-2 s for
 * these cases; before the caps, judging the 700,000-testcase reports took 38 s.
 */
const MAX_GRADER_CPU_MS = 10_000;
/**
 * The same for a report at the caps in both suites, read whole: twice 8 MB through the XML parser
 * and 100,000 ids sorted and hashed.
 */
const MAX_GRADER_CPU_AT_CAPS_MS = 40_000;
/** The oracle log and the result file of a rejected report stay this small. */
const MAX_LOG_BYTES = 1024 * 1024;
const MAX_RESULT_BYTES = 256 * 1024;

let corpus: Corpus;
const figures: string[] = [];

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus({ images: ["python-pytest"] });
}, 1_600_000);

afterAll(async () => {
  process.stderr.write(`hostile reports: ${figures.join("; ")}\n`);
  if (process.env.ORACLE_HOSTILE_KEEP) process.stderr.write(`kept ${corpus?.root}\n`);
  else await corpus?.cleanup();
});

const BUG = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return x * 2\n";

/**
 * Planted in calc/core.py: when the runner's process exits (after pytest wrote its report), the
 * report at $ORACLE_JUNIT is replaced by `body`'s output and the process exits 0.
 */
const replaceReportAtExit = (body: string) => `
import atexit as _atexit, os as _os


def _replace():
    with open(_os.environ["ORACLE_JUNIT"], "w") as out:
${body}
    _os._exit(0)


_atexit.register(_replace)
`;

/** 700,000 passing testcases, four base-36 digits each: 23 bytes a testcase, 16.1 MB in all. */
const FLOOD = replaceReportAtExit(`
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"
        out.write('<testsuites><testsuite name="flood">')
        for block in range(70):
            out.write("".join(
                '<testcase name="%s%s%s%s"/>' % (digits[n // 46656], digits[n // 1296 % 36], digits[n // 36 % 36], digits[n % 36])
                for n in range(block * 10000, (block + 1) * 10000)))
        out.write("</testsuite></testsuites>")`);
const FLOOD_TESTCASES = 700_000;

/** 720,000 nested <testsuite> elements (23 bytes a level, 16.6 MB), one testcase at the bottom. */
const NESTED = replaceReportAtExit(`
        out.write("<testsuites>")
        for _ in range(72):
            out.write("<testsuite>" * 10000)
        out.write('<testcase name="deep"/>')
        for _ in range(72):
            out.write("</testsuite>" * 10000)
        out.write("</testsuites>")`);
const NESTED_DEPTH = 720_000;

/**
 * A report at the caps: 50,000 passing testcases whose identifiers add up to 7.85 M characters
 * (157 each, under the 8 Mi total), 8 MB of XML. Nothing in it is over a cap.
 */
const AT_CAPS = replaceReportAtExit(`
        out.write('<testsuites><testsuite name="at-caps">')
        for block in range(50):
            out.write("".join('<testcase name="%05d%s"/>' % (n, "x" * 135) for n in range(block * 1000, (block + 1) * 1000)))
        out.write("</testsuite></testsuites>")`);
const AT_CAPS_NAMES = Array.from(
  { length: 50_000 },
  (_, n) => `${String(n).padStart(5, "0")}${"x".repeat(135)}`,
);

const planted = (name: string, prelude: string): Promise<Graded> =>
  gradeCase(corpus, {
    task: TASKS.py,
    name,
    diff: makeDiff(corpus, TASKS.py, (dir) => writeFiles(dir, { "calc/core.py": `${prelude}\n\n${BUG}` })),
  });

const resultBytes = (name: string): number => statSync(join(corpus.out, `${name}.result.json`)).size;

function record(name: string, g: Graded): void {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  figures.push(
    `${name}: grader RSS ${Math.round(g.maxRssKb / 1024)} MB, run ${(g.result.durationMs / 1000).toFixed(1)} s (grader CPU ${(g.cpuMs / 1000).toFixed(1)} s), log ${mb(g.log.length)}, result ${mb(resultBytes(name))}`,
  );
}

describe("hostile reports", () => {
  it("the sizes are what they claim (each report fits the 16 MiB channel)", () => {
    expect(FLOOD_TESTCASES * 23 + 50).toBeLessThan(REPORT_BYTES);
    expect(NESTED_DEPTH * 23 + 60).toBeLessThan(REPORT_BYTES);
  });

  it("700,000 testcases written over the report at exit -> FAIL REPORT_INVALID, grader, log and result bounded", async () => {
    const g = await planted("report-flood", FLOOD);
    record("report-flood", g);
    expectOutcome(g, "FAIL", "REPORT_INVALID");
    expect(g.result.message).toMatch(/more than 50000 testcases/);
    expect(g.result.suites.existing.reason).toBe("REPORT_INVALID");
    expect(g.cpuMs).toBeLessThan(MAX_GRADER_CPU_MS);
    expect(g.log.length).toBeLessThan(MAX_LOG_BYTES);
    expect(resultBytes("report-flood")).toBeLessThan(MAX_RESULT_BYTES);
  });

  it("a report at the caps (50,000 testcases, long ids) in both suites -> read whole, listed in part, hashed whole; grader bounded", async () => {
    const g = await planted("report-at-caps", AT_CAPS);
    record("report-at-caps", g);
    // Neither planted report holds the oracle's sentinels (both suites have them).
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    const { existing, hidden } = g.result.suites;
    expect(existing.reason).toBe("REPORT_INCONSISTENT");
    expect(existing.counts.passed).toBe(50_000);
    expect(existing.tests).toHaveLength(1000);
    expect(existing.testsOmitted).toBe(49_000);
    expect(hidden.counts.passed).toBe(50_000);
    expect(g.result.testIds).toHaveLength(2000);
    expect(g.result.testIdsOmitted).toBe(98_000);
    const all = [
      ...AT_CAPS_NAMES.map((n) => `existing:at-caps::${n}`),
      ...AT_CAPS_NAMES.map((n) => `hidden:at-caps::${n}`),
    ];
    expect(g.result.testsHash).toBe(
      createHash("sha256")
        .update(`${all.join("\n")}\n`)
        .digest("hex"),
    );
    expect(g.stdout).toBe(`tests_hash=${g.result.testsHash}\n`);
    expect(g.cpuMs).toBeLessThan(MAX_GRADER_CPU_AT_CAPS_MS);
    expect(g.log.length).toBeLessThan(2 * MAX_LOG_BYTES);
    expect(resultBytes("report-at-caps")).toBeLessThan(2 * MAX_LOG_BYTES);
  });

  it("16 MiB of nested <testsuite> elements -> FAIL REPORT_INVALID, not INFRA_ERROR", async () => {
    const g = await planted("report-nested", NESTED);
    record("report-nested", g);
    expectOutcome(g, "FAIL", "REPORT_INVALID");
    expect(g.result.message).toMatch(/nested deeper than 64 elements/);
    expect(g.cpuMs).toBeLessThan(MAX_GRADER_CPU_MS);
    expect(g.log.length).toBeLessThan(MAX_LOG_BYTES);
    expect(resultBytes("report-nested")).toBeLessThan(MAX_RESULT_BYTES);
  });
});
