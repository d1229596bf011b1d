import {
  loadSigningKey,
  type SigningKey,
  sealRecordDoubt,
  signHealthRecord,
  type TaskInputs,
  taskInputs,
  taskValidation,
  trustList,
  type Validation,
} from "@oracle/grader";
import type { HealthFile, HealthRecord } from "@oracle/spec";
import type { PlannedTask, TaskOutcome } from "./task-sweep.js";

/**
 * What each loadable task is judged on, read before its checks run: a task or image that changes
 * while the sweep runs is then recorded with its old inputs, and found stale by the next sweep.
 */
export async function measuredInputs(
  root: string,
  planned: readonly PlannedTask[],
): Promise<Map<string, TaskInputs>> {
  const inputs = new Map<string, TaskInputs>();
  for (const task of planned) {
    if ("loaded" in task)
      inputs.set(task.id, await taskInputs(root, task.loaded.dir, task.loaded.task.image));
  }
  return inputs;
}

/**
 * tasks/health.json after a sweep: every task judged healthy or quarantined gets the inputs it was
 * judged on, signed with the installation's key; a task cut short by the engine (infra-error) or that does not load keeps its record;
 * `gone` tasks are dropped.
 */
export function updateHealthFile(
  previous: HealthFile,
  outcomes: readonly TaskOutcome[],
  inputs: ReadonlyMap<string, TaskInputs>,
  gone: readonly string[],
  now: string,
  key: SigningKey,
): HealthFile {
  const tasks: Record<string, HealthRecord> = { ...previous.tasks };
  for (const outcome of outcomes) {
    const measured = inputs.get(outcome.id);
    if (!measured || outcome.status === "infra-error") continue;
    tasks[outcome.id] = signHealthRecord(
      outcome.id,
      { ...measured, checkedAt: now, outcome: outcome.status },
      key,
    );
  }
  for (const id of gone) delete tasks[id];
  const sorted = Object.fromEntries(Object.entries(tasks).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ...previous, version: 1, tasks: sorted };
}

/** A task --changed sweeps, with why; `sealRecord`: current but for its seal record, made for another seal plan. */
export interface NotCurrent {
  task: PlannedTask;
  validation: Validation;
  sealRecord?: true;
}

/**
 * The planned tasks that are not current (a task that does not load never is), with why. A task
 * whose folder, image and grader are as recorded is not current either when its seal record will
 * not seal its grades (made for another seal plan: the oracle's planners or rules changed since the
 * sweep, and a grade seals nothing until the task is swept again).
 */
export async function notCurrent(root: string, planned: readonly PlannedTask[]): Promise<NotCurrent[]> {
  const found: NotCurrent[] = [];
  const trusted = trustList(loadSigningKey());
  for (const task of planned) {
    if (!("loaded" in task)) {
      found.push({ task, validation: { state: "never", changed: [`does not load: ${task.error}`] } });
      continue;
    }
    const validation = await taskValidation(root, task.id, task.loaded.dir, task.loaded.task.image, trusted);
    if (validation.state !== "current") {
      found.push({ task, validation });
      continue;
    }
    const doubt = await sealRecordDoubt(root, task.loaded);
    if (doubt !== null)
      found.push({ task, validation: { state: "stale", changed: [doubt] }, sealRecord: true });
  }
  return found;
}
