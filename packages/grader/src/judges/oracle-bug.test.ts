import { isOracleError } from "@oracle/spec";
import type { SealRun } from "@oracle/test-set";
import { describe, expect, it } from "vitest";
import type { RunLog } from "../log/oracle-log.js";
import type { DriverResult } from "../run/run-suite.js";
import { judgeCollected } from "./judge-suite.js";

// A bug in the host's judge of a run (brief s28 fix, item 1): before, judgeCollected threw it as it
// came, the run's supervisor made it an INFRA_ERROR (retried, counted as the engine's), and a batch
// or the sweep never learnt that the oracle itself failed. Now it is the oracle's own error, INTERNAL.

const silent: RunLog = {
  event: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  close: async () => undefined,
};
const captured = { bytes: 0, truncated: false, head: "", tail: "" };
const output = { captured: () => captured } as unknown as DriverResult["output"]["stdout"];

/** A hidden suite whose one test passed, and the seal records it wrote. */
const driver = (records: string): DriverResult => ({
  suite: "hidden",
  exitCode: 0,
  record: {
    prep: {},
    started: { hidden: true },
    exitCode: { hidden: 0 },
    kill: { hidden: { rounds: 0, survivors: 0 } },
    oomKills: { hidden: 0 },
    report: {
      hidden: {
        kind: "ok",
        xml: '<testsuites><testsuite name="s"><testcase classname="tests/test_a.py" name="test_a"/></testsuite></testsuites>',
      },
    },
    seals: { hidden: { kind: "ok", text: records } },
  },
  output: { stdout: output, stderr: output, durationMs: 5 },
});

const test = { file: "tests/test_a.py", entry: "tests/test_a.py::test_a" };
/** One sealed comparison: `assert f() == [1]`, its expected value on the host. */
const plan = (expected: object): SealRun =>
  ({
    fingerprint: "f",
    files: [],
    added: [],
    sites: [
      {
        key: "0.0",
        test,
        line: 5,
        kind: "py.eq",
        expected,
        source: "assert f() == [1]",
        strength: "strong",
      },
    ],
    tests: [{ test, keys: ["0.0"] }],
    unsealed: [],
  }) as unknown as SealRun;

const judge = (run: SealRun, records: string) =>
  judgeCollected(driver(records), {
    sentinel: null,
    noted: undefined,
    memoryMb: 512,
    log: silent,
    seals: { run, failToPass: [test.entry], source: "planned" },
  });

describe("a bug in the oracle's judge of a run", () => {
  // The expected value as the host's literal reader writes it; the record as the runtime does.
  const good = { t: "list", v: [{ t: "int", v: "1" }] };
  const written = { t: "list", v: [{ t: "int", x: "0x1" }] };
  const record = (v: object) => `${JSON.stringify({ k: "0.0", s: 0, v })}\n`;

  it("judges a run as before when nothing throws", () => {
    expect(judge(plan(good), record(written)).result.status).toBe("PASS");
    expect(judge(plan(good), record({ t: "list", v: [] })).result.reason).toBe("TESTS_FAILED");
  });

  it("is INTERNAL, naming the suite and the error: not an engine fault, not the diff's FAIL", () => {
    // The plan's expected value is the oracle's own (the host's): one the comparison cannot read.
    let thrown: unknown;
    try {
      judge(plan({ t: "int" }), record({ t: "int", x: "0x1" }));
    } catch (error) {
      thrown = error;
    }
    expect(isOracleError(thrown, "INTERNAL")).toBe(true);
    expect((thrown as Error).message).toMatch(
      /^the oracle failed while judging the hidden suite: TypeError: /,
    );
    expect((thrown as { hint?: string }).hint).toMatch(/a bug in the oracle/);
  });
});
