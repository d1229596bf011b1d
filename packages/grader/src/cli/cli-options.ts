import { resolve } from "node:path";
import { type CommandLineSpec, findRoot, parseCommandLine } from "@oracle/cli-kit";
import { z } from "zod";
import { GRADE_FLAGS } from "./grade-flags.js";

export const HELP = `Usage: oracle-grade [--root DIR] TASK (--diff FILE | --baseline) [options]
       pnpm grade [--root DIR] TASK (--diff FILE | --baseline) [options]
       oracle-grade --batch PREDICTIONS.jsonl [--out DIR] [--concurrency N] [--queue URL]  (see --batch --help)
       oracle-grade --serve [--root DIR]  (a local grader this command reaches; see --serve --help)

Grades one task inside its pinned, network-less container: the diff (or, with --baseline, nothing)
against the task's existing suite and then its hidden tests.

Options:
  --root DIR           folder holding tasks/ and images/ (default: nearest folder upwards with either)
  --diff FILE          the diff to grade (unified diff, e.g. git diff output)
  --baseline           run without a diff (a healthy task: existing PASS, hidden FAIL, so exit 1)
  --log FILE           the oracle log (JSON lines); default <root>/logs/grade/<task>-<utc>-<diffsha12>-<run>.jsonl
  --result FILE        write the result as JSON (verdict, reason, tests per suite, image, diff hashes, timings)
  --timeout SECONDS    wall-clock limit for the whole run (default: the task's timeoutSeconds)
  --allow-quarantined  grade a task listed in tasks/quarantine.json
  -h, --help           show this help

Output: stdout is exactly one line, tests_hash=<sha256 of the sorted ids of the tests that ran>;
stderr is a short account; the oracle log holds everything.
Exit codes: 0 PASS, 1 FAIL (any reason, see the result's reason code), 2 no run happened (bad
arguments, unknown/invalid/quarantined task, unreadable diff), 3 the run could not be carried out
(the engine or the host failed, or a bug), 130/143 interrupted by SIGINT/SIGTERM (the container is
removed; a second signal exits at once and leaves it to the next grade's start). Only 0 and 1
print the tests_hash line.`;

/** The command line, parsed and checked. */
export interface CliOptions {
  root: string;
  /** The --root DIR given, absolute (undefined: found from the working folder); hints carry it. */
  rootGiven?: string;
  task: string;
  mode: "grade" | "baseline";
  diffPath?: string;
  logFile?: string;
  resultFile?: string;
  timeoutSeconds?: number;
  allowQuarantined: boolean;
}

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const GRADE_LINE = {
  command: "oracle-grade",
  flags: GRADE_FLAGS,
  positionals: { field: "task", name: "TASK" },
  schema: z
    .strictObject({
      task: z.string({ error: "name the task" }).min(1, "name the task"),
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
    }),
} satisfies CommandLineSpec<z.ZodType>;

/** Maps argv to options; relative paths resolve against `cwd`, the folder the user typed the command in. */
export function parseCliArgs(argv: readonly string[], cwd: string): CliOptions {
  const a = parseCommandLine(GRADE_LINE, argv);
  const at = (path: string) => resolve(cwd, path);
  return {
    root: a.root ? at(a.root) : findRoot(cwd),
    ...(a.root ? { rootGiven: at(a.root) } : {}),
    task: a.task,
    mode: a.baseline ? "baseline" : "grade",
    ...(a.diff ? { diffPath: at(a.diff) } : {}),
    ...(a.log ? { logFile: at(a.log) } : {}),
    ...(a.result ? { resultFile: at(a.result) } : {}),
    ...(a.timeout ? { timeoutSeconds: a.timeout } : {}),
    allowQuarantined: a.allowQuarantined,
  };
}
