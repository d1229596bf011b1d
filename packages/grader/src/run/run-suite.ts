import { BoundedOutput } from "../bounded-output.js";
import { pathsToReset } from "../diff/filter.js";
import { displayPath } from "../diff/paths.js";
import type { AttachedStreams, GradeContainer } from "../docker.js";
import { existingRunner } from "../existing-sentinels.js";
import type { SuiteName } from "../junit.js";
import { MOCHA_GUARD_PATH } from "../mocha-guard.js";
import { runnerGuardFor } from "../runner-guard.js";
import { sentinelRunner } from "../sentinels.js";
import { PATHS } from "./container-config.js";
import { type DriverEvent, DriverOutput, type DriverRecord, SuiteStderr } from "./driver-output.js";
import { BOOT, type DriverPlan, GO_LINE, scriptInput } from "./driver-script.js";
import { prepScript } from "./prep.js";
import {
  BASE_ENV,
  type ContainerRunInputs,
  compareApplied,
  prepFailure,
  RunClosed,
  type RunOutcome,
  type RunState,
  reportPath,
} from "./run-scope.js";

/** The largest report read; above it the report is REPORT_INVALID. */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;
const MAX_PREP_BYTES = 64 * 1024 * 1024;
const OUTPUT_HEAD = 256 * 1024;
const OUTPUT_TAIL = 64 * 1024;

/** What one suite printed, bounded, and how long it ran. */
export interface SuiteOutput {
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  durationMs: number;
}

/** What one suite's driver did: its parsed record, the suite's output, the container's exit code. */
export interface DriverResult {
  suite: SuiteName;
  record: DriverRecord;
  exitCode: number | null;
  output: SuiteOutput;
}

const oracleEnv = BASE_ENV.map((entry): [string, string] => {
  const at = entry.indexOf("=");
  return [entry.slice(0, at), entry.slice(at + 1)];
});

/** The container's process: the boot entrypoint (the script comes on stdin) and the oracle's env. */
export const DRIVER_PROCESS = { entrypoint: BOOT, cmd: [] as string[], env: BASE_ENV };

/** What the driver of one suite does: its prep script, its command and env, its report. */
export function planDriver(inputs: ContainerRunInputs, suite: SuiteName): DriverPlan {
  const { task } = inputs.loaded;
  const prep = prepScript({
    baseCommit: task.repo.baseCommit,
    mirror: task.repo.mirrorIn === "image" ? task.repo.mirror : PATHS.mirror,
    mirrorInImage: task.repo.mirrorIn === "image",
    applyDiff: inputs.diff !== null,
    reset: inputs.diff ? pathsToReset(inputs.diff.filtered.kept, task.suites.existing.files) : [],
    hiddenFiles: suite === "hidden" ? inputs.hiddenFiles : null,
    reportDir: `${PATHS.report}/${suite}`,
    list: suite === "existing",
    // The first suite's prep checks; a run whose first prep fails never reaches the hidden suite.
    runnerGuard: suite === "existing" ? runnerGuardFor(task) : null,
    appends: suite === "existing" ? (inputs.existingSentinel?.appends ?? []) : [],
  });
  return {
    suite,
    command: task.suites[suite].command,
    prep,
    env: [...Object.entries(task.env), ...oracleEnv, ["ORACLE_JUNIT", reportPath(suite)]],
    report: reportPath(suite),
    maxReportBytes: MAX_REPORT_BYTES,
    gated: suite === "hidden",
    preload: suiteRunner(task, suite)?.framework === "mocha" ? MOCHA_GUARD_PATH : null,
  };
}

/** The runner a suite's command starts, as the sentinels read it (a mocha suite gets the mocha guard). */
const suiteRunner = (task: ContainerRunInputs["loaded"]["task"], suite: SuiteName) =>
  suite === "hidden" ? sentinelRunner(task) : existingRunner(task);

/** A suite's container, created, checked and attached, not started yet. */
export interface SuiteContainer {
  plan: DriverPlan;
  container: GradeContainer;
  streams: AttachedStreams;
  stdout: DriverOutput;
  stderr: SuiteStderr;
  output: SuiteOutput;
  /** Called as the driver's stdout reaches each point (timings, log). */
  lap: (step: string) => number;
}

/** Attaches the parsers of a created container's driver output (before it starts). */
export async function attachDriver(
  inputs: ContainerRunInputs,
  state: RunState,
  plan: DriverPlan,
  container: GradeContainer,
): Promise<SuiteContainer> {
  const { suite } = plan;
  const { log } = inputs;
  const output = (stream: "stdout" | "stderr") =>
    new BoundedOutput(OUTPUT_HEAD, OUTPUT_TAIL, (chunk) =>
      log.event("suite.output", { suite, stream, text: chunk.toString("utf8") }),
    );
  const suiteOutput: SuiteOutput = { stdout: output("stdout"), stderr: output("stderr"), durationMs: 0 };
  let mark = performance.now();
  const lap = (step: string) => {
    const now = performance.now();
    const ms = Math.round(now - mark);
    state.timings[step] = ms;
    log.event("step", { name: step, ms });
    mark = now;
    return ms;
  };
  const onEvent = (event: DriverEvent) => {
    if (event === "prep") lap(`prep.${suite}`);
    if (event === "suite") {
      mark = performance.now();
      log.event("suite.start", { suite, command: plan.command, env: plan.env.map(([k, v]) => `${k}=${v}`) });
      log.info(`${suite}: running ${plan.command}`);
    }
    if (event === "end") suiteOutput.durationMs = lap(`suite.${suite}`);
    if (event === "report") lap(`collect.${suite}`);
  };
  const stdout = new DriverOutput(
    suite,
    { report: MAX_REPORT_BYTES, prepOut: MAX_PREP_BYTES, prepErr: MAX_PREP_BYTES },
    (chunk) => suiteOutput.stdout.take(chunk),
    onEvent,
  );
  const stderr = new SuiteStderr(
    () => stdout.nonce,
    (chunk) => suiteOutput.stderr.take(chunk),
  );
  const streams = await container.attach(stdout, stderr);
  return { plan, container, streams, stdout, stderr, output: suiteOutput, lap: (step) => lap(step) };
}

/**
 * Starts a suite's container (its process is the driver: prep, the suite, the report) and hands
 * the driver its script; a gated driver waits for {@link letRun}. Resolves when the container exited.
 */
export async function runDriver(
  inputs: ContainerRunInputs,
  state: RunState,
  opened: SuiteContainer,
  script: string,
): Promise<DriverResult> {
  const { plan, container, streams, stdout, stderr, output } = opened;
  if (state.closed) throw new RunClosed("driver");
  const exited = container.waitForExit();
  exited.catch(() => undefined);
  opened.lap(`created.${plan.suite}`);
  await container.start();
  opened.lap(`start.${plan.suite}`);
  inputs.log.event("container.started", { id: container.id, suite: plan.suite });
  streams.input.write(scriptInput(script));
  if (!plan.gated) streams.input.end();
  await streams.ended;
  const exitCode = await exited;
  stdout.finish();
  stderr.finish();
  // A suite cut short (the driver stopped, the deadline) still ran until now.
  if (stdout.record.started[plan.suite] && stdout.record.exitCode[plan.suite] === undefined)
    output.durationMs = opened.lap(`suite.${plan.suite}`);
  if (state.closed) throw new RunClosed("driver");
  return { suite: plan.suite, record: stdout.record, exitCode, output };
}

/** Lets a gated driver (prepared while the suite before it ran) start its suite. */
export function letRun(opened: SuiteContainer): void {
  opened.streams.input.write(GO_LINE);
  opened.streams.input.end();
}

/** Judges a suite's prep: the run's reason when it failed or git changed other files than the filter kept. */
export function readPrep(inputs: ContainerRunInputs, driver: DriverResult): RunOutcome | null {
  const { suite } = driver;
  const unsafe = driver.record.unsafe;
  if (unsafe) throw new Error(`the ${suite} suite's driver refused to go on: ${unsafe}`);
  const prep = driver.record.prep[suite];
  if (!prep) {
    const why = driver.record.protocolError ?? `exit code ${driver.exitCode}`;
    throw new Error(`the driver ended before the ${suite} suite's prep was done (${why})`);
  }
  const stderr = prep.failed ? `oracle-prep: ${prep.failed}` : prep.stderr.toString("utf8");
  inputs.log.event("prep.done", { suite, exitCode: prep.exitCode, stderr });
  if (prep.exitCode !== 0) return prepFailure(prep.exitCode, stderr, 0);
  if (suite === "existing") {
    const stop = checkListed(inputs, suite, prep.stdout);
    if (stop) return stop;
  }
  if (!driver.record.started[suite]) {
    const why = driver.record.protocolError ?? `exit code ${driver.exitCode}`;
    throw new Error(`the ${suite} suite did not start after its prep (${why})`);
  }
  return null;
}

/** What git changed against what the filter kept, and the base commit's time, from the prep's stdout. */
function checkListed(inputs: ContainerRunInputs, suite: SuiteName, stdout: Buffer): RunOutcome | null {
  const out = stdout.toString("latin1");
  const newline = out.indexOf("\n");
  const epoch = out.slice(0, newline);
  const changed = out
    .slice(newline + 1)
    .split("\0")
    .filter((p) => p.length > 0);
  inputs.log.event("prep.changed", { suite, changed: changed.map(displayPath) });
  const mismatch = compareApplied(inputs.diff?.filtered.expectedChanged ?? [], changed);
  if (mismatch) return { reason: "DIFF_DOES_NOT_APPLY", message: mismatch };
  if (!/^\d+$/.test(epoch))
    return { reason: "INFRA_ERROR", message: `prep printed no commit time: ${JSON.stringify(epoch)}` };
  return null;
}
