import { resolve } from "node:path";
import { formatError, isOracleError } from "@oracle/spec";
import { type NewTaskOptions, parseNewTaskArgs, USAGE } from "./args.js";
import { planFromFix } from "./from-fix.js";
import type { ImageChoice } from "./image.js";
import { type TaskPlan, writeTaskFolder } from "./make.js";
import { planDataset } from "./swebench.js";
import { buildImages, describeTask, validateTasks } from "./validate.js";

/** The exit codes, in one place. */
export const EXIT = { OK: 0, NOT_HEALTHY: 1, USAGE: 2, CANNOT_RUN: 3, INTERRUPTED: 130 } as const;

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((done) => stream.write(text, () => done()));
}

const say = (line: string) => process.stderr.write(`${line}\n`);

async function plan(
  options: NewTaskOptions,
  root: string,
): Promise<{ plans: TaskPlan[]; images: ImageChoice[] }> {
  if (options.swebench) {
    return planDataset({
      root,
      dataset: resolve(options.swebench),
      repos: resolve(options.repos!),
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

async function run(options: NewTaskOptions, signal: AbortSignal): Promise<number> {
  const root = resolve(options.root);
  const started = Date.now();
  // An existing folder is refused before anything is made (nothing half-written).
  const { plans, images } = await plan(options, root);
  for (const image of images) for (const note of image.notes) say(`note: ${note}`);
  for (const p of plans) for (const warning of p.warnings) say(`warning: ${warning}`);
  await writeAll(root, plans, options.force);
  const ids = plans.map((p) => p.id);
  if (!options.validate) {
    say(`not validated: run pnpm quarantine-sweep --tasks ${ids.join(" ")} --repeat 2`);
    if (options.json)
      await write(
        process.stdout,
        `${JSON.stringify({ tasks: plans.map((p) => ({ id: p.id, status: "not-validated" })) }, null, 2)}\n`,
      );
    return EXIT.OK;
  }
  say(`building ${[...new Set(plans.map((p) => p.image))].join(", ")} (skipped when up to date)`);
  await buildImages(
    root,
    plans.map((p) => p.image),
    signal,
  );
  say(`validating ${ids.join(", ")}: baseline and gold.diff, ${options.repeat} runs each`);
  const report = await validateTasks(root, ids, options.repeat, signal);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const lines = report.tasks.map(describeTask);
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
  } else await write(process.stdout, `${lines.join("\n")}\n`);
  return healthy === report.tasks.length ? EXIT.OK : EXIT.NOT_HEALTHY;
}

/** The command: argv in, exit code out. Only here are errors turned into exit codes. */
export async function main(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED);
    say(`\n${signal}: stopping every running grade and removing its container…`);
    controller.abort(new DOMException(`interrupted by ${signal}`, "AbortError"));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const parsed = parseNewTaskArgs(argv);
    if (parsed.help) {
      await write(process.stdout, USAGE);
      return EXIT.OK;
    }
    return await run(parsed.options, controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      await write(process.stderr, "interrupted: no grade is left running\n");
      return EXIT.INTERRUPTED;
    }
    await write(process.stderr, `${formatError(error)}\n`);
    return isOracleError(error, "USAGE") || isOracleError(error, "TASK_INVALID")
      ? EXIT.USAGE
      : EXIT.CANNOT_RUN;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

process.exit(await main(process.argv.slice(2)));
