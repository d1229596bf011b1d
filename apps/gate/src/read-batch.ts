import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { MANIFEST_FILE, type PublicKey, verifyLine, verifyManifest } from "@oracle/grader";
import {
  BatchFileSchema,
  type GateBatch,
  OracleError,
  type ResultLine,
  ResultLineSchema,
} from "@oracle/spec";

/** A batch as the gate reads it: every line verified, and whether every prediction has one. */
export interface LoadedBatch {
  ref: GateBatch;
  lines: ResultLine[];
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

async function readOrExplain(file: string, what: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new OracleError("FILE_INVALID", `${file}: cannot read ${what} (${code})`, {
      hint: "name a batch's output folder (pnpm grade --batch ... --out DIR): it holds batch.json and results.jsonl",
    });
  }
}

/**
 * The ids and tasks of a predictions file, read as the batch reads them (ours: id and task;
 * SWE-bench's: instance_id naming both); null when a line is not one.
 */
function predictionIds(text: string): Array<{ id: string; task: string }> | null {
  const out: Array<{ id: string; task: string }> = [];
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return null;
    }
    const id = row.id ?? row.instance_id;
    const task = row.task ?? row.instance_id;
    if (typeof id !== "string" || typeof task !== "string") return null;
    out.push({ id, task });
  }
  return out;
}

/**
 * Reads a batch's output folder: batch.json and results.jsonl. Every line must be signed by a
 * trusted key for this very batch and say what its statement says (else RESULT_UNVERIFIED, with
 * every bad line); an id twice is refused the same way. The batch's signed manifest (manifest.json;
 * for an older batch, the predictions file batch.json names, when still there unchanged) says
 * whether every prediction has a line; lines it does not list are not counted.
 */
export async function loadBatch(dir: string, trusted: ReadonlyMap<string, PublicKey>): Promise<LoadedBatch> {
  const folder = resolve(dir);
  const batchText = (await readOrExplain(join(folder, "batch.json"), "batch.json")).toString("utf8");
  let batch: ReturnType<typeof BatchFileSchema.parse>;
  try {
    batch = BatchFileSchema.parse(JSON.parse(batchText));
  } catch {
    throw new OracleError("FILE_INVALID", `${join(folder, "batch.json")}: not a batch file`);
  }
  const resultsBytes = await readOrExplain(join(folder, "results.jsonl"), "results.jsonl");
  const lines: ResultLine[] = [];
  const problems: string[] = [];
  const signedBy = new Set<string>();
  const seen = new Map<string, number>();
  for (const [index, raw] of resultsBytes.toString("utf8").split("\n").entries()) {
    if (raw.trim() === "") continue;
    const where = `results.jsonl:${index + 1}`;
    let parsed: ReturnType<typeof ResultLineSchema.safeParse>;
    try {
      parsed = ResultLineSchema.safeParse(JSON.parse(raw));
    } catch {
      problems.push(`${where}: not JSON`);
      continue;
    }
    if (!parsed.success) {
      problems.push(`${where}: not a result line`);
      continue;
    }
    const line = parsed.data;
    const first = seen.get(line.id);
    if (first !== undefined) {
      problems.push(`${where}: ${JSON.stringify(line.id)} already has line ${first}`);
      continue;
    }
    seen.set(line.id, index + 1);
    const verified = verifyLine(line, trusted, {
      batch: batch.batchId,
      job: null,
      jobDigest: null,
      resultDigest: null,
    });
    if (!verified.ok) {
      problems.push(`${where} (${JSON.stringify(line.id)}): ${verified.why}`);
      continue;
    }
    signedBy.add(verified.keyid);
    lines.push(line);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 10).join("\n  ");
    const more = problems.length > 10 ? `\n  … and ${problems.length - 10} more` : "";
    throw new OracleError(
      "RESULT_UNVERIFIED",
      `${folder}: ${problems.length} result line(s) cannot be trusted:\n  ${shown}${more}`,
      {
        hint: "results another installation signed need its public key: --trust-key FILE (from its `pnpm oracle-key`); a line changed after signing, or copied from another batch, must be graded again",
      },
    );
  }
  if (lines.length === 0) throw new OracleError("FILE_INVALID", `${folder}/results.jsonl: no result lines`);

  // Which predictions the batch grades: its signed manifest; for a batch written before manifests,
  // the predictions file batch.json names, when it is still there unchanged.
  let completeness: GateBatch["completeness"] = "unchecked";
  let missing: string[] = [];
  let counted = lines;
  let listed: Array<{ id: string; task: string }> | null = null;
  let predictionsSha256 = batch.predictionsSha256;
  let gradedWith: { root: string | null; timeoutSeconds: number | null } = {
    root: batch.root ?? null,
    timeoutSeconds: null,
  };
  const manifestFile = join(folder, MANIFEST_FILE);
  let manifestText: string | null = null;
  try {
    manifestText = await readFile(manifestFile, "utf8");
  } catch {
    // No manifest: an older batch, or one deleted; the predictions file is the fallback.
  }
  if (manifestText !== null) {
    let value: unknown;
    try {
      value = JSON.parse(manifestText);
    } catch {
      value = null;
    }
    const verified = verifyManifest(value, trusted);
    if (!verified.ok || verified.manifest.batchId !== batch.batchId)
      throw new OracleError(
        "RESULT_UNVERIFIED",
        `${manifestFile}: ${verified.ok ? `the manifest of batch ${verified.manifest.batchId}, not ${batch.batchId}` : verified.why}`,
        {
          hint: "a manifest changed after signing cannot say which predictions the batch graded: grade the batch again into a new folder",
        },
      );
    listed = verified.manifest.predictions;
    predictionsSha256 = verified.manifest.predictionsSha256;
    gradedWith = { root: verified.manifest.root, timeoutSeconds: verified.manifest.timeoutSeconds };
  } else {
    try {
      const predictions = await readFile(batch.predictionsFile);
      if (sha256(predictions) === batch.predictionsSha256)
        listed = predictionIds(predictions.toString("utf8"));
    } catch {
      // Gone or unreadable: the report says the batch's completeness is unchecked.
    }
  }
  if (listed !== null) {
    const taskOf = new Map(listed.map((p) => [p.id, p.task]));
    missing = listed.filter((p) => !seen.has(p.id)).map((p) => p.id);
    completeness = missing.length === 0 ? "complete" : "incomplete";
    // Lines of predictions the batch no longer grades (an earlier predictions file), or graded under
    // another task than listed, do not count.
    counted = lines.filter((l) => taskOf.get(l.id) === l.task);
  }
  return {
    ref: {
      dir: folder,
      batchId: batch.batchId,
      createdAt: batch.createdAt,
      resultsSha256: sha256(resultsBytes),
      predictionsFile: batch.predictionsFile,
      predictionsSha256,
      manifest: manifestText !== null,
      ...gradedWith,
      lines: counted.length,
      signedBy: [...signedBy].sort(),
      completeness,
      missing,
    },
    lines: counted,
  };
}
