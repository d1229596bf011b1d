import type { QuarantineEntry, QuarantineFile, QuarantineReason } from "@oracle/spec";
import type { TaskStatus } from "./types.js";

/** The verdict of one checked task, as far as the quarantine list cares. */
export interface CheckedTask {
  id: string;
  status: TaskStatus;
  reasons: QuarantineReason[];
}

export interface ListUpdate {
  file: QuarantineFile;
  newlyQuarantined: string[];
  released: string[];
  removed: string[];
}

/**
 * The quarantine list after a sweep. Quarantined tasks get their new reasons and `lastChecked`, and
 * keep `firstSeen`; healthy ones are released; a task whose checks were cut short by the engine
 * (infra-error) keeps whatever entry it had. Entries of tasks the sweep did not cover are untouched;
 * `gone` names covered entries whose task folder no longer exists, which are dropped.
 */
export function updateQuarantineList(
  previous: QuarantineFile,
  checked: readonly CheckedTask[],
  gone: readonly string[],
  now: string,
): ListUpdate {
  const tasks: Record<string, QuarantineEntry> = { ...previous.tasks };
  const update: ListUpdate = { file: previous, newlyQuarantined: [], released: [], removed: [] };
  for (const task of checked) {
    const before = previous.tasks[task.id];
    if (task.status === "quarantined") {
      tasks[task.id] = { reasons: task.reasons, firstSeen: before?.firstSeen ?? now, lastChecked: now };
      if (!before) update.newlyQuarantined.push(task.id);
    } else if (task.status === "healthy" && before) {
      delete tasks[task.id];
      update.released.push(task.id);
    }
  }
  for (const id of gone) {
    if (id in tasks) {
      delete tasks[id];
      update.removed.push(id);
    }
  }
  const sorted = Object.fromEntries(Object.entries(tasks).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  update.file = { ...previous, version: 1, tasks: sorted };
  return update;
}
