import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { type Command, EXIT, printable, type RunContext, runCommand, withRoot, write } from "@oracle/cli-kit";
import { SEAL_RECORD_FILE } from "@oracle/grader";
import { tasksDir } from "@oracle/spec";
import { formatDuration } from "../summary.js";
import type { SweepReport } from "../types.js";
import { DEFAULT_REPEAT, HELP, type NewTaskOptions, parseNewTaskArgs } from "./args.js";
import { exitAfterPass, goldHiddenFailures, someOf } from "./broken.js";
import { planFromFix } from "./from-fix.js";
import { treeFiles } from "./git.js";
import type { ImageChoice } from "./image.js";
import { refuseExisting, type TaskPlan } from "./make.js";
import { mine, yieldLine } from "./mine.js";
import { missingInRuns, missingLine, ownPythonModules } from "./missing.js";
import { buildWriteValidate, writeAll } from "./pipeline.js";
import { type FixInput, repair } from "./repair.js";
import { planDataset } from "./swebench.js";
import { shellQuote } from "./templates.js";
import { describeTask } from "./validate.js";

/**
 * new-task's output quotes the repository (paths, commit subjects, test ids): shown inert. A command
 * it names carries the --root the user gave.
 */
let rootGiven: string | undefined;
const say = (line: string) => process.stderr.write(`${printable(withRoot(line, rootGiven))}\n`);

async function plan(
  options: NewTaskOptions,
  root: string,
): Promise<{ plans: TaskPlan[]; images: ImageChoice[] }> {
  if (options.swebench) {
    return planDataset({
      root,
      dataset: options.swebench,
      repos: options.repos!,
      ...(options.image ? { image: options.image } : {}),
      ...(options.framework ? { framework: options.framework } : {}),
    });
  }
  const made = await planFromFix(fixInput(options, root));
  return { plans: [made.plan], images: [made.image] };
}

/** What --fix plans from, first and in its next tries (repair.ts): the user's options. */
function fixInput(options: NewTaskOptions, root: string): FixInput {
  return {
    root,
    repo: options.repo!,
    fix: options.fix!,
    tests: options.tests,
    ...(options.id ? { id: options.id } : {}),
    ...(options.image ? { image: options.image } : {}),
    ...(options.framework ? { framework: options.framework } : {}),
  };
}

/**
 * gold.diff failing hidden tests: which, whether they fail at the base too, and the first error, so
 * the user sees a fix that does not pass in this image (jmespath.py c501751: its code calls
 * `random.sample(dict.keys())`, which Python 3.11 rejects) without reading the log.
 */
async function sayGoldFails(root: string, id: string, report: SweepReport) {
  const task = report.tasks.find((t) => t.id === id);
  if (!task?.reasons.some((r) => r.flag === "GOLD_FAILS")) return;
  const gold = await goldHiddenFailures(root, task);
  if (gold === null) return;
  const n = gold.failed.length;
  say(
    `note: gold.diff fails ${n} hidden test${n === 1 ? "" : "s"} (${someOf(gold.failed, 3)})${gold.atBaseToo.length > 0 ? `, ${gold.atBaseToo.length === n ? (n === 1 ? "which fails" : "all of which fail") : `${gold.atBaseToo.length} of which fail`} at the base commit too` : ""}${gold.error ? `; the first error: ${gold.error}` : ""} (${gold.log}): when that error comes from the image (its Python, Node or Go, or a package version) and not from the tests, the fix does not pass in this image, and a task needs one it passes in (--image NAME)`,
  );
}

/**
 * A runner that exited non-zero with every test passed: the cause, not the sweep's "narrow the
 * suite" (unjs/destr f9c78d4: vitest 0.34 could not write its results cache into the image's
 * node_modules and exited 1 after 16 passed tests).
 */
async function sayExitAfterPass(root: string, id: string, report: SweepReport) {
  const task = report.tasks.find((t) => t.id === id);
  if (task === undefined || task.status === "healthy") return;
  const found = await exitAfterPass(root, task);
  if (found === null) return;
  say(
    `note: the ${found.suite} suite's runner exited ${found.code} although its report says all ${found.passed} of its tests passed (${found.log}): what fails is no test but what the runner does after them${found.error ? ` (the first error: ${found.error})` : ""}, so narrowing the suite does not help; the usual causes are a file the runner writes into the image's read-only node_modules (a cache, a coverage report), a coverage threshold, or an error after the tests: read the output with pnpm oracle-log ${shellQuote(join(root, found.log))}, make suites.${found.suite}.command in tasks/${id}/task.json exit 0 when its tests pass, and run pnpm quarantine-sweep --tasks ${id} --repeat 2`,
  );
}

/** The modules the validation's runs could not import, each with what brings it into the image (missing.ts). */
async function sayMissing(options: NewTaskOptions, root: string, made: TaskPlan, report: SweepReport) {
  const task = report.tasks.find((t) => t.id === made.id);
  if (task === undefined || task.status === "healthy") return;
  const again = `pnpm new-task --repo ${shellQuote(options.repo!)} --fix ${shellQuote(options.fix!)}${options.id ? ` --id ${shellQuote(options.id)}` : ""}`;
  const own = ownPythonModules(await treeFiles(made.mirror.repo, made.mirror.base));
  for (const m of await missingInRuns(root, made.framework, task))
    say(`note: ${missingLine(made.framework, m, made.image, again, own)}`);
}

/** `--mine`: every commit's outcome in the report, the yield on stdout (or the report with --json). */
async function runMine(options: NewTaskOptions, signal: AbortSignal): Promise<number> {
  const { report, dir } = await mine({
    root: options.root,
    repo: options.mine!,
    ...(options.since ? { since: options.since } : {}),
    limit: options.limit ?? 200,
    jobs: options.jobs ?? 1,
    tests: options.tests,
    ...(options.framework ? { framework: options.framework } : {}),
    ...(options.image ? { image: options.image } : {}),
    repeat: options.repeat,
    lockWait: options.lockWait,
    signal,
    say,
    ...(process.stderr.isTTY ? { tty: process.stderr } : {}),
  });
  const where = relative(options.root, dir) || dir;
  const line = `yield: ${yieldLine(report.yield)}; ${formatDuration(report.seconds * 1000)}; report: ${where}/report.md`;
  if (options.json) {
    await write(
      process.stdout,
      `${JSON.stringify({ ...report, report: join(dir, "report.json") }, null, 2)}\n`,
    );
    say(line);
  } else await write(process.stdout, `${printable(line)}\n`);
  return report.finished ? EXIT.OK : EXIT.FAIL;
}

async function run(options: NewTaskOptions, { signal }: RunContext): Promise<number> {
  const root = options.root;
  rootGiven = options.rootGiven;
  if (options.mine) return runMine(options, signal);
  const started = Date.now();
  // An existing folder is refused before anything is made (nothing half-written).
  const { plans, images } = await plan(options, root);
  for (const image of images) for (const note of image.notes) say(`note: ${note}`);
  for (const p of plans) for (const warning of p.warnings) say(`warning: ${warning}`);
  const ids = plans.map((p) => p.id);
  for (const id of ids) await refuseExisting(root, id, options.force);
  if (!options.validate) {
    await writeAll(root, plans, options.force, say);
    say(`not validated: run pnpm quarantine-sweep --tasks ${ids.join(" ")} --repeat ${DEFAULT_REPEAT.task}`);
    if (options.json)
      await write(
        process.stdout,
        `${JSON.stringify({ tasks: plans.map((p) => ({ id: p.id, status: "not-validated" })) }, null, 2)}\n`,
      );
    return EXIT.OK;
  }
  const pipeline = { force: options.force, repeat: options.repeat, lockWait: options.lockWait, signal, say };
  let report = await buildWriteValidate(root, plans, pipeline);
  if (!options.swebench) {
    await sayMissing(options, root, plans[0]!, report);
    ({ report } = await repair(fixInput(options, root), plans[0]!, report, pipeline, say));
    await sayGoldFails(root, plans[0]!.id, report);
  }
  for (const p of plans) await sayExitAfterPass(root, p.id, report);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const lines = report.tasks.map((t) =>
    withRoot(
      `${describeTask(t, existsSync(join(tasksDir(root), t.id, SEAL_RECORD_FILE)))}${t.status === "healthy" ? `\n${flakyLine(t.id, options.repeat)}` : ""}`,
      rootGiven,
    ),
  );
  const healthy = report.tasks.filter((t) => t.status === "healthy").length;
  lines.push(`${healthy} of ${report.tasks.length} healthy in ${seconds} s; report: ${report.reportDir}`);
  if (options.json) {
    const tasks = report.tasks.map((t) => ({
      id: t.id,
      dir: `tasks/${t.id}`,
      status: t.status,
      reasons: t.reasons,
      expected: t.expected,
      unprotected: t.unprotected,
    }));
    await write(
      process.stdout,
      `${JSON.stringify({ tasks, seconds: Number(seconds), report: report.reportDir }, null, 2)}\n`,
    );
    say(lines.join("\n"));
  } else await write(process.stdout, `${printable(lines.join("\n"))}\n`);
  return healthy === report.tasks.length ? EXIT.OK : EXIT.FAIL;
}

/**
 * What a healthy task's expected tests rest on: the validation's runs, in which a flaky test is one
 * whose outcome differed (the sweep's FLAKY); one that failed in none of them is recorded.
 */
export function flakyLine(id: string, repeat: number): string {
  return `  flaky tests: none in ${repeat} run${repeat === 1 ? "" : "s"} of each check (a test whose outcome differs between runs is flaky, and never recorded as expected); one that fails less often may have passed them all: pnpm quarantine-sweep --tasks ${id} --repeat 10 looks longer before the task is used`;
}

/** The oracle-new-task command; exit codes in HELP. */
export const newTaskCommand: Command<NewTaskOptions> = {
  name: "oracle-new-task",
  pnpmScript: "new-task",
  rootGiven: (options) => options.rootGiven,
  help: HELP,
  parse: (argv, at) => parseNewTaskArgs(argv, at.cwd),
  run,
  stopping: (signal) => `${signal}: stopping every running grade and removing its container…`,
  interrupted: "interrupted: no grade is left running",
};

/** Runs `oracle-new-task …` and returns its exit code. */
export function main(argv: readonly string[]): Promise<number> {
  return runCommand(newTaskCommand, argv);
}
