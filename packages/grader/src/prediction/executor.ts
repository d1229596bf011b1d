import type { CacheInputs, ResultLine } from "@oracle/spec";
import type { DiffSource, PreparedTask } from "../task/prepare.js";
import type { PredictionRun } from "./grade-prediction.js";

/** A prediction ready to grade: its task prepared and hashed, not quarantined, not in the cache. */
export interface BatchJob extends PredictionRun {
  diff: DiffSource;
  /** The task, prepared once for all its predictions (prepare.ts). */
  prepared: PreparedTask;
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
 * Where a batch's grades run: here (batch/executor.ts) or on queue workers (queue/queue-executor.ts).
 * `run` calls `emit` exactly once per job. When the context's `signal` aborts it stops everything it
 * started, then rejects with the signal's reason.
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
