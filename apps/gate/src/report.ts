// The gate's reports: a few lines for the terminal, gate.md for a CI job summary, gate.html for
// people (per-task outcomes and the interval, drawn as SVG). Everything a batch wrote (ids, tasks,
// messages, paths) is escaped: a results file is not trusted to be plain text.

import { relative, sep } from "node:path";
import { codeSpan, escapeHtml, escapeMarkdown, printable } from "@oracle/cli-kit";
import { GATE_TASK_OUTCOMES, type GateReport, type GateTask } from "@oracle/spec";

const pct = (x: number) => `${(100 * x).toFixed(1)}`;

const OUTCOME_COLOURS: Record<(typeof GATE_TASK_OUTCOMES)[number], string> = {
  gain: "#2e7d32",
  regression: "#c62828",
  "both pass": "#90caf9",
  "both fail": "#9e9e9e",
  tie: "#ce93d8",
  unknown: "#ef6c00",
};

function outcomeCounts(report: GateReport): Array<[string, number]> {
  return GATE_TASK_OUTCOMES.map((o) => [o, report.tasks.filter((t) => t.outcome === o).length]);
}

function effectLine(report: GateReport): string | null {
  const t = report.test;
  if (!t) return null;
  return `${t.method} over ${t.tasks} tasks: effect ${pct(t.effect)} points, ${pct(t.level)}% interval [${pct(t.lower)}, ${pct(t.upper)}] (${t.interval}), p = ${t.pValue.toPrecision(3)}; gains ${t.counts.gains}, regressions ${t.counts.regressions}, both pass ${t.counts.bothPass}, both fail ${t.counts.bothFail}${t.counts.ties ? `, ties ${t.counts.ties}` : ""}`;
}

function rate(side: GateReport["passRates"]["candidate"]): string {
  return side.rate === null ? "n/a" : `${pct(side.rate)}% (${side.passes} of ${side.samples})`;
}

/** The tasks left out, grouped by why (in order of first appearance): one line per reason, not per task. */
export function exclusionGroups(report: GateReport): Array<{ why: string; tasks: string[] }> {
  const groups = new Map<string, string[]>();
  for (const e of report.excluded) groups.set(e.why, [...(groups.get(e.why) ?? []), e.task]);
  return [...groups].map(([why, tasks]) => ({ why, tasks }));
}

/** Each side's pass rate on the compared tasks. */
export function passRatesLine(report: GateReport): string {
  return `pass rates on the ${report.tasks.length} compared task(s): candidate ${rate(report.passRates.candidate)}, incumbent ${rate(report.passRates.incumbent)}`;
}

/** What the terminal shows: the decision, why, the test, and what to do next. */
export function renderText(report: GateReport, files: readonly string[]): string {
  const one = (s: string) => printable(s, { oneLine: true });
  const lines = [`gate: ${report.decision.toUpperCase()}: ${one(report.why)}`, `  ${passRatesLine(report)}`];
  const effect = effectLine(report);
  if (effect) lines.push(`  ${effect}`);
  if (report.test?.sensitivity) {
    const s = report.test.sensitivity;
    lines.push(
      `  ${s.unknownSamples} unknown sample(s): counted against the candidate ${s.against.decision}, for it ${s.for.decision}`,
    );
  }
  for (const v of report.veto.slice(0, 20))
    lines.push(
      `  veto: ${one(v.id)} (${one(v.task)}) ${v.reason}, diff ${v.diffSha256?.slice(0, 12) ?? "-"}, log ${one(v.log ?? "-")}`,
    );
  if (report.veto.length > 20) lines.push(`  … and ${report.veto.length - 20} more (gate.json)`);
  if (report.excluded.length > 0) {
    lines.push(`  left out: ${report.excluded.length} task(s):`);
    const groups = exclusionGroups(report);
    for (const g of groups.slice(0, 5))
      lines.push(
        `    ${one(g.why)}: ${g.tasks.length} task(s): ${g.tasks
          .slice(0, 5)
          .map((t) => one(t))
          .join(", ")}${g.tasks.length > 5 ? ", …" : ""}`,
      );
    if (groups.length > 5) lines.push(`    … and ${groups.length - 5} more reason(s) (gate.json)`);
  }
  for (const w of report.warnings) lines.push(`  warning: ${one(w)}`);
  for (const n of report.next) lines.push(`  next: ${one(n)}`);
  if (files.length > 0) lines.push(`  reports: ${files.map(one).join(", ")}`);
  return `${lines.join("\n")}\n`;
}

/** A link from the report's folder to a file, every segment URL-encoded. */
function href(outDir: string, file: string): string {
  return relative(outDir, file).split(sep).map(encodeURIComponent).join("/");
}

function sampleLinksMd(outDir: string, resultsFile: string, side: GateTask["candidate"]): string {
  return side.samples
    .map((s) => {
      const log = s.log ? ` [log](${href(outDir, s.log)})` : "";
      return `[${codeSpan(s.id)}](${href(outDir, resultsFile)}) ${s.reason ?? "-"}${log}`;
    })
    .join("<br>");
}

function parametersText(report: GateReport): string {
  const p = report.parameters;
  return [
    p.mode === "superiority" ? "superiority" : `non-inferiority, margin ${pct(p.margin)} points`,
    `alpha ${p.alpha}`,
    `noise threshold ${pct(p.maxInfra)}%`,
    `${p.resamples} resamples, seed ${p.seed}`,
    ...(p.allowUnvalidated ? ["--allow-unvalidated"] : []),
    ...(p.allowMissing ? ["--allow-missing"] : []),
  ].join(", ");
}

/** gate.md: the CI job summary. */
export function renderMarkdown(report: GateReport, outDir: string): string {
  const cRes = `${report.candidate.dir}/results.jsonl`;
  const iRes = `${report.incumbent.dir}/results.jsonl`;
  const lines = [
    `# Gate: ${report.decision.toUpperCase()}`,
    "",
    codeSpan(report.why),
    "",
    "| | candidate | incumbent |",
    "|---|---|---|",
    `| batch | ${codeSpan(report.candidate.batchId)} | ${codeSpan(report.incumbent.batchId)} |`,
    `| results.jsonl SHA-256 | \`${report.candidate.resultsSha256.slice(0, 16)}\` | \`${report.incumbent.resultsSha256.slice(0, 16)}\` |`,
    `| lines | ${report.candidate.lines} | ${report.incumbent.lines} |`,
    `| pass rate (compared tasks) | ${rate(report.passRates.candidate)} | ${rate(report.passRates.incumbent)} |`,
    `| complete | ${report.candidate.completeness} | ${report.incumbent.completeness} |`,
    `| INFRA_ERROR or TIMEOUT (compared tasks' samples) | ${report.infra.candidate.unknown} of ${report.infra.candidate.samples} | ${report.infra.incumbent.unknown} of ${report.infra.incumbent.samples} |`,
    "",
    `${parametersText(report)}.`,
  ];
  const effect = effectLine(report);
  if (effect) lines.push("", escapeMarkdown(effect));
  if (report.veto.length > 0) {
    lines.push(
      "",
      "## Vetoed: tampering verdicts",
      "",
      "| prediction | task | reason | diff | log |",
      "|---|---|---|---|---|",
    );
    for (const v of report.veto)
      lines.push(
        `| ${codeSpan(v.id)} | ${codeSpan(v.task)} | \`${v.reason}\` | \`${(v.diffSha256 ?? "-").slice(0, 12)}\` | ${v.log ? `[log](${href(outDir, v.log)})` : "-"} |`,
      );
  }
  const table = (title: string, tasks: GateTask[]) => {
    if (tasks.length === 0) return;
    lines.push("", `## ${title}`, "", "| task | candidate | incumbent |", "|---|---|---|");
    for (const t of tasks)
      lines.push(
        `| ${codeSpan(t.task)} | ${sampleLinksMd(outDir, cRes, t.candidate)} | ${sampleLinksMd(outDir, iRes, t.incumbent)} |`,
      );
  };
  table(
    "Regressions",
    report.tasks.filter((t) => t.outcome === "regression"),
  );
  table(
    "Gains",
    report.tasks.filter((t) => t.outcome === "gain"),
  );
  table(
    "Unknown (infrastructure noise)",
    report.tasks.filter((t) => t.outcome === "unknown"),
  );
  lines.push("", "## Per-task outcomes", "", "| outcome | tasks |", "|---|---:|");
  for (const [o, n] of outcomeCounts(report)) lines.push(`| ${o} | ${n} |`);
  if (report.excluded.length > 0) {
    lines.push("", "## Left out of the test", "");
    for (const g of exclusionGroups(report))
      lines.push(
        `- ${codeSpan(g.why)}: ${g.tasks.length} task(s): ${g.tasks.map((t) => codeSpan(t)).join(", ")}`,
      );
  }
  const unpaired = [
    ...report.unpaired.candidate.map((t) => `${t} (candidate only)`),
    ...report.unpaired.incumbent.map((t) => `${t} (incumbent only)`),
  ];
  if (unpaired.length > 0)
    lines.push("", "## Graded on one side only", "", ...unpaired.map((t) => `- ${codeSpan(t)}`));
  if (report.warnings.length + report.next.length > 0) {
    lines.push("", "## Notes", "");
    for (const w of report.warnings) lines.push(`- ${codeSpan(w)}`);
    for (const n of report.next) lines.push(`- next: ${codeSpan(n)}`);
  }
  lines.push(
    "",
    `Decided ${report.decidedAt} by grader ${codeSpan(report.graderVersion)}${report.attestation ? `, signed by ${report.attestation.signatures[0]?.keyid.slice(0, 12)}` : ""}.`,
  );
  return `${lines.join("\n")}\n`;
}

const WIDTH = 760;

function outcomeChart(report: GateReport): string {
  const rows = outcomeCounts(report);
  const max = Math.max(1, report.tasks.length);
  const row = 22;
  const bars = rows.map(([label, n], i) => {
    const y = i * row;
    const w = ((WIDTH - 220) * n) / max;
    return `<text x="152" y="${y + 15}" text-anchor="end">${escapeHtml(label)}</text><rect x="160" y="${y + 3}" width="${w.toFixed(1)}" height="${row - 6}" fill="${OUTCOME_COLOURS[label as keyof typeof OUTCOME_COLOURS]}"><title>${escapeHtml(`${label}: ${n}`)}</title></rect><text x="${(166 + w).toFixed(1)}" y="${y + 15}">${n}</text>`;
  });
  return `<figure><figcaption>Per-task outcomes</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${rows.length * row}" font-family="sans-serif" font-size="12">${bars.join("")}</svg></figure>`;
}

function intervalChart(report: GateReport): string {
  const t = report.test;
  if (!t) return "";
  const bound = report.parameters.mode === "superiority" ? 0 : -report.parameters.margin;
  const span = Math.max(0.1, Math.abs(t.lower), Math.abs(t.upper), Math.abs(bound)) * 1.15;
  const x = (v: number) => (40 + ((v + span) / (2 * span)) * (WIDTH - 80)).toFixed(1);
  const colour =
    report.decision === "promote" ? "#2e7d32" : report.decision === "reject" ? "#c62828" : "#ef6c00";
  return `<figure><figcaption>Effect (candidate minus incumbent, points) and its ${pct(t.level)}% interval; the dashed line is what the lower end must clear</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="70" font-family="sans-serif" font-size="12">
<line x1="40" y1="40" x2="${WIDTH - 40}" y2="40" stroke="#999"/>
<line x1="${x(0)}" y1="15" x2="${x(0)}" y2="55" stroke="#555"/><text x="${x(0)}" y="66" text-anchor="middle">0</text>
<line x1="${x(bound)}" y1="10" x2="${x(bound)}" y2="60" stroke="#000" stroke-dasharray="4 3"/>
<line x1="${x(t.lower)}" y1="40" x2="${x(t.upper)}" y2="40" stroke="${colour}" stroke-width="6"/>
<circle cx="${x(t.effect)}" cy="40" r="6" fill="${colour}"><title>${escapeHtml(`effect ${pct(t.effect)} [${pct(t.lower)}, ${pct(t.upper)}]`)}</title></circle>
<text x="${x(t.lower)}" y="28" text-anchor="middle">${pct(t.lower)}</text><text x="${x(t.upper)}" y="28" text-anchor="middle">${pct(t.upper)}</text>
</svg></figure>`;
}

function sampleLinksHtml(outDir: string, resultsFile: string, side: GateTask["candidate"]): string {
  return side.samples
    .map((s) => {
      const log = s.log ? ` <a href="${escapeHtml(href(outDir, s.log))}">log</a>` : "";
      return `<a href="${escapeHtml(href(outDir, resultsFile))}" title="results.jsonl">${escapeHtml(s.id)}</a> ${escapeHtml(s.reason ?? "-")}${log}`;
    })
    .join("<br>");
}

/** gate.html: the decision, the charts, and every task with links to both results and their logs. */
export function renderHtml(report: GateReport, outDir: string): string {
  const cRes = `${report.candidate.dir}/results.jsonl`;
  const iRes = `${report.incumbent.dir}/results.jsonl`;
  const effect = effectLine(report);
  const rows = report.tasks
    .map(
      (t) =>
        `<tr class="${escapeHtml(t.outcome.replace(" ", "-"))}"><td>${escapeHtml(t.task)}</td><td style="color:${OUTCOME_COLOURS[t.outcome]}">${escapeHtml(t.outcome)}</td><td class="num">${t.difference === null ? "-" : pct(t.difference)}</td><td>${sampleLinksHtml(outDir, cRes, t.candidate)}</td><td>${sampleLinksHtml(outDir, iRes, t.incumbent)}</td></tr>`,
    )
    .join("\n");
  const veto = report.veto
    .map(
      (v) =>
        `<li><b>${escapeHtml(v.reason)}</b> ${escapeHtml(v.id)} (${escapeHtml(v.task)}), diff ${escapeHtml((v.diffSha256 ?? "-").slice(0, 12))}${v.log ? `, <a href="${escapeHtml(href(outDir, v.log))}">log</a>` : ""}: ${escapeHtml(v.message)}</li>`,
    )
    .join("");
  const list = (title: string, items: string[]) =>
    items.length === 0
      ? ""
      : `<h2>${escapeHtml(title)}</h2><ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join("")}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Gate: ${escapeHtml(report.decision)}</title>
<style>body{font-family:sans-serif;margin:24px;max-width:1100px} table{border-collapse:collapse} td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top;font-size:13px} .num{text-align:right} h1.promote{color:#2e7d32} h1.reject{color:#c62828} h1.inconclusive{color:#ef6c00}</style>
</head><body>
<h1 class="${escapeHtml(report.decision)}">Gate: ${escapeHtml(report.decision.toUpperCase())}</h1>
<p>${escapeHtml(report.why)}</p>
${effect ? `<p>${escapeHtml(effect)}</p>` : ""}
${veto ? `<h2>Vetoed: tampering verdicts</h2><ul>${veto}</ul>` : ""}
${intervalChart(report)}
${outcomeChart(report)}
<table><tr><th></th><th>candidate</th><th>incumbent</th></tr>
<tr><th>batch</th><td>${escapeHtml(report.candidate.batchId)}</td><td>${escapeHtml(report.incumbent.batchId)}</td></tr>
<tr><th>results.jsonl SHA-256</th><td>${escapeHtml(report.candidate.resultsSha256)}</td><td>${escapeHtml(report.incumbent.resultsSha256)}</td></tr>
<tr><th>pass rate (compared tasks)</th><td>${escapeHtml(rate(report.passRates.candidate))}</td><td>${escapeHtml(rate(report.passRates.incumbent))}</td></tr>
<tr><th>INFRA_ERROR or TIMEOUT (compared tasks' samples)</th><td>${report.infra.candidate.unknown} of ${report.infra.candidate.samples}</td><td>${report.infra.incumbent.unknown} of ${report.infra.incumbent.samples}</td></tr>
</table>
<h2>Tasks</h2>
<table><tr><th>task</th><th>outcome</th><th>difference</th><th>candidate</th><th>incumbent</th></tr>
${rows}
</table>
${list(
  "Left out of the test",
  exclusionGroups(report).map((g) => `${g.why}: ${g.tasks.length} task(s): ${g.tasks.join(", ")}`),
)}
${list("Graded on one side only", [...report.unpaired.candidate.map((t) => `${t} (candidate only)`), ...report.unpaired.incumbent.map((t) => `${t} (incumbent only)`)])}
${list("Notes", [...report.warnings, ...report.next.map((n) => `next: ${n}`)])}
<p>Decided ${escapeHtml(report.decidedAt)} by grader ${escapeHtml(report.graderVersion)}; ${escapeHtml(parametersText(report))}.</p>
</body></html>
`;
}
