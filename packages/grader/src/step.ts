import { BoundedOutput } from "./bounded-output.js";
import { PATHS } from "./container-config.js";
import {
  BASE_ENV,
  type ContainerRunInputs,
  compareApplied,
  prepFailure,
  RunClosed,
  type RunOutcome,
  type RunState,
  reportPath,
} from "./container-steps.js";
import { pathsToReset } from "./diff/filter.js";
import { displayPath } from "./diff/paths.js";
import type { SuiteName } from "./junit.js";
import { runnerGuardFor } from "./runner-guard.js";
import { prepScript } from "./scripts.js";
import { type DriverEvent, DriverOutput, type DriverRecord, SuiteStderr } from "./step-output.js";
import { BOOT, type DriverPlan } from "./step-script.js";

/** The largest report read; above it the report is REPORT_INVALID. */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;
const MAX_PREP_BYTES = 64 * 1024 * 1024;
const OUTPUT_HEAD = 256 * 1024;
const OUTPUT_TAIL = 64 * 1024;
const SUITES = ["existing", "hidden"] as const;

/** What one suite printed, bounded, and how long it ran. */
export interface SuiteOutput {
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  durationMs: number;
}

/** What the driver did: its parsed record, the suites' output, its exit code. */
export interface DriverResult {
  record: DriverRecord;
  exitCode: number | null;
  outputs: Record<SuiteName, SuiteOutput>;
}

const oracleEnv = BASE_ENV.map((entry): [string, string] => {
  const at = entry.indexOf("=");
  return [entry.slice(0, at), entry.slice(at + 1)];
});

/** The container's process: the boot entrypoint, and the suites' commands as its arguments. */
export function driverProcess(inputs: ContainerRunInputs): {
  entrypoint: string[];
  cmd: string[];
  env: string[];
} {
  const { suites } = inputs.loaded.task;
  return { entrypoint: BOOT, cmd: [suites.existing.command, suites.hidden.command], env: BASE_ENV };
}

/** What the driver does for each suite: its prep script, its env, its report. Made once per run. */
export function planDriver(inputs: ContainerRunInputs): DriverPlan {
  const { task } = inputs.loaded;
  const prep = (suite: SuiteName) =>
    prepScript({
      baseCommit: task.repo.baseCommit,
      mirror: task.repo.mirrorIn === "image" ? task.repo.mirror : PATHS.mirror,
      applyDiff: inputs.diff !== null,
      reset: inputs.diff ? pathsToReset(inputs.diff.filtered.kept, task.suites.existing.files) : [],
      hiddenFiles: suite === "hidden" ? inputs.hiddenFiles : null,
      sentinel: suite === "hidden" ? inputs.sentinel : null,
      reportDir: `${PATHS.report}/${suite}`,
      list: suite === "existing",
      runnerGuard: runnerGuardFor(task),
    });
  const env = (suite: SuiteName): Array<[string, string]> => [
    ...Object.entries(task.env),
    ...oracleEnv,
    ["ORACLE_JUNIT", reportPath(suite)],
  ];
  return {
    prep: { existing: prep("existing"), hidden: prep("hidden") },
    env: { existing: env("existing"), hidden: env("hidden") },
    report: { existing: reportPath("existing"), hidden: reportPath("hidden") },
    maxReportBytes: MAX_REPORT_BYTES,
  };
}

/**
 * Starts the created container (its process is the driver: both suites, each prepared, run and
 * collected) and follows it as it goes: timings `prep.<suite>`, `suite.<suite>`, `collect.<suite>`
 * are taken as its stdout reaches each point, and the log gets the suites' output as it comes.
 */
export async function runDriver(
  inputs: ContainerRunInputs,
  state: RunState,
  plan: DriverPlan,
): Promise<DriverResult> {
  const container = state.container;
  if (state.closed || !container) throw new RunClosed("driver");
  const { task } = inputs.loaded;
  const { log } = inputs;
  const output = (suite: SuiteName, stream: "stdout" | "stderr") =>
    new BoundedOutput(OUTPUT_HEAD, OUTPUT_TAIL, (chunk) =>
      log.event("suite.output", { suite, stream, text: chunk.toString("utf8") }),
    );
  const outputs: Record<SuiteName, SuiteOutput> = {
    existing: { stdout: output("existing", "stdout"), stderr: output("existing", "stderr"), durationMs: 0 },
    hidden: { stdout: output("hidden", "stdout"), stderr: output("hidden", "stderr"), durationMs: 0 },
  };
  let mark = performance.now();
  const lap = (step: string) => {
    const now = performance.now();
    const ms = Math.round(now - mark);
    state.timings[step] = ms;
    log.event("step", { name: step, ms });
    mark = now;
    return ms;
  };
  const onEvent = (event: DriverEvent, suite: SuiteName) => {
    if (event === "prep") lap(`prep.${suite}`);
    if (event === "suite") {
      mark = performance.now();
      const command = task.suites[suite].command;
      log.event("suite.start", { suite, command, env: plan.env[suite].map(([k, v]) => `${k}=${v}`) });
      log.info(`${suite}: running ${command}`);
    }
    if (event === "end") outputs[suite].durationMs = lap(`suite.${suite}`);
    if (event === "report") lap(`collect.${suite}`);
  };
  const stdout = new DriverOutput(
    { report: MAX_REPORT_BYTES, prepOut: MAX_PREP_BYTES, prepErr: MAX_PREP_BYTES },
    (suite, chunk) => outputs[suite].stdout.take(chunk),
    onEvent,
  );
  const stderr = new SuiteStderr(
    () => stdout.nonce,
    (suite, chunk) => outputs[suite].stderr.take(chunk),
  );
  const { ended } = await container.attach(stdout, stderr);
  const exited = container.waitForExit();
  exited.catch(() => undefined);
  mark = performance.now();
  await container.start();
  lap("start");
  log.event("container.started", { id: container.id });
  await ended;
  const exitCode = await exited;
  stdout.finish();
  stderr.finish();
  // A suite cut short (the driver killed, the deadline) still ran until now.
  for (const suite of SUITES)
    if (stdout.record.started[suite] && stdout.record.exitCode[suite] === undefined)
      outputs[suite].durationMs = lap(`suite.${suite}`);
  if (state.closed) throw new RunClosed("driver");
  return { record: stdout.record, exitCode, outputs };
}

/** Judges a suite's prep: the run's reason when it failed or git changed other files than the filter kept. */
export function readPrep(
  inputs: ContainerRunInputs,
  state: RunState,
  suite: SuiteName,
  driver: DriverResult,
): RunOutcome | null {
  const prep = driver.record.prep[suite];
  if (!prep) {
    const why = driver.record.protocolError ?? `exit code ${driver.exitCode}`;
    throw new Error(`the driver ended before the ${suite} suite's prep was done (${why})`);
  }
  const stderr = prep.failed ? `oracle-prep: ${prep.failed}` : prep.stderr.toString("utf8");
  inputs.log.event("prep.done", { suite, exitCode: prep.exitCode, stderr });
  if (prep.exitCode !== 0) return prepFailure(prep.exitCode, stderr, state.oomKills);
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
