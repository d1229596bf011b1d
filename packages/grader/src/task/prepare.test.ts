import { createHash } from "node:crypto";
import { cp, mkdir, open, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isOracleError, type RegistryFile, registryFilePath } from "@oracle/spec";
import { describe, expect, it, vi } from "vitest";
import { grade } from "../grade.js";
import { REPO_ROOT, tempRootWithTasks } from "../prediction/testing.js";
import {
  diffSha256,
  MAX_DIFF_BYTES,
  prepareDiff,
  prepareTask,
  quarantineError,
  readDiffBytes,
} from "./prepare.js";
import { taskContentHash } from "./task-hash.js";

// Counted: a grade's image fingerprint is computed once, whoever asks for it.
vi.mock("../image/fingerprint-cache.js", async (original) => {
  const actual = await original<typeof import("../image/fingerprint-cache.js")>();
  return { ...actual, cachedFingerprint: vi.fn(actual.cachedFingerprint) };
});

const sha = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

describe("prepareTask", () => {
  it("loads the task and computes its hashes, its image's fingerprint and validation once each", async () => {
    // Files share a worker's modules (vitest.config.ts: isolate false): another file may have loaded
    // prepare.js with the real fingerprint cache, which this file's mock then never reaches (0 calls
    // counted). Loaded anew, under the mock.
    vi.resetModules();
    const { prepareTask } = await import("./prepare.js");
    const { staleImageMessage } = await import("../image/image.js");
    const { cachedFingerprint } = await import("../image/fingerprint-cache.js");
    const temp = await tempRootWithTasks("calc-node");
    try {
      await cp(join(REPO_ROOT, "images", "node-mocha"), join(temp.root, "images", "node-mocha"), {
        recursive: true,
      });
      const task = await prepareTask(temp.root, "calc-node");
      expect(task.loaded.task.id).toBe("calc-node");
      expect(task.quarantine).toBeNull();
      expect(task.hashes()).toBe(task.hashes());
      expect(task.image.fingerprint()).toBe(task.image.fingerprint());
      const folder = join(temp.root, "tasks", "calc-node");
      expect((await task.hashes()).content).toBe(await taskContentHash(folder));
      // No recorded build: no current digest, never validated.
      expect(await task.image.currentDigest()).toBeNull();
      expect((await task.validation()).state).toBe("never");
      // A record of today's fingerprint makes the digest current, from the same fingerprint.
      const record = {
        reference: `sha256:${"1".repeat(64)}`,
        digest: `sha256:${"1".repeat(64)}`,
        imageId: `sha256:${"1".repeat(64)}`,
        pushed: false,
        fingerprint: await task.image.fingerprint(),
        dockerfileHash: "2".repeat(64),
        lockfiles: {},
        builtAt: new Date(0).toISOString(),
        durationMs: 1,
        history: [],
      };
      const registry: RegistryFile = { version: 1, images: { "node-mocha": record } };
      await writeFile(registryFilePath(temp.root), JSON.stringify(registry));
      vi.mocked(cachedFingerprint).mockClear();
      const again = await prepareTask(temp.root, "calc-node");
      expect(await again.image.currentDigest()).toBe(record.digest);
      expect((await again.validation()).inputs.imageDigest).toBe(record.digest);
      // What supervise asks: the same fingerprint, not a second one.
      expect(await staleImageMessage(temp.root, "node-mocha", record, again.image.fingerprint)).toBeNull();
      expect(cachedFingerprint).toHaveBeenCalledTimes(1);
    } finally {
      await temp.cleanup();
    }
  });

  it("reads the quarantine entry; the one TASK_QUARANTINED error names the reasons and their fixes", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const now = new Date().toISOString();
      const reasons = [{ flag: "FLAKY", message: "flips", hint: "fix the clock", evidence: [] }];
      const list = { version: 1, tasks: { "calc-node": { reasons, firstSeen: now, lastChecked: now } } };
      await writeFile(join(temp.root, "tasks", "quarantine.json"), JSON.stringify(list));
      const task = await prepareTask(temp.root, "calc-node");
      expect(task.quarantine?.reasons[0]?.flag).toBe("FLAKY");
      const error = quarantineError("calc-node", task.quarantine!);
      expect(error.code).toBe("TASK_QUARANTINED");
      expect(error.message).toBe("task 'calc-node' is quarantined (FLAKY: flips)");
      expect(error.hint).toMatch(/^fix the clock; .*--allow-quarantined$/);
      const refused = await grade({ root: temp.root, task: "calc-node", mode: "baseline" }).catch((e) => e);
      expect(isOracleError(refused, "TASK_QUARANTINED")).toBe(true);
    } finally {
      await temp.cleanup();
    }
  });

  it("a grade given the preparation of another task refuses it (INTERNAL)", async () => {
    const temp = await tempRootWithTasks("calc-node", "freebusy-py");
    try {
      const prepared = await prepareTask(temp.root, "freebusy-py");
      const error = await grade({ root: temp.root, task: "calc-node", mode: "baseline", prepared }).catch(
        (e) => e,
      );
      expect(isOracleError(error, "INTERNAL")).toBe(true);
    } finally {
      await temp.cleanup();
    }
  });
});

describe("the diff", () => {
  it("is read and hashed the same from text, bytes and a file", async () => {
    const temp = await tempRootWithTasks();
    try {
      const file = join(temp.root, "d.diff");
      await writeFile(file, "diff --git a/x b/x\n");
      for (const source of [
        { text: "diff --git a/x b/x\n" },
        { bytes: Buffer.from("diff --git a/x b/x\n") },
        { path: file },
      ]) {
        expect(await prepareDiff(source)).toEqual({
          bytes: Buffer.from("diff --git a/x b/x\n"),
          sha256: sha("diff --git a/x b/x\n"),
        });
        expect(await diffSha256(source)).toBe(sha("diff --git a/x b/x\n"));
      }
    } finally {
      await temp.cleanup();
    }
  });

  it("larger than the grader parses is not read for a run, but hashed whole for a key and read whole for a job", async () => {
    const temp = await tempRootWithTasks();
    try {
      const file = join(temp.root, "big.diff");
      const handle = await open(file, "w");
      await handle.truncate(MAX_DIFF_BYTES + 1);
      await handle.close();
      expect(await prepareDiff({ path: file })).toEqual({ tooLarge: MAX_DIFF_BYTES + 1 });
      expect(await diffSha256({ path: file })).toBe(sha(await readFile(file)));
      expect((await readDiffBytes({ path: file })).length).toBe(MAX_DIFF_BYTES + 1);
    } finally {
      await temp.cleanup();
    }
  });

  it("that is not a readable file is DIFF_UNREADABLE", async () => {
    const temp = await tempRootWithTasks();
    try {
      await mkdir(join(temp.root, "folder"));
      for (const path of [join(temp.root, "folder"), join(temp.root, "missing.diff")]) {
        for (const read of [prepareDiff, diffSha256, readDiffBytes]) {
          const error = await read({ path }).catch((e) => e);
          expect(isOracleError(error, "DIFF_UNREADABLE"), `${read.name} ${path}`).toBe(true);
        }
      }
    } finally {
      await temp.cleanup();
    }
  });
});
