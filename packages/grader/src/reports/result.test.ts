import { describe, expect, it } from "vitest";
import { judgeSuite, MAX_LISTED_TESTS } from "../judges/judge-report.js";
import { testsHash } from "../judges/tests-hash.js";
import { buildResult, MAX_LISTED_IDS } from "./result.js";

/** A judged suite of `count` tests, every 500th failing. */
function suite(name: "existing" | "hidden", count: number) {
  const cases = Array.from({ length: count }, (_, i) =>
    i % 500 === 499
      ? `<testcase name="t${i}"><failure message="no"/></testcase>`
      : `<testcase name="t${i}"/>`,
  ).join("");
  return judgeSuite({
    suite: name,
    exitCode: 1,
    durationMs: 1,
    report: { kind: "ok", xml: `<testsuite name="m">${cases}</testsuite>` },
    output: { bytes: 0, truncated: false },
  }).result;
}

const parts = (existing: number, hidden: number) => ({
  task: "t",
  mode: "grade" as const,
  reason: "TESTS_FAILED" as const,
  message: "m",
  suites: { existing: suite("existing", existing), hidden: suite("hidden", hidden) },
  image: { name: "i", reference: null, digest: null },
  diff: null,
  timings: {},
  logPath: "/l",
  startedAt: new Date(),
});

const result = (existing: number, hidden: number) => buildResult(parts(existing, hidden));

describe("buildResult lists a bounded sample, hashes every id", () => {
  it("lists everything when the suites are small", () => {
    const r = result(3, 2);
    expect(r.testIds).toHaveLength(5);
    expect(r.testIdsOmitted).toBe(0);
    expect(r.suites.hidden.testsOmitted).toBe(0);
  });

  it("beyond the caps: the first ids and a count, failures first in each suite, tests_hash of all", () => {
    const r = result(3000, 1500);
    const all = [
      ...Array.from({ length: 3000 }, (_, i) => `existing:m::t${i}`),
      ...Array.from({ length: 1500 }, (_, i) => `hidden:m::t${i}`),
    ];
    expect(r.testsHash).toBe(testsHash(all));
    expect(r.testIds).toHaveLength(MAX_LISTED_IDS);
    expect(r.testIdsOmitted).toBe(4500 - MAX_LISTED_IDS);
    expect(r.testIds).toEqual([...r.testIds].sort());
    const existing = r.suites.existing;
    expect(existing.counts).toEqual({ passed: 2994, failed: 6, error: 0, skipped: 0 });
    expect(existing.tests).toHaveLength(MAX_LISTED_TESTS);
    expect(existing.testsOmitted).toBe(3000 - MAX_LISTED_TESTS);
    expect(existing.tests.slice(0, 6).map((t) => t.outcome)).toEqual(Array(6).fill("failed"));
    expect(r.suites.hidden.tests).toHaveLength(MAX_LISTED_TESTS);
  });

  it("every test in the suites when the caller asks (the quarantine sweep's record: commander.js has 1,300)", () => {
    const r = buildResult({ ...parts(3000, 1500), listEveryTest: true });
    expect(r.suites.existing.tests).toHaveLength(3000);
    expect(r.suites.existing.testsOmitted).toBe(0);
    expect(r.suites.hidden.tests).toHaveLength(1500);
    expect(r.testIds).toHaveLength(MAX_LISTED_IDS);
  });
});
