import type { LoadedTask, ReasonCode, SuiteResult } from "@oracle/spec";
import { BoundedOutput } from "./bounded-output.js";
import { PATHS, RUN_USER } from "./container-config.js";
import type { FilteredDiff } from "./diff/filter.js";
import { pathsToReset } from "./diff/filter.js";
import { displayPath } from "./diff/paths.js";
import type { GradeContainer, GradeDocker } from "./docker.js";
import type { SuiteName } from "./junit.js";
import type { RunLog } from "./oracle-log.js";
import { collectScript, PREP_EXIT, prepScript, REPORT_EXIT } from "./scripts.js";
import type { Sentinel } from "./sentinels.js";
import type { ReportRead } from "./suite-result.js";

/** The steps run inside the container through exec: prep (checkout, diff, reset, hidden tests) and collect (kill, report). */

const MAX_REPORT_BYTES = 16 * 1024 * 1024;

/** Everything the container part of a run needs. */
export interface ContainerRunInputs {
  loaded: LoadedTask;
  image: string;
  labels: Record<string, string>;
  /** The filtered diff and the host folder holding filtered.diff (grade mode), else null. */
  diff: { filtered: FilteredDiff; hostDir: string } | null;
  hiddenFiles: string[];
  /** The must-fail/must-pass sentinel planted beside the hidden tests, or null (docs/security.md). */
  sentinel: Sentinel | null;
  docker: GradeDocker;
  log: RunLog;
  /** Resolves to a reason to stop (a stale image) or null; awaited before anything runs in the container. */
  imageCurrent: () => Promise<RunOutcome | null>;
}

/** Mutable state shared with the deadline and abort handlers. */
export interface RunState {
  container: GradeContainer | null;
  /** Set when the run is over (deadline, abort): no new step may start. */
  closed: boolean;
  suites: Partial<Record<SuiteName, SuiteResult>>;
  /** Why a suite failed, as judged (the run's message names the first). */
  failures: Partial<Record<SuiteName, string>>;
  timings: Record<string, number>;
  oomKills: number;
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

export interface ExecResult {
  exitCode: number | null;
  stdout: BoundedOutput;
  stderr: BoundedOutput;
}

export async function execIn(
  state: RunState,
  cmd: string[],
  env: string[],
  workingDir: string,
  bounds: { head: number; tail: number },
  onChunk?: (stream: "stdout" | "stderr", chunk: Buffer) => void,
): Promise<ExecResult> {
  if (state.closed || !state.container) throw new RunClosed("exec");
  const stdout = new BoundedOutput(bounds.head, bounds.tail, onChunk && ((c) => onChunk("stdout", c)));
  const stderr = new BoundedOutput(bounds.head, bounds.tail, onChunk && ((c) => onChunk("stderr", c)));
  const { exitCode } = await state.container.exec(cmd, { user: RUN_USER, env, workingDir, stdout, stderr });
  return { exitCode, stdout, stderr };
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

export async function prepare(
  inputs: ContainerRunInputs,
  state: RunState,
  suite: SuiteName,
): Promise<{ epoch: string } | RunOutcome> {
  const { task } = inputs.loaded;
  const script = prepScript({
    baseCommit: task.repo.baseCommit,
    mirror: task.repo.mirrorIn === "image" ? task.repo.mirror : PATHS.mirror,
    applyDiff: inputs.diff !== null,
    reset: inputs.diff ? pathsToReset(inputs.diff.filtered.kept, task.suites.existing.files) : [],
    hiddenFiles: suite === "hidden" ? inputs.hiddenFiles : null,
    sentinel: suite === "hidden" ? inputs.sentinel : null,
    reportDir: `${PATHS.report}/${suite}`,
    wipe: suite !== "existing",
  });
  inputs.log.event("prep.script", { suite, script: Buffer.from(script, "latin1").toString("utf8") });
  const prep = await timed(state, `prep.${suite}`, inputs.log, () =>
    execIn(
      state,
      ["sh", "-c", Buffer.from(script, "latin1").toString("utf8"), "oracle-prep"],
      BASE_ENV,
      PATHS.work,
      { head: 64 * 1024 * 1024, tail: 0 },
    ),
  );
  const stderr = prep.stderr.keptBuffer().toString("utf8");
  inputs.log.event("prep.done", { suite, exitCode: prep.exitCode, stderr });
  if (prep.exitCode !== 0) return prepFailure(prep.exitCode, stderr, state.oomKills);
  const out = prep.stdout.keptBuffer().toString("latin1");
  const newline = out.indexOf("\n");
  const epoch = out.slice(0, newline);
  const changed = out
    .slice(newline + 1)
    .split("\0")
    .filter((p) => p.length > 0);
  const mismatch = compareApplied(inputs.diff?.filtered.expectedChanged ?? [], changed);
  inputs.log.event("prep.changed", { suite, changed: changed.map(displayPath) });
  if (mismatch) return { reason: "DIFF_DOES_NOT_APPLY", message: mismatch };
  if (!/^\d+$/.test(epoch))
    return { reason: "INFRA_ERROR", message: `prep printed no commit time: ${JSON.stringify(epoch)}` };
  return { epoch };
}

export async function collect(
  inputs: ContainerRunInputs,
  state: RunState,
  suite: SuiteName,
): Promise<{ report: ReportRead; oomKills: number }> {
  const result = await timed(state, `collect.${suite}`, inputs.log, () =>
    execIn(
      state,
      ["sh", "-c", collectScript(MAX_REPORT_BYTES), "oracle-collect", reportPath(suite)],
      BASE_ENV,
      PATHS.work,
      {
        head: MAX_REPORT_BYTES + 1,
        tail: 0,
      },
    ),
  );
  const stderr = result.stderr.keptBuffer().toString("utf8");
  inputs.log.event("collect.done", { suite, exitCode: result.exitCode, stderr });
  const survivors = Number(/^survivors (\d+)$/m.exec(stderr)?.[1] ?? "0");
  if (survivors > 0) throw new Error(`${survivors} process(es) of the ${suite} suite survived SIGKILL`);
  const oom = /^oom_kill (\d+)$/m.exec(stderr);
  const oomKills = oom ? Number(oom[1]) : 0;
  const code = result.exitCode;
  if (code === REPORT_EXIT.ok)
    return { report: { kind: "ok", xml: result.stdout.keptBuffer().toString("utf8") }, oomKills };
  if (code === REPORT_EXIT.missing) return { report: { kind: "missing" }, oomKills };
  if (code === REPORT_EXIT.notRegular)
    return {
      report: { kind: "invalid", why: "$ORACLE_JUNIT is not a regular file (a symlink or special file)" },
      oomKills,
    };
  if (code === REPORT_EXIT.tooLarge)
    return { report: { kind: "invalid", why: `larger than ${MAX_REPORT_BYTES} bytes` }, oomKills };
  throw new Error(`the collect step failed (exit ${code}): ${stderr.trim()}`);
}
