import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { type CommandLineSpec, findRoot, parseCommandLine, wholeNumberArg } from "@oracle/cli-kit";
import { z } from "zod";
import { queueConnection } from "../queue/connection.js";

export const BATCH_HELP = `Usage: oracle-grade --batch PREDICTIONS.jsonl [--out DIR] [--concurrency N] [--queue redis://HOST:PORT] [options]
       pnpm grade --batch PREDICTIONS.jsonl ...

Grades every prediction of a JSON Lines file, one {"id": ..., "task": ..., "diff": "<unified diff>"}
(or "diffPath": a file, relative to the predictions file) per line. Any bad line, or an id used twice,
stops the batch before anything runs (exit 2), with every problem and its line number.
SWE-bench's predictions are read too: {"instance_id": ..., "model_name_or_path": ..., "model_patch": ...}
per line, the instance id naming both the prediction and the task (other fields are ignored).

Writes <out>/results.jsonl (one line per prediction as it finishes: id, task, outcome, verdict,
reason or error, testsHash, log, seconds, cached, ...) and <out>/summary.json (pass rate over every
prediction that ran, an infra error after retries counted as not passed and listed apart;
quarantined tasks and errors listed apart, not counted; predictions on tasks no quarantine sweep
validated on today's task, image and grader (validation stale or never) listed apart with the
command that validates them, not counted unless --allow-unvalidated), and <out>/swebench-report.json, the same
results in the shape of SWE-bench's run report (resolved_ids, unresolved_ids, error_ids,
empty_patch_ids, completed_ids, incomplete_ids, submitted_ids and their counts, schema_version 2).
A rerun with the same --out resumes: a prediction already in results.jsonl is skipped when its
diff, task folder, image digest, grader and limit are the ones it was graded on; otherwise it is
graded again (the start line says how many and why).
A result recorded for the same image digest, task folder content, diff and grader version is reused
(cached: true in its line, "cached" in the progress) unless --no-cache.
<out>/manifest.json lists the predictions the batch grades, signed at every run: a line deleted
from results.jsonl shows as missing (pnpm gate reads it).
Every line is signed (its "attestation": an in-toto statement in a DSSE envelope, ed25519, with this
installation's key, ORACLE_SIGNING_KEY or ~/.config/oracle/signing-key.pem, made on first use); a
recorded line or cached result is reused only when its signature and claims verify, and a queue
worker's answer is counted only when signed by a trusted key for that very job (else INFRA_ERROR).
Check a results file with: oracle-verify results.jsonl.

Options:
  --batch FILE          the predictions (JSON Lines)
  --out DIR             output folder (default <root>/logs/batch/<file name>-<sha12 of the file>/)
  --concurrency N       grades running at once here (default ${availableParallelism()}, the number of cores)
  --queue URL           enqueue every prediction on the BullMQ queue at redis://HOST:PORT and collect
                        the results from oracle-worker processes instead of grading here
  --trust-key FILE      a worker's public key (PEM; print one with oracle-key): its signed
                        answers and results count too (repeatable; this installation's own key always does)
  --root DIR            folder holding tasks/ and images/ (default: nearest folder upwards with either)
  --timeout SECONDS     wall-clock limit per grade (default: each task's timeoutSeconds)
  --infra-retries N     runs after an INFRA_ERROR before it is reported as one (default 2)
  --no-cache            neither reuse nor record results in <root>/.oracle/cache/
  --no-pool             make each grade's containers when it starts, not ahead (local batches make
                        the next predictions' containers while the running ones grade: a warm pool
                        of as many as --concurrency, within the host's memory by the tasks' limits)
  --allow-quarantined   grade tasks listed in tasks/quarantine.json too
  --allow-unvalidated   count predictions on tasks that are not validated (stale, never) in the pass rate
  --json                print summary.json on stdout
  -h, --help            show this help

Exit codes: 0 every prediction graded (or its task quarantined); 1 some predictions ended in an infra
error or were not graded (unknown task, unreadable diff; see the summary); 2 nothing ran (bad
arguments, invalid predictions file); 3 the batch could not run (the engine, the queue or the host
failed, or a bug); 130/143 interrupted by SIGINT/SIGTERM (running grades stopped and removed,
results so far kept: rerun with the same --out to resume; a second signal exits at once).`;

/** The batch command line, parsed and checked. */
export interface BatchCliOptions {
  root: string;
  /** `--root` as given (resolved), else undefined: printed hints then name it (cli-kit `withRoot`). */
  rootGiven?: string;
  predictionsFile: string;
  outDir?: string;
  concurrency: number;
  queueUrl?: string;
  trustKeys: string[];
  timeoutSeconds?: number;
  infraRetries: number;
  cache: boolean;
  /** Make the next predictions' containers ahead (local batches; --no-pool turns it off). */
  pool: boolean;
  allowQuarantined: boolean;
  allowUnvalidated: boolean;
  json: boolean;
}

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const BATCH_LINE = {
  command: "oracle-grade --batch",
  flags: {
    batch: { type: "string" },
    out: { type: "string" },
    concurrency: { type: "string" },
    queue: { type: "string" },
    "trust-key": { type: "string", multiple: true },
    root: { type: "string" },
    timeout: { type: "string" },
    "infra-retries": { type: "string" },
    "no-cache": { type: "boolean" },
    "no-pool": { type: "boolean" },
    "allow-quarantined": { type: "boolean" },
    "allow-unvalidated": { type: "boolean" },
    json: { type: "boolean" },
  },
  schema: z.strictObject({
    batch: z.string().min(1, "name the predictions file"),
    out: z.string().min(1).optional(),
    concurrency: wholeNumberArg(1, 256).optional(),
    queue: z.string().min(1).optional(),
    trustKey: z.array(z.string().min(1)).default([]),
    root: z.string().min(1).optional(),
    timeout: wholeNumberArg(1, 86400).optional(),
    infraRetries: wholeNumberArg(0, 10).default(2),
    noCache: z.boolean().default(false),
    noPool: z.boolean().default(false),
    allowQuarantined: z.boolean().default(false),
    allowUnvalidated: z.boolean().default(false),
    json: z.boolean().default(false),
  }),
} satisfies CommandLineSpec<z.ZodType>;

/** Whether argv asks for a batch (`--batch` anywhere), so the grade CLI hands it over. */
export function isBatchInvocation(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === "--batch" || arg.startsWith("--batch="));
}

/** Maps a `--batch` argv to options; relative paths resolve against `cwd`. */
export function parseBatchArgs(argv: readonly string[], cwd: string): BatchCliOptions {
  const a = parseCommandLine(BATCH_LINE, argv);
  if (a.queue) queueConnection(a.queue);
  const at = (path: string) => resolve(cwd, path);
  return {
    root: a.root ? at(a.root) : findRoot(cwd),
    ...(a.root ? { rootGiven: at(a.root) } : {}),
    predictionsFile: at(a.batch),
    ...(a.out ? { outDir: at(a.out) } : {}),
    concurrency: a.concurrency ?? availableParallelism(),
    ...(a.queue ? { queueUrl: a.queue } : {}),
    trustKeys: a.trustKey.map(at),
    ...(a.timeout ? { timeoutSeconds: a.timeout } : {}),
    infraRetries: a.infraRetries,
    cache: !a.noCache,
    pool: !a.noPool,
    allowQuarantined: a.allowQuarantined,
    allowUnvalidated: a.allowUnvalidated,
    json: a.json,
  };
}
