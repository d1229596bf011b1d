import type { Finding } from "./checks.js";
import type { CheckMode, RunObservation, RunRecord } from "./types.js";

/** Runs that say nothing about the task's stability: the engine failed, or the task never ran. */
const NOT_COMPARABLE = new Set(["INFRA_ERROR", "IMAGE_NOT_BUILT", "TASK_INVALID"]);
const MAX_NAMED_TESTS = 5;

function signature(run: RunRecord): string {
  return [run.verdict ?? "-", run.reason, run.existing?.status ?? "-", run.hidden?.status ?? "-"].join("/");
}

function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => `${value} ×${n}`).join(", ");
}

/** Test ids that ran in more than one run with different outcomes, sorted. */
export function flippedTests(observations: readonly RunObservation[]): string[] {
  const seen = new Map<string, Set<string>>();
  for (const { tests } of observations) {
    for (const [id, outcome] of tests) {
      const outcomes = seen.get(id) ?? new Set<string>();
      outcomes.add(outcome);
      seen.set(id, outcomes);
    }
  }
  return [...seen]
    .filter(([, outcomes]) => outcomes.size > 1)
    .map(([id]) => id)
    .sort();
}

function logsOf(runs: RunObservation[]): string[] {
  return runs.flatMap((o) => (o.record.log ? [o.record.log] : []));
}

function named(ids: string[]): string {
  const shown = ids.slice(0, MAX_NAMED_TESTS).join(", ");
  return ids.length > MAX_NAMED_TESTS ? `${shown} and ${ids.length - MAX_NAMED_TESTS} more` : shown;
}

function flakiness(mode: CheckMode, runs: RunObservation[]): Finding | null {
  const signatures = runs.map((o) => signature(o.record));
  const completed = runs.filter((o) => o.record.reason !== "TIMEOUT");
  const flipped = flippedTests(completed);
  if (new Set(signatures).size < 2 && flipped.length === 0) return null;
  const distinct = new Set(signatures).size;
  const parts = [
    distinct > 1 ? `${runs.length} runs gave ${tally(signatures)}` : `${runs.length} runs, same verdicts`,
  ];
  if (flipped.length > 0) parts.push(`tests that changed outcome: ${named(flipped)}`);
  return { flag: "FLAKY", mode, detail: parts.join("; "), logs: logsOf(runs) };
}

function hashInstability(mode: CheckMode, runs: RunObservation[]): Finding | null {
  const completed = runs.filter((o) => o.record.reason !== "TIMEOUT" && o.record.testsHash !== null);
  const hashes = completed.map((o) => (o.record.testsHash ?? "").slice(0, 12));
  if (new Set(hashes).size < 2) return null;
  return {
    flag: "TESTS_HASH_UNSTABLE",
    mode,
    detail: `${completed.length} runs gave tests_hash ${tally(hashes)}`,
    logs: logsOf(completed),
  };
}

/**
 * Compares the repeated runs of one check: the same outcome (verdict, reason, suite statuses and each
 * test's outcome) and the same tests_hash every time, or the task is FLAKY / TESTS_HASH_UNSTABLE.
 * Timed-out runs count for the outcome but not for the tests that ran.
 */
export function stabilityFindings(mode: CheckMode, observations: readonly RunObservation[]): Finding[] {
  const runs = observations.filter((o) => o.record.mode === mode && !NOT_COMPARABLE.has(o.record.reason));
  if (runs.length < 2) return [];
  return [flakiness(mode, runs), hashInstability(mode, runs)].filter((f): f is Finding => f !== null);
}
