// `oracle-gate` end to end (issue 32): two "models" graded for real on eight copies of calc-node, then
// gated. Each model's predictions file is mixed per task: gold diffs for some tasks, empty or wrong
// diffs for others. A clear promote (the candidate passes 7 of 8, the incumbent 1 of 8: six gains, no
// regression) and the reverse reject; the tamper veto (the candidate's wrong diff on one task swapped
// for test/hostile's in-process mocha patch: REPORT_INCONSISTENT); an inconclusive gate from injected
// infrastructure errors (every answer of the candidate's queue comes from a client that is not a
// worker, so the batch refuses each: INFRA_ERROR); and a refusal when a task changed between the
// batches (BATCHES_DIFFER, naming the regrade of the older batch). Identical inputs reuse an earlier
// batch's result (the grade cache), so each batch after the first two grades only what is new.
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { GateReportSchema, ResultLineSchema } from "@oracle/spec";
import { binPath, makeTempRoot, requireDocker, run } from "@oracle/test-utils";
import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOOP_DIFF, TestRedis } from "./fixtures/batch/harness.js";
import { JS_PATCH_RUNNER_ESM, plantAtTop } from "./hostile/cases.js";

const GRADE = binPath("oracle-grade");
const GATE = binPath("oracle-gate");
/**
 * Eight tasks: the exact McNemar test is two-sided, so even discordant pairs all in the candidate's
 * favour reach p < 0.05 only from six on (5: p = 0.0625; 6: 0.031). Each model also passes a task
 * with gold and fails one with a wrong diff: six gains, one task both pass, one both fail.
 */
const TASKS = Array.from({ length: 8 }, (_, i) => `calc-${i}`);

/**
 * A wrong fix: `expression` made left-associative as gold does, `term` left as it was, so 10 - 4 - 3
 * is 3 but 100 / 10 / 5 is still 50 (TESTS_FAILED).
 */
const HALF_FIX_DIFF = `diff --git a/src/parse.js b/src/parse.js
--- a/src/parse.js
+++ b/src/parse.js
@@ -16,12 +16,12 @@ export function parse(source) {
   const isOp = (token, ops) => token !== undefined && token.type === "op" && ops.includes(token.value);
 
   function expression() {
-    const left = term();
-    const token = peek();
-    if (isOp(token, "+-")) {
+    let left = term();
+    while (isOp(peek(), "+-")) {
+      const token = tokens[index];
       index += 1;
-      return { type: "binary", op: token.value, left, right: expression() };
+      left = { type: "binary", op: token.value, left, right: term() };
     }
     return left;
   }
 
`;

let temp: { root: string; cleanup: () => Promise<void> };
let redis: TestRedis;
let gold = "";
let tamper = "";

/** The candidate model: gold on calc-0 to calc-6, the wrong half fix on calc-7. */
const candidateDiff = (task: string): string => (task === "calc-7" ? HALF_FIX_DIFF : gold);
/** The incumbent model: gold on calc-0 only, empty diffs on calc-1 to calc-3, a note file after. */
const incumbentDiff = (task: string): string =>
  task === "calc-0" ? gold : ["calc-1", "calc-2", "calc-3"].includes(task) ? "" : NOOP_DIFF;

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
  // test/hostile's in-process mocha patch, planted above calc-node's src/parse.js at the base commit.
  const clone = join(temp.root, "calc-clone");
  const task = JSON.parse(await readFile(join(temp.root, "tasks", "calc-0", "task.json"), "utf8"));
  await run("git", ["clone", "-q", join(temp.root, "tasks", "calc-0", "repo.bundle"), clone]);
  const parseJs = await run("git", ["-C", clone, "show", `${task.repo.baseCommit}:src/parse.js`]);
  if (parseJs.code !== 0) throw new Error(`git show src/parse.js failed:\n${parseJs.stderr}`);
  tamper = plantAtTop("src/parse.js", parseJs.stdout, JS_PATCH_RUNNER_ESM);
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
  tasks: readonly string[] = TASKS,
): Promise<string> {
  const file = join(temp.root, `${name}.jsonl`);
  const lines = tasks.map((task) => JSON.stringify({ id: `${name}-${task}`, task, diff: diffFor(task) }));
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
  let candidateDir = "";
  let incumbentDir = "";

  beforeAll(async () => {
    candidateDir = await gradeBatch("candidate", candidateDiff);
    incumbentDir = await gradeBatch("incumbent", incumbentDiff);
  });

  it("a clear promote: six gains, no regression (exact McNemar p = 0.031), reports written and signed", async () => {
    const reasons = async (dir: string) =>
      (await readFile(join(dir, "results.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map((l) => ResultLineSchema.parse(JSON.parse(l)))
        .sort((a, b) => (a.task < b.task ? -1 : 1))
        .map((l) => l.reason);
    // Each model mixed per task, as graded (gold PASS, the others FAIL).
    expect(await reasons(candidateDir)).toEqual([...Array(7).fill("PASS"), "TESTS_FAILED"]);
    expect(await reasons(incumbentDir)).toEqual([
      "PASS",
      ...Array(3).fill("DIFF_EMPTY_AFTER_FILTER"),
      ...Array(4).fill("TESTS_FAILED"),
    ]);
    const g = await gate(candidateDir, incumbentDir);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout).toMatch(/^gate: PROMOTE: exact McNemar over 8 tasks: better than the incumbent/);
    expect(g.stdout).toContain("candidate 87.5% (7 of 8), incumbent 12.5% (1 of 8)");
    const report = await g.report();
    expect(report.test).toMatchObject({
      method: "exact McNemar",
      tasks: 8,
      counts: { gains: 6, regressions: 0, bothPass: 1, bothFail: 1 },
    });
    expect(report.test!.pValue).toBeCloseTo(0.03125, 10);
    expect(report.tasks.map((t) => `${t.task} ${t.outcome}`)).toEqual([
      "calc-0 both pass",
      ...["calc-1", "calc-2", "calc-3", "calc-4", "calc-5", "calc-6"].map((t) => `${t} gain`),
      "calc-7 both fail",
    ]);
    expect(report.attestation?.signatures).toHaveLength(1);
    const verified = await run(GATE, ["--verify", join(candidateDir, "gate", "gate.json")]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^ok .*gate\.json: promote \(candidate results [0-9a-f]{12}/);
    const md = await readFile(join(candidateDir, "gate", "gate.md"), "utf8");
    expect(md).toContain("# Gate: PROMOTE");
    const html = await readFile(join(candidateDir, "gate", "gate.html"), "utf8");
    expect(html).toContain("<svg");
    // Every task's row links both results and both oracle logs (an empty diff runs nothing: no log).
    for (const task of report.tasks) {
      expect(task.candidate.samples[0]!.log).toBeTruthy();
      if (task.incumbent.samples[0]!.reason !== "DIFF_EMPTY_AFTER_FILTER")
        expect(task.incumbent.samples[0]!.log).toBeTruthy();
    }
  });

  it("a clear reject: the same batches the other way round, each regression linked to both logs", async () => {
    const g = await gate(incumbentDir, candidateDir);
    expect(g.code, g.stderr).toBe(1);
    expect(g.stdout).toContain("gate: REJECT: exact McNemar over 8 tasks: not shown better");
    expect((await g.report()).test?.counts).toMatchObject({ gains: 0, regressions: 6 });
    const md = await readFile(join(incumbentDir, "gate", "gate.md"), "utf8");
    expect(md).toContain("## Regressions");
    expect(md.match(/\[log\]\(/g)?.length).toBeGreaterThanOrEqual(9);
  });

  it("the tamper veto: test/hostile's mocha patch as the candidate's diff on one task rejects the model, naming it", async () => {
    const tamperDir = await gradeBatch("tamper", (task) =>
      task === "calc-7" ? tamper : candidateDiff(task),
    );
    const line = (await readFile(join(tamperDir, "results.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => ResultLineSchema.parse(JSON.parse(l)))
      .find((l) => l.task === "calc-7")!;
    expect(line.reason).toBe("REPORT_INCONSISTENT");
    const sha = createHash("sha256").update(tamper).digest("hex");
    expect(line.diffSha256).toBe(sha);
    const g = await gate(tamperDir, incumbentDir);
    expect(g.code, g.stderr).toBe(1);
    expect(g.stdout).toContain(
      "gate: REJECT: vetoed: 1 candidate verdict(s) mean tampering (REPORT_INCONSISTENT)",
    );
    expect(g.stdout).toContain(`veto: tamper-calc-7 (calc-7) REPORT_INCONSISTENT, diff ${sha.slice(0, 12)}`);
    expect((await g.report()).veto).toEqual([
      expect.objectContaining({
        id: "tamper-calc-7",
        task: "calc-7",
        reason: "REPORT_INCONSISTENT",
        diffSha256: sha,
      }),
    ]);
  });

  it("injected infrastructure errors: every queue answer refused, INFRA_ERROR; the gate is inconclusive and says what to regrade", async () => {
    // A client of the queue's Redis that is not a worker: its unsigned answers are refused.
    const forger = new Worker("oracle-grade", async () => ({ line: null, result: null }), {
      connection: { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null },
    });
    await forger.waitUntilReady();
    let infraDir = "";
    try {
      infraDir = await gradeBatch("infra", candidateDiff, [
        "--queue",
        redis.url,
        "--no-cache",
        "--infra-retries",
        "0",
      ]);
    } finally {
      await forger.close();
    }
    const g = await gate(infraDir, incumbentDir);
    expect(
      g.code,
      `${g.stderr}\n${(await readFile(join(infraDir, "results.jsonl"), "utf8")).slice(0, 600)}`,
    ).toBe(3);
    expect(g.stdout).toContain(
      "gate: INCONCLUSIVE: infrastructure noise: candidate 8 of 8 samples INFRA_ERROR or TIMEOUT",
    );
    expect(g.stdout).toContain(
      `next: pnpm grade --batch ${join(temp.root, "infra.jsonl")} --out ${infraDir}-regraded --root ${temp.root}`,
    );
  });

  it("a task changed since the incumbent was graded: refused (exit 2), naming the regrade of the older batch", async () => {
    const file = join(temp.root, "tasks", "calc-0", "task.json");
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace('"description": "', '"description": "Changed. '));
    try {
      const newer = await gradeBatch("candidate-changed", candidateDiff);
      const g = await gate(newer, incumbentDir);
      expect(g.code).toBe(2);
      expect(g.stderr).toContain("error BATCHES_DIFFER: the batches graded a task on different inputs");
      expect(g.stderr).toContain("calc-0: taskHash");
      expect(g.stderr).toContain(
        `hint: regrade the older batch (by batch.json) on today's tasks, images and grader: pnpm grade --batch ${join(temp.root, "incumbent.jsonl")} --out ${incumbentDir}-regraded --root ${temp.root}`,
      );
    } finally {
      await writeFile(file, text);
    }
  });

  it("a deleted result leaves the batch incomplete by its signed manifest: inconclusive (exit 3)", async () => {
    const file = join(incumbentDir, "results.jsonl");
    const text = await readFile(file, "utf8");
    await writeFile(file, `${text.trim().split("\n").slice(1).join("\n")}\n`);
    try {
      const g = await gate(candidateDir, incumbentDir);
      expect(g.code, g.stderr).toBe(3);
      expect(g.stdout).toContain(
        "gate: INCONCLUSIVE: the incumbent batch is incomplete: 1 prediction(s) have no result",
      );
    } finally {
      await writeFile(file, text);
    }
  });

  it("a user's mistakes: a batch gated against itself, --out naming a file, plan flags on a decision, a plan that cannot be", async () => {
    const self = await gate(candidateDir, candidateDir);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain("error USAGE: the candidate and the incumbent are the same batch");
    const out = await gate(candidateDir, incumbentDir, ["--out", join(temp.root, "candidate.jsonl")]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("error FILE_INVALID: --out");
    const planFlag = await gate(candidateDir, incumbentDir, ["--effect", "0.1"]);
    expect(planFlag.code).toBe(2);
    expect(planFlag.stderr).toContain("--effect: only with --plan");
    const plan = await run(GATE, ["--plan", "--effect", "0"]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain("error USAGE: --effect must be above 0");
    // The candidate's gold predictions alone (each a cached result): every sample passed.
    const allPass = await gradeBatch("all-pass", () => gold, [], TASKS.slice(0, 7));
    const fromBatch = await run(GATE, ["--plan", "--incumbent", allPass, "--simulations", "0"]);
    expect(fromBatch.code).toBe(2);
    expect(fromBatch.stderr).toContain("every sample passed");
  });

  it("an edited result is refused (exit 2, RESULT_UNVERIFIED)", async () => {
    const file = join(incumbentDir, "results.jsonl");
    const text = await readFile(file, "utf8");
    const edited = text.replace(
      '"verdict":"FAIL","reason":"TESTS_FAILED"',
      '"verdict":"PASS","reason":"PASS"',
    );
    expect(edited).not.toBe(text);
    await writeFile(file, edited);
    try {
      const g = await gate(candidateDir, incumbentDir);
      expect(g.code).toBe(2);
      expect(g.stderr).toContain("error RESULT_UNVERIFIED:");
    } finally {
      await writeFile(file, text);
    }
  });
});
