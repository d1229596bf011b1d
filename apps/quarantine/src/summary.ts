import type { CheckMode, RunRecord } from "./types.js";

const STOPPED = new Set([
  "TASK_INVALID",
  "CHECKOUT_FAILED",
  "IMAGE_NOT_BUILT",
  "TIMEOUT",
  "OUT_OF_MEMORY",
  "INFRA_ERROR",
]);

/** A short label for what one run did, the same for runs that behaved the same. */
export function runLabel(run: RunRecord): string {
  if (STOPPED.has(run.reason)) return run.reason;
  if (run.mode === "gold") return run.verdict === "PASS" ? "PASS" : run.reason;
  return `existing ${run.existing?.status ?? "NOT_RUN"}, hidden ${run.hidden?.status ?? "NOT_RUN"}`;
}

/** `existing PASS, hidden FAIL ×3` — each distinct label of one mode's runs with its count; "" when none ran. */
export function modeSummary(runs: readonly RunRecord[], mode: CheckMode): string {
  const counts = new Map<string, number>();
  for (const run of runs) {
    if (run.mode === mode) counts.set(runLabel(run), (counts.get(runLabel(run)) ?? 0) + 1);
  }
  return [...counts].map(([label, n]) => `${label} ×${n}`).join("; ");
}

/** `850 ms`, `12.3 s`, `4 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, "0")} s`;
}
