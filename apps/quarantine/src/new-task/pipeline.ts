import { rm } from "node:fs/promises";
import type { SweepReport } from "../types.js";
import { type TaskPlan, writeTaskFolder } from "./make.js";
import { buildImages, validateTasks } from "./validate.js";

/** How planned tasks are built, written and validated: `--fix`, `--swebench` and each `--mine` candidate. */
export interface PipelineOptions {
  force: boolean;
  repeat: number;
  lockWait: number;
  signal: AbortSignal;
  /** A line for the user (stderr). */
  say: (line: string) => void;
  /** Keep build-images' and the sweep's own lines off stderr (new-task --mine). */
  quiet?: boolean;
  /** Added to the sweep's run id under logs/sweep/ (runs at once must not share one). */
  runIdSuffix?: string;
}

/** Writes every planned folder; when one fails, the ones this run wrote are removed again. */
export async function writeAll(
  root: string,
  plans: readonly TaskPlan[],
  force: boolean,
  say: (line: string) => void,
): Promise<string[]> {
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
    for (const dir of written) await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Builds the plans' images, writes their folders and validates them (the sweep's checks). The images
 * come first: a build that fails (or waits past the lock wait) leaves no task folder behind that a
 * rerun would have to --force away; a validation that is not judged (the engine failed, interrupted)
 * removes the folders written.
 */
export async function buildWriteValidate(
  root: string,
  plans: readonly TaskPlan[],
  options: PipelineOptions,
): Promise<SweepReport> {
  const ids = plans.map((p) => p.id);
  options.say(`building ${[...new Set(plans.map((p) => p.image))].join(", ")} (skipped when up to date)`);
  await buildImages(
    root,
    plans.map((p) => p.image),
    options.signal,
    options.lockWait,
    options.quiet ? { quiet: true } : {},
  );
  const written = await writeAll(root, plans, options.force, options.say);
  options.say(`validating ${ids.join(", ")}: baseline and gold.diff, ${options.repeat} runs each`);
  return validateTasks(root, ids, options.repeat, options.signal, {
    ...(options.quiet ? { quiet: true } : {}),
    ...(options.runIdSuffix ? { runIdSuffix: options.runIdSuffix } : {}),
  }).catch(async (error: unknown) => {
    for (const dir of written) await rm(dir, { recursive: true, force: true });
    throw error;
  });
}
