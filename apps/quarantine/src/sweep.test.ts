import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gradeLabels, LABEL } from "@oracle/engine";
import { OracleError, readQuarantineFile } from "@oracle/spec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import winston from "winston";
import { forgetTasks, type SweepEngine, type SweepOptions, sweep } from "./sweep.js";
import { type FakeRun, fakeGrade, fakeResult, writeTask } from "./testing/fake-grade.js";
import type { GradeOptions } from "./types.js";

const logger = winston.createLogger({ silent: true });
let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "quarantine-sweep-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const behaviour: Record<string, FakeRun> = {
  healthy: {},
  "existing-fails": { existing: { a: "failed" } },
  "hidden-passes": { hidden: { h: "passed" } },
  slow: { stop: "TIMEOUT" },
};

/** A fake run in which the gold diff (mode "grade") passes and the baseline fails on its hidden test. */
const goldPasses = (options: GradeOptions): FakeRun =>
  options.mode === "grade" ? { hidden: { h: "passed" } } : {};

function byTask(options: GradeOptions): FakeRun {
  if (options.mode === "grade")
    return options.task === "gold-fails" ? { hidden: { h: "failed" } } : { hidden: { h: "passed" } };
  return behaviour[options.task] ?? {};
}

async function run(options: Partial<SweepOptions> & Pick<SweepOptions, "grade">) {
  let clock = Date.parse("2026-12-01T00:00:00Z");
  const now = () => {
    clock += 1000;
    return new Date(clock);
  };
  return sweep({ root, logger, retryDelayMs: 1, now, ...options });
}

describe("sweep", () => {
  it("flags exactly the bad tasks, writes the list and the three reports", async () => {
    for (const id of ["healthy", "existing-fails", "hidden-passes", "slow"]) await writeTask(root, id);
    await writeTask(root, "gold-fails", { gold: true });
    await writeTask(root, "good-gold", { gold: true });
    await writeTask(root, "broken", { raw: '{"id": "broken"' });
    const grade = fakeGrade(byTask);
    const report = await run({ grade, repeat: 2, concurrency: 2 });

    const statuses = Object.fromEntries(
      report.tasks.map((t) => [t.id, [t.status, ...t.reasons.map((r) => r.flag)]]),
    );
    expect(statuses).toEqual({
      broken: ["quarantined", "INVALID_TASK"],
      "existing-fails": ["quarantined", "EXISTING_SUITE_FAILS", "NO_GOLD"],
      "gold-fails": ["quarantined", "GOLD_FAILS"],
      "good-gold": ["healthy"],
      // A good baseline is not enough: without gold.diff nothing shows a correct diff can PASS.
      healthy: ["quarantined", "NO_GOLD"],
      "hidden-passes": ["quarantined", "HIDDEN_PASS_AT_BASELINE", "NO_GOLD"],
      slow: ["quarantined", "TIMEOUT", "NO_GOLD"],
    });
    expect(grade.calls).toHaveLength(2 * 6 + 2 * 2);
    expect(grade.calls.every((c) => c.allowQuarantined === true)).toBe(true);
    // The record of expected tests needs every test, not the result's first 1,000 (commander.js).
    expect(grade.calls.every((c) => c.listEveryTest === true)).toBe(true);
    expect(grade.calls.filter((c) => c.mode === "grade").map((c) => c.diff)).toContainEqual({
      path: join(root, "tasks", "gold-fails", "gold.diff"),
    });
    expect(report.newlyQuarantined).toEqual([
      "broken",
      "existing-fails",
      "gold-fails",
      "healthy",
      "hidden-passes",
      "slow",
    ]);
    expect(report.counts).toMatchObject({ tasks: 7, healthy: 1, quarantined: 6, runs: 16 });

    const list = await readQuarantineFile(root);
    expect(Object.keys(list.tasks)).toEqual([
      "broken",
      "existing-fails",
      "gold-fails",
      "healthy",
      "hidden-passes",
      "slow",
    ]);
    expect(list.tasks.healthy?.reasons[0]?.hint).toContain("add tasks/healthy/gold.diff");
    expect(list.tasks.slow?.firstSeen).toBe(report.finishedAt);
    const files = ["report.json", "report.md", "report.html"].map((f) => join(report.reportDir, f));
    for (const file of files) expect((await stat(file)).size).toBeGreaterThan(100);
    expect(JSON.parse(await readFile(files[0]!, "utf8")).counts.quarantined).toBe(6);
    expect(await readFile(files[1]!, "utf8")).toContain("(fix: add tasks/healthy/gold.diff");
    expect(report.reportDir).toBe(join(root, "logs", "sweep", "20261201T000001Z"));
    const slowRun = report.tasks.find((t) => t.id === "slow")?.runs[0];
    expect(slowRun?.log).toBe("logs/sweep/20261201T000001Z/runs/slow/baseline-1.jsonl");
  });

  it("keeps firstSeen, releases a fixed task, and leaves tasks outside --tasks alone", async () => {
    for (const id of ["a-bad", "b-bad", "c-good"]) await writeTask(root, id, { gold: true });
    const bad = new Set(["a-bad", "b-bad"]);
    const grade = fakeGrade((o) => (bad.has(o.task) ? { existing: { x: "failed" } } : goldPasses(o)));
    const first = await run({ grade });
    const before = await readQuarantineFile(root);

    bad.delete("a-bad");
    bad.delete("b-bad");
    const second = await run({ grade, tasks: ["a-*"] });
    expect(second.tasks.map((t) => t.id)).toEqual(["a-bad"]);
    expect(second.released).toEqual(["a-bad"]);
    expect(second.tasks[0]?.change).toBe("released");
    const after = await readQuarantineFile(root);
    expect(Object.keys(after.tasks)).toEqual(["b-bad"]);
    expect(after.tasks["b-bad"]).toEqual(before.tasks["b-bad"]);
    expect(first.newlyQuarantined).toEqual(["a-bad", "b-bad"]);

    bad.add("b-bad");
    const third = await run({ grade, tasks: ["b-bad"] });
    expect(third.newlyQuarantined).toEqual([]);
    expect(third.tasks[0]?.change).toBe("kept");
    const kept = (await readQuarantineFile(root)).tasks["b-bad"];
    expect(kept?.firstSeen).toBe(before.tasks["b-bad"]?.firstSeen);
    expect(kept?.lastChecked).toBe(third.finishedAt);
  });

  it("two sweeps at once in one process (new-task --mine --jobs) keep each other's list entries and records", async () => {
    const ids = ["a-bad", "b-bad", "c-bad", "d-good", "e-good", "f-good"];
    for (const id of ids) await writeTask(root, id, { gold: true });
    const grade = fakeGrade((o) => (o.task.endsWith("-bad") ? { existing: { x: "failed" } } : goldPasses(o)));
    await Promise.all(ids.map((id) => run({ grade, tasks: [id], runId: `run-${id}` })));
    expect(Object.keys((await readQuarantineFile(root)).tasks)).toEqual(["a-bad", "b-bad", "c-bad"]);
    const health = JSON.parse(await readFile(join(root, "tasks", "health.json"), "utf8"));
    expect(Object.keys(health.tasks)).toEqual(ids);

    await forgetTasks(root, ["b-bad", "e-good"]);
    expect(Object.keys((await readQuarantineFile(root)).tasks)).toEqual(["a-bad", "c-bad"]);
    const after = JSON.parse(await readFile(join(root, "tasks", "health.json"), "utf8"));
    expect(Object.keys(after.tasks)).toEqual(["a-bad", "c-bad", "d-good", "f-good"]);
  });

  it("catches a flaky task with --repeat and drops list entries whose task is gone", async () => {
    await writeTask(root, "flaky");
    await writeFile(
      join(root, "tasks", "quarantine.json"),
      JSON.stringify({
        version: 1,
        tasks: {
          vanished: {
            reasons: [{ flag: "FLAKY", message: "x" }],
            firstSeen: "2026-01-01T00:00:00Z",
            lastChecked: "2026-01-01T00:00:00Z",
          },
        },
      }),
    );
    const grade = fakeGrade((_, call) => ({
      hidden: { h: "failed", r: call % 2 === 0 ? "passed" : "failed" },
    }));
    const report = await run({ grade, repeat: 3 });
    expect(report.tasks[0]?.reasons.map((r) => r.flag)).toEqual(["FLAKY", "NO_GOLD"]);
    expect(report.tasks[0]?.reasons[0]?.message).toContain("hidden:t.py::r");
    expect(report.removed).toEqual(["vanished"]);
    expect(Object.keys((await readQuarantineFile(root)).tasks)).toEqual(["flaky"]);
  });

  it("keeps the entries of a task another run wrote while it ran (new-task validating beside a sweep)", async () => {
    await writeTask(root, "listed");
    const entry = {
      reasons: [{ flag: "GOLD_FAILS", message: "x" }],
      firstSeen: "2026-01-01T00:00:00Z",
      lastChecked: "2026-01-01T00:00:00Z",
    };
    // The other run writes its task and quarantines it after this sweep listed the tasks.
    const grade = fakeGrade(async () => {
      await writeTask(root, "arrived");
      await writeFile(
        join(root, "tasks", "quarantine.json"),
        JSON.stringify({ version: 1, tasks: { arrived: entry } }),
      );
      return { hidden: { h: "failed" } };
    });
    const report = await run({ grade, repeat: 1 });
    expect(report.tasks.map((t) => t.id)).toEqual(["listed"]);
    expect(report.removed).toEqual([]);
    expect(Object.keys((await readQuarantineFile(root)).tasks).sort()).toEqual(["arrived", "listed"]);
  });

  it("retries INFRA_ERROR runs, and never quarantines or releases a task for the engine's failures", async () => {
    for (const id of ["recovers", "engine-down", "was-bad"]) await writeTask(root, id, { gold: true });
    await writeFile(
      join(root, "tasks", "quarantine.json"),
      JSON.stringify({
        version: 1,
        tasks: {
          "was-bad": {
            reasons: [{ flag: "FLAKY", message: "x" }],
            firstSeen: "2026-01-01T00:00:00Z",
            lastChecked: "2026-01-01T00:00:00Z",
          },
        },
      }),
    );
    let recoverCalls = 0;
    const grade = fakeGrade((o): FakeRun => {
      if (o.task === "recovers") return ++recoverCalls === 1 ? { stop: "INFRA_ERROR" } : goldPasses(o);
      if (o.task === "engine-down") throw new Error("socket hang up");
      return { stop: "INFRA_ERROR" };
    });
    const report = await run({ grade, infraRetries: 2 });
    const byId = Object.fromEntries(report.tasks.map((t) => [t.id, t]));
    expect(byId.recovers).toMatchObject({ status: "healthy", infra: { failedRuns: 0, retries: 1 } });
    expect(byId.recovers?.runs[0]?.attempts).toBe(2);
    expect(byId["engine-down"]).toMatchObject({
      status: "infra-error",
      reasons: [],
      infra: { failedRuns: 2, retries: 4 },
    });
    expect(byId["engine-down"]?.infra.messages[0]).toContain("socket hang up");
    expect(byId["was-bad"]).toMatchObject({ status: "infra-error", change: "kept" });
    expect(
      grade.calls
        .filter((c) => c.task === "engine-down" && c.mode === "baseline")
        .map((c) => c.logFile?.split("/").pop()),
    ).toEqual(["baseline-1.jsonl", "baseline-1-retry1.jsonl", "baseline-1-retry2.jsonl"]);
    const list = await readQuarantineFile(root);
    expect(Object.keys(list.tasks)).toEqual(["was-bad"]);
    expect(list.tasks["was-bad"]?.lastChecked).toBe("2026-01-01T00:00:00Z");
    // recovers: 1; engine-down and was-bad: 2 retries of each of their 2 checks.
    expect(report.counts).toMatchObject({ infraError: 2, newlyQuarantined: 0, released: 0, infraRetries: 9 });
  });

  it("records the oracle's own bug (INTERNAL) as a run that proves nothing, says whose it is, and does not retry it", async () => {
    await writeTask(root, "judge-bug", { gold: true });
    const grade = fakeGrade((): FakeRun => {
      throw new OracleError("INTERNAL", "the oracle failed while judging the hidden suite: TypeError: x");
    });
    const report = await run({ grade, infraRetries: 2 });
    const [task] = report.tasks;
    expect(task).toMatchObject({ status: "infra-error", reasons: [], infra: { failedRuns: 2, retries: 0 } });
    expect(task?.infra.messages[0]).toMatch(
      /^the oracle's own bug \(INTERNAL\), not the task's nor the engine's: the oracle failed while judging/,
    );
    expect(grade.calls.filter((c) => c.task === "judge-bug")).toHaveLength(2);
  });

  it("holds the concurrency limit and keeps going when one task's grade throws a task error", async () => {
    for (const id of ["t1", "t2", "t3", "t4", "t5"]) await writeTask(root, id, { gold: true });
    let active = 0;
    let peak = 0;
    const grade = fakeGrade(async (o) => {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 5));
      active -= 1;
      if (o.task === "t3") throw new OracleError("TASK_INVALID", "bad mirror");
      return goldPasses(o);
    });
    const report = await run({ grade, concurrency: 2, repeat: 2 });
    expect(peak).toBe(2);
    expect(report.tasks.filter((t) => t.status === "healthy")).toHaveLength(4);
    expect(report.tasks.find((t) => t.id === "t3")?.reasons).toMatchObject([{ flag: "INVALID_TASK" }]);
  });

  it("refuses a glob that matches nothing, before running anything", async () => {
    await writeTask(root, "t1");
    const grade = fakeGrade(() => ({}));
    await expect(run({ grade, tasks: ["nope-*"] })).rejects.toMatchObject({ code: "USAGE" });
    expect(grade.calls).toHaveLength(0);
  });

  it("on abort: stops every running grade, waits for them, removes its leftover containers and writes nothing", async () => {
    for (const id of ["t1", "t2", "t3", "t4"]) await writeTask(root, id);
    const controller = new AbortController();
    let running = 0;
    let cleanedUp = 0;
    const grade = fakeGrade(
      (o) =>
        new Promise<FakeRun>((_, reject) => {
          running += 1;
          if (running === 2) setTimeout(() => controller.abort(new DOMException("stop", "AbortError")), 5);
          o.signal?.addEventListener("abort", () =>
            setTimeout(() => {
              cleanedUp += 1;
              reject(o.signal?.reason);
            }, 20),
          );
        }),
    );
    // One container of this sweep's grades is still there (its removal failed), one is another live grader's.
    const own = { id: "own", labels: gradeLabels("r1", "t1", new Date(Date.now() + 60_000)) };
    const other = { id: "other", labels: { ...own.labels, [LABEL.pid]: "1", [LABEL.run]: "r2" } };
    const removed: string[] = [];
    const engine: SweepEngine = {
      ping: async () => {},
      listContainers: async () => [own, other],
      removeContainer: async (id) => {
        removed.push(id);
      },
    };
    await expect(
      run({ grade, engine, concurrency: 2, repeat: 3, signal: controller.signal }),
    ).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(grade.calls).toHaveLength(2);
    expect(cleanedUp).toBe(2);
    expect(removed).toEqual(["own"]);
    await expect(stat(join(root, "tasks", "quarantine.json"))).rejects.toThrow();
  });

  it("a hidden test that fails one gold run in three: recorded as FAIL_TO_PASS from 2 runs of each check, FLAKY and not recorded from new-task's 3", async () => {
    // Issue 31: new-task's default of 2 runs recorded such a test; its third run is the one that fails.
    for (const repeat of [2, 3]) {
      const id = `flaky-${repeat}`;
      await writeTask(root, id, { gold: true });
      let goldRuns = 0;
      const grade = fakeGrade((o) => {
        if (o.mode !== "grade") return { hidden: { h: "failed" } };
        goldRuns += 1;
        return { hidden: { h: goldRuns % 3 === 0 ? "failed" : "passed" } };
      });
      const report = await run({ grade, repeat, concurrency: 1, tasks: [id] });
      const task = report.tasks[0]!;
      if (repeat === 2) {
        expect(task.status).toBe("healthy");
        expect(task.expected).toMatch(/recorded .*1 failToPass/);
      } else {
        expect(task.reasons.map((r) => r.flag)).toContain("FLAKY");
        expect(task.expected).toMatch(/^not recorded/);
      }
    }
  });

  it("a base that hangs is not run again when seals gold could not pass are left unsealed: the task is decided within one time limit", async () => {
    // Issue 31 (sqlparse 40ed3aa, a fix for a hang): the check again after demotion ran every
    // baseline run once more, each to the time limit.
    await writeTask(root, "hangs", { gold: true });
    const seals = {
      source: "planned" as const,
      plan: "b".repeat(64),
      files: 1,
      sealed: { strong: 1, weak: 0, exposed: 0 },
      checked: 0,
      tests: { sealed: 1, unsealed: 0 },
      outcome: { matched: 0, mismatch: 1, notPlain: 0, notRun: 0 },
      sites: { "t.py.1": "mismatch" as const },
    };
    const calls: string[] = [];
    const grade = async (o: GradeOptions) => {
      calls.push(`${o.mode}:${o.sealPlan}`);
      if (o.mode !== "grade") return fakeResult(o, { stop: "TIMEOUT" });
      return { ...fakeResult(o, goldPasses(o)), ...(o.sealPlan === "fresh" ? { seals } : {}) };
    };
    const report = await run({ grade, repeat: 2, concurrency: 1, tasks: ["hangs"] });
    expect(calls.filter((c) => c.startsWith("baseline"))).toEqual(["baseline:fresh", "baseline:fresh"]);
    expect(calls.filter((c) => c === "grade:recorded")).toHaveLength(2);
    expect(report.tasks[0]!.reasons.map((r) => r.flag)).toContain("TIMEOUT");
    expect(report.tasks[0]!.runs.filter((r) => r.mode === "baseline")).toHaveLength(2);
  });

  it("an interrupt while it checks again after leaving seals unsealed puts the task's seal record back (or removes it), never leaving failToPass: []", async () => {
    // Issue 31: a sweep stopped before its demotion re-check left the interim record, failToPass: [].
    const previous = `${JSON.stringify({ version: 1, failToPass: [{ test: "hidden:t.py::h", seal: "strong" }] })}\n`;
    for (const [id, before] of [
      ["had-record", previous],
      ["had-none", null],
    ] as const) {
      await writeTask(root, id, { gold: true });
      const file = join(root, "tasks", id, "seals.recorded.json");
      if (before !== null) await writeFile(file, before);
      const controller = new AbortController();
      const seals = {
        source: "planned" as const,
        plan: "a".repeat(64),
        files: 1,
        sealed: { strong: 1, weak: 0, exposed: 0 },
        checked: 0,
        tests: { sealed: 1, unsealed: 0 },
        outcome: { matched: 0, mismatch: 1, notPlain: 0, notRun: 0 },
        sites: { "t.py.1": "mismatch" as const },
      };
      let interim: string | null = null;
      const grade = async (o: GradeOptions) => {
        if (o.sealPlan === "recorded") {
          // The check again: the interim record is on disk while it runs; then the user stops the sweep.
          interim = await readFile(file, "utf8");
          controller.abort(new DOMException("stop", "AbortError"));
          throw o.signal?.reason ?? new DOMException("stop", "AbortError");
        }
        return { ...fakeResult(o, goldPasses(o)), seals };
      };
      await expect(run({ grade, repeat: 1, signal: controller.signal, tasks: [id] })).rejects.toMatchObject({
        name: "AbortError",
      });
      expect(JSON.parse(interim!)).toMatchObject({ failToPass: [], demoted: [{ key: "t.py.1" }] });
      if (before === null) await expect(stat(file)).rejects.toThrow();
      else expect(await readFile(file, "utf8")).toBe(before);
    }
  });

  it("does not start when the engine does not answer", async () => {
    await writeTask(root, "t1");
    const engine: SweepEngine = {
      ping: async () => {
        throw Object.assign(new Error("down"), { code: "DOCKER_UNAVAILABLE" });
      },
      listContainers: async () => [],
      removeContainer: async () => undefined,
    };
    await expect(run({ grade: fakeGrade(() => ({})), engine })).rejects.toMatchObject({
      code: "DOCKER_UNAVAILABLE",
    });
  });
});
