import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { type LoggedEvent, type LogLine, LogLineSchema, OracleError, readLogEvent } from "@oracle/spec";

/** A line of a log, with its event when it is one of the log's events (@oracle/spec's LOG_EVENT_SCHEMAS). */
export interface LogRecord {
  line: LogLine;
  /** Null for a line of the human account (`info`, `warn`). */
  event: LoggedEvent | null;
}

/** Receives each line of a log in order; the reader never holds the whole file. */
export type EventSink = (record: LogRecord, lineNo: number) => void;

/**
 * What the reader saw besides the lines: lines it could not parse (a killed grader leaves a torn last
 * line), and events whose fields do not have their types.
 */
export interface ReadSummary {
  events: number;
  badLines: number[];
}

function asLine(text: string): LogLine | null {
  try {
    const parsed = LogLineSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function unreadable(file: string, cause: unknown): OracleError {
  const code = (cause as NodeJS.ErrnoException).code;
  const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a folder, not a file" : String(cause);
  return new OracleError("LOG_INVALID", `${file}: cannot read the oracle log: ${why}`, {
    hint: "pass the path printed on grade's `log:` line (logs/grade/<task>-<utc>-<diff>-<run>.jsonl)",
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
    for await (const text of lines) {
      lineNo += 1;
      if (text.trim() === "") continue;
      const line = asLine(text);
      if (!line) {
        if (summary.events === 0) throw notALog(file, lineNo);
        summary.badLines.push(lineNo);
        continue;
      }
      summary.events += 1;
      const event = readLogEvent(line);
      if (event === "invalid") summary.badLines.push(lineNo);
      else sink({ line, event }, lineNo);
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
