import type { ImageRecord } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { decideRebuild, describeReason } from "./decision.js";
import type { ImageFingerprint } from "./fingerprint.js";

const h = (c: string) => c.repeat(64);
const current: ImageFingerprint = {
  fingerprint: h("a"),
  dockerfileHash: h("d"),
  lockfiles: { "package-lock.json": h("1") },
  files: { Dockerfile: h("d"), "package-lock.json": h("1"), "package.json": h("2") },
};
const record: ImageRecord = {
  reference: `127.0.0.1:5000/oracle/x@sha256:${h("9")}`,
  digest: `sha256:${h("9")}`,
  imageId: `sha256:${h("8")}`,
  pushed: true,
  fingerprint: h("a"),
  dockerfileHash: h("d"),
  lockfiles: { "package-lock.json": h("1") },
  files: { Dockerfile: h("d"), "package-lock.json": h("1"), "package.json": h("2") },
  builtAt: "2026-01-01T00:00:00.000Z",
  durationMs: 1,
  history: [],
};
const exists = async () => true;
const gone = async () => false;

describe("decideRebuild", () => {
  it("skips an image whose fingerprint matches and whose image exists", async () => {
    expect(await decideRebuild(current, record, { force: false, recordedImageExists: exists })).toEqual({
      rebuild: false,
      reasons: [],
    });
  });

  it("builds a new image", async () => {
    const decision = await decideRebuild(current, undefined, { force: false, recordedImageExists: exists });
    expect(decision.reasons).toEqual([{ kind: "new" }]);
  });

  it("rebuilds when the recorded image is gone, and says which", async () => {
    const decision = await decideRebuild(current, record, { force: false, recordedImageExists: gone });
    expect(decision).toEqual({
      rebuild: true,
      reasons: [{ kind: "image-missing", reference: record.reference }],
    });
  });

  it("does not ask the engine when the fingerprint differs", async () => {
    const ask = async () => {
      throw new Error("asked");
    };
    const changed = {
      ...current,
      fingerprint: h("b"),
      lockfiles: { "package-lock.json": h("3") },
      files: { ...current.files, "package-lock.json": h("3") },
    };
    const decision = await decideRebuild(changed, record, { force: false, recordedImageExists: ask });
    expect(decision.reasons).toEqual([{ kind: "lockfile-changed", path: "package-lock.json" }]);
    expect(describeReason(decision.reasons[0]!)).toBe("lockfile package-lock.json changed");
  });

  it("names a changed Dockerfile and changed, added and removed context files", async () => {
    const changed: ImageFingerprint = {
      fingerprint: h("b"),
      dockerfileHash: h("e"),
      lockfiles: current.lockfiles,
      files: { Dockerfile: h("e"), "package-lock.json": h("1"), "run.sh": h("5") },
    };
    const decision = await decideRebuild(changed, record, { force: false, recordedImageExists: exists });
    expect(decision.reasons).toEqual([
      { kind: "dockerfile-changed" },
      { kind: "file-added", path: "run.sh" },
      { kind: "file-removed", path: "package.json" },
    ]);
  });

  it("says the context changed when an old record has no file list", async () => {
    const { files: _files, ...old } = record;
    const decision = await decideRebuild({ ...current, fingerprint: h("c") }, old, {
      force: false,
      recordedImageExists: exists,
    });
    expect(decision.reasons).toEqual([{ kind: "context-changed" }]);
  });

  it("rebuilds with --force, first reason force", async () => {
    expect(
      (await decideRebuild(current, record, { force: true, recordedImageExists: exists })).reasons,
    ).toEqual([{ kind: "force" }]);
  });
});
