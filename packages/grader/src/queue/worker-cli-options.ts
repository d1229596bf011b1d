import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { type CommandLineSpec, findRoot, parseCommandLine, wholeNumberArg } from "@oracle/cli-kit";
import { z } from "zod";
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
  --root DIR           folder holding tasks/ and images/ (default: nearest folder upwards with either)
  --lock-seconds N     job lock lifetime; a dead worker's jobs are retried after about this long (default 30)
  --no-pool            take only as many jobs as run at once, each making its containers when it starts
                       (default: as many more jobs wait for a lane, their containers made ahead: a warm pool)
  -h, --help           show this help

Stops on SIGINT/SIGTERM: running grades are aborted, their containers removed, their jobs put back;
a second signal exits at once (its containers are removed by the next grader to start on this host,
its jobs taken over once their lock expires).
Exit codes: 0 stopped by a signal; 2 bad arguments; 3 the worker failed (the queue, the engine or
the host, or a bug); 130/143 a second signal.`;

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const WORKER_LINE = {
  command: "oracle-worker",
  flags: {
    queue: { type: "string" },
    concurrency: { type: "string" },
    root: { type: "string" },
    "lock-seconds": { type: "string" },
    "no-pool": { type: "boolean" },
  },
  schema: z.strictObject({
    queue: z.string({ error: "give --queue redis://HOST:PORT" }).min(1),
    concurrency: wholeNumberArg(1, 256).optional(),
    root: z.string().min(1).optional(),
    lockSeconds: wholeNumberArg(2, 3600).default(30),
    noPool: z.boolean().default(false),
  }),
} satisfies CommandLineSpec<z.ZodType>;

/** The worker's command line, parsed and checked. */
export interface WorkerCliOptions {
  queueUrl: string;
  concurrency: number;
  root: string;
  lockSeconds: number;
  /** Make the containers of jobs waiting for a lane ahead (--no-pool turns it off). */
  pool: boolean;
}

/** Maps argv to worker options; `--root` resolves against `cwd`. */
export function parseWorkerArgs(argv: readonly string[], cwd: string): WorkerCliOptions {
  const a = parseCommandLine(WORKER_LINE, argv);
  queueConnection(a.queue);
  return {
    queueUrl: a.queue,
    concurrency: a.concurrency ?? Math.max(1, Math.floor(availableParallelism() / 2)),
    root: a.root ? resolve(cwd, a.root) : findRoot(cwd),
    lockSeconds: a.lockSeconds,
    pool: !a.noPool,
  };
}
