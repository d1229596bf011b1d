// `oracle-grade --batch` on SWE-bench's predictions format, against the real engine: the gold diff of
// a sample task is resolved, an unknown instance is an error, an empty patch is counted as one, and
// the report beside results.jsonl has SWE-bench's shape.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ResultLineSchema, SweBenchReportSchema } from "@oracle/spec";
import { binPath, makeTempRoot, repoRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let temp: { root: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ "tasks/freebusy-py": "tasks/freebusy-py", images: "images" });
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "--only", "python-pytest"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
});

afterAll(async () => {
  await temp?.cleanup();
});

describe("grade --batch with SWE-bench predictions", () => {
  it("writes swebench-report.json with resolved, unresolved and empty-patch ids", async () => {
    const gold = await readFile(join(repoRoot, "tasks/freebusy-py/gold.diff"), "utf8");
    const rows = [
      { instance_id: "freebusy-py", model_name_or_path: "gold", model_patch: gold },
      { instance_id: "no-such-instance", model_name_or_path: "gold", model_patch: gold },
      { instance_id: "empty-one", model_name_or_path: "gold", model_patch: "" },
    ];
    const file = join(temp.root, "preds.jsonl");
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join("\n"));
    const out = join(temp.root, "out");
    const batch = await run(binPath("oracle-grade"), ["--root", temp.root, "--batch", file, "--out", out], {
      timeoutMs: 300_000,
    });
    expect(batch.stderr).toContain(`SWE-bench report: ${join(out, "swebench-report.json")}`);
    const report = SweBenchReportSchema.parse(
      JSON.parse(await readFile(join(out, "swebench-report.json"), "utf8")),
    );
    expect(report).toEqual({
      total_instances: 3,
      submitted_instances: 3,
      completed_instances: 1,
      resolved_instances: 1,
      unresolved_instances: 0,
      empty_patch_instances: 1,
      error_instances: 1,
      completed_ids: ["freebusy-py"],
      incomplete_ids: ["empty-one", "no-such-instance"],
      empty_patch_ids: ["empty-one"],
      submitted_ids: ["empty-one", "freebusy-py", "no-such-instance"],
      resolved_ids: ["freebusy-py"],
      unresolved_ids: [],
      error_ids: ["no-such-instance"],
      schema_version: 2,
    });
    const results = (await readFile(join(out, "results.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => ResultLineSchema.parse(JSON.parse(l)));
    expect(results.find((r) => r.id === "freebusy-py")).toMatchObject({ verdict: "PASS", reason: "PASS" });
    expect(results.find((r) => r.id === "no-such-instance")).toMatchObject({
      verdict: null,
      reason: null,
      error: "TASK_NOT_FOUND",
    });
  });
});
