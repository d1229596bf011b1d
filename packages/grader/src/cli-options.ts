import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { OracleError } from "@oracle/spec";
import { z } from "zod";

/** A schema's complaints about parsed options, one per line, each named by its flag (`--concurrency: ...`). */
export function optionIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `--${i.path.join(".")}: ${i.message}` : i.message))
    .join("\n");
}

export const HELP = `Usage: oracle-grade [--root DIR] TASK (--diff FILE | --baseline) [options]
       pnpm grade [--root DIR] TASK (--diff FILE | --baseline) [options]
       oracle-grade --batch PREDICTIONS.jsonl [--out DIR] [--concurrency N] [--queue URL]  (see --batch --help)

Grades one task inside its pinned, network-less container: the diff (or, with --baseline, nothing)
against the task's existing suite and then its hidden tests.

Options:
  --root DIR           folder holding tasks/ and images/ (default: nearest folder upwards with tasks/)
  --diff FILE          the diff to grade (unified diff, e.g. git diff output)
  --baseline           run without a diff (a healthy task: existing PASS, hidden FAIL, so exit 1)
  --log FILE           the oracle log (JSON lines); default <root>/logs/grade/<task>-<utc>-<diffsha12>.jsonl
  --result FILE        write the result as JSON (verdict, reason, tests per suite, image, diff hashes, timings)
  --timeout SECONDS    wall-clock limit for the whole run (default: the task's timeoutSeconds)
  --allow-quarantined  grade a task listed in tasks/quarantine.json
  -h, --help           show this help

Output: stdout is exactly one line, tests_hash=<sha256 of the sorted ids of the tests that ran>;
stderr is a short account; the oracle log holds everything.
Exit codes: 0 PASS, 1 FAIL (any reason, see the result's reason code), 2 no run happened (bad
arguments, unknown/invalid/quarantined task, unreadable diff), 130/143 interrupted by SIGINT/SIGTERM
(the container is removed; no tests_hash line).`;

/** The command line, parsed and checked. */
export interface CliOptions {
  help: boolean;
  root: string;
  task: string;
  mode: "grade" | "baseline";
  diffPath?: string;
  logFile?: string;
  resultFile?: string;
  timeoutSeconds?: number;
  allowQuarantined: boolean;
}

const ArgsSchema = z
  .strictObject({
    task: z.string().min(1, "name the task"),
    root: z.string().min(1).optional(),
    diff: z.string().min(1).optional(),
    baseline: z.boolean().default(false),
    log: z.string().min(1).optional(),
    result: z.string().min(1).optional(),
    timeout: z
      .string()
      .regex(/^[1-9]\d*$/, "must be a whole number of seconds")
      .transform(Number)
      .pipe(z.number().max(86400, "at most 86400"))
      .optional(),
    allowQuarantined: z.boolean().default(false),
  })
  .refine((a) => (a.diff === undefined) === a.baseline, {
    message: "give exactly one of --diff FILE or --baseline",
    path: ["diff"],
  });

/** The nearest folder upwards from `start` that holds tasks/, else `start`. */
export function findRoot(start: string): string {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "tasks"))) return dir;
    if (dirname(dir) === dir) return resolve(start);
  }
}

/**
 * Maps argv to options. Relative paths resolve against `cwd` (for `pnpm grade`, the folder the user
 * typed it in: pnpm runs scripts from the workspace root but passes INIT_CWD).
 */
export function parseCliArgs(argv: readonly string[], cwd: string): CliOptions {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        root: { type: "string" },
        diff: { type: "string" },
        baseline: { type: "boolean" },
        log: { type: "string" },
        result: { type: "string" },
        timeout: { type: "string" },
        "allow-quarantined": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new OracleError("USAGE", (error as Error).message, { hint: "see oracle-grade --help" });
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true, root: cwd, task: "", mode: "baseline", allowQuarantined: false };
  if (positionals.length > 1)
    throw new OracleError("USAGE", `one task only, got: ${positionals.join(" ")}`, {
      hint: "see oracle-grade --help",
    });
  const { "allow-quarantined": allowQuarantined, help: _help, ...rest } = values;
  const args = ArgsSchema.safeParse({ ...rest, task: positionals[0] ?? "", allowQuarantined });
  if (!args.success)
    throw new OracleError("USAGE", optionIssues(args.error), { hint: "see oracle-grade --help" });
  const a = args.data;
  const at = (path: string) => resolve(cwd, path);
  return {
    help: false,
    root: a.root ? at(a.root) : findRoot(cwd),
    task: a.task,
    mode: a.baseline ? "baseline" : "grade",
    ...(a.diff ? { diffPath: at(a.diff) } : {}),
    ...(a.log ? { logFile: at(a.log) } : {}),
    ...(a.result ? { resultFile: at(a.result) } : {}),
    ...(a.timeout ? { timeoutSeconds: a.timeout } : {}),
    allowQuarantined: a.allowQuarantined,
  };
}

/** Where relative paths on the command line start: INIT_CWD when run as `pnpm grade`, else the cwd. */
export function invocationCwd(env: NodeJS.ProcessEnv, cwd: string): string {
  return env.npm_lifecycle_event === "grade" && env.INIT_CWD ? env.INIT_CWD : cwd;
}
