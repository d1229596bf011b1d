import { relative, sep } from "node:path";
import type { QuarantineFile, QuarantineFlag } from "@oracle/spec";
import type { ListUpdate } from "./quarantine-list.js";
import type { TaskOutcome } from "./task-sweep.js";
import type { SweepCounts, SweepReport, TaskReport } from "./types.js";

export interface ReportInput {
  root: string;
  paths: { sweepLog: string; reportDir: string };
  settings: SweepReport["options"];
  outcomes: TaskOutcome[];
  /** The quarantine list as it was before this sweep wrote it. */
  before: QuarantineFile;
  update: ListUpdate;
  startedAt: Date;
  finishedAt: Date;
  /** Tasks --changed swept only because their seal record was made for another seal plan. */
  staleSealRecords?: string[];
}

function change(id: string, update: ListUpdate, before: QuarantineFile): TaskReport["change"] {
  if (update.newlyQuarantined.includes(id)) return "new";
  if (update.released.includes(id)) return "released";
  return id in before.tasks && id in update.file.tasks ? "kept" : "none";
}

function taskReport(outcome: TaskOutcome, input: ReportInput): TaskReport {
  const { update, before } = input;
  return {
    id: outcome.id,
    status: outcome.status,
    reasons: outcome.reasons,
    infra: outcome.infra,
    wasQuarantined: outcome.id in before.tasks,
    change: change(outcome.id, update, before),
    firstSeen: update.file.tasks[outcome.id]?.firstSeen ?? null,
    hasGold: outcome.hasGold,
    unprotected: outcome.unprotected,
    ...(outcome.seals ? { seals: outcome.seals } : {}),
    expected: outcome.expected,
    runs: outcome.runs,
    runMs: outcome.runMs,
  };
}

function count(tasks: TaskReport[], update: ListUpdate): SweepCounts {
  const flags: Partial<Record<QuarantineFlag, number>> = {};
  for (const task of tasks)
    for (const reason of task.reasons) flags[reason.flag] = (flags[reason.flag] ?? 0) + 1;
  const unsealedByRule: Record<string, number> = {};
  for (const task of tasks)
    for (const rule of Object.values(task.seals?.rules ?? {}))
      unsealedByRule[rule] = (unsealedByRule[rule] ?? 0) + 1;
  return {
    tasks: tasks.length,
    healthy: tasks.filter((t) => t.status === "healthy").length,
    quarantined: tasks.filter((t) => t.status === "quarantined").length,
    infraError: tasks.filter((t) => t.status === "infra-error").length,
    newlyQuarantined: update.newlyQuarantined.length,
    released: update.released.length,
    runs: tasks.reduce((n, t) => n + t.runs.length, 0),
    infraRetries: tasks.reduce((n, t) => n + t.infra.retries, 0),
    flags,
    ...(Object.keys(unsealedByRule).length > 0 ? { unsealedByRule } : {}),
  };
}

/** The sweep's report: what report.json holds and `sweep()` returns. */
export function buildReport(input: ReportInput): SweepReport {
  const tasks = input.outcomes
    .map((o) => taskReport(o, input))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    version: 1,
    root: input.root,
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    durationMs: input.finishedAt.getTime() - input.startedAt.getTime(),
    options: input.settings,
    counts: count(tasks, input.update),
    newlyQuarantined: input.update.newlyQuarantined,
    released: input.update.released,
    removed: input.update.removed,
    ...(input.staleSealRecords ? { staleSealRecords: [...input.staleSealRecords].sort() } : {}),
    quarantineFile: "tasks/quarantine.json",
    reportDir: input.paths.reportDir,
    sweepLog: relative(input.root, input.paths.sweepLog).split(sep).join("/"),
    tasks,
  };
}
