import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { OracleError, wholeNumberArg } from "@oracle/spec";
import { z } from "zod";
import { findRoot, optionIssues } from "../cli-options.js";
import { queueConnection } from "./connection.js";

export const WORKER_HELP = `Usage: oracle-worker --queue redis://HOST:PORT [--concurrency N] [--root DIR]
       pnpm oracle-worker --queue redis://HOST:PORT ...

Consumes grade jobs from the BullMQ queue at the Redis URL and grades each one here, against this
host's root (tasks/, images/registry.json; images are pulled by their recorded digest). A job whose
task folder content hash, image digest or grader version differs from this host's is refused as
INFRA_ERROR (and retried elsewhere while attempts remain): a worker never grades the wrong thing.
Jobs of a worker that died are taken over after the lock expires.

Options:
  --queue URL          redis://[user:password@]HOST:PORT[/DB] (rediss:// for TLS)
  --concurrency N      grades running at once (default ${Math.max(1, Math.floor(availableParallelism() / 2))}, half the cores)
  --root DIR           folder holding tasks/ and images/ (default: nearest folder upwards with tasks/)
  --lock-seconds N     job lock lifetime; a dead worker's jobs are retried after about this long (default 30)
  -h, --help           show this help

Stops on SIGINT/SIGTERM: running grades are aborted, their containers removed, their jobs put back.
Exit codes: 0 stopped by a signal; 2 bad arguments; 1 the worker failed.`;

const whole = wholeNumberArg;

const ArgsSchema = z.strictObject({
  queue: z.string({ error: "give --queue redis://HOST:PORT" }).min(1),
  concurrency: whole(1, 256).optional(),
  root: z.string().min(1).optional(),
  lockSeconds: whole(2, 3600).default(30),
});

export interface WorkerCliOptions {
  help: boolean;
  queueUrl: string;
  concurrency: number;
  root: string;
  lockSeconds: number;
}

const usage = (message: string) => new OracleError("USAGE", message, { hint: "see oracle-worker --help" });

/** Maps argv to worker options; `--root` resolves against `cwd`. */
export function parseWorkerArgs(argv: readonly string[], cwd: string): WorkerCliOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        queue: { type: "string" },
        concurrency: { type: "string" },
        root: { type: "string" },
        "lock-seconds": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    throw usage((error as Error).message);
  }
  if (values.help) return { help: true, queueUrl: "", concurrency: 1, root: cwd, lockSeconds: 30 };
  const { "lock-seconds": lockSeconds, help: _h, ...rest } = values;
  const parsed = ArgsSchema.safeParse({ ...rest, lockSeconds });
  if (!parsed.success) throw usage(optionIssues(parsed.error));
  const a = parsed.data;
  queueConnection(a.queue);
  return {
    help: false,
    queueUrl: a.queue,
    concurrency: a.concurrency ?? Math.max(1, Math.floor(availableParallelism() / 2)),
    root: a.root ? resolve(cwd, a.root) : findRoot(cwd),
    lockSeconds: a.lockSeconds,
  };
}
