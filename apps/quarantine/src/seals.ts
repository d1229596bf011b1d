import type { SealRecord, SealsResult } from "@oracle/spec";
import { namesSameTest, type SealRun, unsealedRule } from "@oracle/test-set";
import type { RunObservation, TaskReport } from "./types.js";

/**
 * What the sweep learns of a task's seals (docs/security.md, "Sealed expectations"; rules.ts
 * `seal.gold`): the sites a gold run could not pass are left unsealed for the task, so a grade never
 * fails a correct diff on a seal the gold diff could not pass; the number of complete runs of each
 * sealed test's seals in the gold runs; and, for each FAIL_TO_PASS test, the strongest seal that
 * decided it at every baseline run (what a forged report cannot pass without the expected values).
 */

const sealsOf = (o: RunObservation): SealsResult | undefined => o.record.seals;

/** The sites to leave unsealed: every one a gold run failed (a value that did not match, one that was not plain data), and every site of a test whose records a gold run could not account for. */
export function demotions(gold: readonly RunObservation[]): SealRecord["demoted"] {
  const out = new Map<string, string>();
  for (const o of gold) {
    const seals = sealsOf(o);
    if (!seals) continue;
    for (const [key, outcome] of Object.entries(seals.sites ?? {}))
      if ((outcome === "mismatch" || outcome === "not-plain") && !out.has(key))
        out.set(
          key,
          outcome === "mismatch"
            ? "the gold diff's value did not match"
            : "the gold diff's value was not plain data",
        );
    for (const key of seals.problemKeys ?? [])
      if (!out.has(key))
        out.set(key, `a gold run's records did not add up: ${seals.problem ?? "inconsistent"}`);
  }
  return [...out]
    .map(([key, why]) => ({ key, why }))
    .sort((a, b) => a.key.localeCompare(b.key, "en", { numeric: true }));
}

/** The plan every gold and baseline run sealed with, or null when they differ or none had seals. */
export function planOf(observations: readonly RunObservation[]): string | null {
  const plans = new Set(
    observations.map((o) => sealsOf(o)?.plan).filter((p): p is string => p !== undefined),
  );
  return plans.size === 1 ? [...plans][0]! : null;
}

/** Complete runs of each sealed test in the gold runs, where every gold run agrees. */
export function goldExecutions(gold: readonly RunObservation[]): Record<string, number> {
  const counts = new Map<string, number[]>();
  for (const o of gold)
    for (const e of sealsOf(o)?.executions ?? [])
      counts.set(e.entry, [...(counts.get(e.entry) ?? []), e.complete]);
  const out: Record<string, number> = {};
  for (const [entry, seen] of counts)
    if (seen.length === gold.length && new Set(seen).size === 1 && seen[0]! > 0) out[entry] = seen[0]!;
  return out;
}

/** Each FAIL_TO_PASS test and the strongest seal that decided it at every baseline run. */
export function failToPassSeals(
  baseline: readonly RunObservation[],
  failToPass: readonly string[],
): SealRecord["failToPass"] {
  const at = (o: RunObservation, strength: "strong" | "weak", test: string) =>
    (sealsOf(o)?.decided?.[strength] ?? []).some((entry) => namesSameTest(test, entry));
  return failToPass.map((test) => {
    if (baseline.length === 0) return { test, seal: "none" as const };
    if (baseline.every((o) => at(o, "strong", test))) return { test, seal: "strong" as const };
    if (baseline.every((o) => at(o, "strong", test) || at(o, "weak", test)))
      return { test, seal: "weak" as const };
    return { test, seal: "none" as const };
  });
}

/**
 * The report's summary of a task's seals, from its record; with the plan the grades make (the
 * record's demoted sites left out), each unsealed test's rule (unsealedRule).
 */
export function sealSummary(
  record: SealRecord | null,
  recorded: string,
  plan: SealRun | null = null,
): TaskReport["seals"] {
  if (!record || record.failToPass.length === 0) return undefined;
  const unsealed = record.failToPass.filter((f) => f.seal !== "strong").map((f) => f.test);
  const listed = unsealed.slice(0, 50);
  return {
    failToPass: record.failToPass.length,
    sealed: record.failToPass.length - unsealed.length,
    unsealed: listed,
    ...(plan && listed.length > 0
      ? { rules: Object.fromEntries(listed.map((test) => [test, unsealedRule(plan, test)])) }
      : {}),
    recorded,
  };
}

/** `unsealed.no-comparison 2, unsealed.weak 1`: counts by rule, most first; "" for none. */
export function ruleCounts(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([rule, n]) => `${rule} ${n}`)
    .join(", ");
}

/** `test [rule]` for each unsealed test, as the reports and new-task list them. */
export function unsealedWithRules(seals: NonNullable<TaskReport["seals"]>): string[] {
  return seals.unsealed.map((test) => {
    const rule = seals.rules?.[test];
    return rule ? `${test} [${rule}]` : test;
  });
}
