import { parseArgs } from "node:util";
import { OracleError, wholeNumberArg } from "@oracle/spec";
import { z } from "zod";
import { FRAMEWORKS, type Framework } from "./templates.js";

export const USAGE = `Usage: oracle-new-task --repo PATH --fix COMMIT [options]
       oracle-new-task --swebench DATASET.jsonl --repos DIR [options]
       pnpm new-task ...

Makes tasks/<id>/ from a bug-fix commit of a local repository, or from SWE-bench dataset rows, and
validates it at once (the sweep's checks: baseline and gold.diff, --repeat times), recording the
expected tests. Prints what to fix when the task is not healthy.

From a fix commit:
  the base commit is the fix's parent; the hidden tests are the test files the fix adds or changes,
  at the fix (test folders test/ tests/ testing/ __tests__/ spec/, or names test_*.py *_test.py
  *_test.go *.test.* *.spec.*; --tests replaces the rule); gold.diff is the rest of the fix; the
  mirror is a bundle of the base commit's history alone; the existing suite runs the base commit's
  other test files (never the base versions of the ones the fix changes or deletes).
  --repo PATH          a local clone (work tree or bare)
  --fix COMMIT         the commit that fixed the bug, with its tests
  --tests GLOB         a test file glob (repeatable): these files are the hidden tests

From SWE-bench (rows with instance_id, repo, base_commit, patch, test_patch, FAIL_TO_PASS,
PASS_TO_PASS, version; one JSON object per line):
  --swebench FILE      the dataset as JSON lines
  --repos DIR          local clones, as DIR/owner/name, DIR/owner__name or DIR/name
  FAIL_TO_PASS and PASS_TO_PASS become the expected tests; the hidden tests are the test patch's
  files. A bad row fails the import (file:LINE: field) and nothing is written.

Options:
  --id ID              the task id and folder name (default: <repo>-<fix sha>; SWE-bench: instance_id)
  --image NAME         the image under images/ (default: the runner's template image, copied under
                       images/ when missing; a JS repository gets its own image when the runner's
                       lacks its dependencies)
  --framework F        ${FRAMEWORKS.join(" | ")} (default: read from the hidden tests and package.json)
  --root DIR           the oracle root holding tasks/ and images/ (default: the current folder)
  --repeat K           validation runs of each check (default 2)
  --no-validate        write the task only; validate later with pnpm quarantine-sweep --tasks ID
  --force              replace an existing tasks/<id>/
  --json               print {tasks: [{id, dir, status, ...}]} on stdout
  -h, --help           this text

Exit codes:
  0    every task was written and validated healthy (or written, with --no-validate)
  1    a task was written but is not healthy: the output says what to fix
  2    usage error or bad input (a commit, a row, a task folder that exists): nothing was written
  3    could not run: the Docker engine does not answer, an image did not build, an internal error
  130  interrupted: no grade is left running
`;

const ArgvSchema = z.strictObject({
  repo: z.string().min(1).optional(),
  fix: z.string().min(1).optional(),
  swebench: z.string().min(1).optional(),
  repos: z.string().min(1).optional(),
  tests: z.array(z.string().min(1, "a glob may not be empty")).default([]),
  id: z.string().min(1).optional(),
  image: z.string().min(1).optional(),
  framework: z.enum(FRAMEWORKS).optional(),
  root: z.string().min(1).default("."),
  repeat: wholeNumberArg(1, 20).default(2),
  validate: z.boolean().default(true),
  force: z.boolean().default(false),
  json: z.boolean().default(false),
});

export type NewTaskOptions = z.output<typeof ArgvSchema> & { framework?: Framework };
export type ParsedArgs = { help: true } | { help: false; options: NewTaskOptions };

function usage(message: string): OracleError {
  return new OracleError("USAGE", message, { hint: "see oracle-new-task --help" });
}

export function parseNewTaskArgs(argv: readonly string[]): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: false,
      strict: true,
      options: {
        repo: { type: "string" },
        fix: { type: "string" },
        swebench: { type: "string" },
        repos: { type: "string" },
        tests: { type: "string", multiple: true },
        id: { type: "string" },
        image: { type: "string" },
        framework: { type: "string" },
        root: { type: "string" },
        repeat: { type: "string" },
        "no-validate": { type: "boolean" },
        force: { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (cause) {
    throw usage((cause as Error).message);
  }
  const v = parsed.values as Record<string, string | string[] | boolean | undefined>;
  if (v.help) return { help: true };
  const result = ArgvSchema.safeParse({
    repo: v.repo,
    fix: v.fix,
    swebench: v.swebench,
    repos: v.repos,
    tests: v.tests,
    id: v.id,
    image: v.image,
    framework: v.framework,
    root: v.root,
    repeat: v.repeat,
    validate: !v["no-validate"],
    force: v.force,
    json: v.json,
  });
  if (!result.success)
    throw usage(
      result.error.issues
        .map(
          (i) =>
            `--${String(i.path[0] ?? "")}: ${i.path[0] === "framework" ? `must be one of ${FRAMEWORKS.join(", ")}` : i.message}`,
        )
        .join("\n"),
    );
  const o = result.data;
  const fixMode = o.repo !== undefined || o.fix !== undefined;
  const benchMode = o.swebench !== undefined || o.repos !== undefined;
  if (fixMode && benchMode)
    throw usage("--repo/--fix and --swebench/--repos make tasks in two different ways: use one");
  if (!fixMode && !benchMode)
    throw usage("say where the task comes from: --repo PATH --fix COMMIT, or --swebench FILE --repos DIR");
  if (fixMode && (!o.repo || !o.fix))
    throw usage(o.repo ? "--fix COMMIT is missing" : "--repo PATH is missing");
  if (benchMode && (!o.swebench || !o.repos))
    throw usage(
      o.swebench ? "--repos DIR is missing (the folder of local clones)" : "--swebench FILE is missing",
    );
  if (benchMode && o.id) throw usage("--id names one task: SWE-bench tasks are named by their instance_id");
  if (benchMode && o.tests.length > 0)
    throw usage("--tests splits a fix commit: SWE-bench rows bring their test_patch");
  return { help: false, options: o };
}
