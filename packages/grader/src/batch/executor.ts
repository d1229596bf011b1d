import type Docker from "dockerode";
import pLimit from "p-limit";
import type { BatchExecutor } from "../prediction/executor.js";
import { type GradeFn, gradePrediction } from "../prediction/grade-prediction.js";

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
              prepared: job.prepared,
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
