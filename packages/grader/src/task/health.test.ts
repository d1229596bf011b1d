import { generateKeyPairSync } from "node:crypto";
import type { HealthRecord } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { healthRecordDoubt, signHealthRecord } from "../attest/health.js";
import { keyIdOf, type SigningKey, trustList } from "../attest/keys.js";
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

describe("a health record signed by the sweep", () => {
  const keyOf = (): SigningKey => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    return { privateKey, key: publicKey, keyid: keyIdOf(publicKey), file: "(test)" };
  };
  const own = keyOf();
  const trusted = trustList(own);
  const signed = signHealthRecord("t", record, own);

  it("verifies as the sweep wrote it, and the task is current", () => {
    expect(healthRecordDoubt("t", signed, trusted)).toBeNull();
    expect(validationOf(signed, today, healthRecordDoubt("t", signed, trusted)).state).toBe("current");
  });

  it("does not verify edited, unsigned, another task's, or signed by another key: the task is stale", () => {
    const cases: Array<[HealthRecord, string, RegExp]> = [
      [{ ...signed, taskHash: "b".repeat(64) }, "t", /changed after signing/],
      [{ ...signed, outcome: "quarantined" }, "t", /changed after signing/],
      [{ ...signed, checkedAt: "2026-12-02T00:00:00.000Z" }, "t", /changed after signing/],
      [record, "t", /not signed/],
      [signed, "u", /another task's/],
      [signHealthRecord("t", record, keyOf()), "t", /not in the trust list/],
    ];
    for (const [candidate, task, why] of cases) {
      const doubt = healthRecordDoubt(task, candidate, trusted);
      expect(doubt).toMatch(why);
      const validation = validationOf(candidate, { ...today, taskHash: candidate.taskHash }, doubt);
      expect(validation.state).toBe("stale");
      expect(validation.changed).toEqual([`its record in tasks/health.json does not verify (${doubt})`]);
    }
  });
});
