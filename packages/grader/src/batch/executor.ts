import type Docker from "dockerode";
import pLimit from "p-limit";
import { dockerodeGradeDocker } from "../image/docker.js";
import type { BatchExecutor, BatchJob } from "../prediction/executor.js";
import { type GradeFn, gradePrediction } from "../prediction/grade-prediction.js";
import { WarmPool, type WarmTicket } from "../run/warm-pool.js";

export interface LocalExecutorOptions {
  root: string;
  grade: GradeFn;
  concurrency: number;
  infraRetries?: number;
  timeoutSeconds?: number;
  allowQuarantined?: boolean;
  docker?: Docker;
  /**
   * Make the next predictions' containers ahead while the running ones grade (warm-pool.ts; default
   * true): as many slots ahead as grades run at once, within the memory budget.
   */
  pool?: boolean;
  /** The warm pool's memory budget in MiB (default: the host's memory). */
  poolMemoryMb?: number;
  warn?: (message: string) => void;
}

/**
 * Grades here, `concurrency` at a time, the next predictions' containers made ahead by a warm pool.
 * On abort, running grades remove their containers and the pool what it made before `run` rejects.
 */
export function localExecutor(options: LocalExecutorOptions): BatchExecutor {
  return {
    description: `local, concurrency ${options.concurrency}${options.pool === false ? "" : ", warm pool"}`,
    async run(jobs, emit, { signal }) {
      const limit = pLimit(options.concurrency);
      const ahead = options.pool === false ? null : aheadOf(jobs, options);
      try {
        ahead?.topUp();
        const settled = await Promise.allSettled(
          jobs.map((job) =>
            limit(async () => {
              const warm = ahead?.take(job);
              try {
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
                  ...(warm ? { warm } : {}),
                });
                await emit(line);
              } finally {
                await warm?.release();
              }
            }),
          ),
        );
        signal?.throwIfAborted();
        const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
        if (failed) throw failed.reason;
      } finally {
        await ahead?.pool.close();
      }
    },
  };
}

/** The warm pool of one run of the executor: tickets for the next jobs, in the order they start. */
function aheadOf(jobs: readonly BatchJob[], options: LocalExecutorOptions) {
  const pool = new WarmPool({
    root: options.root,
    docker: dockerodeGradeDocker(options.docker),
    concurrency: options.concurrency,
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    ...(options.poolMemoryMb !== undefined ? { memoryBudgetMb: options.poolMemoryMb } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
  });
  const tickets = new Map<string, WarmTicket>();
  let next = 0;
  const topUp = () => {
    // Tickets made and not yet taken by a starting grade: the slots ahead.
    while (next < jobs.length && tickets.size < options.concurrency) {
      const job = jobs[next]!;
      if (!pool.fits(job.prepared)) return;
      tickets.set(job.id, pool.warm(job.prepared));
      next += 1;
    }
  };
  return {
    pool,
    topUp,
    /** The job's ticket (made now when the pool had not reached it), and the next job's slot started. */
    take(job: BatchJob): WarmTicket | undefined {
      const ticket = tickets.get(job.id);
      tickets.delete(job.id);
      topUp();
      return ticket;
    },
  };
}
