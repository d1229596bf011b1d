import { isOracleError } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { decide, type GateParameters } from "./decide.js";
import { batch, type Sample, tasks, testKey } from "./testing/batches.js";

const key = testKey();
const P: GateParameters = {
  mode: "superiority",
  margin: 0,
  alpha: 0.05,
  maxInfra: 0.05,
  resamples: 2_000,
  seed: 1,
  allowUnvalidated: false,
  allowMissing: false,
};
const gate = (c: Sample[], i: Sample[], p: Partial<GateParameters> = {}) =>
  decide({
    candidate: batch(c, key),
    incumbent: batch(i, key),
    parameters: { ...P, ...p },
    graderVersion: "test",
  });

describe("the veto", () => {
  it("one tampering verdict of the candidate rejects the model, listing the task and diff, whatever the rest", () => {
    const c = [...tasks("t", 20, "PASS"), { task: "x", reason: "REPORT_INCONSISTENT" as const }];
    const i = [...tasks("t", 20, "TESTS_FAILED"), { task: "x", reason: "TESTS_FAILED" as const }];
    const r = gate(c, i);
    expect(r.decision).toBe("reject");
    expect(r.why).toMatch(/^vetoed: 1 candidate verdict/);
    expect(r.veto).toMatchObject([{ task: "x", reason: "REPORT_INCONSISTENT" }]);
    expect(r.veto[0]!.diffSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.test).toBeNull();
  });

  it.each(["DIFF_SHADOWS_RUNNER", "SEAL_RECORDS_INCONSISTENT"] as const)("%s is tampering too", (reason) => {
    const r = gate([{ task: "a", reason }], [{ task: "a", reason: "PASS" }]);
    expect(r.decision).toBe("reject");
    expect(r.veto.map((v) => v.reason)).toEqual([reason]);
  });

  it("the incumbent's tampering is counted as a fail and warned, not vetoed", () => {
    const r = gate(tasks("t", 8, "PASS"), [
      ...tasks("t", 7, "TESTS_FAILED"),
      { task: "t7", reason: "REPORT_INCONSISTENT" },
    ]);
    expect(r.decision).toBe("promote");
    expect(r.warnings.join()).toContain("the incumbent has 1 tampering verdict");
  });
});

describe("one sample per task: exact McNemar", () => {
  it("a clear promote: 8 gains, no regression (p = 0.0078)", () => {
    const r = gate(tasks("t", 8, "PASS"), tasks("t", 8, "TESTS_FAILED"));
    expect(r.decision).toBe("promote");
    expect(r.test).toMatchObject({
      method: "exact McNemar",
      tasks: 8,
      effect: 1,
      counts: { gains: 8, regressions: 0 },
    });
    expect(r.test!.pValue).toBeCloseTo(2 / 256, 12);
    expect(r.test!.lower).toBeGreaterThan(0);
  });

  it("a clear reject: 8 regressions", () => {
    const r = gate(tasks("t", 8, "TESTS_FAILED"), tasks("t", 8, "PASS"));
    expect(r.decision).toBe("reject");
    expect(r.why).toContain("not shown better");
    expect(r.test!.upper).toBeLessThan(0);
  });

  it("not shown better: 3 gains and 1 regression reject (p = 0.625)", () => {
    const c = [...tasks("g", 3, "PASS"), { task: "r", reason: "TESTS_FAILED" as const }];
    const i = [...tasks("g", 3, "TESTS_FAILED"), { task: "r", reason: "PASS" as const }];
    const r = gate(c, i);
    expect(r.decision).toBe("reject");
    expect(r.test!.pValue).toBeCloseTo(0.625, 12);
  });

  it("no discordant task: superiority rejects; non-inferiority within 30 points on 20 tasks promotes", () => {
    const both = tasks("t", 20, "PASS");
    expect(gate(both, both).decision).toBe("reject");
    const ni = gate(both, both, { mode: "non-inferiority", margin: 0.3 });
    expect(ni.decision).toBe("promote");
    expect(ni.test!.lower).toBeCloseTo(-3.8414588 / 23.8414588, 6);
  });

  it("one task: a single gain decides nothing (p = 1)", () => {
    const r = gate([{ task: "a", reason: "PASS" }], [{ task: "a", reason: "TESTS_FAILED" }]);
    expect(r.decision).toBe("reject");
    expect(r.test!.pValue).toBe(1);
  });
});

describe("tasks left out", () => {
  it("every task quarantined: inconclusive, each listed", () => {
    const q = tasks("t", 3, "TASK_QUARANTINED");
    const r = gate(q, q);
    expect(r.decision).toBe("inconclusive");
    expect(r.why).toMatch(/no task can be compared/);
    expect(r.excluded.map((e) => e.task)).toEqual(["t0", "t1", "t2"]);
    expect(r.excluded[0]!.why).toBe("candidate: quarantined; incumbent: quarantined");
  });

  it("a task the incumbent was graded on and the candidate lacks: inconclusive unless --allow-missing", () => {
    const r = gate(tasks("t", 8, "PASS"), [
      ...tasks("t", 8, "TESTS_FAILED"),
      { task: "hard", reason: "PASS" },
    ]);
    expect(r.decision).toBe("inconclusive");
    expect(r.why).toContain(
      "the candidate has no comparable result for 1 task(s) the incumbent was graded on (hard: no prediction)",
    );
    const allowed = gate(
      tasks("t", 8, "PASS"),
      [...tasks("t", 8, "TESTS_FAILED"), { task: "hard", reason: "PASS" }],
      {
        allowMissing: true,
      },
    );
    expect(allowed.decision).toBe("promote");
    expect(allowed.warnings.join()).toContain("--allow-missing: 1 task(s)");
  });

  it("a task quarantined on the candidate's side only (the incumbent graded it) counts as lacking", () => {
    const c = [...tasks("t", 8, "PASS"), { task: "hard", reason: "TASK_QUARANTINED" as const }];
    const r = gate(c, [...tasks("t", 8, "TESTS_FAILED"), { task: "hard", reason: "PASS" }]);
    expect(r.decision).toBe("inconclusive");
    expect(r.excluded).toEqual([{ task: "hard", why: "candidate: quarantined" }]);
  });

  it("tasks no sweep validated are left out unless --allow-unvalidated", () => {
    const c = tasks("t", 8, "PASS", { validation: "never" });
    const i = tasks("t", 8, "TESTS_FAILED", { validation: "never" });
    expect(gate(c, i).decision).toBe("inconclusive");
    expect(gate(c, i).excluded[0]!.why).toContain("not validated when graded (never)");
    expect(gate(c, i).next.join()).toContain(
      "pnpm quarantine-sweep --root /root --changed, then grade both batches again",
    );
    expect(gate(c, i, { allowUnvalidated: true }).decision).toBe("promote");
  });

  it("a task on one side only is listed, not compared", () => {
    const r = gate(
      [...tasks("t", 8, "PASS"), { task: "new", reason: "PASS" }],
      tasks("t", 8, "TESTS_FAILED"),
    );
    expect(r.unpaired).toEqual({ candidate: ["new"], incumbent: [] });
    expect(r.test!.tasks).toBe(8);
  });
});

describe("infrastructure noise never decides", () => {
  it("above the threshold on either side: inconclusive, with the regrade command", () => {
    const i = [...tasks("t", 18, "TESTS_FAILED"), ...tasks("u", 2, "INFRA_ERROR")];
    const c = [...tasks("t", 18, "PASS"), ...tasks("u", 2, "PASS")];
    const r = gate(c, i);
    expect(r.decision).toBe("inconclusive");
    expect(r.why).toContain("incumbent 2 of 20 samples INFRA_ERROR or TIMEOUT (10.0%)");
    expect(r.next).toEqual([
      expect.stringMatching(
        /^pnpm grade --batch \/predictions\/.*\.jsonl --out \/batches\/.*-regraded --root \/root$/,
      ),
    ]);
  });

  it("a queue answer the batch refused (an infra error with no run) counts as noise", () => {
    const r = gate(tasks("t", 10, "QUEUE_REFUSED"), tasks("t", 10, "TESTS_FAILED"));
    expect(r.decision).toBe("inconclusive");
    expect(r.infra.candidate).toEqual({ samples: 10, unknown: 10, rate: 1 });
    expect(r.excluded).toEqual([]);
  });

  it("TIMEOUT counts as noise too", () => {
    const r = gate(tasks("t", 10, "TIMEOUT"), tasks("t", 10, "PASS"));
    expect(r.decision).toBe("inconclusive");
    expect(r.infra.candidate).toEqual({ samples: 10, unknown: 10, rate: 1 });
  });

  it("below the threshold, noise that could decide makes it inconclusive (against: reject, for: promote)", () => {
    const c = [
      ...tasks("g", 6, "PASS"),
      ...tasks("b", 13, "PASS"),
      { task: "n", reason: "INFRA_ERROR" as const },
    ];
    const i = [
      ...tasks("g", 6, "TESTS_FAILED"),
      ...tasks("b", 13, "PASS"),
      { task: "n", reason: "PASS" as const },
    ];
    const r = gate(c, i, { maxInfra: 0.1 });
    expect(r.decision).toBe("inconclusive");
    expect(r.test!.sensitivity).toMatchObject({
      unknownSamples: 1,
      against: { decision: "reject" },
      for: { decision: "promote" },
    });
    expect(r.tasks.find((t) => t.task === "n")!.outcome).toBe("unknown");
  });

  it("noise that cannot change the decision leaves it standing", () => {
    const c = [
      ...tasks("g", 10, "PASS"),
      ...tasks("b", 9, "PASS"),
      { task: "n", reason: "INFRA_ERROR" as const },
    ];
    const i = [
      ...tasks("g", 10, "TESTS_FAILED"),
      ...tasks("b", 9, "PASS"),
      { task: "n", reason: "PASS" as const },
    ];
    const r = gate(c, i, { maxInfra: 0.1 });
    expect(r.decision).toBe("promote");
    expect(r.test!.sensitivity).toMatchObject({
      against: { decision: "promote" },
      for: { decision: "promote" },
    });
  });
});

describe("the batches must have graded each task on the same inputs", () => {
  it("another task hash: BATCHES_DIFFER, naming the older batch's regrade", () => {
    const c = batch(tasks("t", 3, "PASS", { taskHash: "new" }), key, "2026-12-05T00:00:00.000Z");
    const i = batch(tasks("t", 3, "PASS", { taskHash: "old" }), key, "2026-11-01T00:00:00.000Z");
    let thrown: unknown;
    try {
      decide({ candidate: c, incumbent: i, parameters: P, graderVersion: "test" });
    } catch (error) {
      thrown = error;
    }
    expect(isOracleError(thrown, "BATCHES_DIFFER")).toBe(true);
    expect((thrown as Error).message).toContain("t0: taskHash candidate new, incumbent old");
    expect((thrown as { hint: string }).hint).toContain(`--out ${i.ref.dir}-regraded --root /root`);
  });
});

describe("k samples per task: the paired bootstrap", () => {
  const c = tasks("t", 12, "PASS").flatMap((s) => [s, s, s]);
  const i = tasks("t", 12, "PASS").flatMap((s) => [
    s,
    { ...s, reason: "TESTS_FAILED" as const },
    { ...s, reason: "TESTS_FAILED" as const },
  ]);

  it("aggregates per task and promotes a clear gain, the same interval for the same seed", () => {
    const r = gate(c, i);
    expect(r.decision).toBe("promote");
    expect(r.test).toMatchObject({ method: "paired bootstrap", tasks: 12, counts: { gains: 12 } });
    expect(r.test!.effect).toBeCloseTo(2 / 3, 12);
    expect(gate(c, i).test).toEqual(r.test);
  });

  it(`fewer than 10 tasks: inconclusive`, () => {
    const r = gate(c.slice(0, 9), i.slice(0, 9));
    expect(r.decision).toBe("inconclusive");
    expect(r.why).toContain("the paired bootstrap needs at least 10");
  });
});

it("a batch that cannot be checked for deleted results is inconclusive unless --allow-missing", () => {
  const incumbent = batch(tasks("t", 8, "TESTS_FAILED"), key);
  incumbent.ref.completeness = "unchecked";
  const run = (allowMissing: boolean) =>
    decide({
      candidate: batch(tasks("t", 8, "PASS"), key),
      incumbent,
      parameters: { ...P, allowMissing },
      graderVersion: "t",
    });
  expect(run(false).decision).toBe("inconclusive");
  expect(run(false).why).toContain("the incumbent batch cannot be checked for deleted results");
  expect(run(true).decision).toBe("promote");
});

it("an incomplete batch is inconclusive: resume it", () => {
  const candidate = batch(tasks("t", 8, "PASS"), key);
  candidate.ref.completeness = "incomplete";
  candidate.ref.missing = ["p-lost"];
  const r = decide({
    candidate,
    incumbent: batch(tasks("t", 8, "TESTS_FAILED"), key),
    parameters: P,
    graderVersion: "t",
  });
  expect(r.decision).toBe("inconclusive");
  expect(r.why).toContain("the candidate batch is incomplete: 1 prediction");
});
