import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { OracleError } from "@oracle/spec";

/** One parsed line of an oracle log (winston JSON): `message`, `level`, `timestamp` and the event's fields. */
export type LogEvent = Record<string, unknown> & { message: string; level: string; timestamp?: string };

/** Receives each event of a log in order; the reader never holds the whole file. */
export type EventSink = (event: LogEvent, line: number) => void;

/** What the reader saw besides the events: lines it could not parse (a killed grader leaves a torn last line). */
export interface ReadSummary {
  events: number;
  badLines: number[];
}

function asEvent(line: string): LogEvent | null {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const event = value as Record<string, unknown>;
    return typeof event.message === "string" && typeof event.level === "string" ? (event as LogEvent) : null;
  } catch {
    return null;
  }
}

function unreadable(file: string, cause: unknown): OracleError {
  const code = (cause as NodeJS.ErrnoException).code;
  const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a folder, not a file" : String(cause);
  return new OracleError("LOG_INVALID", `${file}: cannot read the oracle log: ${why}`, {
    hint: "pass the path printed on grade's `log:` line (logs/grade/<task>-<utc>-<diff>.jsonl)",
    cause,
  });
}

/**
 * Streams `file`'s events to `sink`. A file whose first line is not an oracle-log event is not a log
 * (LOG_INVALID), so a results.jsonl or a diff passed by mistake is refused instead of printed as nothing.
 */
export async function readRunLog(file: string, sink: EventSink): Promise<ReadSummary> {
  const stream = createReadStream(file, { encoding: "utf8" });
  const failed = new Promise<never>((_, reject) => stream.once("error", (e) => reject(unreadable(file, e))));
  failed.catch(() => {});
  const summary: ReadSummary = { events: 0, badLines: [] };
  let lineNo = 0;
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  const done = (async () => {
    for await (const line of lines) {
      lineNo += 1;
      if (line.trim() === "") continue;
      const event = asEvent(line);
      if (!event) {
        if (summary.events === 0) throw notALog(file, lineNo);
        summary.badLines.push(lineNo);
        continue;
      }
      summary.events += 1;
      sink(event, lineNo);
    }
  })();
  await Promise.race([done, failed]);
  if (summary.events === 0) throw notALog(file, lineNo);
  return summary;
}

function notALog(file: string, line: number): OracleError {
  const where =
    line === 0 ? "it is empty" : `line ${line} is not an oracle-log event (JSON with message and level)`;
  return new OracleError("LOG_INVALID", `${file}: not an oracle log: ${where}`, {
    hint: "oracle logs are the JSON-lines files under logs/grade/ that grade writes",
  });
}
