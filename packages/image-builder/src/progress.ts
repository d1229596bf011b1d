import type { BuildReporter, BuildSummary, ImageOutcome } from "./build-images.js";
import type { RebuildDecision } from "./decision.js";
import { describeReason } from "./decision.js";

interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Human progress on `out` (stderr): on a TTY one updating line per image with its current step,
 * otherwise plain lines (one per step), suitable for CI logs.
 */
export function createProgressReporter(out: Output, tty: boolean): BuildReporter {
  let live: string | undefined;
  const clearLive = () => {
    if (live !== undefined) out.write("\r\x1b[2K");
    live = undefined;
  };
  const line = (text: string) => {
    clearLive();
    out.write(`${text}\n`);
  };
  const fitWidth = (text: string) => {
    const width = Math.max(20, (out.columns || 100) - 1);
    const flat = text.replace(/\s+/g, " ");
    return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
  };
  return {
    decided(name: string, decision: RebuildDecision) {
      if (decision.rebuild) line(`${name}: building (${decision.reasons.map(describeReason).join("; ")})`);
    },
    step(name: string, step: string) {
      if (!tty) return line(`${name}: ${step}`);
      live = fitWidth(`${name}: ${step}`);
      out.write(`\r\x1b[2K${live}`);
    },
    finished(outcome: ImageOutcome) {
      line(describeOutcome(outcome));
    },
  };
}

/** One or a few lines about one image's outcome. */
export function describeOutcome(outcome: ImageOutcome): string {
  switch (outcome.status) {
    case "up-to-date":
      return `${outcome.name}: up to date (${outcome.reference})`;
    case "built":
      return `${outcome.name}: built in ${seconds(outcome.durationMs)} -> ${outcome.reference}`;
    case "failed": {
      const lines = [`${outcome.name}: FAILED ${outcome.error?.code}: ${outcome.error?.message}`];
      if (outcome.error?.hint) lines.push(`  hint: ${outcome.error.hint}`);
      if (outcome.logFile) lines.push(`  log: ${outcome.logFile}`);
      return lines.join("\n");
    }
  }
}

/** The closing line of a run. */
export function describeSummary(summary: BuildSummary): string {
  const count = (status: ImageOutcome["status"]) => summary.images.filter((i) => i.status === status).length;
  const n = summary.images.length;
  return `${n} image${n === 1 ? "" : "s"}: ${count("built")} built, ${count("up-to-date")} up to date, ${count("failed")} failed (${seconds(summary.durationMs)})`;
}
