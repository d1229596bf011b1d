import type { ExpectedResult, LoadedTask, ReasonCode, SentinelResult, SuiteResult } from "@oracle/spec";
import type { FilteredDiff } from "../diff/filter.js";
import { displayPath } from "../diff/paths.js";
import type { GradeContainer, GradeDocker } from "../docker.js";
import type { Expectation } from "../expected-judge.js";
import type { SuiteName } from "../junit.js";
import type { RunLog } from "../oracle-log.js";
import type { Sentinel } from "../sentinels.js";
import { PATHS } from "./container-config.js";
import { PREP_EXIT } from "./prep.js";

/** Shared pieces of the container part of a run: its inputs and state, timed steps, and judging a prep. */

/** Everything the container part of a run needs. */
export interface ContainerRunInputs {
  loaded: LoadedTask;
  image: string;
  labels: Record<string, string>;
  /** The filtered diff (grade mode; written to the run folder as filtered.diff), else null. */
  diff: { filtered: FilteredDiff } | null;
  /** Each suite's host folder (mounted read-only at PATHS.run in its container): the filtered diff, and the hidden tests in the hidden suite's. */
  runDirs: Record<SuiteName, string>;
  hiddenFiles: string[];
  /** The must-fail/must-pass sentinels appended to the hidden test files, or null (docs/security.md). */
  sentinel: Sentinel | null;
  /** The tests each suite must run and pass (task.json, the sweep's record, or none). */
  expectation: Expectation;
  /** The sentinels the existing suite's prep appends to its base test files, or null (existing-sentinels.ts). */
  existingSentinel: Sentinel | null;
  docker: GradeDocker;
  log: RunLog;
  /** Resolves to a reason to stop (a stale image) or null; awaited before anything runs in the container. */
  imageCurrent: () => Promise<RunOutcome | null>;
}

/** Mutable state shared with the deadline and abort handlers. */
export interface RunState {
  /** Every container the run created (one per suite): the deadline kills and clean-up removes them. */
  containers: GradeContainer[];
  /** Set when the run is over (deadline, abort): no new step may start. */
  closed: boolean;
  suites: Partial<Record<SuiteName, SuiteResult>>;
  /** Why a suite failed, as judged (the run's message names the first). */
  failures: Partial<Record<SuiteName, string>>;
  timings: Record<string, number>;
  /** What the hidden suite's sentinels showed, once it was judged. */
  sentinel?: SentinelResult;
  /** What the expected tests showed, once both suites were judged. */
  expected?: ExpectedResult;
  /** What the existing suite's sentinels showed (or why it has none). */
  existingSentinel?: SentinelResult;
}

export interface RunOutcome {
  reason: ReasonCode;
  message: string;
}

/** Thrown by a step that starts after the run was closed (deadline, abort). */
export class RunClosed extends Error {}

export async function timed<T>(
  state: RunState,
  step: string,
  log: RunLog,
  work: () => Promise<T>,
): Promise<T> {
  if (state.closed) throw new RunClosed(step);
  const started = performance.now();
  try {
    return await work();
  } finally {
    const ms = Math.round(performance.now() - started);
    state.timings[step] = ms;
    log.event("step", { name: step, ms });
  }
}

export const BASE_ENV = [
  "TZ=UTC",
  "LC_ALL=C.UTF-8",
  "PYTHONHASHSEED=0",
  `HOME=${PATHS.home}`,
  `TMPDIR=${PATHS.tmp}`,
];
export const reportPath = (suite: SuiteName) => `${PATHS.report}/${suite}/junit.xml`;

/** The reason a failed prep step gives the run (exit codes: PREP_EXIT; an OOM kill in it wins). */
export function prepFailure(code: number | null, stderr: string, oomKillsBefore: number): RunOutcome {
  const oomKills = Number(/^oom_kill (\d+)$/m.exec(stderr)?.[1] ?? "0");
  const detail = stderr
    .trim()
    .split("\n")
    .filter((line) => !line.startsWith("oom_kill "))
    .slice(-12)
    .join("\n");
  if (oomKills > oomKillsBefore)
    return {
      reason: "OUT_OF_MEMORY",
      message: `the prep step was OOM-killed at the memory limit: ${detail}`,
    };
  if (code === PREP_EXIT.applyCheck || code === PREP_EXIT.apply)
    return { reason: "DIFF_DOES_NOT_APPLY", message: detail };
  if (code === PREP_EXIT.shadow) return { reason: "DIFF_SHADOWS_RUNNER", message: detail };
  if (code === PREP_EXIT.checkout) return { reason: "CHECKOUT_FAILED", message: detail };
  if (code === PREP_EXIT.reset || code === PREP_EXIT.hidden)
    return { reason: "DIFF_DOES_NOT_APPLY", message: detail };
  return { reason: "INFRA_ERROR", message: `prep step failed (exit ${code}): ${detail}` };
}

/** Compares what git changed with what the filter kept; a message when they differ. */
export function compareApplied(expected: readonly string[], changed: readonly string[]): string | null {
  const want = new Set(expected);
  const got = new Set(changed);
  const extra = [...got].filter((p) => !want.has(p)).map(displayPath);
  const missing = [...want].filter((p) => !got.has(p)).map(displayPath);
  if (extra.length === 0 && missing.length === 0) return null;
  const parts = [];
  if (extra.length) parts.push(`git changed files the filter did not keep: ${extra.slice(0, 10).join(", ")}`);
  if (missing.length)
    parts.push(`git did not change files the diff touches: ${missing.slice(0, 10).join(", ")}`);
  return parts.join("; ");
}
