import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fingerprintImage } from "@oracle/image-builder";
import {
  isOracleError,
  loadTask,
  type OracleError,
  readQuarantineFile,
  readRegistryFile,
} from "@oracle/spec";

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

/**
 * The content hash of a task folder: SHA-256 over `<relative path>\0<sha256 of its bytes>\n` for every
 * file under tasks/<id>/, sorted by path. Two hosts with the same task folder agree on it; any change
 * to task.json, the mirror, the hidden tests or the gold diff changes it.
 */
export async function taskContentHash(taskDir: string): Promise<string> {
  const whole = createHash("sha256");
  for (const path of await filesUnder(taskDir)) {
    const bytes = await readFile(join(taskDir, ...path.split("/")));
    whole.update(`${path}\0${createHash("sha256").update(bytes).digest("hex")}\n`);
  }
  return whole.digest("hex");
}

/** What a batch knows about a task before grading any of its predictions. */
export type TaskContext =
  | {
      ok: true;
      task: string;
      taskHash: string;
      image: string;
      /** The recorded digest when the record is current (fingerprint matches the folder), else null. */
      imageDigest: string | null;
      timeoutSeconds: number;
      quarantined: string | null;
    }
  | { ok: false; task: string; error: OracleError };

async function currentDigest(root: string, image: string): Promise<string | null> {
  const record = (await readRegistryFile(root)).images[image];
  if (!record) return null;
  try {
    const now = await fingerprintImage(join(root, "images", image));
    return now.fingerprint === record.fingerprint ? record.digest : null;
  } catch {
    return null;
  }
}

/** Loads a task, hashes its folder, and finds its image digest and quarantine status. */
export async function loadTaskContext(root: string, id: string): Promise<TaskContext> {
  try {
    const loaded = await loadTask(root, id);
    const entry = (await readQuarantineFile(root)).tasks[id];
    return {
      ok: true,
      task: id,
      taskHash: await taskContentHash(loaded.dir),
      image: loaded.task.image,
      imageDigest: await currentDigest(root, loaded.task.image),
      timeoutSeconds: loaded.task.timeoutSeconds,
      quarantined: entry ? entry.reasons.map((r) => `${r.flag}: ${r.message}`).join("; ") : null,
    };
  } catch (error) {
    if (isOracleError(error)) return { ok: false, task: id, error };
    throw error;
  }
}

/** Task contexts for a set of task ids, each computed once. */
export async function loadTaskContexts(
  root: string,
  ids: Iterable<string>,
): Promise<Map<string, TaskContext>> {
  const contexts = new Map<string, TaskContext>();
  for (const id of new Set(ids)) contexts.set(id, await loadTaskContext(root, id));
  return contexts;
}
