import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { listTaskIds, type RegistryFile, tasksDir } from "@oracle/spec";

/** An image whose recorded digest this run changed, and the tasks that run on it. */
export interface NewDigest {
  image: string;
  /** The digest recorded before this run; null for an image that had no record. */
  previousDigest: string | null;
  digest: string;
  /** Ids of the tasks whose task.json names this image, sorted: their health no longer holds. */
  staleTasks: string[];
}

/** The command that validates the tasks again. */
export const VALIDATE_COMMAND = "pnpm quarantine-sweep --changed";

/**
 * Task id -> the image its task.json names, for every task under `<root>/tasks/`. Read leniently (only
 * `image`): a task.json that does not parse or names no image is left out, the sweep reports it.
 */
export async function imagesOfTasks(root: string): Promise<Map<string, string>> {
  const images = new Map<string, string>();
  for (const id of await listTaskIds(root)) {
    try {
      const task = JSON.parse(await readFile(join(tasksDir(root), id, "task.json"), "utf8")) as {
        image?: unknown;
      };
      if (typeof task.image === "string") images.set(id, task.image);
    } catch {
      // Not a task this can read; quarantine-sweep flags it INVALID_TASK.
    }
  }
  return images;
}

/** The images whose recorded digest differs between `before` and `after`, with the tasks on each. */
export async function newDigests(
  root: string,
  before: RegistryFile,
  after: RegistryFile,
): Promise<NewDigest[]> {
  const changed = Object.entries(after.images).filter(
    ([name, record]) => before.images[name]?.digest !== record.digest,
  );
  if (changed.length === 0) return [];
  const taskImages = await imagesOfTasks(root);
  return changed
    .map(([image, record]) => ({
      image,
      previousDigest: before.images[image]?.digest ?? null,
      digest: record.digest,
      staleTasks: [...taskImages].filter(([, name]) => name === image).map(([id]) => id),
    }))
    .sort((a, b) => (a.image < b.image ? -1 : a.image > b.image ? 1 : 0));
}

/** One line per new digest, e.g. `new digest for node-mocha: tasks now stale: calc-node (validate …)`. */
export function describeNewDigest({ image, staleTasks }: NewDigest): string {
  if (staleTasks.length === 0) return `new digest for ${image}: no task uses it`;
  return `new digest for ${image}: tasks now stale: ${staleTasks.join(", ")} (validate them with: ${VALIDATE_COMMAND})`;
}
