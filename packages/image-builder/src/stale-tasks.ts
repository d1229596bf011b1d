import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type HealthFile, listTaskIds, type RegistryFile, readHealthFile, tasksDir } from "@oracle/spec";

/** An image whose recorded digest this run changed, and the tasks that run on it. */
export interface NewDigest {
  image: string;
  /** The digest recorded before this run; null for an image that had no record. */
  previousDigest: string | null;
  digest: string;
  /**
   * Ids of the tasks whose task.json names this image and whose health record (tasks/health.json) was
   * measured on another digest, sorted: their health no longer holds.
   */
  staleTasks: string[];
  /** Ids of the tasks on this image that no sweep has judged yet (no health record), sorted. */
  neverValidated: string[];
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
  const health: HealthFile = await readHealthFile(root).catch(() => ({ version: 1, tasks: {} }));
  return changed
    .map(([image, record]) => {
      const onImage = [...taskImages].filter(([, name]) => name === image).map(([id]) => id);
      const judged = (id: string) => health.tasks[id];
      return {
        image,
        previousDigest: before.images[image]?.digest ?? null,
        digest: record.digest,
        // A record on this very digest (a build that came back to a digest already judged) still holds.
        staleTasks: onImage.filter((id) => {
          const health = judged(id);
          return health !== undefined && (health.image !== image || health.imageDigest !== record.digest);
        }),
        neverValidated: onImage.filter((id) => judged(id) === undefined),
      };
    })
    .sort((a, b) => (a.image < b.image ? -1 : a.image > b.image ? 1 : 0));
}

/**
 * One line per new digest, e.g. `new digest for node-mocha: tasks now stale: calc-node (validate them
 * with: pnpm quarantine-sweep --changed)`.
 */
export function describeNewDigest({ image, staleTasks, neverValidated }: NewDigest): string {
  const parts: string[] = [];
  if (staleTasks.length > 0) parts.push(`tasks now stale: ${staleTasks.join(", ")}`);
  if (neverValidated.length > 0) parts.push(`tasks never validated: ${neverValidated.join(", ")}`);
  if (parts.length === 0) return `new digest for ${image}: no task turns stale`;
  return `new digest for ${image}: ${parts.join("; ")} (validate them with: ${VALIDATE_COMMAND})`;
}
