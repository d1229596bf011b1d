// The seal record across sweeps (issue 29; rules.ts `seal.gold`): a comparison the gold diff
// cannot pass on the host (here a value whose class defines its own __eq__, which is not plain
// data) is left unsealed by the sweep, and the gold diff PASSes. A later sweep must find it again:
// on c83cebd the second sweep planned with the first one's record, found nothing to leave out,
// wrote an empty record, and the next gold grade FAILed VALUE_NOT_PLAIN_DATA while the sweep said
// healthy.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, run } from "@oracle/test-utils";
import { describe, expect, it } from "vitest";
import { conformanceHooks, goldDiff, type Shape } from "./conformance/shapes.js";
import { PYTEST, pyRepo, pyTask } from "./conformance/table.js";
import type { FixtureTask } from "./hostile/harness.js";
import { gradeCase } from "./hostile/harness.js";

const core = `class Num:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v == other


def make(v):
    return Num(v)


def add(a, b):
    return a - b


def mul(a, b):
    return a * b
`;
const SHAPE: Shape = {
  id: "seal-demoted",
  title: "a comparison gold cannot pass on the host",
  from: {
    repo: { ...pyRepo, "calc/core.py": core },
    hidden: {
      "tests/regression/__init__.py": "",
      "tests/regression/test_add.py": `from calc.core import add, make


def test_add_small():
    assert add(2, 3) == 5


def test_make_keeps_its_value():
    assert add(1, 1) == 2
    assert make(7) == 7
`,
    },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": core.replace("a - b", "a + b") },
  tamper: () => ({}),
  skip: () => ({}),
};

const c = conformanceHooks([SHAPE], () => {
  writeFileSync(join(c.corpus.root, "tasks", SHAPE.id, "gold.diff"), goldDiff(c, SHAPE));
});

interface Record {
  demoted: { key: string; why: string }[];
}
const record = (): Record =>
  JSON.parse(readFileSync(join(c.corpus.root, "tasks", SHAPE.id, "seals.recorded.json"), "utf8"));

async function sweepOnce(): Promise<string> {
  const out = await run(binPath("oracle-quarantine-sweep"), ["--root", c.corpus.root, "--tasks", SHAPE.id], {
    timeoutMs: 600_000,
  });
  const dir = /reports: (\S+)report\.html/.exec(out.stdout + out.stderr)?.[1];
  if (dir === undefined) throw new Error(`sweep printed no report (${out.code}): ${out.stderr}`);
  const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as {
    tasks: { status: string; reasons: unknown[] }[];
  };
  const task = report.tasks[0]!;
  return task.status === "healthy" ? "healthy" : `${task.status}: ${JSON.stringify(task.reasons)}`;
}

/** A `--changed` sweep: the tasks it swept, and the ones it swept only for a seal record made for another plan. */
async function sweepChanged(): Promise<{ swept: string[]; staleSealRecords: string[] | undefined }> {
  const out = await run(
    binPath("oracle-quarantine-sweep"),
    ["--root", c.corpus.root, "--changed", "--json"],
    { timeoutMs: 600_000 },
  );
  expect(out.code, out.stderr).toBe(0);
  const report = JSON.parse(out.stdout) as {
    tasks: { id: string; status: string }[];
    staleSealRecords?: string[];
  };
  for (const t of report.tasks) expect(t.status, t.id).toBe("healthy");
  return { swept: report.tasks.map((t) => t.id), staleSealRecords: report.staleSealRecords };
}

const gradeGold = (name: string) =>
  gradeCase(c.corpus, { task: SHAPE.id as FixtureTask, name, diff: goldDiff(c, SHAPE) });

describe("the seal record across sweeps", () => {
  it("every sweep leaves out what gold cannot pass, and gold PASSes after each", async () => {
    // No record yet: the grade seals every comparison, and gold fails the one it cannot pass.
    const unswept = await gradeGold("gold-unswept");
    expect(unswept.result.reason, unswept.result.message).toBe("VALUE_NOT_PLAIN_DATA");
    for (const round of [1, 2]) {
      expect(await sweepOnce(), `sweep ${round}`).toBe("healthy");
      expect(
        record().demoted.map((d) => d.why),
        `sweep ${round}`,
      ).toEqual(["the gold diff's value was not plain data"]);
      const gold = await gradeGold(`gold-${round}`);
      expect({ verdict: gold.result.verdict, reason: gold.result.reason }, gold.result.message).toEqual({
        verdict: "PASS",
        reason: "PASS",
      });
      expect(gold.result.seals?.source).toBe("validated");
    }
    const baseline = await gradeCase(c.corpus, { task: SHAPE.id as FixtureTask, name: "baseline" });
    expect(baseline.result.reason, baseline.result.message).toBe("TESTS_FAILED");
    // Swept, and its record made for the plan the oracle makes now: --changed has nothing to do.
    expect(await sweepChanged()).toEqual({ swept: [], staleSealRecords: [] });
    // A record made for another plan (the oracle's planner changed since the sweep, here its
    // fingerprint edited): sealing every comparison as planned failed gold on the site it cannot
    // pass, which only a sweep finds. Nothing is sealed until the next sweep; the runner decides.
    const file = join(c.corpus.root, "tasks", SHAPE.id, "seals.recorded.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), plan: "0".repeat(64) }));
    const stale = await gradeGold("gold-stale");
    expect({ verdict: stale.result.verdict, reason: stale.result.reason }, stale.result.message).toEqual({
      verdict: "PASS",
      reason: "PASS",
    });
    expect(stale.result.seals?.source).toBe("planned");
    expect(stale.stderr).toMatch(
      /made for another seal plan .*no comparison is sealed.*run pnpm quarantine-sweep (--root \S+ )?--changed to seal them again/,
    );
    const staleBase = await gradeCase(c.corpus, { task: SHAPE.id as FixtureTask, name: "baseline-stale" });
    expect(staleBase.result.reason, staleBase.result.message).toBe("TESTS_FAILED");
    // The task's folder, image and grader are as tasks/health.json recorded them: --changed skipped
    // it before, and every grade went on sealing nothing. It sweeps it now, once, and says why.
    expect(await sweepChanged()).toEqual({ swept: [SHAPE.id], staleSealRecords: [SHAPE.id] });
    expect(record().demoted.map((d) => d.why)).toEqual(["the gold diff's value was not plain data"]);
    const resealed = await gradeGold("gold-resealed");
    expect({ verdict: resealed.result.verdict, reason: resealed.result.reason }).toEqual({
      verdict: "PASS",
      reason: "PASS",
    });
    expect(resealed.result.seals?.source).toBe("validated");
    expect(await sweepChanged()).toEqual({ swept: [], staleSealRecords: [] });
  }, 1_800_000);
});
