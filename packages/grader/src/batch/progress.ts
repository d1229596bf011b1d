import { printable } from "@oracle/cli-kit";
import type { ResultLine } from "@oracle/spec";
import type { BatchEvent } from "./grade-batch.js";

/** Renders batch events for a person: one rewritten status line on a TTY, one plain line per result otherwise. */
export interface BatchProgress {
  onEvent(event: BatchEvent): void;
  /** Ends the status line (TTY) before the summary is printed. */
  finish(): void;
}

/** An id, task or reason from the predictions file or a report: inert, and on one line. */
const one = (text: string): string => printable(text, { oneLine: true });

function describeLine(line: ResultLine): string {
  const what =
    line.outcome === "graded"
      ? `${line.verdict} ${line.reason}`
      : `${line.outcome.toUpperCase()} ${one(String(line.reason ?? line.error))}`;
  const where = line.worker && !line.cached ? ` on ${one(line.worker)}` : "";
  return `${one(line.id)} (${one(line.task)}): ${what}, ${line.cached ? `cached (reused the result of a ${line.seconds.toFixed(1)}s run)` : `${line.seconds.toFixed(1)}s`}${where}`;
}

const clock = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
};

function startLine(event: Extract<BatchEvent, { type: "start" }>): string {
  const resumed = event.resumed > 0 ? `, ${event.resumed} already done (resumed)` : "";
  const regraded = event.regraded > 0 ? `, ${event.regraded} regraded: ${event.regradedWhy}` : "";
  const legacy =
    event.legacyDropped > 0
      ? ` (results.jsonl held ${event.legacyDropped} line(s) in an older grader's format: dropped, never reused)`
      : "";
  return `batch: ${event.total} predictions, ${event.pending} to grade${resumed}${regraded}${legacy}; ${one(event.executor)}; out ${one(event.outDir)}`;
}

/** Plain lines, for CI and logs. */
export function plainBatchProgress(write: (line: string) => void): BatchProgress {
  return {
    onEvent(event) {
      if (event.type === "start") write(startLine(event));
      else write(`[${event.done}/${event.total}] ${describeLine(event.line)}`);
    },
    finish() {},
  };
}

/** One status line rewritten in place, plus a line for every result that is not a plain PASS/FAIL. */
export function ttyBatchProgress(stream: NodeJS.WriteStream, now: () => number = Date.now): BatchProgress {
  const started = now();
  const counts = { PASS: 0, FAIL: 0, apart: 0, cached: 0 };
  let startDone = 0;
  const status = (done: number, total: number) => {
    const elapsed = now() - started;
    const graded = done - startDone;
    const eta = graded > 0 && done < total ? `, eta ${clock((elapsed / graded) * (total - done))}` : "";
    const text = `[${done}/${total}] ${counts.PASS} PASS · ${counts.FAIL} FAIL · ${counts.apart} not counted · ${counts.cached} cached · ${clock(elapsed)}${eta}`;
    stream.write(`\r\x1b[2K${text}`);
  };
  return {
    onEvent(event) {
      if (event.type === "start") {
        startDone = event.total - event.pending;
        stream.write(`${startLine(event)}\n`);
        status(startDone, event.total);
        return;
      }
      const { line } = event;
      if (line.outcome === "graded" && line.verdict) counts[line.verdict] += 1;
      else {
        // An infra error counts against the pass rate (summary.ts), so it is a FAIL here too.
        if (line.outcome === "infra_error") counts.FAIL += 1;
        else counts.apart += 1;
        stream.write(`\r\x1b[2K${describeLine(line)}\n`);
      }
      if (line.cached) counts.cached += 1;
      status(event.done, event.total);
    },
    finish() {
      stream.write("\n");
    },
  };
}
