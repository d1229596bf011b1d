import { once } from "node:events";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { LogEventData, LogEventName } from "@oracle/spec";
import winston from "winston";

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

/** Opens the oracle log (winston, JSON lines) at `file`; `human` receives the short account. */
export function openRunLog(file: string, meta: Record<string, string>, human?: winston.Logger): RunLog {
  mkdirSync(dirname(file), { recursive: true });
  const transport = new winston.transports.File({ filename: file });
  const logger = winston.createLogger({
    level: "debug",
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { component: "grade", ...meta },
    transports: [transport],
  });
  let closed = false;
  return {
    event(name, data) {
      if (!closed) logger.debug(name, { step: name, ...data });
    },
    info(message, data = {}) {
      if (!closed) logger.info(message, data);
      human?.info(message);
    },
    warn(message, data = {}) {
      if (!closed) logger.warn(message, data);
      human?.warn(message);
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      // The file is flushed when the transport finishes; a stuck disk gets 3 s, not forever.
      const settled = new AbortController();
      const finished = once(transport, "finish", { signal: settled.signal });
      logger.end();
      return Promise.race([finished, delay(3000, undefined, { signal: settled.signal })])
        .catch(() => undefined)
        .then(() => settled.abort());
    },
  };
}
