import type Docker from "dockerode";
import pLimit from "p-limit";
import type { CacheInputs } from "./cache.js";
import { type GradeFn, gradePrediction, type PredictionRun } from "./grade-prediction.js";
import type { ResultLine } from "./results-file.js";

/** A prediction ready to grade: its task loaded and hashed, not quarantined, not in the cache. */
export interface BatchJob extends PredictionRun {
  diff: { text: string } | { path: string };
  taskHash: string;
  imageDigest: string | null;
  /** The cache inputs when the result may be recorded for reuse, else null. */
  cacheInputs: CacheInputs | null;
}

/** The batch a run belongs to (queue job ids derive from its id) and its stop signal. */
export interface RunContext {
  batchId: string;
  signal?: AbortSignal;
}

/**
 * Where a batch's grades run: here (local) or on queue workers. `run` calls `emit` exactly once per
 * job. When the context's `signal` aborts it stops everything it started, then rejects with the signal's reason.
 */
export interface BatchExecutor {
  /** For the output: "local, concurrency 2" or "queue redis://…". */
  readonly description: string;
  run(
    jobs: readonly BatchJob[],
    emit: (line: ResultLine) => Promise<void>,
    context: RunContext,
  ): Promise<void>;
}

export interface LocalExecutorOptions {
  root: string;
  grade: GradeFn;
  concurrency: number;
  infraRetries?: number;
  timeoutSeconds?: number;
  allowQuarantined?: boolean;
  docker?: Docker;
}

/** Grades here, `concurrency` at a time. On abort, running grades remove their containers before `run` rejects. */
export function localExecutor(options: LocalExecutorOptions): BatchExecutor {
  return {
    description: `local, concurrency ${options.concurrency}`,
    async run(jobs, emit, { signal }) {
      const limit = pLimit(options.concurrency);
      const settled = await Promise.allSettled(
        jobs.map((job) =>
          limit(async () => {
            signal?.throwIfAborted();
            const { line } = await gradePrediction(job, {
              root: options.root,
              grade: options.grade,
              ...(options.infraRetries !== undefined ? { infraRetries: options.infraRetries } : {}),
              ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
              ...(options.allowQuarantined ? { allowQuarantined: true } : {}),
              ...(signal ? { signal } : {}),
              ...(options.docker ? { docker: options.docker } : {}),
            });
            await emit(line);
          }),
        ),
      );
      signal?.throwIfAborted();
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
      if (failed) throw failed.reason;
    },
  };
}
