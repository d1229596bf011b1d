import type { DroppedEntry, LogEventName, LoggedEventData, LogLine } from "@oracle/spec";
import { CoalescedOutput } from "./coalesce.js";
import type { LogRecord } from "./read-log.js";

/** Tests a suite's section lists; the count of the rest is shown. */
export const MAX_TESTS_SHOWN = 50;

export interface SuiteView {
  command?: string;
  output: Map<string, CoalescedOutput>;
  exit?: Partial<
    Pick<LoggedEventData<"suite.exit">, "exitCode" | "durationMs" | "stdoutBytes" | "stderrBytes">
  >;
  summary?: string;
  tests: string[];
  testsOmitted: number;
}

/** A run's log, gathered into what a person reads: the header, steps, drops, suites, notes and the verdict. */
export interface RunView {
  header: Partial<Record<"task" | "mode" | "run" | "grader" | "started", string>>;
  startedAt?: number;
  steps: { name: string; ms: number; at?: number }[];
  diff?: { sha256?: string; filteredSha256?: string; kept?: number; dropped: DroppedEntry[] };
  image?: string;
  /** The hidden suite's sentinels, and the existing suite's. */
  sentinel?: string;
  existingSentinel?: string;
  suites: Map<string, SuiteView>;
  warnings: string[];
  verdict?: { verdict?: string; reason?: string; message: string; testsHash?: string; testIds: number };
  badLines: number[];
}

export function emptyView(): RunView {
  return { header: {}, steps: [], suites: new Map(), warnings: [], badLines: [] };
}

const time = (line: LogLine): number | undefined =>
  line.timestamp ? Date.parse(line.timestamp) || undefined : undefined;

function suite(view: RunView, name: string | undefined): SuiteView {
  const key = name ?? "?";
  let found = view.suites.get(key);
  if (!found) {
    found = { output: new Map(), tests: [], testsOmitted: 0 };
    view.suites.set(key, found);
  }
  return found;
}

/** What a sentinel event says, in a few words; a log of an older grader names one `path`. */
function sentinelText(data: LoggedEventData<"sentinel">): string {
  if (data.none) return `none: ${data.note ?? "(no note)"}`;
  const files = data.files ?? (typeof data.path === "string" ? [data.path] : []);
  const note = data.note ? ` (${data.note})` : "";
  return `${data.framework ?? "?"} ${files.join(", ")}${note}`;
}

type Handler<K extends LogEventName> = (view: RunView, data: LoggedEventData<K>, line: LogLine) => void;

const HANDLERS: { [K in LogEventName]?: Handler<K> } = {
  start(view, data, line) {
    const task = data.task?.id ?? (typeof line.task === "string" ? line.task : undefined);
    const header: RunView["header"] = { run: line.run, task, mode: data.mode, grader: data.graderVersion };
    view.header = { ...header, started: line.timestamp };
    view.startedAt = time(line);
  },
  "diff.filtered"(view, data) {
    const { sha256, filteredSha256, kept } = data;
    view.diff = { sha256, filteredSha256, kept, dropped: data.dropped ?? [] };
  },
  image(view, data) {
    view.image = `${data.name ?? "?"} ${data.digest ?? "(no digest)"}`;
  },
  sentinel(view, data) {
    if (data.suite === "existing") view.existingSentinel = sentinelText(data);
    else view.sentinel = sentinelText(data);
  },
  step(view, data, line) {
    const at = time(line);
    view.steps.push({ name: data.name ?? "?", ms: data.ms ?? 0, ...(at === undefined ? {} : { at }) });
  },
  "suite.start"(view, data) {
    suite(view, data.suite).command = data.command;
  },
  "suite.output"(view, data) {
    const found = suite(view, data.suite);
    const stream = data.stream ?? "stdout";
    let output = found.output.get(stream);
    if (!output) {
      output = new CoalescedOutput();
      found.output.set(stream, output);
    }
    output.add(data.text ?? "");
  },
  "suite.exit"(view, data) {
    const { exitCode, durationMs, stdoutBytes, stderrBytes } = data;
    suite(view, data.suite).exit = { exitCode, durationMs, stdoutBytes, stderrBytes };
  },
  verdict(view, data, line) {
    // winston joins the event's own `message` field onto the event's name: "verdict both suites ran…".
    const message = line.message.replace(/^verdict /, "");
    const { verdict, reason, testsHash } = data;
    view.verdict = { verdict, reason, message, testsHash, testIds: data.testIds?.length ?? 0 };
  },
};

/** The human account's suite summary (`existing suite: 18 passed, …`) carries the bounded test list. */
function suiteSummary(view: RunView, line: LogLine): boolean {
  if (line.level !== "info" || typeof line.suite !== "string" || !Array.isArray(line.tests)) return false;
  const found = suite(view, line.suite);
  found.summary = line.message;
  const tests = line.tests.map((test) => (typeof test === "string" ? test : JSON.stringify(test)));
  found.tests = tests.slice(0, MAX_TESTS_SHOWN);
  found.testsOmitted = tests.length - found.tests.length + (Number(line.testsOmitted) || 0);
  return true;
}

/** Folds one line of the log into the view. */
export function addEvent(view: RunView, { line, event }: LogRecord): void {
  if (event) {
    const handler = HANDLERS[event.name] as Handler<typeof event.name> | undefined;
    handler?.(view, event.data, line);
  } else if (suiteSummary(view, line)) return;
  else if (line.level === "warn" || line.level === "error")
    view.warnings.push(`${line.level}: ${line.message}`);
}
