import { join, resolve } from "node:path";
import { type BatchSummary, type ResultLine, type ValidationState, writeJsonAtomic } from "@oracle/spec";
import type winston from "winston";
import { loadSigningKey, type PublicKey, type SigningKey, trustList } from "../attest/keys.js";
import { MANIFEST_FILE, signManifest } from "../attest/manifest.js";
import { signedLine } from "../attest/statement.js";
import type { BatchExecutor, BatchJob } from "../prediction/executor.js";
import { isAbort } from "../prediction/lines.js";
import { GRADER_VERSION } from "../version.js";
import { batchPaths, defaultOutDir, fileSha256, openBatchFile } from "./batch-dir.js";
import { ResultCache } from "./cache.js";
import { readPredictions } from "./predictions.js";
import { ResultsWriter, readResultLines, rewriteResults } from "./results-file.js";
import { describeRegraded, LEGACY_FORMAT, staleParts } from "./resume.js";
import { summarize } from "./summary.js";
import { sweBenchReport } from "./swebench-report.js";
import { currentInputs, triageAll } from "./triage.js";

/** Progress of a batch, for a display. */
export type BatchEvent =
  | {
      type: "start";
      total: number;
      pending: number;
      resumed: number;
      /**
       * Recorded lines graded again because an input changed or their format is an older grader's,
       * and why ("diff changed 1, older results format 2").
       */
      regraded: number;
      regradedWhy: string;
      /** Lines in an older grader's format dropped from results.jsonl (those of ids still predicted are regraded). */
      legacyDropped: number;
      outDir: string;
      executor: string;
    }
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
  /** Count predictions on tasks no current sweep validated in the pass rate (default: listed apart). */
  allowUnvalidated?: boolean;
  signal?: AbortSignal;
  onEvent?: (event: BatchEvent) => void;
  logger?: winston.Logger;
  /** The key every result line is signed with (default: this installation's, keys.ts). */
  signingKey?: SigningKey;
  /** Public key files whose signed lines and cache entries are trusted besides the own key's. */
  trustKeys?: readonly string[];
}

export interface BatchOutcome {
  batchId: string;
  outDir: string;
  resultsFile: string;
  summaryFile: string;
  /** The same results in SWE-bench's run-report shape. */
  sweBenchReportFile: string;
  summary: BatchSummary;
  /** True when the signal stopped the batch; the results so far are kept and a rerun resumes. */
  interrupted: boolean;
}

/**
 * The output folder with what is already done in it, and the predictions still to grade. A recorded
 * line stands only for the inputs it was graded on: lines whose key differs from today's, and lines
 * in an older grader's format, are dropped from results.jsonl (rewritten atomically) and graded
 * again, and the reasons counted.
 */
async function openBatch(
  options: GradeBatchOptions,
  trusted: ReadonlyMap<string, PublicKey>,
  key: SigningKey,
) {
  const predictions = await readPredictions(options.predictionsFile);
  const sha = await fileSha256(options.predictionsFile);
  const paths = batchPaths(options.outDir ?? defaultOutDir(options.root, options.predictionsFile, sha));
  const batch = await openBatchFile(paths, options.predictionsFile, sha, options.root);
  // Every run says, signed, which predictions the batch grades: a line deleted later shows as missing.
  await writeJsonAtomic(
    join(paths.outDir, MANIFEST_FILE),
    signManifest(
      {
        batchId: batch.batchId,
        predictionsSha256: sha,
        writtenAt: new Date().toISOString(),
        predictions: predictions.map((p) => ({ id: p.id, task: p.task })),
        root: resolve(options.root),
        timeoutSeconds: options.timeoutSeconds ?? null,
      },
      key,
    ),
  );
  const current = await currentInputs(predictions, options);
  const previous = await readResultLines(paths.results);
  const lines = new Map<string, ResultLine>();
  /** What stays in results.jsonl: today's lines, and those of ids no longer in the predictions file. */
  const kept: ResultLine[] = [];
  const regraded = new Map<string, number>();
  let regradedCount = 0;
  for (const [id, line] of previous.lines) {
    const now = current.get(id);
    const why = now ? staleParts(line, now.key, trusted, batch.batchId) : [];
    if (why.length === 0) {
      kept.push(line);
      if (now) lines.set(id, line);
      continue;
    }
    regradedCount += 1;
    for (const w of why) regraded.set(w, (regraded.get(w) ?? 0) + 1);
  }
  const legacy = [...previous.legacy].filter((id) => current.has(id) && !previous.lines.has(id));
  if (legacy.length > 0) regraded.set(LEGACY_FORMAT, legacy.length);
  regradedCount += legacy.length;
  const rewrite = regradedCount > 0 || previous.legacy.size > 0;
  const validBytes = rewrite ? await rewriteResults(paths.results, kept) : previous.validBytes;
  const writer = await ResultsWriter.open(paths.results, validBytes);
  const stale = {
    count: regradedCount,
    why: describeRegraded(regraded),
    legacyDropped: previous.legacy.size,
  };
  return { predictions, paths, batchId: batch.batchId, lines, writer, current, stale };
}

/**
 * Grades every prediction of a JSON Lines file through `executor`, appending one line per prediction
 * to `<out>/results.jsonl` as results arrive (fsynced), then writes `<out>/summary.json`. Predictions
 * already in results.jsonl for today's inputs are skipped (resume; see resume.ts); results recorded for identical inputs are reused and
 * marked `cached`. A bad predictions file throws FILE_INVALID before anything runs. When `signal`
 * aborts, running grades are stopped, the summary of what is done is written, and `interrupted` is true.
 */
export async function gradeBatch(options: GradeBatchOptions): Promise<BatchOutcome> {
  const key = options.signingKey ?? loadSigningKey();
  const trusted = trustList(key, options.trustKeys);
  const { predictions, paths, batchId, lines, writer, current, stale } = await openBatch(
    options,
    trusted,
    key,
  );
  const pending = predictions.filter((p) => !lines.has(p.id));
  const cache = options.cache === false ? null : new ResultCache(options.root, trusted);
  const total = predictions.length;
  const { description } = options.executor;
  const start = {
    pending: pending.length,
    resumed: lines.size,
    regraded: stale.count,
    regradedWhy: stale.why,
    legacyDropped: stale.legacyDropped,
    outDir: paths.outDir,
    executor: description,
  };
  options.onEvent?.({ type: "start", total, ...start });
  const emit = async (settled: ResultLine, job?: BatchJob) => {
    if (lines.has(settled.id)) return;
    const now = current.get(settled.id);
    const inputs = now?.key;
    // Signed here, whoever graded it (a worker's answer was verified by the collector first).
    const line: ResultLine = signedLine(
      {
        ...settled,
        taskHash: job?.taskHash ?? inputs?.taskHash ?? null,
        graderVersion: GRADER_VERSION,
        timeoutSeconds: inputs?.timeoutSeconds ?? null,
        ...(now?.context.ok ? { validation: now.context.validation } : {}),
      },
      key,
      { batch: batchId },
    );
    lines.set(line.id, line);
    await writer.append(line);
    // A diff that changed since the batch hashed it was graded as it is now: not under the old key.
    const cacheInputs = job?.cacheInputs;
    if (cacheInputs && cache && !line.cached && line.diffSha256 === cacheInputs.diffSha256)
      await cache.put(cacheInputs, line);
    options.logger?.debug(
      `${line.id} ${line.task}: ${line.verdict ?? line.outcome} ${line.reason ?? line.error}`,
    );
    options.onEvent?.({ type: "result", line, done: lines.size, total });
  };
  let interrupted = false;
  try {
    const jobs = await triageAll(pending, current, options, cache, emit);
    const byId = new Map(jobs.map((j) => [j.id, j]));
    const signal = options.signal ? { signal: options.signal } : {};
    await options.executor.run(jobs, (line) => emit(line, byId.get(line.id)), { batchId, ...signal });
  } catch (error) {
    if (!isAbort(error) && !options.signal?.aborted) throw error;
    interrupted = true;
  } finally {
    await writer.close();
  }
  const settled = predictions.flatMap((p) => lines.get(p.id) ?? []);
  const validation = new Map<string, ValidationState>();
  for (const { context } of current.values())
    if (context.ok) validation.set(context.task, context.validation);
  const summary = summarize(total, settled, {
    validation,
    allowUnvalidated: options.allowUnvalidated === true,
  });
  await writeJsonAtomic(paths.summary, { batchId, graderVersion: GRADER_VERSION, ...summary });
  await writeJsonAtomic(paths.sweBenchReport, sweBenchReport(predictions, settled));
  const files = {
    outDir: paths.outDir,
    resultsFile: paths.results,
    summaryFile: paths.summary,
    sweBenchReportFile: paths.sweBenchReport,
  };
  return { batchId, ...files, summary, interrupted };
}
