import { BoundedOutput } from "./bounded-output.js";
import { KEEPER_SH, PATHS } from "./container-config.js";
import {
  BASE_ENV,
  type ContainerRunInputs,
  compareApplied,
  execIn,
  prepFailure,
  RunClosed,
  type RunOutcome,
  type RunState,
  reportPath,
} from "./container-steps.js";
import { pathsToReset } from "./diff/filter.js";
import { displayPath } from "./diff/paths.js";
import type { SuiteName } from "./junit.js";
import { prepScript } from "./scripts.js";
import { type StepEvent, StepOutput, type StepRecord } from "./step-output.js";
import { type StepPlan, stepScript } from "./step-script.js";

/** The largest report read; above it the report is REPORT_INVALID. */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;
const MAX_PREP_BYTES = 64 * 1024 * 1024;
const OUTPUT_HEAD = 256 * 1024;
const OUTPUT_TAIL = 64 * 1024;

/** What one step did: its parsed record, and the suite it ran (if it got that far). */
export interface StepResult {
  record: StepRecord;
  exitCode: number | null;
  suite: { stdout: BoundedOutput; stderr: BoundedOutput; durationMs: number } | null;
}

function planStep(
  inputs: ContainerRunInputs,
  state: RunState,
  collect: SuiteName | null,
  run: SuiteName | null,
): StepPlan {
  const { task } = inputs.loaded;
  const prep =
    run &&
    prepScript({
      baseCommit: task.repo.baseCommit,
      mirror: task.repo.mirrorIn === "image" ? task.repo.mirror : PATHS.mirror,
      applyDiff: inputs.diff !== null,
      reset: inputs.diff ? pathsToReset(inputs.diff.filtered.kept, task.suites.existing.files) : [],
      hiddenFiles: run === "hidden" ? inputs.hiddenFiles : null,
      sentinel: run === "hidden" ? inputs.sentinel : null,
      reportDir: `${PATHS.report}/${run}`,
    });
  const oracleEnv = BASE_ENV.map((entry): [string, string] => {
    const at = entry.indexOf("=");
    return [entry.slice(0, at), entry.slice(at + 1)];
  });
  const env = [...Object.entries(task.env), ...oracleEnv];
  env.push(["ORACLE_JUNIT", reportPath(run ?? "existing")]);
  return {
    collect: collect && {
      report: reportPath(collect),
      maxBytes: MAX_REPORT_BYTES,
      oomKillsBefore: state.oomKills,
    },
    run: prep ? { prep, wipe: run !== "existing", env } : null,
  };
}

/**
 * One exec: collect `collect`'s report (after killing the test user's processes), then prepare a
 * checkout for `run` and run its suite. Timings `collect.<suite>`, `prep.<suite>`, `suite.<suite>`
 * are taken as the step's stdout reaches each point.
 */
export async function runStep(
  inputs: ContainerRunInputs,
  state: RunState,
  collect: SuiteName | null,
  run: SuiteName | null,
): Promise<StepResult> {
  const plan = planStep(inputs, state, collect, run);
  const script = stepScript(plan);
  const command = run ? inputs.loaded.task.suites[run].command : "";
  const { log } = inputs;
  log.event("step.script", { collect, run, script });
  const stdout = new BoundedOutput(OUTPUT_HEAD, OUTPUT_TAIL, (chunk) =>
    log.event("suite.output", { suite: run, stream: "stdout", text: chunk.toString("utf8") }),
  );
  const stderr = new BoundedOutput(OUTPUT_HEAD, OUTPUT_TAIL, (chunk) =>
    log.event("suite.output", { suite: run, stream: "stderr", text: chunk.toString("utf8") }),
  );
  let mark = performance.now();
  let suiteStarted = 0;
  const lap = (step: string) => {
    const now = performance.now();
    state.timings[step] = Math.round(now - mark);
    log.event("step", { name: step, ms: state.timings[step] });
    mark = now;
  };
  const onEvent = (event: StepEvent) => {
    if (event === "report" && collect) lap(`collect.${collect}`);
    if (event === "prep" && run) lap(`prep.${run}`);
    if (event === "suite" && run) {
      suiteStarted = mark = performance.now();
      log.event("suite.start", { suite: run, command, env: plan.run?.env.map(([k, v]) => `${k}=${v}`) });
      log.info(`${run}: running ${command}`);
    }
  };
  const parsed = new StepOutput(
    { report: MAX_REPORT_BYTES, prepOut: MAX_PREP_BYTES, prepErr: MAX_PREP_BYTES },
    (chunk) => stdout.take(chunk),
    onEvent,
  );
  const cmd = [collect ? KEEPER_SH : "sh", "-c", script, "oracle-step", command];
  const exitCode = await execIn(state, cmd, BASE_ENV, PATHS.work, parsed, stderr);
  const ended = performance.now();
  if (run && parsed.record.suiteStarted) lap(`suite.${run}`);
  if (state.closed) throw new RunClosed(`step ${collect ?? "-"}/${run ?? "-"}`);
  const suite = parsed.record.suiteStarted
    ? { stdout, stderr, durationMs: Math.round(ended - suiteStarted) }
    : null;
  return { record: parsed.record, exitCode, suite };
}

/** Judges a step's prep: the run's reason when it failed or git changed other files than the filter kept. */
export function readPrep(
  inputs: ContainerRunInputs,
  state: RunState,
  suite: SuiteName,
  step: StepResult,
): RunOutcome | null {
  const prep = step.record.prep;
  if (!prep) {
    const why = step.record.protocolError ?? `exit code ${step.exitCode}`;
    throw new Error(`the ${suite} suite's step ended before its prep was done (${why})`);
  }
  const stderr = prep.failed ? `oracle-prep: ${prep.failed}` : prep.stderr.toString("utf8");
  inputs.log.event("prep.done", { suite, exitCode: prep.exitCode, stderr });
  if (prep.exitCode !== 0) return prepFailure(prep.exitCode, stderr, state.oomKills);
  const out = prep.stdout.toString("latin1");
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
  if (!step.suite) {
    const why = step.record.protocolError ?? `exit code ${step.exitCode}`;
    throw new Error(`the ${suite} suite did not start after its prep (${why})`);
  }
  return null;
}
