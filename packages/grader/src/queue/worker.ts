import { resolve } from "node:path";
import { abortError } from "@oracle/cli-kit";
import { connectDocker } from "@oracle/engine";
import { type GradeJobResult, GradeJobSchema } from "@oracle/spec";
import { type Job, WaitingError, Worker } from "bullmq";
import type Docker from "dockerode";
import pLimit from "p-limit";
import type winston from "winston";
import { loadSigningKey, type SigningKey } from "../attest/keys.js";
import { attestLine, digestOf } from "../attest/statement.js";
import { dockerodeGradeDocker } from "../image/docker.js";
import { removeLeftovers } from "../image/leftovers.js";
import type { GradeFn } from "../prediction/grade-prediction.js";
import { isAbort, WORKER_NAME } from "../prediction/lines.js";
import { WarmPool } from "../run/warm-pool.js";
import { probeQueue, QUEUE_NAME, queueConnection } from "./connection.js";
import { type GradeLanes, processGradeJob } from "./process-job.js";

export interface WorkerOptions {
  queueUrl: string;
  root: string;
  grade: GradeFn;
  concurrency: number;
  /**
   * How long a job's lock lasts without renewal (default 30). A worker that dies holds its jobs that
   * long; then they are stalled and another worker takes them over.
   */
  lockSeconds?: number;
  /** How often leftover containers of dead graders on this host are removed (default 60). */
  leftoversEverySeconds?: number;
  logger: winston.Logger;
  docker?: Docker;
  /** The key its answers are signed with (default: this installation's, keys.ts). */
  signingKey?: SigningKey;
  /**
   * Make the containers of the jobs waiting for a lane ahead (warm-pool.ts; default true): the worker
   * takes up to twice `concurrency` jobs, grades `concurrency` at once, and the others' containers are
   * made while they wait.
   */
  pool?: boolean;
  /** The warm pool's memory budget in MiB (default: the host's memory). */
  poolMemoryMb?: number;
}

/** A running worker. `close()` stops taking jobs, aborts running grades and puts their jobs back in the queue. */
export interface RunningWorker {
  readonly name: string;
  close(): Promise<void>;
  /** Resolves when the worker has closed. */
  readonly closed: Promise<void>;
}

async function sweepLeftovers(docker: Docker, logger: winston.Logger): Promise<void> {
  try {
    const removed = await removeLeftovers(dockerodeGradeDocker(docker));
    if (removed.length > 0)
      logger.info(`removed ${removed.length} leftover grade container(s) of dead graders`);
  } catch (error) {
    logger.warn(`could not look for leftover containers: ${(error as Error).message}`);
  }
}

interface ProcessorContext {
  root: string;
  grade: GradeFn;
  docker: Docker;
  logger: winston.Logger;
  stop: AbortSignal;
  key: SigningKey;
  lanes: GradeLanes | null;
}

/**
 * `concurrency` lanes; a job waiting for one has its containers made meanwhile by the pool (when they
 * fit its memory budget). The ticket is released when the job's grade ends, used or not.
 */
function warmLanes(pool: WarmPool, concurrency: number, stop: AbortSignal): GradeLanes {
  const limit = pLimit(concurrency);
  return {
    async run(task, timeoutSeconds, grade) {
      const ticket = pool.fits(task) ? pool.warm(task, timeoutSeconds) : undefined;
      try {
        return await limit(() => {
          stop.throwIfAborted();
          return grade(ticket);
        });
      } finally {
        await ticket?.release();
      }
    },
  };
}

/**
 * The BullMQ processor: grades one job. An INFRA_ERROR with attempts left throws, so the queue retries
 * the job (maybe on another worker); on shutdown the job goes back to the queue without using an attempt.
 */
function jobProcessor(ctx: ProcessorContext) {
  const { logger } = ctx;
  return async (job: Job, token?: string): Promise<GradeJobResult> => {
    const data = GradeJobSchema.parse(job.data);
    logger.info(`${job.id}: ${data.task} ${data.id} (attempt ${job.attemptsMade + 1})`);
    try {
      const options = {
        root: ctx.root,
        grade: ctx.grade,
        worker: WORKER_NAME,
        signal: ctx.stop,
        docker: ctx.docker,
        ...(ctx.lanes ? { lanes: ctx.lanes } : {}),
      };
      const graded = await processGradeJob(data, options);
      // The answer names what it was graded on (this worker checked the task and grader match the
      // job's) and is signed, bound to this job: the collector counts nothing else.
      const line = { ...graded.line, taskHash: data.taskHash, graderVersion: data.graderVersion };
      const attemptsLeft = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
      if (line.outcome === "infra_error" && attemptsLeft) throw new Error(line.message);
      logger.info(
        `${job.id}: ${data.task} ${data.id} ${line.verdict ?? line.outcome} ${line.reason ?? line.error}`,
      );
      // Bound to the job as this worker ran it (its data, so every limit and flag) and to the whole
      // result returned beside the line (the sweep reads it).
      const attestation = attestLine(line, ctx.key, {
        job: job.id ?? null,
        batch: data.batchId,
        jobDigest: digestOf(data),
        resultDigest: digestOf(graded.result),
      });
      return { line, result: graded.result, attestation };
    } catch (error) {
      if (!isAbort(error) && !ctx.stop.aborted) throw error;
      await job.moveToWait(token);
      throw new WaitingError();
    }
  };
}

/**
 * Consumes grade jobs from the queue at `queueUrl`, `concurrency` at a time, grading each against this
 * host's root; with the warm pool, as many more jobs wait for a lane with their containers made ahead.
 * Stalled jobs of dead workers are taken over; leftover containers of dead graders on this host are
 * removed at start and periodically.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const root = resolve(options.root);
  const docker = options.docker ?? connectDocker();
  const { logger } = options;
  const lockMs = (options.lockSeconds ?? 30) * 1000;
  const stop = new AbortController();
  await sweepLeftovers(docker, logger);
  const key = options.signingKey ?? loadSigningKey();
  // A wrong URL, an untrusted certificate or a wrong password fails the start with a hint, instead of
  // a worker that retries for ever.
  await probeQueue(options.queueUrl);
  const pool =
    options.pool === false
      ? null
      : new WarmPool({
          root,
          docker: dockerodeGradeDocker(docker),
          concurrency: options.concurrency,
          ...(options.poolMemoryMb !== undefined ? { memoryBudgetMb: options.poolMemoryMb } : {}),
          warn: (message) => logger.warn(message),
        });
  const lanes = pool && warmLanes(pool, options.concurrency, stop.signal);
  const processor = jobProcessor({
    root,
    grade: options.grade,
    docker,
    logger,
    stop: stop.signal,
    key,
    lanes,
  });
  const worker = new Worker(QUEUE_NAME, processor, {
    connection: queueConnection(options.queueUrl),
    // Jobs past the lanes wait here, their containers made ahead; their locks are renewed meanwhile.
    concurrency: lanes ? 2 * options.concurrency : options.concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    maxStalledCount: 2,
    autorun: false,
  });
  worker.on("error", (error) => logger.warn(`queue: ${error.message}`));
  worker.on("stalled", (jobId) => {
    logger.warn(`${jobId}: stalled (its worker died); queued again`);
    void sweepLeftovers(docker, logger);
  });
  const timer = setInterval(
    () => void sweepLeftovers(docker, logger),
    (options.leftoversEverySeconds ?? 60) * 1000,
  );
  timer.unref();
  const running = worker.run();
  await worker.waitUntilReady();
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      clearInterval(timer);
      stop.abort(abortError("worker shutting down"));
      await worker.close();
      await running.catch(() => undefined);
      // What the pool made for jobs that went back to the queue.
      await pool?.close();
    })();
    return closing;
  };
  const closed = running.catch(() => undefined).then(() => pool?.close());
  return { name: WORKER_NAME, close, closed };
}
