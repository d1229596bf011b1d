import { chmod, cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fingerprintImage } from "./fingerprint.js";
import { LockfileCache } from "./lockfile-cache.js";

const fixtures = resolve(import.meta.dirname, "../../../test/fixtures/images");
let dir: string;

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), "oracle-fp-")), "text-demo");
  await cp(join(fixtures, "text-demo"), dir, { recursive: true });
});
afterEach(() => rm(resolve(dir, ".."), { recursive: true, force: true }));

describe("fingerprintImage", () => {
  it("lists the context with lockfiles counted by their own fingerprint", async () => {
    const fp = await fingerprintImage(dir);
    expect(Object.keys(fp.files)).toEqual([".dockerignore", "Dockerfile", "requirements.txt"]);
    expect(Object.keys(fp.lockfiles)).toEqual(["requirements.txt"]);
    expect(fp.files.Dockerfile).toBe(fp.dockerfileHash);
  });

  it("ignores files excluded by .dockerignore and the builder's own CA entry", async () => {
    const before = await fingerprintImage(dir);
    await writeFile(join(dir, "notes.md"), "changed\n");
    await writeFile(join(dir, "oracle-build-ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    expect((await fingerprintImage(dir)).fingerprint).toBe(before.fingerprint);
  });

  it("is unchanged by a reformatted text lockfile and changed by a new pin", async () => {
    const before = await fingerprintImage(dir);
    await writeFile(join(dir, "requirements.txt"), "attrs==23.2.0   \r\npluggy==1.5.0\r\n\r\n");
    expect((await fingerprintImage(dir)).fingerprint).toBe(before.fingerprint);
    await writeFile(join(dir, "requirements.txt"), "attrs==23.2.0\npluggy==1.6.0\n");
    const after = await fingerprintImage(dir);
    expect(after.fingerprint).not.toBe(before.fingerprint);
    expect(after.dockerfileHash).toBe(before.dockerfileHash);
  });

  it("changes with the Dockerfile, another context file, or an executable bit", async () => {
    const seen = new Set([(await fingerprintImage(dir)).fingerprint]);
    await writeFile(join(dir, "Dockerfile"), "FROM debian:bookworm-slim\n");
    seen.add((await fingerprintImage(dir)).fingerprint);
    await writeFile(join(dir, "run.sh"), "#!/bin/sh\n");
    seen.add((await fingerprintImage(dir)).fingerprint);
    await chmod(join(dir, "run.sh"), 0o755);
    seen.add((await fingerprintImage(dir)).fingerprint);
    expect(seen.size).toBe(4);
  });

  it("fails with IMAGE_INVALID without a Dockerfile", async () => {
    await rm(join(dir, "Dockerfile"));
    await expect(fingerprintImage(dir)).rejects.toMatchObject({ code: "IMAGE_INVALID" });
  });

  it("gives the same npm lockfile fingerprint with and without the lockfile cache", async () => {
    const npmDir = join(resolve(dir, ".."), "npm-demo");
    await cp(join(fixtures, "npm-demo"), npmDir, { recursive: true });
    const cache = LockfileCache.inMemory();
    const plain = await fingerprintImage(npmDir);
    expect(await fingerprintImage(npmDir, { lockfileCache: cache })).toEqual(plain);
    expect(await fingerprintImage(npmDir, { lockfileCache: cache })).toEqual(plain);
    await writeFile(join(npmDir, "package.json"), '{"name":"x","dependencies":{"is-number":"^6.0.0"}}');
    await expect(fingerprintImage(npmDir, { lockfileCache: cache })).rejects.toMatchObject({
      code: "LOCKFILE_OUT_OF_SYNC",
    });
  });
});
