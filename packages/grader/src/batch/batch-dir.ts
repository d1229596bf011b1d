import { createHash, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, extname, join, resolve } from "node:path";
import { type BatchFile, BatchFileSchema, OracleError, readJsonFile, writeJsonAtomic } from "@oracle/spec";

/** The files of a batch's output folder. */
export interface BatchPaths {
  outDir: string;
  /** batch.json: the batch id (kept across resumes; queue job ids derive from it). */
  batchFile: string;
  results: string;
  summary: string;
  /** swebench-report.json: the results in SWE-bench's run-report shape (see swebench-report.ts). */
  sweBenchReport: string;
}

export function batchPaths(outDir: string): BatchPaths {
  const dir = resolve(outDir);
  return {
    outDir: dir,
    batchFile: join(dir, "batch.json"),
    results: join(dir, "results.jsonl"),
    summary: join(dir, "summary.json"),
    sweBenchReport: join(dir, "swebench-report.json"),
  };
}

export async function fileSha256(file: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(file))
    .digest("hex");
}

/** The default output folder: `<root>/logs/batch/<file name>-<sha12 of its content>/`, the same on a rerun of the same file. */
export function defaultOutDir(root: string, predictionsFile: string, predictionsSha256: string): string {
  const name = basename(predictionsFile, extname(predictionsFile)).replace(/[^A-Za-z0-9._-]/g, "_");
  return join(resolve(root), "logs", "batch", `${name}-${predictionsSha256.slice(0, 12)}`);
}

/** batch.json of the output folder, created on the first run and read back on a resume. */
export async function openBatchFile(
  paths: BatchPaths,
  predictionsFile: string,
  sha: string,
  root: string,
): Promise<BatchFile> {
  let existing: BatchFile | null = null;
  try {
    existing = await readJsonFile(BatchFileSchema, paths.batchFile);
  } catch (error) {
    if ((error as { cause?: NodeJS.ErrnoException }).cause?.code !== "ENOENT") throw error;
  }
  if (existing) {
    // Under another root its tasks are other tasks (or none): every line would be graded again.
    if (existing.root !== undefined && existing.root !== resolve(root))
      throw new OracleError(
        "USAGE",
        `${paths.outDir} was graded with --root ${existing.root}, not ${resolve(root)}: resuming it here would grade its predictions on other tasks`,
        { hint: `resume it with --root ${existing.root}, or grade into a new --out folder` },
      );
    return existing;
  }
  const created: BatchFile = {
    batchId: randomUUID(),
    predictionsFile: resolve(predictionsFile),
    predictionsSha256: sha,
    createdAt: new Date().toISOString(),
    root: resolve(root),
  };
  await writeJsonAtomic(paths.batchFile, created);
  return created;
}
