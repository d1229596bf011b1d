import { isOracleError, loadTask, type OracleError, readQuarantineFile } from "@oracle/spec";
import { currentDigest } from "../health.js";
import { taskContentHash } from "../task-hash.js";

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
