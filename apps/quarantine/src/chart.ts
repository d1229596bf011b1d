import { escapeHtml } from "@oracle/cli-kit";
import { formatDuration, runLabel } from "./summary.js";
import type { RunRecord, SweepReport, TaskReport } from "./types.js";

export { escapeHtml };

/** How a run went, as a colour class: as expected, a task problem, a timeout, or the engine's fault. */
export type RunTone = "ok" | "bad" | "timeout" | "infra";

export function runTone(run: RunRecord): RunTone {
  if (run.reason === "INFRA_ERROR") return "infra";
  if (run.reason === "TIMEOUT") return "timeout";
  if (run.mode === "gold") return run.verdict === "PASS" ? "ok" : "bad";
  const healthy = run.existing?.status === "PASS" && run.hidden?.status === "FAIL";
  return healthy ? "ok" : "bad";
}

export const TONE_COLOURS: Record<RunTone, string> = {
  ok: "#2e7d32",
  bad: "#c62828",
  timeout: "#ef6c00",
  infra: "#757575",
};
const STATUS_COLOURS: Record<TaskReport["status"], string> = {
  healthy: TONE_COLOURS.ok,
  quarantined: TONE_COLOURS.bad,
  "infra-error": TONE_COLOURS.infra,
};

const WIDTH = 760;
const LABEL_WIDTH = 220;
const ROW = 22;

function outcomeBars(report: SweepReport): string {
  const rows: Array<[string, number, string]> = [
    ["healthy", report.counts.healthy, STATUS_COLOURS.healthy],
    ["quarantined", report.counts.quarantined, STATUS_COLOURS.quarantined],
    ["infra error", report.counts.infraError, STATUS_COLOURS["infra-error"]],
  ];
  const max = Math.max(1, report.counts.tasks);
  const bars = rows.map(([label, n, colour], i) => {
    const y = i * ROW;
    const w = ((WIDTH - LABEL_WIDTH - 60) * n) / max;
    return [
      `<text x="${LABEL_WIDTH - 8}" y="${y + 15}" text-anchor="end">${escapeHtml(label)}</text>`,
      `<rect x="${LABEL_WIDTH}" y="${y + 3}" width="${w.toFixed(1)}" height="${ROW - 6}" fill="${colour}"><title>${escapeHtml(`${label}: ${n}`)}</title></rect>`,
      `<text x="${(LABEL_WIDTH + w + 6).toFixed(1)}" y="${y + 15}">${n}</text>`,
    ].join("");
  });
  return svg("Tasks by status", rows.length * ROW, bars.join("\n"));
}

function runRects(task: TaskReport, y: number, scale: number): string {
  let x = LABEL_WIDTH;
  return task.runs
    .map((run) => {
      const w = Math.max(2, run.durationMs * scale);
      const tip = `${task.id} · ${run.mode} #${run.repeat}: ${runLabel(run)} · ${formatDuration(run.durationMs)}`;
      const rect = `<rect class="run" data-tone="${runTone(run)}" x="${x.toFixed(1)}" y="${y + 3}" width="${(w - 1).toFixed(1)}" height="${ROW - 6}" fill="${TONE_COLOURS[runTone(run)]}"><title>${escapeHtml(tip)}</title></rect>`;
      x += w;
      return rect;
    })
    .join("");
}

function durationStrips(report: SweepReport): string {
  const longest = Math.max(1, ...report.tasks.map((t) => t.runMs));
  const scale = (WIDTH - LABEL_WIDTH - 80) / longest;
  const rows = report.tasks.map((task, i) => {
    const y = i * ROW;
    const label = task.id.length > 30 ? `${task.id.slice(0, 29)}…` : task.id;
    return [
      `<circle cx="8" cy="${y + ROW / 2}" r="5" fill="${STATUS_COLOURS[task.status]}"/>`,
      `<text x="${LABEL_WIDTH - 8}" y="${y + 15}" text-anchor="end">${escapeHtml(label)}</text>`,
      runRects(task, y, scale),
      `<text x="${(LABEL_WIDTH + task.runMs * scale + 6).toFixed(1)}" y="${y + 15}">${escapeHtml(formatDuration(task.runMs))}</text>`,
    ].join("");
  });
  return svg(
    "Runs per task: one block per run, width = its duration, colour = its outcome",
    Math.max(1, rows.length) * ROW,
    rows.join("\n"),
  );
}

function svg(title: string, height: number, body: string): string {
  return [
    `<figure><figcaption>${escapeHtml(title)}</figcaption>`,
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-size="12" font-family="system-ui, sans-serif">`,
    `<title>${escapeHtml(title)}</title>`,
    body,
    "</svg></figure>",
  ].join("\n");
}

function legend(): string {
  const items: Array<[RunTone, string]> = [
    ["ok", "as expected"],
    ["bad", "task problem"],
    ["timeout", "timeout"],
    ["infra", "infra error (not the task's fault)"],
  ];
  return `<p class="legend">${items
    .map(([tone, text]) => `<span><i style="background:${TONE_COLOURS[tone]}"></i>${escapeHtml(text)}</span>`)
    .join(" ")}</p>`;
}

/** The report's charts as inline SVG: tasks by status, and every run's outcome and duration per task. */
export function renderCharts(report: SweepReport): string {
  return [outcomeBars(report), legend(), durationStrips(report)].join("\n");
}
