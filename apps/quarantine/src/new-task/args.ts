import { resolve } from "node:path";
import {
  type CommandLineSpec,
  findRoot,
  parseCommandLine,
  usageError,
  wholeNumberArg,
} from "@oracle/cli-kit";
import { z } from "zod";
import { FRAMEWORKS, type Framework } from "./templates.js";

export const HELP = `Usage: oracle-new-task --repo PATH --fix COMMIT [options]
       oracle-new-task --swebench DATASET.jsonl --repos DIR [options]
       oracle-new-task --mine PATH [--since DATE] [--limit N] [--jobs N] [options]
       pnpm new-task ...

Makes tasks/<id>/ from a bug-fix commit of a local repository, or from SWE-bench dataset rows, and
validates it at once (the sweep's checks: baseline and gold.diff, --repeat times), recording the
expected tests. Prints what to fix when the task is not healthy.

From a fix commit:
  the base commit is the fix's parent; the hidden tests are the test files the fix adds or changes,
  at the fix (test folders test/ tests/ testing/ __tests__/ spec/, or names test_*.py *_test.py
  *_test.go *.test.* *.spec.*; --tests replaces the rule); gold.diff is the rest of the fix; the
  mirror is a bundle of the base commit's history alone; the existing suite runs the base commit's
  other test files (never the base versions of the ones the fix changes or deletes, unless there is
  no other: then the base versions run, less the tests the fix rewrote); existing tests that fail at
  the base and with the fix alike are left out and named, and so is a module the tests cannot import.
  --repo PATH          a local clone (work tree or bare)
  --fix COMMIT         the commit that fixed the bug, with its tests
  --tests GLOB         a test file glob (repeatable): these files are the hidden tests

From SWE-bench (rows with instance_id, repo, base_commit, patch, test_patch, FAIL_TO_PASS,
PASS_TO_PASS, version; one JSON object per line):
  --swebench FILE      the dataset as JSON lines
  --repos DIR          local clones, as DIR/owner/name, DIR/owner__name or DIR/name
  FAIL_TO_PASS and PASS_TO_PASS become the expected tests; the hidden tests are the test patch's
  files. A bad row fails the import (file:LINE: field) and nothing is written.

Mining a history (--mine): the newest --limit commits (since --since) are looked at; each one that
is not a merge and changes both code and test files becomes a task as --fix makes it, and is
validated; the healthy ones are kept, and whatever an unhealthy one wrote is removed. Every commit's
outcome and the yield go to mine/<repo>-<key>/report.json and report.md under the root; a second run
with the same arguments skips the commits decided there and goes on.
  --mine PATH          a local clone (work tree or bare)
  --since DATE         only commits after DATE (YYYY-MM-DD, or any date git log --since reads as ISO)
  --limit N            commits looked at, newest first (default 200)
  --jobs N             candidates made and validated at once (default 1; they share the image lock)

Options:
  --id ID              the task id and folder name (default: <repo>-<fix sha>; SWE-bench: instance_id)
  --image NAME         the image under images/ (default: the runner's template image, copied under
                       images/ when missing; a JS repository gets its own image when the runner's
                       lacks its dependencies)
  --framework F        ${FRAMEWORKS.join(" | ")} (default: read from the hidden tests and package.json)
  --root DIR           the oracle root holding tasks/ and images/ (default: the nearest folder upwards
                       with tasks/ or images/, else the current folder)
  --repeat K           validation runs of each check (default 3; --mine: 2): a test whose outcome
                       differs between them is flaky and never recorded as expected
  --lock-wait SECS     how long to wait for another run (new-task, build-images) that is building
                       images under the root (default 1800; 0: do not wait)
  --no-validate        write the task only; validate later with pnpm quarantine-sweep --tasks ID
  --force              replace an existing tasks/<id>/
  --json               print {tasks: [{id, dir, status, ...}]} on stdout
  -h, --help           this text

Exit codes:
  0    every task was written and validated healthy (or written, with --no-validate); --mine: every
       commit looked at was decided, whatever the yield
  1    a task was written but is not healthy: the output says what to fix; --mine: some commits are
       left undecided (the engine or new-task failed on them): run the same command again to go on
  2    usage error or bad input (a commit, a row, a task folder that exists): nothing was written
  3    could not run: the Docker engine does not answer, an image did not build, another run kept
       images/registry.json past --lock-wait, an internal error: nothing was written under tasks/
  130  interrupted by Ctrl-C (143: SIGTERM): no grade is left running; a second signal exits at once
`;

/**
 * How many times new-task's validation runs each check (baseline, gold.diff) unless --repeat says.
 * The expected tests are recorded from these runs: a test is flaky to the sweep only when its outcome
 * differs between them (stability.ts `flippedTests`), so a test that fails one run in three passes all
 * of two runs nearly half the time and is recorded as expected. `--fix` and `--swebench` make one
 * task each and take 3 (a FAIL_TO_PASS test passes three gold runs, every existing and PASS_TO_PASS
 * test six); `--mine` takes 2, since a test one candidate finds flaky is left out of every later
 * candidate's suite (mine.ts `leftOut`), and each run of each candidate counts.
 */
export const DEFAULT_REPEAT = { task: 3, mine: 2 } as const;

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const NEW_TASK_LINE = {
  command: "oracle-new-task",
  flags: {
    repo: { type: "string" },
    fix: { type: "string" },
    swebench: { type: "string" },
    repos: { type: "string" },
    mine: { type: "string" },
    since: { type: "string" },
    limit: { type: "string" },
    jobs: { type: "string" },
    tests: { type: "string", multiple: true },
    id: { type: "string" },
    image: { type: "string" },
    framework: { type: "string" },
    root: { type: "string" },
    repeat: { type: "string" },
    "lock-wait": { type: "string" },
    "no-validate": { type: "boolean" },
    force: { type: "boolean" },
    json: { type: "boolean" },
  },
  schema: z.strictObject({
    repo: z.string().min(1).optional(),
    fix: z.string().min(1).optional(),
    swebench: z.string().min(1).optional(),
    repos: z.string().min(1).optional(),
    mine: z.string().min(1).optional(),
    since: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, "must be a date, as YYYY-MM-DD")
      .refine((d) => !Number.isNaN(Date.parse(d)), "is not a calendar date")
      .optional(),
    limit: wholeNumberArg(1, 100_000).optional(),
    jobs: wholeNumberArg(1, 16).optional(),
    tests: z.array(z.string().min(1, "a glob may not be empty")).default([]),
    id: z.string().min(1).optional(),
    image: z.string().min(1).optional(),
    framework: z.enum(FRAMEWORKS, { error: `must be one of ${FRAMEWORKS.join(", ")}` }).optional(),
    root: z.string().min(1).optional(),
    repeat: wholeNumberArg(1, 20).optional(),
    lockWait: wholeNumberArg(0, 86_400).default(1800),
    noValidate: z.boolean().default(false),
    force: z.boolean().default(false),
    json: z.boolean().default(false),
  }),
} satisfies CommandLineSpec<z.ZodType>;

type Line = z.output<typeof NEW_TASK_LINE.schema>;

/** What the command line asks for; every path is absolute. */
export type NewTaskOptions = Omit<Line, "root" | "noValidate" | "repeat"> & {
  root: string;
  /** Validation runs of each check: --repeat, else {@link DEFAULT_REPEAT}. */
  repeat: number;
  /** The --root DIR given, absolute (undefined: found from the working folder); hints carry it. */
  rootGiven?: string;
  validate: boolean;
  framework?: Framework;
};

const usage = (message: string) => usageError(NEW_TASK_LINE.command, message);

/** --mine's flags, and the flags that name one task (which --mine makes many of). */
function checkMine(o: Line): void {
  const mining = o.mine !== undefined;
  if (!mining) {
    const stray = (["since", "limit", "jobs"] as const).find((k) => o[k] !== undefined);
    if (stray) throw usage(`--${stray} belongs to --mine PATH (mining a history)`);
    return;
  }
  if (o.repo !== undefined || o.fix !== undefined || o.swebench !== undefined || o.repos !== undefined)
    throw usage("--mine makes tasks from a whole history: leave out --repo/--fix and --swebench/--repos");
  if (o.id) throw usage("--id names one task: mined tasks are named <repo>-<commit>");
  if (o.noValidate) throw usage("--mine keeps only the tasks validated healthy: leave out --no-validate");
  if (o.force)
    throw usage("--mine never replaces a task folder: a commit whose tasks/<id>/ exists is skipped");
}

/** The ways to make tasks exclude each other, and each needs both of its flags. */
function checkSource(o: Line): void {
  checkMine(o);
  if (o.mine !== undefined) return;
  const fixMode = o.repo !== undefined || o.fix !== undefined;
  const benchMode = o.swebench !== undefined || o.repos !== undefined;
  if (fixMode && benchMode)
    throw usage("--repo/--fix and --swebench/--repos make tasks in two different ways: use one");
  if (!fixMode && !benchMode)
    throw usage(
      "say where the task comes from: --repo PATH --fix COMMIT, --swebench FILE --repos DIR, or --mine PATH",
    );
  if (fixMode && (!o.repo || !o.fix))
    throw usage(o.repo ? "--fix COMMIT is missing" : "--repo PATH is missing");
  if (benchMode && (!o.swebench || !o.repos))
    throw usage(
      o.swebench ? "--repos DIR is missing (the folder of local clones)" : "--swebench FILE is missing",
    );
  if (benchMode && o.id) throw usage("--id names one task: SWE-bench tasks are named by their instance_id");
  if (benchMode && o.tests.length > 0)
    throw usage("--tests splits a fix commit: SWE-bench rows bring their test_patch");
}

/** Parses argv into the options, paths resolved against `cwd` (the folder the command was typed in). */
export function parseNewTaskArgs(argv: readonly string[], cwd: string): NewTaskOptions {
  const line = parseCommandLine(NEW_TASK_LINE, argv);
  checkSource(line);
  const { root, noValidate, repo, swebench, repos, mine, repeat, ...rest } = line;
  const at = (path: string) => resolve(cwd, path);
  return {
    ...rest,
    repeat: repeat ?? (mine !== undefined ? DEFAULT_REPEAT.mine : DEFAULT_REPEAT.task),
    root: root ? at(root) : findRoot(cwd),
    ...(root ? { rootGiven: at(root) } : {}),
    validate: !noValidate,
    ...(repo ? { repo: at(repo) } : {}),
    ...(swebench ? { swebench: at(swebench) } : {}),
    ...(repos ? { repos: at(repos) } : {}),
    ...(mine ? { mine: at(mine) } : {}),
  };
}
