import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fingerprintImage } from "@oracle/image-builder";
import { describe, expect, it } from "vitest";
import { cachedFingerprint, folderDigest } from "./fingerprint-cache.js";

function imageRoot() {
  const root = mkdtempSync(join(tmpdir(), "grader-fp-"));
  const folder = join(root, "images", "demo");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "Dockerfile"), "FROM debian:bookworm-slim\n");
  writeFileSync(join(folder, "apt-packages.txt"), "git\n");
  return { root, folder };
}

describe("folderDigest", () => {
  it("changes with any byte or name, not with nothing", async () => {
    const { folder } = imageRoot();
    const before = await folderDigest(folder);
    expect(await folderDigest(folder)).toBe(before);
    writeFileSync(join(folder, "apt-packages.txt"), "git \n");
    expect(await folderDigest(folder)).not.toBe(before);
  });
});

describe("cachedFingerprint", () => {
  it("equals fingerprintImage, reuses the cache while the bytes are the same, recomputes when they change", async () => {
    const { root, folder } = imageRoot();
    const real = (await fingerprintImage(folder)).fingerprint;
    expect(await cachedFingerprint(root, "demo", folder)).toBe(real);
    const file = join(root, ".oracle", "grader-fingerprints.json");
    const cache = JSON.parse(readFileSync(file, "utf8"));
    const version = (
      createRequire(import.meta.url)("@oracle/image-builder/package.json") as { version: string }
    ).version;
    expect(cache.demo).toEqual({
      folderDigest: await folderDigest(folder),
      builderVersion: version,
      fingerprint: real,
    });
    // A planted entry for the same bytes is what a cache hit returns: proof the cache is read.
    writeFileSync(file, JSON.stringify({ demo: { ...cache.demo, fingerprint: "f".repeat(64) } }));
    expect(await cachedFingerprint(root, "demo", folder)).toBe("f".repeat(64));
    writeFileSync(join(folder, "Dockerfile"), "FROM debian:bookworm-slim\nRUN true\n");
    const changed = await cachedFingerprint(root, "demo", folder);
    expect(changed).toBe((await fingerprintImage(folder)).fingerprint);
    expect(changed).not.toBe(real);
  });
});
