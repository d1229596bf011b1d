import { isOracleError, type OracleError, type QuarantineEntry, type ValidationState } from "@oracle/spec";
import { type PreparedTask, prepareTask } from "../task/prepare.js";

/** What a batch knows about a task before grading any of its predictions. */
export type TaskContext =
  | {
      ok: true;
      task: string;
      prepared: PreparedTask;
      /** The task folder's content hash (the verdict's key; task-hash.ts). */
      taskHash: string;
      /** The recorded digest when the record is current (fingerprint matches the folder), else null. */
      imageDigest: string | null;
      timeoutSeconds: number;
      quarantine: QuarantineEntry | null;
      /** Whether a quarantine sweep judged this task on today's content, image and grader (health.ts). */
      validation: ValidationState;
    }
  | { ok: false; task: string; error: OracleError };

/** Prepares a task (prepare.ts) and reads what the batch keys its lines on. */
export async function loadTaskContext(root: string, id: string): Promise<TaskContext> {
  try {
    const prepared = await prepareTask(root, id);
    const [hashes, imageDigest, validation] = await Promise.all([
      prepared.hashes(),
      prepared.image.currentDigest(),
      prepared.validation(),
    ]);
    return {
      ok: true,
      task: id,
      prepared,
      taskHash: hashes.content,
      imageDigest,
      timeoutSeconds: prepared.loaded.task.timeoutSeconds,
      quarantine: prepared.quarantine,
      validation: validation.state,
    };
  } catch (error) {
    if (isOracleError(error)) return { ok: false, task: id, error };
    throw error;
  }
}

/** Task contexts for a set of task ids, each prepared once. */
export async function loadTaskContexts(
  root: string,
  ids: Iterable<string>,
): Promise<Map<string, TaskContext>> {
  const contexts = new Map<string, TaskContext>();
  for (const id of new Set(ids)) contexts.set(id, await loadTaskContext(root, id));
  return contexts;
}
