import {
  isOracleError,
  loadTask,
  type OracleError,
  readQuarantineFile,
  type ValidationState,
} from "@oracle/spec";
import { currentDigest, taskValidation } from "../health.js";
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
      /** Whether a quarantine sweep judged this task on today's content, image and grader (health.ts). */
      validation: ValidationState;
    }
  | { ok: false; task: string; error: OracleError };

/** Loads a task, hashes its folder, and finds its image digest and quarantine status. */
export async function loadTaskContext(root: string, id: string): Promise<TaskContext> {
  try {
    const loaded = await loadTask(root, id);
    const entry = (await readQuarantineFile(root)).tasks[id];
    const validation = await taskValidation(root, id, loaded.dir, loaded.task.image);
    return {
      ok: true,
      task: id,
      taskHash: await taskContentHash(loaded.dir),
      image: loaded.task.image,
      imageDigest: await currentDigest(root, loaded.task.image),
      timeoutSeconds: loaded.task.timeoutSeconds,
      quarantined: entry ? entry.reasons.map((r) => `${r.flag}: ${r.message}`).join("; ") : null,
      validation: validation.state,
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
