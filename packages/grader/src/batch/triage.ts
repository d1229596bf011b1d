import { resolve } from "node:path";
import type { CacheInputs, ResultLine } from "@oracle/spec";
import type { BatchJob } from "../prediction/executor.js";
import { lineFromCache, lineFromError } from "../prediction/lines.js";
import { diffSha256, quarantineError } from "../task/prepare.js";
import { GRADER_VERSION } from "../version.js";
import type { ResultCache } from "./cache.js";
import type { Prediction } from "./predictions.js";
import type { LineKey } from "./resume.js";
import { loadTaskContexts, type TaskContext } from "./task-context.js";

/** What a batch's triage needs of its options. */
export interface TriageOptions {
  root: string;
  timeoutSeconds?: number;
  allowQuarantined?: boolean;
}

/** Today's inputs of one prediction: its task's context and its diff's hash. */
export interface Current {
  context: TaskContext;
  sha: string | null;
  key: LineKey;
}

/** Each prediction's inputs today, its task prepared once (task-context.ts). */
export async function currentInputs(
  predictions: readonly Prediction[],
  options: TriageOptions,
): Promise<Map<string, Current>> {
  const contexts = await loadTaskContexts(
    resolve(options.root),
    predictions.map((p) => p.task),
  );
  const current = new Map<string, Current>();
  for (const p of predictions) {
    const context = contexts.get(p.task) as TaskContext;
    // An unreadable diff has no hash: its grade says DIFF_UNREADABLE.
    const sha = await diffSha256(p.diff).catch(() => null);
    const key: LineKey = {
      diffSha256: sha,
      taskHash: context.ok ? context.taskHash : null,
      imageDigest: context.ok ? context.imageDigest : null,
      graderVersion: GRADER_VERSION,
      timeoutSeconds: context.ok ? (options.timeoutSeconds ?? context.timeoutSeconds) : null,
    };
    current.set(p.id, { context, sha, key });
  }
  return current;
}

type Triage = { line: ResultLine } | { job: BatchJob; inputs: CacheInputs | null };

/** A line for a prediction settled without a run, or its job and cache inputs. */
function triage(p: Prediction, now: Current, options: TriageOptions): Triage {
  const { context, sha } = now;
  const subject = { id: p.id, task: p.task, diffSha256: sha };
  if (!context.ok) return { line: lineFromError(subject, context.error, { worker: null }) };
  if (context.quarantine !== null && !options.allowQuarantined)
    return { line: lineFromError(subject, quarantineError(p.task, context.quarantine), { worker: null }) };
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
  const job: BatchJob = {
    id: p.id,
    task: p.task,
    diff: p.diff,
    diffSha256: sha,
    prepared: context.prepared,
    taskHash: context.taskHash,
    imageDigest: context.imageDigest,
    cacheInputs: inputs,
  };
  return { job, inputs };
}

/** Triage of the pending predictions: lines for those settled without a run, jobs for the rest. */
export async function triageAll(
  pending: readonly Prediction[],
  current: ReadonlyMap<string, Current>,
  options: TriageOptions,
  cache: ResultCache | null,
  emit: (line: ResultLine) => Promise<void>,
): Promise<BatchJob[]> {
  const jobs: BatchJob[] = [];
  for (const p of pending) {
    const t = triage(p, current.get(p.id) as Current, options);
    if ("line" in t) {
      await emit(t.line);
      continue;
    }
    const hit = cache && t.inputs ? await cache.get(t.inputs) : null;
    if (hit) await emit(lineFromCache(t.job, hit));
    else jobs.push(t.job);
  }
  return jobs;
}
