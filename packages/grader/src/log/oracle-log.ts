import { once } from "node:events";
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { LogEventData, LogEventName } from "@oracle/spec";

/** The run's log: every event to the JSON-lines oracle log, the short account to the caller's logger. */
export interface RunLog {
  /** Everything, to the oracle log file only: one of the log's events (@oracle/spec's LOG_EVENT_SCHEMAS) with its payload. */
  event<K extends LogEventName>(name: K, data: LogEventData<K>): void;
  /** A line of the human account (also in the oracle log). */
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  /** Flushes and closes the oracle log file. */
  close(): Promise<void>;
}

/**
 * The default oracle log path: `<root>/logs/grade/<task>-<utc>-<diffsha12>-<run>.jsonl`, `<run>` the
 * run id's random part, so that graders of the same task and diff started in the same second (a
 * batch, two pipelines) each write a log of their own.
 */
export function defaultLogPath(
  root: string,
  task: string,
  startedAt: Date,
  diffSha256: string | null,
  runId: string,
): string {
  const utc = startedAt
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const suffix = diffSha256 ? diffSha256.slice(0, 12) : "baseline";
  return `${root}/logs/grade/${task}-${utc}-${suffix}-${runId.split("-").at(-1)}.jsonl`;
}

/** Where the short account goes (a winston logger fits): the CLI's stderr, a batch's or a sweep's log. */
export interface HumanLog {
  info(message: string): unknown;
  warn(message: string): unknown;
}

/**
 * One line of the oracle log, as winston's JSON format wrote it before (the readers and old logs stay
 * as they are): the object's keys sorted at every depth, `toJSON` honoured, bigints as strings,
 * undefined, functions and symbols left out (null in arrays), a circular reference "[Circular]".
 */
export function stableLine(value: unknown): string {
  return stableValue("", value, []) ?? "null";
}

function stableValue(key: string, value: unknown, stack: object[]): string | undefined {
  const json = value as { toJSON?: (key: string) => unknown } | null;
  const v =
    typeof json === "object" && json !== null && typeof json.toJSON === "function" ? json.toJSON(key) : value;
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
      return Number.isFinite(v) ? String(v) : "null";
    case "boolean":
      return v ? "true" : "false";
    case "bigint":
      return JSON.stringify(v.toString());
    case "object":
      return v === null ? "null" : stableObject(v, stack);
    default:
      return undefined;
  }
}

function stableObject(value: object, stack: object[]): string {
  if (stack.includes(value)) return '"[Circular]"';
  stack.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item, i) => stableValue(String(i), item, stack) ?? "null").join(",")}]`;
  } else {
    const parts: string[] = [];
    for (const k of Object.keys(value).sort()) {
      const v = stableValue(k, (value as Record<string, unknown>)[k], stack);
      if (v !== undefined) parts.push(`${JSON.stringify(k)}:${v}`);
    }
    out = `{${parts.join(",")}}`;
  }
  stack.pop();
  return out;
}

/**
 * Opens the oracle log (JSON lines) at `file`; `human` receives the short account. Each line holds
 * `meta` and `component: "grade"`, the event's or message's data, `level`, `message` (a message in
 * the data is appended to it) and `timestamp`; written in order through one append stream.
 */
export function openRunLog(file: string, meta: Record<string, string>, human?: HumanLog): RunLog {
  mkdirSync(dirname(file), { recursive: true });
  const out = createWriteStream(file, { flags: "a" });
  let failed = false;
  out.on("error", (error) => {
    if (!failed) human?.warn(`the oracle log ${file} could not be written: ${error.message}`);
    failed = true;
  });
  let closed = false;
  const write = (level: string, message: string, data: Record<string, unknown>) => {
    if (closed || failed) return;
    const line: Record<string, unknown> = { component: "grade", ...meta, ...data, level, message };
    if (data.message) line.message = `${message} ${String(data.message)}`;
    line.timestamp = new Date().toISOString();
    out.write(`${stableLine(line)}\n`);
  };
  return {
    event(name, data) {
      write("debug", name, { step: name, ...data });
    },
    info(message, data = {}) {
      write("info", message, data);
      human?.info(message);
    },
    warn(message, data = {}) {
      write("warn", message, data);
      human?.warn(message);
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      // The file is flushed when the stream finishes; a stuck disk gets 3 s, not forever.
      const settled = new AbortController();
      const finished = Promise.race([
        once(out, "finish", { signal: settled.signal }),
        once(out, "close", { signal: settled.signal }),
      ]);
      out.end();
      return Promise.race([finished, delay(3000, undefined, { signal: settled.signal })])
        .catch(() => undefined)
        .then(() => settled.abort());
    },
  };
}
