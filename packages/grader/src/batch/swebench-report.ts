import type { ResultLine, SweBenchReport } from "@oracle/spec";
import type { Prediction } from "./predictions.js";

const isEmptyPatch = (p: Prediction): boolean => "text" in p.diff && p.diff.text.trim() === "";
const sorted = (ids: Iterable<string>): string[] => [...ids].sort();

/**
 * A batch's results in the shape of SWE-bench's run report (swebench/harness/reporting.py,
 * schema_version 2), so tooling written for SWE-bench reads them. The mapping:
 * - empty_patch: the prediction's inline diff is empty or blank (SWE-bench does not run those);
 *   it is graded all the same (results.jsonl has its FAIL), but counts here only as an empty patch;
 * - completed: a run gave a verdict (PASS or FAIL); resolved = PASS, unresolved = FAIL. A diff that
 *   does not apply is a FAIL here (unresolved), where SWE-bench calls it an error;
 * - error: no verdict — an INFRA_ERROR after retries, a task that could not be graded (unknown,
 *   invalid, image not built) or one on the quarantine list;
 * - incomplete: submitted without a completed run (errors, empty patches, and predictions an
 *   interrupted batch has not reached). total_instances is the predictions file's size: the oracle
 *   grades the tasks it is given and knows no dataset beyond them.
 * Its schema is @oracle/spec's SweBenchReportSchema. Ids without a line are incomplete.
 */
export function sweBenchReport(
  predictions: readonly Prediction[],
  lines: readonly ResultLine[],
): SweBenchReport {
  const byId = new Map(lines.map((line) => [line.id, line]));
  const ids = { completed: [] as string[], empty: [] as string[], resolved: [] as string[] };
  const more = { unresolved: [] as string[], error: [] as string[], incomplete: [] as string[] };
  for (const p of predictions) {
    const line = byId.get(p.id);
    const completed = !isEmptyPatch(p) && Boolean(line?.verdict);
    if (isEmptyPatch(p)) ids.empty.push(p.id);
    else if (completed) {
      ids.completed.push(p.id);
      (line?.verdict === "PASS" ? ids.resolved : more.unresolved).push(p.id);
    } else if (line) more.error.push(p.id);
    if (!completed) more.incomplete.push(p.id);
  }
  return {
    total_instances: predictions.length,
    submitted_instances: predictions.length,
    completed_instances: ids.completed.length,
    resolved_instances: ids.resolved.length,
    unresolved_instances: more.unresolved.length,
    empty_patch_instances: ids.empty.length,
    error_instances: more.error.length,
    completed_ids: sorted(ids.completed),
    incomplete_ids: sorted(more.incomplete),
    empty_patch_ids: sorted(ids.empty),
    submitted_ids: sorted(predictions.map((p) => p.id)),
    resolved_ids: sorted(ids.resolved),
    unresolved_ids: sorted(more.unresolved),
    error_ids: sorted(more.error),
    schema_version: 2,
  };
}
