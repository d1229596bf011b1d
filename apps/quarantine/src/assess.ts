import { QUARANTINE_FLAGS, type QuarantineFlag, type QuarantineReason, quarantineHint } from "@oracle/spec";
import { baselineFindings, type Finding, goldFindings } from "./checks.js";
import { stabilityFindings } from "./stability.js";
import type { CheckMode, InfraSummary, RunObservation, RunRecord, TaskStatus } from "./types.js";

const FLAG_ORDER = Object.keys(QUARANTINE_FLAGS) as QuarantineFlag[];
const MAX_DETAILS = 3;

export interface Assessment {
  status: TaskStatus;
  reasons: QuarantineReason[];
  infra: InfraSummary;
}

interface Group {
  parts: string[];
  evidence: Set<string>;
}

function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/** The task an assessment is about: its id (for the hints) and whether it has a gold.diff. */
export interface AssessedTask {
  id: string;
  hasGold: boolean;
}

/** One reason per flag; its message has one part per mode, with how many of that mode's runs showed it. */
function toReasons(
  task: AssessedTask,
  perRun: Finding[],
  acrossRuns: Finding[],
  runsPerMode: Record<CheckMode, number>,
): QuarantineReason[] {
  const groups = new Map<QuarantineFlag, Group>();
  const group = (flag: QuarantineFlag): Group => {
    const existing = groups.get(flag) ?? { parts: [], evidence: new Set<string>() };
    groups.set(flag, existing);
    return existing;
  };
  for (const mode of ["baseline", "gold"] as const) {
    for (const flag of unique(perRun.filter((f) => f.mode === mode).map((f) => f.flag)) as QuarantineFlag[]) {
      const hits = perRun.filter((f) => f.mode === mode && f.flag === flag);
      const details = unique(hits.map((f) => f.detail))
        .slice(0, MAX_DETAILS)
        .join(" | ");
      const count = `${mode}: ${hits.length} of ${runsPerMode[mode]} runs`;
      const g = group(flag);
      g.parts.push(`${count}: ${details}`);
      g.evidence.add(count);
      for (const f of hits) for (const log of f.logs) g.evidence.add(log);
    }
  }
  for (const f of acrossRuns) {
    const g = group(f.flag);
    g.parts.push(`${f.mode}: ${f.detail}`);
    for (const log of f.logs) g.evidence.add(log);
  }
  if (!task.hasGold) {
    const g = group("NO_GOLD");
    g.parts.push("no gold.diff: no run shows that a correct diff can PASS, so every diff might FAIL");
    g.evidence.add(`tasks/${task.id}/gold.diff`);
  }
  return FLAG_ORDER.filter((flag) => groups.has(flag)).map((flag) => {
    const g = groups.get(flag)!;
    const hint = quarantineHint(flag, task.id);
    return { flag, message: g.parts.join("; "), hint, evidence: [...g.evidence] };
  });
}

/** INFRA_ERROR runs, and the retries that hid one: reported apart, never the task's fault. */
export function summariseInfra(records: readonly RunRecord[]): InfraSummary {
  const failed = records.filter((r) => r.reason === "INFRA_ERROR");
  return {
    failedRuns: failed.length,
    retries: records.reduce((sum, r) => sum + r.attempts - 1, 0),
    messages: unique(failed.map((r) => r.message)),
    logs: unique(
      records.flatMap((r) => [...r.retriedLogs, ...(r.reason === "INFRA_ERROR" && r.log ? [r.log] : [])]),
    ),
  };
}

/**
 * Judges one task from all of its runs. Quarantined when any check failed its expectation, or when
 * the task has no gold.diff (NO_GOLD: nothing proves a correct diff can PASS); else `infra-error`
 * when an engine failure left a check unproven; else healthy. `extra`: findings of checks made
 * elsewhere (the declared expected tests). Every reason carries its hint.
 */
export function assessTask(
  task: AssessedTask,
  observations: readonly RunObservation[],
  extra: readonly Finding[] = [],
): Assessment {
  const records = observations.map((o) => o.record);
  // Every gold run collected the pair: the command selects it, so a baseline run that failed tests
  // and lost the pair was cut short by its own failure (a Go panic ends the test binary), which
  // says nothing against the task. Without gold, the baseline is the only evidence and it counts.
  const golds = records.filter((r) => r.mode === "gold" && r.reason !== "INFRA_ERROR");
  const pairSelected = golds.length > 0 && golds.every((r) => r.sentinel === "collected");
  const cutShort = (r: (typeof records)[number], f: Finding) =>
    pairSelected &&
    f.flag === "SENTINEL_NOT_COLLECTED" &&
    r.sentinel === "not-collected" &&
    r.hidden?.reason === "TESTS_FAILED" &&
    r.hidden.counts.failed + r.hidden.counts.error > 0;
  const perRun = [
    ...records.flatMap((r) =>
      r.mode === "baseline" ? baselineFindings(r).filter((f) => !cutShort(r, f)) : goldFindings(r),
    ),
    ...extra,
  ];
  const acrossRuns = [
    ...stabilityFindings("baseline", observations),
    ...stabilityFindings("gold", observations),
  ];
  const runsPerMode = {
    baseline: records.filter((r) => r.mode === "baseline").length,
    gold: records.filter((r) => r.mode === "gold").length,
  };
  const reasons = toReasons(task, perRun, acrossRuns, runsPerMode);
  const infra = summariseInfra(records);
  const status: TaskStatus =
    reasons.length > 0 ? "quarantined" : infra.failedRuns > 0 ? "infra-error" : "healthy";
  return { status, reasons, infra };
}

/** The assessment of a task whose folder does not load: no run was possible. */
export function invalidTask(id: string, message: string): Assessment {
  return {
    status: "quarantined",
    reasons: [
      {
        flag: "INVALID_TASK",
        message,
        hint: quarantineHint("INVALID_TASK", id),
        evidence: [`tasks/${id}/task.json`],
      },
    ],
    infra: summariseInfra([]),
  };
}
