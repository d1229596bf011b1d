import type { HealthRecord } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { type TaskInputs, validationLine, validationOf } from "./health.js";

const today: TaskInputs = {
  taskHash: "a".repeat(64),
  image: "python-pytest",
  imageDigest: "sha256:1111111111111111",
  graderVersion: "1.0.0",
};
const record: HealthRecord = { ...today, checkedAt: "2026-12-01T00:00:00.000Z", outcome: "healthy" };

describe("validationOf", () => {
  it("is never without a record, current when every input matches", () => {
    expect(validationOf(undefined, today)).toEqual({ state: "never", changed: [] });
    expect(validationOf(record, today)).toEqual({ state: "current", changed: [] });
  });

  it("is stale and says which input changed", () => {
    const rebuilt = validationOf(record, { ...today, imageDigest: "sha256:2222222222222222" });
    expect(rebuilt.state).toBe("stale");
    expect(rebuilt.changed).toEqual(["image digest sha256:111111111111… -> sha256:222222222222…"]);
    const edited = validationOf(record, { ...today, taskHash: "b".repeat(64), graderVersion: "1.1.0" });
    expect(edited.changed).toEqual([`task content aaaaaaaaaaaa… -> bbbbbbbbbbbb…`, "grader 1.0.0 -> 1.1.0"]);
  });

  it("is stale when the image has no current build, even if the record had none either", () => {
    const none = { ...today, imageDigest: null };
    expect(validationOf({ ...record, imageDigest: null }, none).state).toBe("stale");
  });

  it("says nothing of a current task, and the command to validate one that is not", () => {
    expect(validationLine("t", { state: "current", changed: [] })).toBeNull();
    expect(validationLine("t", { state: "never", changed: [] })).toMatch(/quarantine-sweep --changed/);
  });
});
