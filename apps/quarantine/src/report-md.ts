import { escapeMarkdown, withRoot } from "@oracle/cli-kit";
import { ruleCounts, unsealedWithRules } from "./seals.js";
import { formatDuration, modeSummary } from "./summary.js";
import type { SweepReport, TaskReport } from "./types.js";

export { escapeMarkdown };

const STATUS_TEXT: Record<TaskReport["status"], string> = {
  healthy: "healthy",
  quarantined: "**quarantined**",
  "infra-error": "infra error",
};
const CHANGE_TEXT: Record<TaskReport["change"], string> = {
  new: "new",
  released: "released",
  kept: "still",
  none: "",
};

function countsTable(report: SweepReport): string[] {
  const c = report.counts;
  const o = report.options;
  return [
    "| | |",
    "|---|---:|",
    `| tasks | ${c.tasks} |`,
    `| healthy | ${c.healthy} |`,
    `| quarantined | ${c.quarantined} |`,
    `| newly quarantined | ${c.newlyQuarantined} |`,
    `| released | ${c.released} |`,
    `| infra errors (not the tasks' fault) | ${c.infraError} |`,
    `| runs (repeat ${o.repeat}, concurrency ${o.concurrency}) | ${c.runs} |`,
    `| infra retries | ${c.infraRetries} |`,
    `| duration | ${formatDuration(report.durationMs)} |`,
  ];
}

/** The reasons with their hints, each command in a hint carrying the sweep's root (it may not be the working folder's). */
function reasonsText(task: TaskReport, root: string): string {
  return task.reasons
    .map(
      (r) =>
        `\`${r.flag}\`: ${escapeMarkdown(r.message)}${r.hint ? ` (fix: ${escapeMarkdown(withRoot(r.hint, root))})` : ""}`,
    )
    .join(" · ");
}

/** `describe` returns Markdown: it escapes what it interpolates. */
function listSection(title: string, tasks: TaskReport[], describe: (t: TaskReport) => string): string[] {
  if (tasks.length === 0) return [];
  return ["", `## ${title}`, "", ...tasks.map((t) => `- ${escapeMarkdown(t.id)}: ${describe(t)}`)];
}

function taskRow(task: TaskReport): string {
  const cells = [
    escapeMarkdown(task.id),
    STATUS_TEXT[task.status],
    CHANGE_TEXT[task.change],
    task.reasons.map((r) => `\`${r.flag}\``).join(", "),
    escapeMarkdown(modeSummary(task.runs, "baseline")),
    escapeMarkdown(task.hasGold ? modeSummary(task.runs, "gold") : "no gold.diff"),
    formatDuration(task.runMs),
  ];
  return `| ${cells.join(" | ")} |`;
}

/** The count of unsealed FAIL_TO_PASS tests per rule, and the tasks swept for a stale seal record. */
function sealNotes(report: SweepReport): string[] {
  const lines: string[] = [];
  if (report.counts.unsealedByRule)
    lines.push(
      "",
      `FAIL_TO_PASS tests with no strong seal, by rule (rows of docs/security.md, "Sealed expectations"): ${escapeMarkdown(ruleCounts(report.counts.unsealedByRule))}`,
    );
  if ((report.staleSealRecords ?? []).length > 0)
    lines.push(
      "",
      `Swept because their seal record was made for another seal plan (the oracle changed since): ${escapeMarkdown(report.staleSealRecords!.join(", "))}`,
    );
  return lines;
}

/** report.md: the CI job summary. Counts, the newly quarantined and released tasks, then every task. */
export function renderMarkdown(report: SweepReport): string {
  const c = report.counts;
  const byId = (ids: string[]) => report.tasks.filter((t) => ids.includes(t.id));
  const lines = [
    `# Quarantine sweep: ${c.quarantined} of ${c.tasks} tasks quarantined, ${c.newlyQuarantined} new, ${c.released} released`,
    "",
    `Started ${report.startedAt}, finished ${report.finishedAt}.`,
    "",
    ...countsTable(report),
    ...listSection("Newly quarantined", byId(report.newlyQuarantined), (t) => reasonsText(t, report.root)),
    ...listSection(
      "Released",
      byId(report.released),
      () => "healthy again: removed from tasks/quarantine.json",
    ),
    ...listSection(
      "Infra errors (runs the engine failed, retried; not the tasks' fault)",
      report.tasks.filter((t) => t.infra.failedRuns > 0),
      (t) =>
        `${t.infra.failedRuns} run(s) failed after ${t.infra.retries} retries: ${escapeMarkdown(t.infra.messages.join(" · "))}`,
    ),
    ...listSection(
      "Unprotected runs (no sentinel: a runner patched in-process could make unfixed code PASS)",
      report.tasks.filter((t) => t.unprotected),
      () =>
        "sentinel.state none in a run: no must-fail/must-pass sentinel was planted and read there (the run ended before its report, as a TIMEOUT does; the command runs files the oracle cannot prove it plants in; or the runner has none): see each run's result",
    ),
    ...listSection(
      "Sealed FAIL_TO_PASS tests (a strong seal decides each at baseline: its expected value never enters the container)",
      report.tasks.filter((t) => t.seals !== undefined),
      (t) =>
        `${t.seals!.sealed}/${t.seals!.failToPass} sealed${t.seals!.unsealed.length > 0 ? `; not sealed: ${escapeMarkdown(unsealedWithRules(t.seals!).join(", "))}` : ""} (${escapeMarkdown(t.seals!.recorded)})`,
    ),
    ...listSection("Expected tests", report.tasks, (t) => escapeMarkdown(t.expected)),
    ...sealNotes(report),
    "",
    "## Tasks",
    "",
    "| task | status | change | reasons | baseline runs | gold runs | run time |",
    "|---|---|---|---|---|---|---:|",
    ...report.tasks.map(taskRow),
    "",
  ];
  if (report.removed.length > 0)
    lines.push(`Dropped from the list (task folder gone): ${escapeMarkdown(report.removed.join(", "))}`, "");
  return lines.join("\n");
}
