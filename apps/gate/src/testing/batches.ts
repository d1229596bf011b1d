// Signed batches for the gate's unit tests: real signatures with a key made here, folders written
// the way grade --batch writes them.
import { createHash, generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MANIFEST_FILE, type SigningKey, signedLine, signManifest } from "@oracle/grader";
import type { ReasonCode, ResultLine } from "@oracle/spec";
import type { LoadedBatch } from "../read-batch.js";

export function testKey(): SigningKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const keyid = createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex");
  return { key: publicKey, privateKey, keyid, file: "/test/key.pem" };
}

export interface Sample {
  task: string;
  /** QUEUE_REFUSED: an infra error with no run (a queue answer the batch refused). */
  reason: ReasonCode | "TASK_QUARANTINED" | "QUEUE_REFUSED";
  id?: string;
  taskHash?: string;
  validation?: "current" | "stale" | "never";
}

let counter = 0;

export function line(sample: Sample, batchId: string, key: SigningKey): ResultLine {
  counter += 1;
  const quarantined = sample.reason === "TASK_QUARANTINED";
  const refused = sample.reason === "QUEUE_REFUSED";
  const reason = quarantined || refused ? null : (sample.reason as ReasonCode);
  const bare: ResultLine = {
    id: sample.id ?? `p${counter}`,
    task: sample.task,
    outcome: quarantined ? "quarantined" : refused || reason === "INFRA_ERROR" ? "infra_error" : "graded",
    verdict: reason === null ? null : reason === "PASS" ? "PASS" : "FAIL",
    reason,
    error: quarantined ? "TASK_QUARANTINED" : refused ? "INFRA_ERROR" : null,
    message: reason ?? "quarantined",
    testsHash: null,
    log: `/logs/${sample.task}/${counter}.log`,
    seconds: 1,
    cached: false,
    attempts: 1,
    diffSha256: createHash("sha256").update(`diff ${counter}`).digest("hex"),
    imageDigest: "sha256:image",
    taskHash: sample.taskHash ?? `hash-${sample.task}`,
    graderVersion: "0.1.0+test",
    timeoutSeconds: 60,
    validation: sample.validation ?? "current",
    worker: "test:1",
  };
  return signedLine(bare, key, { batch: batchId, job: null, jobDigest: null, resultDigest: null });
}

/** A batch in memory, as loadBatch returns it. */
export function batch(
  samples: Sample[],
  key: SigningKey,
  createdAt = "2026-12-01T00:00:00.000Z",
): LoadedBatch {
  const batchId = randomUUID();
  const lines = samples.map((s) => line(s, batchId, key));
  return {
    ref: {
      dir: `/batches/${batchId}`,
      batchId,
      createdAt,
      resultsSha256: "0".repeat(64),
      predictionsFile: `/predictions/${batchId}.jsonl`,
      predictionsSha256: "1".repeat(64),
      manifest: true,
      root: "/root",
      timeoutSeconds: null,
      lines: lines.length,
      signedBy: [key.keyid],
      completeness: "complete",
      missing: [],
    },
    lines,
  };
}

/** Writes a batch folder (batch.json, results.jsonl, the predictions file) and returns it. */
export async function writeBatch(
  root: string,
  name: string,
  samples: Sample[],
  key: SigningKey,
  options: { manifest?: boolean } = {},
): Promise<{ dir: string; lines: ResultLine[]; predictions: string }> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  const batchId = randomUUID();
  const lines = samples.map((s) => line(s, batchId, key));
  const predictions = join(root, `${name}.jsonl`);
  const predictionsText = lines.map((l) => JSON.stringify({ id: l.id, task: l.task, diff: "" })).join("\n");
  await writeFile(predictions, `${predictionsText}\n`);
  await writeFile(
    join(dir, "batch.json"),
    JSON.stringify({
      batchId,
      predictionsFile: predictions,
      predictionsSha256: createHash("sha256").update(`${predictionsText}\n`).digest("hex"),
      createdAt: new Date().toISOString(),
    }),
  );
  await writeFile(join(dir, "results.jsonl"), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  if (options.manifest !== false) {
    const manifest = signManifest(
      {
        batchId,
        predictionsSha256: createHash("sha256").update(`${predictionsText}\n`).digest("hex"),
        writtenAt: new Date().toISOString(),
        predictions: lines.map((l) => ({ id: l.id, task: l.task })),
        root: "/root",
        timeoutSeconds: null,
      },
      key,
    );
    await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
  }
  return { dir, lines, predictions };
}

/** `n` tasks named prefix0..prefix(n-1), each with `reason`. */
export function tasks(
  prefix: string,
  n: number,
  reason: Sample["reason"],
  extra: Partial<Sample> = {},
): Sample[] {
  return Array.from({ length: n }, (_, i) => ({ task: `${prefix}${i}`, reason, ...extra }));
}
