import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isOracleError } from "@oracle/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBatch } from "./read-batch.js";
import { tasks, testKey, writeBatch } from "./testing/batches.js";

const key = testKey();
const trusted = new Map([[key.keyid, key]]);
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gate-read-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refusal(dir: string, keys = trusted): Promise<{ message: string; hint: string }> {
  try {
    await loadBatch(dir, keys);
  } catch (error) {
    expect(isOracleError(error, "RESULT_UNVERIFIED")).toBe(true);
    return error as { message: string; hint: string };
  }
  throw new Error("loadBatch accepted it");
}

const rewrite = async (dir: string, edit: (lines: string[]) => string[]) => {
  const file = join(dir, "results.jsonl");
  const lines = (await readFile(file, "utf8")).trim().split("\n");
  await writeFile(file, `${edit(lines).join("\n")}\n`);
};

describe("loadBatch", () => {
  it("reads a signed, complete batch", async () => {
    const b = await writeBatch(root, "ok", tasks("t", 3, "PASS"), key);
    const loaded = await loadBatch(b.dir, trusted);
    expect(loaded.lines.map((l) => l.id)).toEqual(b.lines.map((l) => l.id));
    expect(loaded.ref).toMatchObject({
      completeness: "complete",
      missing: [],
      lines: 3,
      signedBy: [key.keyid],
    });
    expect(loaded.ref.resultsSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a verdict edited after signing", async () => {
    const b = await writeBatch(root, "edited", tasks("t", 2, "TESTS_FAILED"), key);
    await rewrite(b.dir, (lines) =>
      lines.map((l, i) =>
        i === 0
          ? l.replace('"verdict":"FAIL","reason":"TESTS_FAILED"', '"verdict":"PASS","reason":"PASS"')
          : l,
      ),
    );
    expect((await refusal(b.dir)).message).toMatch(
      /results.jsonl:1 .*the statement does not match: .*verdict/,
    );
  });

  it("refuses a line copied from another batch (signed for that batch)", async () => {
    const other = await writeBatch(root, "other", [{ task: "t0", reason: "PASS", id: "copied" }], key);
    const b = await writeBatch(root, "target", tasks("t", 2, "TESTS_FAILED"), key);
    await rewrite(b.dir, (lines) => [...lines, JSON.stringify(other.lines[0])]);
    expect((await refusal(b.dir)).message).toContain("batch (signed");
  });

  it("refuses lines signed by a key it does not trust, and names --trust-key", async () => {
    const stranger = testKey();
    const b = await writeBatch(root, "stranger", tasks("t", 1, "PASS"), stranger);
    const refused = await refusal(b.dir);
    expect(refused.message).toContain("signed by a key not in the trust list");
    expect(refused.hint).toContain("--trust-key FILE");
    expect((await loadBatch(b.dir, new Map([[stranger.keyid, stranger]]))).lines).toHaveLength(1);
  });

  it("refuses an unsigned line and an id given twice", async () => {
    const b = await writeBatch(root, "unsigned", tasks("t", 2, "PASS"), key);
    await rewrite(b.dir, (lines) => {
      const { attestation: _, ...bare } = JSON.parse(lines[0]!) as Record<string, unknown>;
      return [JSON.stringify(bare), lines[1]!, lines[1]!];
    });
    const { message } = await refusal(b.dir);
    expect(message).toContain("not signed");
    expect(message).toContain("already has line 2");
  });

  it("a deleted line makes the batch incomplete, naming the prediction (the signed manifest lists it)", async () => {
    const b = await writeBatch(root, "deleted", tasks("t", 3, "TESTS_FAILED"), key);
    await rewrite(b.dir, (lines) => lines.slice(1));
    await rm(b.predictions);
    const loaded = await loadBatch(b.dir, trusted);
    expect(loaded.ref).toMatchObject({ completeness: "incomplete", missing: [b.lines[0]!.id] });
  });

  it("a manifest edited to drop the deleted prediction is refused", async () => {
    const b = await writeBatch(root, "manifest-edited", tasks("t", 3, "TESTS_FAILED"), key);
    await rewrite(b.dir, (lines) => lines.slice(1));
    const file = join(b.dir, "manifest.json");
    const manifest = JSON.parse(await readFile(file, "utf8")) as { predictions: unknown[] };
    manifest.predictions = manifest.predictions.slice(1);
    await writeFile(file, JSON.stringify(manifest));
    expect((await refusal(b.dir)).message).toContain("changed after signing");
  });

  it("another batch's manifest is refused", async () => {
    const a = await writeBatch(root, "manifest-a", tasks("t", 2, "PASS"), key);
    const b = await writeBatch(root, "manifest-b", tasks("t", 2, "PASS"), key);
    await writeFile(join(b.dir, "manifest.json"), await readFile(join(a.dir, "manifest.json")));
    expect((await refusal(b.dir)).message).toMatch(/the manifest of batch .*, not /);
  });

  it("lines the manifest does not list (an earlier predictions file) are not counted", async () => {
    const b = await writeBatch(root, "extra", tasks("t", 2, "PASS"), key);
    const file = join(b.dir, "manifest.json");
    // Rewritten and signed for one prediction only: the other line stays in results.jsonl.
    const { signManifest } = await import("@oracle/grader");
    const manifest = JSON.parse(await readFile(file, "utf8")) as Parameters<typeof signManifest>[0] & {
      attestation?: unknown;
    };
    const { attestation: _, ...fields } = manifest;
    await writeFile(
      file,
      JSON.stringify(signManifest({ ...fields, predictions: fields.predictions.slice(0, 1) }, key)),
    );
    const loaded = await loadBatch(b.dir, trusted);
    expect(loaded.lines.map((l) => l.id)).toEqual([b.lines[0]!.id]);
    expect(loaded.ref.completeness).toBe("complete");
  });

  it("with neither a manifest nor its predictions file, completeness is unchecked", async () => {
    const b = await writeBatch(root, "gone", tasks("t", 1, "PASS"), key, { manifest: false });
    expect((await loadBatch(b.dir, trusted)).ref.completeness).toBe("complete");
    await rm(b.predictions);
    expect((await loadBatch(b.dir, trusted)).ref.completeness).toBe("unchecked");
  });

  it("a folder that is not a batch: FILE_INVALID with a hint", async () => {
    await expect(loadBatch(join(root, "nothing"), trusted)).rejects.toMatchObject({
      code: "FILE_INVALID",
      hint: expect.stringContaining("pnpm grade --batch"),
    });
  });
});

describe("the signed decision", () => {
  it("verifies as signed, and not once a field is changed or with another key", async () => {
    const { decide } = await import("./decide.js");
    const { signDecision, verifyDecision } = await import("./signed.js");
    const { batch } = await import("./testing/batches.js");
    const report = decide({
      candidate: batch(tasks("t", 8, "PASS"), key),
      incumbent: batch(tasks("t", 8, "TESTS_FAILED"), key),
      parameters: {
        mode: "superiority",
        margin: 0,
        alpha: 0.05,
        maxInfra: 0.05,
        resamples: 1000,
        seed: 1,
        allowUnvalidated: false,
        allowMissing: false,
      },
      graderVersion: "test",
    });
    const signed = signDecision(report, key);
    expect(verifyDecision(JSON.parse(JSON.stringify(signed)), trusted)).toEqual({
      ok: true,
      keyid: key.keyid,
    });
    expect(verifyDecision({ ...signed, decision: "reject" }, trusted)).toMatchObject({
      ok: false,
      why: /changed after signing/,
    });
    expect(verifyDecision({ ...signed, parameters: { ...signed.parameters, alpha: 0.5 } }, trusted).ok).toBe(
      false,
    );
    expect(verifyDecision(signed, new Map([[testKey().keyid, testKey()]])).ok).toBe(false);
    expect(verifyDecision(report, trusted)).toEqual({ ok: false, why: "not signed" });
  });
});
