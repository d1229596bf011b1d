import { printable } from "@oracle/cli-kit";
import type { BatchSummary, ResultLine, ValidationState } from "@oracle/spec";

const rate = (pass: number, graded: number): number | null =>
  graded === 0 ? null : Math.round((pass / graded) * 1e6) / 1e6;

function emptyTask() {
  return { graded: 0, pass: 0, fail: 0, infraErrors: 0, passRate: null, quarantined: 0, errors: 0 };
}

/**
 * The figures of a batch of `predictions` predictions from its result lines (one per id). The pass
 * rate's denominator is every prediction of a non-quarantined task that the grader ran, whatever
 * its reason: an INFRA_ERROR (after its retries) counts as not passed, because the code under test
 * can cause one (kill the driver, crash a parser), and a prediction must not leave the rate by
 * failing that way. Only predictions that never reached a
 * run (quarantined task, unknown or invalid task, unreadable diff, image not built) stay out, and so
 * do predictions on a task no sweep validated on today's inputs (stale or never: its verdicts rest on
 * a task nobody checked) unless the batch allows them (--allow-unvalidated). The summary's schema is
 * @oracle/spec's BatchSummarySchema.
 */
export function summarize(
  predictions: number,
  lines: readonly ResultLine[],
  options: { validation?: ReadonlyMap<string, ValidationState>; allowUnvalidated?: boolean } = {},
): BatchSummary {
  const counted = options.allowUnvalidated === true;
  const unvalidated: BatchSummary["unvalidated"] = { count: 0, ids: [], tasks: {}, counted };
  const overall = { graded: 0, pass: 0, fail: 0 };
  const byTask: BatchSummary["byTask"] = {};
  const byReason: BatchSummary["byReason"] = {};
  const byError: BatchSummary["byError"] = {};
  const apart = { quarantined: [] as string[], infra_error: [] as string[], error: [] as string[] };
  let cached = 0;
  let gradeSeconds = 0;
  for (const line of lines) {
    const task = byTask[line.task] ?? emptyTask();
    byTask[line.task] = task;
    if (line.reason !== null) bump(byReason, line.reason);
    if (line.error !== null) bump(byError, line.error);
    if (line.cached) cached += 1;
    else gradeSeconds += line.seconds;
    const ran = line.outcome === "graded" || line.outcome === "infra_error";
    const state = options.validation?.get(line.task);
    const notValidated = ran && state !== undefined && state !== "current";
    if (notValidated) {
      unvalidated.count += 1;
      unvalidated.ids.push(line.id);
      unvalidated.tasks[line.task] = state;
    }
    if (ran && (counted || !notValidated)) tally(line, [overall, task]);
    if (line.outcome !== "graded") apart[line.outcome].push(line.id);
    if (line.outcome === "quarantined") task.quarantined += 1;
    else if (line.outcome === "infra_error") task.infraErrors += 1;
    else if (line.outcome === "error") task.errors += 1;
  }
  for (const task of Object.values(byTask)) task.passRate = rate(task.pass, task.graded);
  return {
    predictions,
    done: lines.length,
    missing: Math.max(0, predictions - lines.length),
    overall: { ...overall, passRate: rate(overall.pass, overall.graded) },
    byTask,
    byReason,
    byError,
    quarantined: { count: apart.quarantined.length, ids: apart.quarantined },
    unvalidated,
    infraErrors: { count: apart.infra_error.length, ids: apart.infra_error },
    errors: { count: apart.error.length, ids: apart.error },
    cached,
    gradeSeconds: Math.round(gradeSeconds * 1000) / 1000,
  };
}

function bump<K extends string>(counts: Partial<Record<K, number>>, key: K): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** A line that counts toward the pass rate, in the batch's tally and its task's. */
function tally(line: ResultLine, tallies: Array<{ graded: number; pass: number; fail: number }>): void {
  const passed = line.outcome === "graded" && line.verdict === "PASS";
  for (const t of tallies) {
    t.graded += 1;
    if (passed) t.pass += 1;
    else t.fail += 1;
  }
}

const percent = (value: number | null): string => (value === null ? "n/a" : `${(value * 100).toFixed(1)}%`);

/** Ids from the predictions file, each inert and on one line (printable). */
function listIds(ids: string[]): string {
  const shown = ids.slice(0, 10).map((id) => printable(id, { oneLine: true }));
  return ids.length <= 10 ? shown.join(", ") : `${shown.join(", ")}, … (${ids.length - 10} more)`;
}

/** A few lines for a person. */
export function renderSummary(summary: BatchSummary): string {
  const o = summary.overall;
  const infra = summary.infraErrors.count > 0 ? `, ${summary.infraErrors.count} of them INFRA_ERROR` : "";
  const lines = [
    `pass rate ${percent(o.passRate)}: ${o.pass} PASS / ${o.graded} graded (${o.fail} FAIL${infra})`,
  ];
  for (const [task, t] of Object.entries(summary.byTask).sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${printable(task, { oneLine: true })}: ${percent(t.passRate)} (${t.pass}/${t.graded})`);
  }
  if (summary.quarantined.count > 0)
    lines.push(
      `quarantined, not counted: ${summary.quarantined.count} (${listIds(summary.quarantined.ids)})`,
    );
  const u = summary.unvalidated;
  if (u.count > 0) {
    const tasks = Object.entries(u.tasks)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([task, state]) => `${task} (${state})`);
    lines.push(
      `${u.counted ? "on tasks not validated, counted (--allow-unvalidated)" : "on tasks not validated, not counted"}: ${u.count} (${listIds(u.ids)})`,
      `  tasks: ${listIds(tasks)}; validate them with: pnpm quarantine-sweep --changed`,
    );
  }
  if (summary.infraErrors.count > 0)
    lines.push(
      `infra errors after retries, counted as not passed: ${summary.infraErrors.count} (${listIds(summary.infraErrors.ids)})`,
    );
  if (summary.errors.count > 0)
    lines.push(`not graded (errors), not counted: ${summary.errors.count} (${listIds(summary.errors.ids)})`);
  if (summary.cached > 0) lines.push(`reused from the result cache: ${summary.cached}`);
  if (summary.missing > 0)
    lines.push(`still without a result: ${summary.missing} (rerun with the same --out to resume)`);
  return lines.join("\n");
}
