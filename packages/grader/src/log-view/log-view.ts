import { CoalescedOutput } from "./coalesce.js";
import type { LogEvent } from "./read-log.js";

/** Tests a suite's section lists; the count of the rest is shown. */
export const MAX_TESTS_SHOWN = 50;

export interface SuiteView {
  command?: string;
  output: Map<string, CoalescedOutput>;
  exit?: { exitCode: unknown; durationMs: unknown; stdoutBytes: unknown; stderrBytes: unknown };
  summary?: string;
  tests: string[];
  testsOmitted: number;
}

/** A run's log, gathered into what a person reads: the header, steps, drops, suites, notes and the verdict. */
export interface RunView {
  header: Record<string, unknown>;
  startedAt?: number;
  steps: { name: string; ms: number; at?: number }[];
  diff?: { sha256?: unknown; filteredSha256?: unknown; kept?: unknown; dropped: DroppedView[] };
  image?: string;
  sentinel?: string;
  suites: Map<string, SuiteView>;
  warnings: string[];
  verdict?: { verdict: unknown; reason: unknown; message: unknown; testsHash: unknown; testIds: number };
  badLines: number[];
}

export interface DroppedView {
  path: string;
  hunk?: string;
  why: string;
}

export function emptyView(): RunView {
  return { header: {}, steps: [], suites: new Map(), warnings: [], badLines: [] };
}

const text = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));
const time = (event: LogEvent): number | undefined =>
  event.timestamp ? Date.parse(event.timestamp) || undefined : undefined;

function suite(view: RunView, name: unknown): SuiteView {
  const key = text(name ?? "?");
  let found = view.suites.get(key);
  if (!found) {
    found = { output: new Map(), tests: [], testsOmitted: 0 };
    view.suites.set(key, found);
  }
  return found;
}

function dropped(value: unknown): DroppedView[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry: Record<string, unknown>) => ({
    path: text(entry.path),
    ...(entry.hunk ? { hunk: text(entry.hunk) } : {}),
    why: text(entry.why),
  }));
}

const HANDLERS: Record<string, (view: RunView, event: LogEvent) => void> = {
  start(view, event) {
    const task = event.task as Record<string, unknown> | string | undefined;
    view.header = {
      run: event.run,
      task: typeof task === "object" && task ? task.id : task,
      mode: event.mode,
      grader: event.graderVersion,
      started: event.timestamp,
    };
    view.startedAt = time(event);
  },
  "diff.filtered"(view, event) {
    view.diff = {
      sha256: event.sha256,
      filteredSha256: event.filteredSha256,
      kept: event.kept,
      dropped: dropped(event.dropped),
    };
  },
  image(view, event) {
    view.image = `${text(event.name)} ${text(event.digest)}`;
  },
  sentinel(view, event) {
    view.sentinel = event.none ? `none: ${text(event.note)}` : `${text(event.framework)} ${text(event.path)}`;
  },
  step(view, event) {
    const at = time(event);
    view.steps.push({ name: text(event.name), ms: Number(event.ms), ...(at === undefined ? {} : { at }) });
  },
  "suite.start"(view, event) {
    suite(view, event.suite).command = text(event.command);
  },
  "suite.output"(view, event) {
    const found = suite(view, event.suite);
    const stream = text(event.stream ?? "stdout");
    let output = found.output.get(stream);
    if (!output) {
      output = new CoalescedOutput();
      found.output.set(stream, output);
    }
    output.add(text(event.text));
  },
  "suite.exit"(view, event) {
    const { exitCode, durationMs, stdoutBytes, stderrBytes } = event;
    suite(view, event.suite).exit = { exitCode, durationMs, stdoutBytes, stderrBytes };
  },
  verdict(view, event) {
    const ids = Array.isArray(event.testIds) ? event.testIds.length : 0;
    // winston joins the event's own `message` field onto the step name: "verdict both suites ran…".
    const message = event.message.replace(/^verdict /, "");
    const { verdict, reason, testsHash } = event;
    view.verdict = { verdict, reason, message, testsHash, testIds: ids };
  },
};

/** The human account's suite summary (`existing suite: 18 passed, …`) carries the bounded test list. */
function suiteSummary(view: RunView, event: LogEvent): boolean {
  if (event.level !== "info" || event.suite === undefined || !Array.isArray(event.tests)) return false;
  const found = suite(view, event.suite);
  found.summary = event.message;
  const tests = event.tests.map(text);
  found.tests = tests.slice(0, MAX_TESTS_SHOWN);
  found.testsOmitted = tests.length - found.tests.length + (Number(event.testsOmitted) || 0);
  return true;
}

/** Folds one event into the view. */
export function addEvent(view: RunView, event: LogEvent): void {
  const step = typeof event.step === "string" ? event.step : undefined;
  const handler = step ? HANDLERS[step] : undefined;
  if (handler) handler(view, event);
  else if (suiteSummary(view, event)) return;
  else if (event.level === "warn" || event.level === "error")
    view.warnings.push(`${event.level}: ${event.message}`);
}
