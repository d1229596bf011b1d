import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BatchFileSchema,
  BatchSummaryFileSchema,
  LegacyResultLineSchema,
  ResultCacheEntrySchema,
  ResultLineSchema,
} from "./batch.js";
import { FingerprintCacheSchema, LockfileCacheFileSchema } from "./caches.js";
import { ExpectedRecordSchema } from "./expected-record.js";
import { HealthFileSchema } from "./health.js";
import { LOG_EVENT_NAMES, LOG_EVENT_SCHEMAS, LogLineSchema, readLogEvent } from "./log-events.js";
import { PredictionLineSchema, SweBenchPredictionSchema, SweBenchReportSchema } from "./predictions.js";
import { QuarantineFileSchema } from "./quarantine.js";
import { GradeJobResultSchema, GradeJobSchema } from "./queue.js";
import { RegistryFileSchema, RegistryLockOwnerSchema } from "./registry.js";
import { GradeResultSchema } from "./result.js";
import { SweepReportSchema } from "./sweep-report.js";
import { TaskSchema } from "./task.js";

/** Every file the project writes or reads in a format of its own. */
const OWN: Record<string, z.ZodType> = {
  "tasks/<id>/task.json": TaskSchema,
  "images/registry.json": RegistryFileSchema,
  "images/.registry.lock.owner": RegistryLockOwnerSchema,
  "tasks/quarantine.json": QuarantineFileSchema,
  "tasks/health.json": HealthFileSchema,
  "tasks/<id>/expected-tests.recorded.json": ExpectedRecordSchema,
  "grade --result (the grade result)": GradeResultSchema,
  "the oracle log's lines": LogLineSchema,
  ...Object.fromEntries(
    LOG_EVENT_NAMES.map((name) => [`the oracle log's ${name} event`, LOG_EVENT_SCHEMAS[name]]),
  ),
  "a predictions line": PredictionLineSchema,
  "<out>/results.jsonl": ResultLineSchema,
  "<out>/summary.json": BatchSummaryFileSchema,
  "<out>/batch.json": BatchFileSchema,
  ".oracle/cache/results/": ResultCacheEntrySchema,
  ".oracle/grader-fingerprints.json": FingerprintCacheSchema,
  ".oracle/lockfile-fingerprints.json": LockfileCacheFileSchema,
  "a queue job": GradeJobSchema,
  "a queue worker's answer": GradeJobResultSchema,
  "the sweep's report.json": SweepReportSchema,
};

/** SWE-bench's formats keep SWE-bench's names. */
const EXTERNAL: Record<string, z.ZodType> = {
  "a SWE-bench prediction": SweBenchPredictionSchema,
  "<out>/swebench-report.json": SweBenchReportSchema,
};

/** Every field name a JSON Schema fixes (records' keys are data, not names). */
function fieldNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) fieldNames(item, into);
  else if (typeof schema === "object" && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "properties" && typeof value === "object" && value !== null)
        for (const name of Object.keys(value)) into.add(name);
      fieldNames(value, into);
    }
  }
  return into;
}

const names = (schema: z.ZodType) => [...fieldNames(z.toJSONSchema(schema, { unrepresentable: "any" }))];

describe("the project's own formats", () => {
  it.each(Object.entries(OWN))("%s names its fields in camelCase", (_, schema) => {
    const wrong = names(schema).filter((name) => name !== "$schema" && !/^[a-z][A-Za-z0-9]*$/.test(name));
    expect(wrong).toEqual([]);
  });

  it.each(Object.entries(EXTERNAL))("%s keeps SWE-bench's snake_case names", (_, schema) => {
    expect(names(schema).filter((name) => !/^[a-z][a-z0-9_]*$/.test(name))).toEqual([]);
    expect(names(schema).some((name) => name.includes("_"))).toBe(true);
  });
});

describe("a results.jsonl line", () => {
  const ran = {
    id: "p1",
    task: "t",
    outcome: "graded",
    verdict: "FAIL",
    reason: "TESTS_FAILED",
    error: null,
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
  const refused = { ...ran, outcome: "quarantined", verdict: null, reason: null, error: "TASK_QUARANTINED" };

  it("carries a run's reason, or the error that stopped the prediction before a run", () => {
    expect(ResultLineSchema.parse(ran).reason).toBe("TESTS_FAILED");
    expect(ResultLineSchema.parse(refused).error).toBe("TASK_QUARANTINED");
  });

  it.each([
    ["both", { ...ran, error: "INFRA_ERROR" }],
    ["neither", { ...refused, error: null }],
    ["a verdict without a reason", { ...refused, verdict: "FAIL" }],
    ["an error code as the reason", { ...ran, reason: "TASK_QUARANTINED" }],
    ["a reason code as the error", { ...refused, error: "TESTS_FAILED" }],
  ])("refuses %s", (_, line) => {
    expect(ResultLineSchema.safeParse(line).success).toBe(false);
  });

  it("an older grader's line (snake_case, reason or error in one field) is recognised, never read as a line", () => {
    const old = {
      ...ran,
      reason: "TASK_QUARANTINED",
      tests_hash: null,
      diff_sha256: null,
      image_digest: null,
    };
    delete (old as Record<string, unknown>).testsHash;
    expect(ResultLineSchema.safeParse(old).success).toBe(false);
    expect(LegacyResultLineSchema.safeParse(old).success).toBe(true);
  });
});

describe("readLogEvent", () => {
  const line = (fields: Record<string, unknown>) =>
    LogLineSchema.parse({ level: "debug", message: "m", ...fields });

  it("ties an event's name to its fields, lets older logs miss fields, and tells a line of the account apart", () => {
    expect(readLogEvent(line({ step: "step", name: "create.hidden", ms: 3 }))).toMatchObject({
      name: "step",
      data: { name: "create.hidden", ms: 3 },
    });
    expect(readLogEvent(line({ step: "sentinel", framework: "pytest", path: "old.py" }))).toMatchObject({
      name: "sentinel",
      data: { framework: "pytest", path: "old.py" },
    });
    expect(readLogEvent(line({ suite: "hidden", tests: [] }))).toBeNull();
  });

  it("says a line naming an event whose fields have other types is invalid", () => {
    expect(readLogEvent(line({ step: "step", name: "x", ms: "slow" }))).toBe("invalid");
    expect(readLogEvent(line({ step: "verdict", reason: "TASK_QUARANTINED" }))).toBe("invalid");
  });
});
