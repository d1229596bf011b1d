// `oracle-gate` end to end (issue 32): two "models" graded for real on six copies of calc-node, then
// gated. A clear promote (gold against diffs that fix nothing) and the reverse reject; the tamper
// veto (one candidate diff puts a module under a node_modules folder: REPORT_INCONSISTENT); an
// inconclusive gate from injected infrastructure errors (every answer of the candidate's queue comes
// from a client that is not a worker, so the batch refuses each: INFRA_ERROR); and a refusal when a
// task changed between the batches (BATCHES_DIFFER, naming the regrade of the older batch).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GateReportSchema, ResultLineSchema } from "@oracle/spec";
import { binPath, makeTempRoot, requireDocker, run } from "@oracle/test-utils";
import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOOP_DIFF, TestRedis } from "./fixtures/batch/harness.js";

const GRADE = binPath("oracle-grade");
const GATE = binPath("oracle-gate");
const TASKS = Array.from({ length: 6 }, (_, i) => `calc-${i}`);

/**
 * The tamper diff: mocha patched in-process from the code under test, every failure emitted as a
 * pass (test/hostile/cases.ts JS_PATCH_RUNNER, for calc-node's ES modules): REPORT_INCONSISTENT.
 */
const FORGE_MOCHA_DIFF = `diff --git a/src/parse.js b/src/parse.js
--- a/src/parse.js
+++ b/src/parse.js
@@ -1,3 +1,11 @@
+import { createRequire } from "node:module";
+try {
+  const Runner = createRequire(import.meta.url)("mocha/lib/runner");
+  Runner.prototype.fail = function (test) {
+    test.state = "passed";
+    this.emit("pass", test);
+  };
+} catch {}
 import { tokenize } from "./tokenize.js";
 
 /**
`;

let temp: { root: string; cleanup: () => Promise<void> };
let redis: TestRedis;
let gold = "";

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ images: "images", "tasks/calc-node": "tasks/calc-node" });
  // Six tasks of one image: copies of calc-node under other ids.
  const source = join(temp.root, "tasks", "calc-node");
  for (const id of TASKS) {
    await run("cp", ["-r", source, join(temp.root, "tasks", id)]);
    const file = join(temp.root, "tasks", id, "task.json");
    await writeFile(file, (await readFile(file, "utf8")).replace('"id": "calc-node"', `"id": "${id}"`));
  }
  await run("rm", ["-rf", source]);
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "--only", "node-mocha"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
  gold = await readFile(join(temp.root, "tasks", "calc-0", "gold.diff"), "utf8");
  await mkdir(join(temp.root, "redis"));
  redis = await TestRedis.start(join(temp.root, "redis"));
});

afterAll(async () => {
  await redis?.down();
  await temp?.cleanup();
});

/** Grades one prediction per task (`diffFor(task)`) as a batch into out-<name>; returns the folder. */
async function gradeBatch(
  name: string,
  diffFor: (task: string) => string,
  extra: string[] = [],
): Promise<string> {
  const file = join(temp.root, `${name}.jsonl`);
  const lines = TASKS.map((task) => JSON.stringify({ id: `${name}-${task}`, task, diff: diffFor(task) }));
  await writeFile(file, `${lines.join("\n")}\n`);
  const out = join(temp.root, `out-${name}`);
  const result = await run(
    GRADE,
    ["--batch", file, "--out", out, "--root", temp.root, "--concurrency", "2", ...extra],
    {
      timeoutMs: 600_000,
    },
  );
  expect([0, 1], result.stderr).toContain(result.code);
  return out;
}

async function gate(candidate: string, incumbent: string, extra: string[] = []) {
  const result = await run(
    GATE,
    ["--candidate", candidate, "--incumbent", incumbent, "--allow-unvalidated", ...extra],
    {
      timeoutMs: 120_000,
    },
  );
  const reportFile = join(candidate, "gate", "gate.json");
  return {
    ...result,
    report: () => readFile(reportFile, "utf8").then((t) => GateReportSchema.parse(JSON.parse(t))),
  };
}

describe("oracle-gate on real batches", () => {
  let goldDir = "";
  let noopDir = "";

  beforeAll(async () => {
    goldDir = await gradeBatch("gold", () => gold);
    noopDir = await gradeBatch("noop", () => NOOP_DIFF);
  });

  it("a clear promote: six gains, no regression (exact McNemar p = 0.031), reports written and signed", async () => {
    const g = await gate(goldDir, noopDir);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toMatch(/^gate: PROMOTE: exact McNemar over 6 tasks: better than the incumbent/);
    const report = await g.report();
    expect(report.test).toMatchObject({
      method: "exact McNemar",
      tasks: 6,
      counts: { gains: 6, regressions: 0 },
    });
    expect(report.test!.pValue).toBeCloseTo(0.03125, 10);
    expect(report.attestation?.signatures).toHaveLength(1);
    const verified = await run(GATE, ["--verify", join(goldDir, "gate", "gate.json")]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^ok .*gate\.json: promote \(candidate results [0-9a-f]{12}/);
    const md = await readFile(join(goldDir, "gate", "gate.md"), "utf8");
    expect(md).toContain("# Gate: PROMOTE");
    const html = await readFile(join(goldDir, "gate", "gate.html"), "utf8");
    expect(html).toContain("<svg");
    // Every task's row links both results and both oracle logs.
    for (const task of report.tasks) {
      expect(task.candidate.samples[0]!.log).toBeTruthy();
      expect(task.incumbent.samples[0]!.log).toBeTruthy();
    }
  });

  it("a clear reject: the same batches the other way round, each regression linked to both logs", async () => {
    const g = await gate(noopDir, goldDir);
    expect(g.code, g.stderr).toBe(1);
    expect(g.stdout).toContain("gate: REJECT: exact McNemar over 6 tasks: not shown better");
    const md = await readFile(join(noopDir, "gate", "gate.md"), "utf8");
    expect(md).toContain("## Regressions");
    expect(md.match(/\[log\]\(/g)?.length).toBeGreaterThanOrEqual(12);
  });

  it("the tamper veto: one candidate diff forging the runner's results rejects the model, naming it", async () => {
    const tamperDir = await gradeBatch("tamper", (task) => (task === "calc-5" ? FORGE_MOCHA_DIFF : gold));
    const line = (await readFile(join(tamperDir, "results.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => ResultLineSchema.parse(JSON.parse(l)))
      .find((l) => l.task === "calc-5")!;
    expect(line.reason).toBe("REPORT_INCONSISTENT");
    const g = await gate(tamperDir, noopDir);
    expect(g.code, g.stderr).toBe(1);
    expect(g.stdout).toContain(
      "gate: REJECT: vetoed: 1 candidate verdict(s) mean tampering (REPORT_INCONSISTENT)",
    );
    expect(g.stdout).toContain(
      `veto: tamper-calc-5 (calc-5) REPORT_INCONSISTENT, diff ${line.diffSha256!.slice(0, 12)}`,
    );
  });

  it("injected infrastructure errors: every queue answer refused, INFRA_ERROR; the gate is inconclusive and says what to regrade", async () => {
    // A client of the queue's Redis that is not a worker: its unsigned answers are refused.
    const forger = new Worker("oracle-grade", async () => ({ line: null, result: null }), {
      connection: { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null },
    });
    await forger.waitUntilReady();
    let infraDir = "";
    try {
      infraDir = await gradeBatch("infra", () => gold, [
        "--queue",
        redis.url,
        "--no-cache",
        "--infra-retries",
        "0",
      ]);
    } finally {
      await forger.close();
    }
    const g = await gate(infraDir, noopDir);
    expect(
      g.code,
      `${g.stderr}\n${(await readFile(join(infraDir, "results.jsonl"), "utf8")).slice(0, 600)}`,
    ).toBe(3);
    expect(g.stdout).toContain(
      "gate: INCONCLUSIVE: infrastructure noise: candidate 6 of 6 samples INFRA_ERROR or TIMEOUT",
    );
    expect(g.stdout).toContain(
      `next: pnpm grade --batch ${join(temp.root, "infra.jsonl")} --out ${infraDir}-regraded --root ${temp.root}`,
    );
  });

  it("a task changed since the incumbent was graded: refused (exit 2), naming the regrade of the older batch", async () => {
    const file = join(temp.root, "tasks", "calc-0", "task.json");
    await writeFile(
      file,
      (await readFile(file, "utf8")).replace('"description": "', '"description": "Changed. '),
    );
    const newer = await gradeBatch("gold-changed", () => gold);
    const g = await gate(newer, noopDir);
    expect(g.code).toBe(2);
    expect(g.stderr).toContain("error BATCHES_DIFFER: the batches graded a task on different inputs");
    expect(g.stderr).toContain("calc-0: taskHash");
    expect(g.stderr).toContain(
      `hint: regrade the older batch (by batch.json) on today's tasks, images and grader: pnpm grade --batch ${join(temp.root, "noop.jsonl")} --out ${noopDir}-regraded --root ${temp.root}`,
    );
  });

  it("a deleted result leaves the batch incomplete by its signed manifest: inconclusive (exit 3)", async () => {
    const file = join(noopDir, "results.jsonl");
    const text = await readFile(file, "utf8");
    await writeFile(file, `${text.trim().split("\n").slice(1).join("\n")}\n`);
    try {
      const g = await gate(goldDir, noopDir);
      expect(g.code, g.stderr).toBe(3);
      expect(g.stdout).toContain(
        "gate: INCONCLUSIVE: the incumbent batch is incomplete: 1 prediction(s) have no result",
      );
    } finally {
      await writeFile(file, text);
    }
  });

  it("a user's mistakes: a batch gated against itself, --out naming a file, plan flags on a decision, a plan that cannot be", async () => {
    const self = await gate(goldDir, goldDir);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain("error USAGE: the candidate and the incumbent are the same batch");
    const out = await gate(goldDir, noopDir, ["--out", join(temp.root, "gold.jsonl")]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("error FILE_INVALID: --out");
    const planFlag = await gate(goldDir, noopDir, ["--effect", "0.1"]);
    expect(planFlag.code).toBe(2);
    expect(planFlag.stderr).toContain("--effect: only with --plan");
    const plan = await run(GATE, ["--plan", "--effect", "0"]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain("error USAGE: --effect must be above 0");
    const fromBatch = await run(GATE, ["--plan", "--incumbent", goldDir, "--simulations", "0"]);
    expect(fromBatch.code).toBe(2);
    expect(fromBatch.stderr).toContain("every sample passed");
  });

  it("an edited result is refused (exit 2, RESULT_UNVERIFIED)", async () => {
    const file = join(noopDir, "results.jsonl");
    const text = await readFile(file, "utf8");
    await writeFile(
      file,
      text.replace('"verdict":"FAIL","reason":"TESTS_FAILED"', '"verdict":"PASS","reason":"PASS"'),
    );
    try {
      const g = await gate(goldDir, noopDir);
      expect(g.code).toBe(2);
      expect(g.stderr).toContain("error RESULT_UNVERIFIED:");
    } finally {
      await writeFile(file, text);
    }
  });
});
