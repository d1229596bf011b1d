import { printable } from "@oracle/cli-kit";
import type { RunView, SuiteView } from "./log-view.js";

const str = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));
const short = (sha: unknown): string => (typeof sha === "string" ? sha.slice(0, 12) : "-");

function header(view: RunView, file: string): string[] {
  const h = view.header;
  const fields = (["task", "mode", "run", "grader", "started"] as const)
    .filter((key) => h[key] !== undefined)
    .map((key) => `${key} ${str(h[key])}`);
  return [
    `oracle log ${file}`,
    fields.length ? fields.join("  ") : "(no start event: the log's head is missing)",
  ];
}

function steps(view: RunView): string[] {
  if (view.steps.length === 0) return [];
  const width = Math.max(...view.steps.map((s) => s.name.length));
  const lines = view.steps.map((s) => {
    const at =
      s.at !== undefined && view.startedAt !== undefined
        ? `  at +${((s.at - view.startedAt) / 1000).toFixed(3)} s`
        : "";
    return `  ${s.name.padEnd(width)}  ${String(s.ms).padStart(7)} ms${at}`;
  });
  return ["", "steps", ...lines];
}

function diff(view: RunView): string[] {
  const d = view.diff;
  if (!d) return view.header.mode === "baseline" ? ["", "diff: none (baseline)"] : [];
  const head = `diff: sha256 ${short(d.sha256)}, after the filter ${short(d.filteredSha256)}; ${str(d.kept)} file(s) kept, ${d.dropped.length} dropped`;
  const drops = d.dropped.map((e) => `  dropped ${e.path}${e.hunk ? ` ${e.hunk}` : ""}: ${e.why}`);
  return ["", head, ...drops];
}

function suite(name: string, s: SuiteView): string[] {
  const lines = ["", `${name} suite${s.command ? `: ${s.command}` : ""}`];
  for (const [stream, output] of s.output) {
    lines.push(`  ${stream}:`);
    for (const line of output.lines()) lines.push(`  | ${line}`);
  }
  if (s.output.size === 0) lines.push("  (no output)");
  if (s.exit)
    lines.push(
      `  exit ${str(s.exit.exitCode)} after ${str(s.exit.durationMs)} ms (stdout ${str(s.exit.stdoutBytes)} B, stderr ${str(s.exit.stderrBytes)} B)`,
    );
  if (s.summary) lines.push(`  ${s.summary}`);
  for (const test of s.tests) lines.push(`    ${test}`);
  if (s.testsOmitted > 0)
    lines.push(`    … and ${s.testsOmitted} more (the log's verdict event lists every id)`);
  return lines;
}

function verdict(view: RunView): string[] {
  const v = view.verdict;
  if (!v) return ["", "verdict: none (the run did not finish: killed, or the log is cut short)"];
  return [
    "",
    `verdict: ${str(v.verdict)} (${str(v.reason)}) ${str(v.message)}`,
    `tests_hash=${str(v.testsHash)} over ${v.testIds} test id(s)`,
  ];
}

/** The whole account, one string ending in a newline. */
export function renderRun(view: RunView, file: string): string {
  const lines = [
    ...header(view, file),
    ...(view.image ? [`image ${view.image}`] : []),
    ...(view.sentinel ? [`sentinel ${view.sentinel}`] : []),
    ...(view.existingSentinel ? [`existing suite's sentinel ${view.existingSentinel}`] : []),
    ...diff(view),
    ...steps(view),
    ...[...view.suites].flatMap(([name, s]) => suite(name, s)),
    ...(view.warnings.length ? ["", "warnings", ...view.warnings.map((w) => `  ${w}`)] : []),
    ...(view.badLines.length
      ? ["", `unparsable line(s) skipped: ${view.badLines.slice(0, 10).join(", ")}`]
      : []),
    ...verdict(view),
  ];
  // Everything in a log but its field names came from outside the oracle at some point (the
  // suite's output, test ids, messages quoting them, paths): shown inert, never obeyed.
  return `${printable(lines.join("\n"))}\n`;
}
