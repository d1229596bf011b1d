import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ImageBuild, readRegistryFile } from "@oracle/spec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lockRegistry, recordBuild, saveBuild } from "./registry-file.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "oracle-registry-"));
  await mkdir(join(root, "images"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

function build(n: number): ImageBuild {
  const digest = `sha256:${String(n).repeat(64).slice(0, 64)}`;
  return {
    reference: `127.0.0.1:5000/oracle/x@${digest}`,
    digest,
    imageId: `sha256:${"e".repeat(64)}`,
    pushed: true,
    fingerprint: String(n).repeat(64).slice(0, 64),
    dockerfileHash: "d".repeat(64),
    lockfiles: { "package-lock.json": "c".repeat(64) },
    files: { Dockerfile: "d".repeat(64) },
    builtAt: new Date(Date.UTC(2026, 0, n)).toISOString(),
    durationMs: n,
  };
}

describe("registry file", () => {
  it("round-trips through readRegistryFile, keeping older builds in history, newest first", async () => {
    await saveBuild(root, "x", build(1));
    await saveBuild(root, "x", build(2));
    await saveBuild(root, "a", build(3));
    const file = await readRegistryFile(root);
    expect(Object.keys(file.images)).toEqual(["a", "x"]);
    expect(file.images.x).toMatchObject({ ...build(2), history: [build(1)] });
    await saveBuild(root, "x", build(4));
    expect((await readRegistryFile(root)).images.x?.history.map((b) => b.durationMs)).toEqual([2, 1]);
  });

  it("recordBuild leaves the input untouched", () => {
    const empty = { version: 1 as const, images: {} };
    const once = recordBuild(empty, "x", build(1));
    expect(empty.images).toEqual({});
    expect(once.images.x?.history).toEqual([]);
  });

  it("writes atomically: no temporary files are left and the file is always complete JSON", async () => {
    const writes = Array.from({ length: 20 }, (_, i) => i + 1);
    let reads = 0;
    const reader = (async () => {
      while (reads < 50) {
        const text = await readFile(join(root, "images", "registry.json"), "utf8").catch(() => "{}");
        JSON.parse(text);
        reads++;
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    for (const n of writes) await saveBuild(root, `img${n}`, build((n % 9) + 1));
    await reader;
    expect((await readdir(join(root, "images"))).sort()).toEqual(["registry.json"]);
    expect(Object.keys((await readRegistryFile(root)).images)).toHaveLength(20);
  });

  it("serialises concurrent runs through the lock: no update is lost", async () => {
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const release = await lockRegistry(root, { waitMs: 20_000 });
        try {
          await saveBuild(root, `img${i}`, build(i + 1));
        } finally {
          await release();
        }
      }),
    );
    expect(Object.keys((await readRegistryFile(root)).images)).toHaveLength(6);
  });

  it("waits for another run's lock, saying once whom it waits for, and goes on when it is released", async () => {
    const held = await lockRegistry(root);
    const told: Array<[string, number]> = [];
    let released = false;
    const waiting = lockRegistry(root, {
      waitMs: 60_000,
      onWait: (holder, waitMs) => {
        told.push([holder, waitMs]);
        // The holder goes once the waiter has said it waits: an observable condition, not a sleep.
        if (!released) {
          released = true;
          void held();
        }
      },
    });
    const release = await waiting;
    expect(told).toEqual([[expect.stringMatching(new RegExp(`^pid ${process.pid} on .*, since `)), 60_000]]);
    const owner = JSON.parse(await readFile(join(root, "images", ".registry.lock.owner"), "utf8"));
    expect(owner.pid).toBe(process.pid);
    await release();
    expect(await readdir(join(root, "images"))).toEqual([]);
  });

  it("fails with REGISTRY_LOCKED naming the holder after a bounded wait", async () => {
    const release = await lockRegistry(root);
    const started = Date.now();
    await expect(lockRegistry(root, { waitMs: 500 })).rejects.toMatchObject({
      code: "REGISTRY_LOCKED",
      message: expect.stringMatching(new RegExp(`pid ${process.pid} .*still after waiting 1 s`)),
      hint: expect.stringContaining("run pnpm build-images again (--lock-wait SECS waits longer)"),
    });
    expect(Date.now() - started).toBeLessThan(5000);
    await release();
    const again = await lockRegistry(root, { waitMs: 0 });
    await again();
    expect(await readdir(join(root, "images"))).toEqual([]);
  });
});
