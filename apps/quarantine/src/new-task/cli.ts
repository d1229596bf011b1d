import { type Command, EXIT, printable, type RunContext, runCommand, withRoot, write } from "@oracle/cli-kit";
import { HELP, type NewTaskOptions, parseNewTaskArgs } from "./args.js";
import { planFromFix } from "./from-fix.js";
import type { ImageChoice } from "./image.js";
import { refuseExisting, type TaskPlan, writeTaskFolder } from "./make.js";
import { planDataset } from "./swebench.js";
import { buildImages, describeTask, validateTasks } from "./validate.js";

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
  const made = await planFromFix({
    root,
    repo: options.repo!,
    fix: options.fix!,
    tests: options.tests,
    ...(options.id ? { id: options.id } : {}),
    ...(options.image ? { image: options.image } : {}),
    ...(options.framework ? { framework: options.framework } : {}),
  });
  return { plans: [made.plan], images: [made.image] };
}

/** Writes every planned folder; when one fails, the ones this run wrote are removed again. */
async function writeAll(root: string, plans: TaskPlan[], force: boolean): Promise<string[]> {
  const written: string[] = [];
  try {
    for (const p of plans) {
      written.push(await writeTaskFolder(root, p, force));
      say(
        `wrote tasks/${p.id}/ (${p.hidden.length} hidden test file${p.hidden.length === 1 ? "" : "s"}, ${p.framework}, image ${p.image})`,
      );
    }
    return written;
  } catch (error) {
    const { rm } = await import("node:fs/promises");
    for (const dir of written) await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function run(options: NewTaskOptions, { signal }: RunContext): Promise<number> {
  const root = options.root;
  rootGiven = options.rootGiven;
  const started = Date.now();
  // An existing folder is refused before anything is made (nothing half-written).
  const { plans, images } = await plan(options, root);
  for (const image of images) for (const note of image.notes) say(`note: ${note}`);
  for (const p of plans) for (const warning of p.warnings) say(`warning: ${warning}`);
  const ids = plans.map((p) => p.id);
  for (const id of ids) await refuseExisting(root, id, options.force);
  if (!options.validate) {
    await writeAll(root, plans, options.force);
    say(`not validated: run pnpm quarantine-sweep --tasks ${ids.join(" ")} --repeat 2`);
    if (options.json)
      await write(
        process.stdout,
        `${JSON.stringify({ tasks: plans.map((p) => ({ id: p.id, status: "not-validated" })) }, null, 2)}\n`,
      );
    return EXIT.OK;
  }
  // The images first: a build that fails (or waits past --lock-wait) leaves no task folder behind
  // that a rerun would have to --force away.
  say(`building ${[...new Set(plans.map((p) => p.image))].join(", ")} (skipped when up to date)`);
  await buildImages(
    root,
    plans.map((p) => p.image),
    signal,
    options.lockWait,
  );
  const written = await writeAll(root, plans, options.force);
  say(`validating ${ids.join(", ")}: baseline and gold.diff, ${options.repeat} runs each`);
  const report = await validateTasks(root, ids, options.repeat, signal).catch(async (error: unknown) => {
    // Not judged (the engine failed, interrupted): the folders this run wrote go, so a rerun needs no --force.
    const { rm } = await import("node:fs/promises");
    for (const dir of written) await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const lines = report.tasks.map((t) => withRoot(describeTask(t), rootGiven));
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
