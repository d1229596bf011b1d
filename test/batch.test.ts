// `oracle-grade --batch` end to end, the parts that are not about the queue: a bad predictions file
// stops the batch before anything runs (exit 2, every problem with its line number); Ctrl-C stops the
// running grade, removes its container and keeps the results so far; a rerun with the same --out
// resumes and grades only what is missing, regrading a line whose diff or task changed since.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Dockerode, LABEL, labelFilter } from "@oracle/engine";
import { BatchSummaryFileSchema, ResultLineSchema } from "@oracle/spec";
import {
  binPath,
  containersWithLabel,
  freezeWhen,
  makeTempRoot,
  requireDocker,
  run,
} from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, NOOP_DIFF, readLog, startProcess } from "./fixtures/batch/harness.js";

const GRADE = binPath("oracle-grade");
const CA = "/etc/ssl/certs/ca-certificates.crt";

let docker: Dockerode;
let temp: { root: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  docker = await requireDocker();
  temp = await makeTempRoot({ tasks: "tasks", images: "images" });
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", CA, "--only", "node-mocha"],
    {
      timeoutMs: 1_800_000,
    },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
});

afterAll(async () => {
  await temp?.cleanup();
});

const resultIds = async (out: string) =>
  (await readFile(join(out, "results.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { id: string }).id);

describe("oracle-grade --batch", () => {
  it("refuses a bad predictions file before grading anything, naming every bad line", async () => {
    const file = join(temp.root, "bad.jsonl");
    const lines = [
      JSON.stringify({ id: "a", task: "calc-node", diff: "" }),
      "{oops",
      JSON.stringify({ id: "a", task: "calc-node", diff: "" }),
      JSON.stringify({ id: "b", task: "calc-node" }),
    ];
    await writeFile(file, `${lines.join("\n")}\n`);
    const out = join(temp.root, "out-bad");
    const result = await run(GRADE, ["--batch", file, "--out", out, "--root", temp.root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error FILE_INVALID:");
    expect(result.stderr).toContain(":2: not valid JSON");
    expect(result.stderr).toContain(":3: id: 'a' already used on line 1");
    expect(result.stderr).toContain(':4: diff: give exactly one of "diff" (the diff text) or "diffPath"');
  });

  it("stops on Ctrl-C leaving no container, keeps the results so far, and resumes with the same --out", async () => {
    const gold = await readFile(join(temp.root, "tasks", "calc-node", "gold.diff"), "utf8");
    const preds = [
      { id: "quick", task: "calc-node", diff: "" },
      { id: "g1", task: "calc-node", diff: gold },
      { id: "n1", task: "calc-node", diff: NOOP_DIFF },
    ];
    const file = join(temp.root, "resume.jsonl");
    await writeFile(file, `${preds.map((p) => JSON.stringify(p)).join("\n")}\n`);
    const out = join(temp.root, "out-resume");
    const log = join(temp.root, "resume.log");
    const args = ["--batch", file, "--out", out, "--root", temp.root, "--concurrency", "1", "--no-cache"];
    const batch = startProcess(GRADE, args, log);
    const label = labelFilter(LABEL.pid, batch.pid!);
    // Frozen while a grade's container exists, so that the Ctrl-C lands mid-grade on any machine.
    await freezeWhen(batch.pid!, async () => (await containersWithLabel(label, docker)).length > 0, {
      what: "a container of the batch",
      timeoutMs: 120_000,
      detail: () => readLog(log),
    });
    batch.kill("SIGINT");
    batch.kill("SIGCONT");
    expect(await exited(batch)).toBe(130);
    expect(await containersWithLabel(label, docker)).toEqual([]);
    expect(readLog(log)).toContain("interrupted: results so far are kept");
    const kept = await resultIds(out);
    expect(kept).toContain("quick");
    expect(kept.length).toBeLessThan(3);
    const summary = BatchSummaryFileSchema.parse(
      JSON.parse(await readFile(join(out, "summary.json"), "utf8")),
    );
    expect(summary.missing).toBe(3 - kept.length);

    const again = await run(GRADE, args, { env: { CI: "1" } });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`${3 - kept.length} to grade, ${kept.length} already done (resumed)`);
    const all = await resultIds(out);
    expect(all.slice(0, kept.length)).toEqual(kept);
    expect([...all].sort()).toEqual(["g1", "n1", "quick"]);
    // The temp root's calc-node was never swept: its predictions are graded, and listed apart from the rate.
    expect(again.stderr).toContain("pass rate n/a: 0 PASS / 0 graded (0 FAIL)");
    expect(again.stderr).toContain("on tasks not validated, not counted: 3");
    // The batch was given --root: the printed command names it, so it works when copied.
    expect(again.stderr).toContain(
      `tasks: calc-node (never); validate them with: pnpm quarantine-sweep --root ${temp.root} --changed`,
    );
    const counted = await run(GRADE, [...args, "--allow-unvalidated"], { env: { CI: "1" } });
    expect(counted.stderr).toContain("pass rate 33.3%: 1 PASS / 3 graded (2 FAIL)");
    expect(counted.stderr).toContain("on tasks not validated, counted (--allow-unvalidated): 3");
  });
  it("reuses a recorded line only for the inputs it was graded on: a changed diff or hidden test is graded again", async () => {
    const gold = await readFile(join(temp.root, "tasks", "calc-node", "gold.diff"), "utf8");
    const file = join(temp.root, "keyed.jsonl");
    const out = join(temp.root, "out-keyed");
    const args = ["--batch", file, "--out", out, "--root", temp.root, "--concurrency", "1"];
    const grade = async (diff: string) => {
      await writeFile(file, `${JSON.stringify({ id: "p1", task: "calc-node", diff })}\n`);
      const result = await run(GRADE, args, { env: { CI: "1" } });
      const lines = (await readFile(join(out, "results.jsonl"), "utf8")).trim().split("\n");
      expect(lines).toHaveLength(1);
      return { ...result, line: ResultLineSchema.parse(JSON.parse(lines[0]!)) };
    };
    const first = await grade(gold);
    expect(first.line).toMatchObject({
      verdict: "PASS",
      taskHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      validation: "never",
    });
    // The same id and --out with the diff corrected to an empty one: graded again, not resumed.
    const emptied = await grade("");
    expect(emptied.stderr).toContain("1 regraded: diff changed 1");
    expect(emptied.line).toMatchObject({ verdict: "FAIL" });
    const back = await grade(gold);
    expect(back.line).toMatchObject({ verdict: "PASS" });
    // A hidden test made to fail in the task folder turns the recorded PASS into a FAIL.
    const hidden = join(
      temp.root,
      "tasks",
      "calc-node",
      "hidden-tests",
      "test",
      "regression",
      "associativity.test.js",
    );
    const original = await readFile(hidden, "utf8");
    await writeFile(hidden, `${original}\nit("fails now", () => { throw new Error("made to fail"); });\n`);
    try {
      const changed = await grade(gold);
      expect(changed.stderr).toContain("1 regraded: task changed 1");
      expect(changed.line).toMatchObject({ verdict: "FAIL", reason: "TESTS_FAILED" });
    } finally {
      await writeFile(hidden, original);
    }
  });
});
