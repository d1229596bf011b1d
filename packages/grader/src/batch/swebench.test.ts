import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ResultLine, SweBenchReportSchema } from "@oracle/spec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeGrade, tempRootWithTasks } from "../prediction/testing.js";
import { localExecutor } from "./executor.js";
import { gradeBatch } from "./grade-batch.js";
import { type Prediction, readPredictions } from "./predictions.js";
import { sweBenchReport } from "./swebench-report.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "oracle-swebench-test-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function predictionsFile(lines: unknown[]): Promise<string> {
  const file = join(dir, "preds.jsonl");
  await writeFile(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
  return file;
}

describe("SWE-bench predictions", () => {
  it("reads instance_id as the id and the task, model_patch as the diff, beside the oracle's own lines", async () => {
    const file = await predictionsFile([
      { instance_id: "calc-node", model_name_or_path: "m", model_patch: "fix", full_output: "ignored" },
      { instance_id: "other", model_name_or_path: "m", model_patch: null },
      { id: "own", task: "calc-node", diff: "x" },
    ]);
    expect(await readPredictions(file)).toEqual([
      { id: "calc-node", task: "calc-node", line: 1, diff: { text: "fix" } },
      { id: "other", task: "other", line: 2, diff: { text: "" } },
      { id: "own", task: "calc-node", line: 3, diff: { text: "x" } },
    ]);
  });

  it("names the line and field of a bad SWE-bench line, and an instance given twice", async () => {
    const file = await predictionsFile([
      { instance_id: "a", model_name_or_path: "m" },
      { instance_id: "", model_patch: "" },
      { instance_id: 3, model_patch: "" },
      { instance_id: "b", model_patch: "x" },
      { instance_id: "b", model_patch: "y" },
    ]);
    const error = (await readPredictions(file, "p.jsonl").catch((e: unknown) => e)) as Error & {
      code: string;
    };
    expect(error.code).toBe("FILE_INVALID");
    const message = error.message.split("\n");
    expect(message[0]).toMatch(/^p\.jsonl:1: model_patch: /);
    expect(message[1]).toMatch(/^p\.jsonl:2: instance_id: may not be empty/);
    expect(message[2]).toMatch(/^p\.jsonl:3: instance_id: /);
    expect(message).toContain("p.jsonl:5: id: 'b' already used on line 4");
  });
});

const prediction = (id: string, text: string): Prediction => ({ id, task: id, line: 1, diff: { text } });
function resultLine(id: string, outcome: ResultLine["outcome"], verdict: ResultLine["verdict"]): ResultLine {
  const code = outcome === "infra_error" ? "INFRA_ERROR" : "TASK_NOT_FOUND";
  return {
    id,
    task: id,
    outcome,
    verdict,
    reason: verdict === null ? null : verdict === "PASS" ? "PASS" : "TESTS_FAILED",
    error: verdict === null ? code : null,
    message: "",
    testsHash: null,
    log: null,
    seconds: 1,
    cached: false,
    attempts: 1,
    diffSha256: null,
    imageDigest: null,
    worker: null,
  };
}

describe("sweBenchReport", () => {
  it("sorts each prediction into SWE-bench's sets and counts them", () => {
    const predictions = [
      prediction("resolved", "d"),
      prediction("unresolved", "d"),
      prediction("empty", " \n"),
      prediction("infra", "d"),
      prediction("unknown-task", "d"),
      prediction("not-reached", "d"),
      { id: "by-path", task: "t", line: 1, diff: { path: "/x.diff" } },
    ];
    const lines = [
      resultLine("resolved", "graded", "PASS"),
      resultLine("unresolved", "graded", "FAIL"),
      resultLine("empty", "graded", "FAIL"),
      resultLine("infra", "infra_error", null),
      resultLine("unknown-task", "error", null),
      resultLine("by-path", "graded", "PASS"),
    ];
    expect(sweBenchReport(predictions, lines)).toEqual({
      total_instances: 7,
      submitted_instances: 7,
      completed_instances: 3,
      resolved_instances: 2,
      unresolved_instances: 1,
      empty_patch_instances: 1,
      error_instances: 2,
      completed_ids: ["by-path", "resolved", "unresolved"],
      incomplete_ids: ["empty", "infra", "not-reached", "unknown-task"],
      empty_patch_ids: ["empty"],
      submitted_ids: ["by-path", "empty", "infra", "not-reached", "resolved", "unknown-task", "unresolved"],
      resolved_ids: ["by-path", "resolved"],
      unresolved_ids: ["unresolved"],
      error_ids: ["infra", "unknown-task"],
      schema_version: 2,
    });
  });
});

describe("gradeBatch writes swebench-report.json beside results.jsonl", () => {
  it("from SWE-bench predictions", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const file = await predictionsFile([
        { instance_id: "calc-node", model_name_or_path: "m", model_patch: "fix" },
      ]);
      const executor = localExecutor({ root: temp.root, grade: fakeGrade(), concurrency: 1 });
      const out = join(dir, "out");
      const outcome = await gradeBatch({ root: temp.root, predictionsFile: file, outDir: out, executor });
      expect(outcome.sweBenchReportFile).toBe(join(out, "swebench-report.json"));
      const report = SweBenchReportSchema.parse(
        JSON.parse(await readFile(outcome.sweBenchReportFile, "utf8")),
      );
      expect(report).toMatchObject({ resolved_ids: ["calc-node"], resolved_instances: 1, error_ids: [] });
    } finally {
      await temp.cleanup();
    }
  });
});
