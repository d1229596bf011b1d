import { join, relative, sep } from "node:path";
import { withRoot } from "@oracle/cli-kit";
import { escapeHtml, renderCharts, runTone, TONE_COLOURS } from "./chart.js";
import { unsealedWithRules } from "./seals.js";
import { formatDuration, modeSummary } from "./summary.js";
import type { RunRecord, SweepReport, TaskReport } from "./types.js";

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1b1b1b; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
tr.quarantined td.status { color: #c62828; font-weight: 600; }
tr.healthy td.status { color: #2e7d32; }
tr.infra-error td.status { color: #757575; }
td.num { text-align: right; white-space: nowrap; }
ul.reasons { margin: 0; padding-left: 16px; }
.counts td { min-width: 60px; }
.legend span { margin-right: 14px; } .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
a.log { margin-right: 6px; font-family: ui-monospace, monospace; font-size: 12px; }
figure { margin: 12px 0; } figcaption { color: #555; margin-bottom: 4px; }
`;

/** A link from the report's folder to a root-relative log path, every segment URL-encoded. */
export function logHref(report: SweepReport, log: string): string {
  const path = relative(report.reportDir, join(report.root, ...log.split("/")));
  return path.split(sep).map(encodeURIComponent).join("/");
}

function runLink(report: SweepReport, run: RunRecord): string {
  const name = `${run.mode === "gold" ? "g" : "b"}${run.repeat}`;
  if (!run.log) return `<span class="log" title="no log written">${name}</span>`;
  const colour = TONE_COLOURS[runTone(run)];
  return `<a class="log" style="color:${colour}" href="${escapeHtml(logHref(report, run.log))}" title="${escapeHtml(`${run.reason}: ${run.message}`)}">${name}</a>`;
}

/** The reasons with their hints, each command in a hint carrying the sweep's root (it may not be the working folder's). */
function reasonsCell(task: TaskReport, root: string): string {
  const items = task.reasons.map(
    (r) =>
      `<li><b>${escapeHtml(r.flag)}</b>: ${escapeHtml(r.message)}${r.hint ? `<br><i class="hint">fix: ${escapeHtml(withRoot(r.hint, root))}</i>` : ""}</li>`,
  );
  if (task.unprotected)
    items.push(
      `<li class="unprotected"><b>unprotected</b>: sentinel.state none, a runner patched in-process could make unfixed code PASS</li>`,
    );
  if (task.seals)
    items.push(
      `<li class="${task.seals.unsealed.length > 0 ? "unprotected" : "expected"}"><b>sealed</b>: ${task.seals.sealed}/${task.seals.failToPass} FAIL_TO_PASS${task.seals.unsealed.length > 0 ? `; not sealed: ${escapeHtml(unsealedWithRules(task.seals).join(", "))}` : ""}</li>`,
    );
  items.push(`<li class="expected">expected tests: ${escapeHtml(task.expected)}</li>`);
  if (task.infra.failedRuns > 0) {
    items.push(
      `<li><b>INFRA_ERROR</b> (not the task's fault): ${escapeHtml(task.infra.messages.join(" · "))}</li>`,
    );
  }
  return items.length > 0 ? `<ul class="reasons">${items.join("")}</ul>` : "";
}

function taskRow(report: SweepReport, task: TaskReport): string {
  const cells = [
    `<td class="task">${escapeHtml(task.id)}</td>`,
    `<td class="status">${escapeHtml(task.status)}</td>`,
    `<td class="change">${escapeHtml(task.change === "none" ? "" : task.change)}</td>`,
    `<td class="reasons">${reasonsCell(task, report.root)}</td>`,
    `<td class="baseline">${escapeHtml(modeSummary(task.runs, "baseline"))}</td>`,
    `<td class="gold">${escapeHtml(task.hasGold ? modeSummary(task.runs, "gold") : "no gold.diff")}</td>`,
    `<td class="num duration">${escapeHtml(formatDuration(task.runMs))}</td>`,
    `<td class="logs">${task.runs.map((run) => runLink(report, run)).join("")}</td>`,
  ];
  const attrs = `class="${escapeHtml(task.status)}" data-task="${escapeHtml(task.id)}" data-status="${escapeHtml(task.status)}" data-flags="${escapeHtml(task.reasons.map((r) => r.flag).join(" "))}"`;
  return `<tr ${attrs}>${cells.join("")}</tr>`;
}

function countsTable(report: SweepReport): string {
  const c = report.counts;
  const rows: Array<[string, number | string]> = [
    ["tasks", c.tasks],
    ["healthy", c.healthy],
    ["quarantined", c.quarantined],
    ["newly quarantined", c.newlyQuarantined],
    ["released", c.released],
    ["infra errors", c.infraError],
    [`runs (repeat ${report.options.repeat}, concurrency ${report.options.concurrency})`, c.runs],
    ["duration", formatDuration(report.durationMs)],
  ];
  const body = rows.map(
    ([k, v]) => `<tr><th>${escapeHtml(k)}</th><td class="num">${escapeHtml(String(v))}</td></tr>`,
  );
  return `<table class="counts" style="width:auto">${body.join("")}</table>`;
}

function idList(title: string, ids: string[]): string {
  if (ids.length === 0) return "";
  return `<h2>${escapeHtml(title)}</h2><p>${ids.map((id) => `<code>${escapeHtml(id)}</code>`).join(", ")}</p>`;
}

/**
 * report.html: one self-contained page (inline CSS and SVG, no script, no external resource; a
 * content security policy forbids loading any) with the counts, a chart and a table of every task.
 */
export function renderHtml(report: SweepReport): string {
  const c = report.counts;
  const title = `Quarantine sweep ${report.startedAt}: ${c.quarantined} of ${c.tasks} quarantined`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>Root <code>${escapeHtml(report.root)}</code>. Started ${escapeHtml(report.startedAt)}, finished ${escapeHtml(report.finishedAt)}. Sweep log <a href="${escapeHtml(logHref(report, report.sweepLog))}">${escapeHtml(report.sweepLog)}</a>.</p>
${countsTable(report)}
${idList("Newly quarantined", report.newlyQuarantined)}
${idList("Released", report.released)}
<h2>Outcomes and durations</h2>
${renderCharts(report)}
<h2>Tasks</h2>
<table id="tasks"><thead><tr><th>task</th><th>status</th><th>change</th><th>reasons</th><th>baseline runs</th><th>gold runs</th><th>run time</th><th>logs</th></tr></thead>
<tbody>
${report.tasks.map((task) => taskRow(report, task)).join("\n")}
</tbody></table>
</body></html>
`;
}
