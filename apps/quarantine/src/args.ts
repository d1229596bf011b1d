import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import {
  type CommandLineSpec,
  findRoot,
  parseCommandLine,
  usageError,
  wholeNumberArg,
} from "@oracle/cli-kit";
import { z } from "zod";

export const HELP = `Usage: oracle-quarantine-sweep [options] [GLOB...]

Runs every task's baseline (and its gold.diff, where it has one) in the oracle, K times, flags the
tasks that cannot be trusted, updates tasks/quarantine.json and writes report.json, report.md and
report.html, and records in tasks/health.json what each task was judged on (its content hash, image
digest and grader version).

Options:
  --root DIR          the oracle root holding tasks/, images/ and logs/ (default: the nearest folder
                      upwards with tasks/ or images/)
  --tasks GLOB...     sweep only the tasks whose id matches a glob (bare GLOB arguments count too;
                      several globs may also be given as one list separated by commas);
                      only their entries in tasks/quarantine.json are updated
  --changed           sweep only the tasks that are not current: never judged, or whose task folder,
                      image digest or grader changed since tasks/health.json recorded them
  --watch             keep running: a --changed sweep now, and another whenever a task folder or
                      images/registry.json (an image's recorded digest) changes; one report per pass
                      (stdout; one JSON line per pass with --json); Ctrl-C stops (exit 0)
  --concurrency N     grades running at once (default: the number of cores, ${availableParallelism()} here)
  --repeat K          run every check K times; differences are FLAKY / TESTS_HASH_UNSTABLE (default 1)
  --report DIR        where the reports go (default: <root>/logs/sweep/<utc>/)
  --infra-retries N   retries of a run the engine failed (INFRA_ERROR) before it counts (default 2)
  --queue URL         run the grades on oracle-worker processes through the BullMQ queue at
                      redis://HOST:PORT instead of here (oracle logs are then on the workers' hosts)
  --trust-key FILE    with --queue: a worker's public key (PEM, from oracle-key on its host) whose
                      signed answers count (repeatable; this installation's own key always does)
  --json              print report.json on stdout
  --fail-on-new       exit 1 when a task was newly quarantined
  -h, --help          this text

Exit codes:
  0    the sweep ran (whatever it found); with --watch, stopped by Ctrl-C
  1    --fail-on-new and at least one task was newly quarantined
  2    usage error, or a file the sweep reads is invalid (nothing was run)
  3    the sweep could not run: the Docker engine does not answer, or an internal error
  130  interrupted by Ctrl-C (143: SIGTERM): every running grade was stopped and removed, nothing
       was written; a second signal exits at once
`;

const count = wholeNumberArg;

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const SWEEP_LINE = {
  command: "oracle-quarantine-sweep",
  flags: {
    root: { type: "string" },
    tasks: { type: "string", multiple: true },
    changed: { type: "boolean" },
    watch: { type: "boolean" },
    concurrency: { type: "string" },
    repeat: { type: "string" },
    report: { type: "string" },
    "infra-retries": { type: "string" },
    queue: { type: "string" },
    "trust-key": { type: "string", multiple: true },
    json: { type: "boolean" },
    "fail-on-new": { type: "boolean" },
  },
  positionals: { field: "tasks", name: "GLOB", multiple: true },
  schema: z.strictObject({
    root: z.string().min(1).optional(),
    // `--tasks a,b` is two globs (a comma inside braces stays: `{a,b}-*` is one glob).
    tasks: z
      .array(z.string().min(1, "a glob may not be empty"))
      .default([])
      .transform((globs) => globs.flatMap((glob) => glob.split(/,(?![^{]*\})/).filter((g) => g !== ""))),
    changed: z.boolean().default(false),
    watch: z.boolean().default(false),
    concurrency: count(1, 64).optional(),
    repeat: count(1, 50).default(1),
    report: z.string().min(1).optional(),
    infraRetries: count(0, 10).default(2),
    queue: z
      .string()
      .regex(/^rediss?:\/\/./, "must be a redis:// url, e.g. redis://127.0.0.1:6379")
      .optional(),
    trustKey: z.array(z.string().min(1)).default([]),
    json: z.boolean().default(false),
    failOnNew: z.boolean().default(false),
  }),
} satisfies CommandLineSpec<z.ZodType>;

/** What the command line asks for; `root` and `report` are absolute. */
export type CliOptions = Omit<z.output<typeof SWEEP_LINE.schema>, "root"> & {
  root: string;
  /** The --root DIR given, absolute (undefined: found from the working folder); hints carry it. */
  rootGiven?: string;
};

const usage = (message: string) => usageError(SWEEP_LINE.command, message);

/**
 * Parses argv (without node and the script) into the sweep's options, paths resolved against `cwd`
 * (the folder the command was typed in); a USAGE OracleError on any problem.
 */
export function parseCliArgs(argv: readonly string[], cwd: string): CliOptions {
  const { root, report, ...options } = parseCommandLine(SWEEP_LINE, argv);
  if (options.watch && options.failOnNew)
    throw usage("--watch and --fail-on-new exclude each other: a watch has no single outcome to fail");
  if (options.watch && report)
    throw usage("--watch writes one report per pass (logs/sweep/<utc>/); drop --report");
  return {
    ...options,
    trustKey: options.trustKey.map((file: string) => resolve(cwd, file)),
    root: root ? resolve(cwd, root) : findRoot(cwd),
    ...(root ? { rootGiven: resolve(cwd, root) } : {}),
    ...(report ? { report: resolve(cwd, report) } : {}),
  };
}
