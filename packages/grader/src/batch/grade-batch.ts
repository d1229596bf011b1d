import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { OracleError, writeJsonAtomic } from "@oracle/spec";
import type winston from "winston";
import { GRADER_VERSION } from "../version.js";
import { batchPaths, defaultOutDir, fileSha256, openBatchFile } from "./batch-dir.js";
import { type CacheInputs, ResultCache } from "./cache.js";
import type { BatchExecutor, BatchJob } from "./executor.js";
import { isAbort, lineFromCache, lineFromError } from "./lines.js";
import { type Prediction, readPredictions } from "./predictions.js";
import { type ResultLine, ResultsWriter, readResultLines } from "./results-file.js";
import { type BatchSummary, summarize } from "./summary.js";
import { loadTaskContexts, type TaskContext } from "./task-context.js";

/** Progress of a batch, for a display. */
export type BatchEvent =
  | { type: "start"; total: number; pending: number; resumed: number; outDir: string; executor: string }
  | { type: "result"; line: ResultLine; done: number; total: number };

export interface GradeBatchOptions {
  root: string;
  predictionsFile: string;
  /** Default `<root>/logs/batch/<name>-<sha12>/`; a rerun with the same folder resumes. */
  outDir?: string;
  executor: BatchExecutor;
  /** Reuse and record results under `<root>/.oracle/cache/` (default true). */
  cache?: boolean;
  timeoutSeconds?: number;
  allowQuarantined?: boolean;
  signal?: AbortSignal;
  onEvent?: (event: BatchEvent) => void;
  logger?: winston.Logger;
}

export interface BatchOutcome {
  batchId: string;
  outDir: string;
  resultsFile: string;
  summaryFile: string;
  summary: BatchSummary;
  /** True when the signal stopped the batch; the results so far are kept and a rerun resumes. */
  interrupted: boolean;
}

async function diffSha256(diff: Prediction["diff"]): Promise<string | null> {
  try {
    const bytes = "text" in diff ? Buffer.from(diff.text, "utf8") : await readFile(diff.path);
    return createHash("sha256").update(bytes).digest("hex");
  } catch {
    return null;
  }
}

type Triage = { line: ResultLine } | { job: BatchJob };

async function triage(
  p: Prediction,
  context: TaskContext,
  options: GradeBatchOptions,
  cache: ResultCache | null,
): Promise<Triage> {
  if (!context.ok) return { line: lineFromError(p, context.error, { worker: null }) };
  if (context.quarantined !== null && !options.allowQuarantined) {
    const error = new OracleError(
      "TASK_QUARANTINED",
      `task '${p.task}' is quarantined (${context.quarantined})`,
    );
    return { line: lineFromError(p, error, { worker: null }) };
  }
  const sha = await diffSha256(p.diff);
  const inputs: CacheInputs | null =
    sha !== null && context.imageDigest !== null
      ? {
          graderVersion: GRADER_VERSION,
          imageDigest: context.imageDigest,
          taskHash: context.taskHash,
          diffSha256: sha,
          timeoutSeconds: options.timeoutSeconds ?? context.timeoutSeconds,
        }
      : null;
  const hit = cache && inputs ? await cache.get(inputs) : null;
  if (hit) return { line: lineFromCache(p, hit) };
  return {
    job: {
      id: p.id,
      task: p.task,
      diff: p.diff,
      diffSha256: sha,
      taskHash: context.taskHash,
      imageDigest: context.imageDigest,
      cacheInputs: inputs,
    },
  };
}

/** Triage of the pending predictions: lines for those settled without a run, jobs for the rest. */
async function triageAll(
  pending: readonly Prediction[],
  options: GradeBatchOptions,
  cache: ResultCache | null,
  emit: (line: ResultLine) => Promise<void>,
): Promise<BatchJob[]> {
  const contexts = await loadTaskContexts(
    resolve(options.root),
    pending.map((p) => p.task),
  );
  const jobs: BatchJob[] = [];
  for (const p of pending) {
    const t = await triage(p, contexts.get(p.task) as TaskContext, options, cache);
    if ("line" in t) await emit(t.line);
    else jobs.push(t.job);
  }
  return jobs;
}

/** The output folder with what is already done in it, and the predictions still to grade. */
async function openBatch(options: GradeBatchOptions) {
  const predictions = await readPredictions(options.predictionsFile);
  const sha = await fileSha256(options.predictionsFile);
  const paths = batchPaths(options.outDir ?? defaultOutDir(options.root, options.predictionsFile, sha));
  const batch = await openBatchFile(paths, options.predictionsFile, sha);
  const wanted = new Set(predictions.map((p) => p.id));
  const previous = await readResultLines(paths.results);
  const lines = new Map([...previous.lines].filter(([id]) => wanted.has(id)));
  const writer = await ResultsWriter.open(paths.results, previous.validBytes);
  return { predictions, paths, batchId: batch.batchId, lines, writer };
}

/**
 * Grades every prediction of a JSON Lines file through `executor`, appending one line per prediction
 * to `<out>/results.jsonl` as results arrive (fsynced), then writes `<out>/summary.json`. Predictions
 * already in results.jsonl are skipped (resume); results recorded for identical inputs are reused and
 * marked `cached`. A bad predictions file throws FILE_INVALID before anything runs. When `signal`
 * aborts, running grades are stopped, the summary of what is done is written, and `interrupted` is true.
 */
export async function gradeBatch(options: GradeBatchOptions): Promise<BatchOutcome> {
  const { predictions, paths, batchId, lines, writer } = await openBatch(options);
  const pending = predictions.filter((p) => !lines.has(p.id));
  const cache = options.cache === false ? null : new ResultCache(options.root);
  const total = predictions.length;
  const { description } = options.executor;
  const start = { pending: pending.length, resumed: lines.size, outDir: paths.outDir, executor: description };
  options.onEvent?.({ type: "start", total, ...start });
  const emit = async (line: ResultLine, job?: BatchJob) => {
    if (lines.has(line.id)) return;
    lines.set(line.id, line);
    await writer.append(line);
    if (job?.cacheInputs && cache && !line.cached) await cache.put(job.cacheInputs, line);
    options.logger?.debug(`${line.id} ${line.task}: ${line.verdict ?? line.outcome} ${line.reason}`);
    options.onEvent?.({ type: "result", line, done: lines.size, total });
  };
  let interrupted = false;
  try {
    const jobs = await triageAll(pending, options, cache, emit);
    const byId = new Map(jobs.map((j) => [j.id, j]));
    const signal = options.signal ? { signal: options.signal } : {};
    await options.executor.run(jobs, (line) => emit(line, byId.get(line.id)), { batchId, ...signal });
  } catch (error) {
    if (!isAbort(error) && !options.signal?.aborted) throw error;
    interrupted = true;
  } finally {
    await writer.close();
  }
  const summary = summarize(
    total,
    predictions.flatMap((p) => lines.get(p.id) ?? []),
  );
  await writeJsonAtomic(paths.summary, { batchId, graderVersion: GRADER_VERSION, ...summary });
  const files = { outDir: paths.outDir, resultsFile: paths.results, summaryFile: paths.summary };
  return { batchId, ...files, summary, interrupted };
}
