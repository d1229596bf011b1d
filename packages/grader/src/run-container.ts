import { type ContainerPlan, containerOptions, missingProtections, PATHS } from "./container-config.js";
import {
  type ContainerRunInputs,
  RunClosed,
  type RunOutcome,
  type RunState,
  timed,
} from "./container-steps.js";
import type { SuiteName } from "./junit.js";
import { readPrep, runStep, type StepResult } from "./step.js";
import type { StepRecord } from "./step-output.js";
import { judgeSuite } from "./suite-result.js";

function planFor(inputs: ContainerRunInputs): ContainerPlan {
  const { task, hiddenTestsDir, mirrorPath } = inputs.loaded;
  const binds: ContainerPlan["binds"] = [{ source: hiddenTestsDir, target: PATHS.hidden }];
  if (mirrorPath) binds.push({ source: mirrorPath, target: PATHS.mirror });
  if (inputs.diff) binds.push({ source: `${inputs.diff.hostDir}/filtered.diff`, target: PATHS.diff });
  return { image: inputs.image, labels: inputs.labels, ...task.resources, binds };
}

/** Creates the container, checks every protection, starts the keeper. Returns a refusal message or null. */
async function startContainer(inputs: ContainerRunInputs, state: RunState): Promise<string | null> {
  const plan = planFor(inputs);
  const options = containerOptions(plan);
  inputs.log.event("container.create", { options });
  const container = await timed(state, "create", inputs.log, () => inputs.docker.createContainer(options));
  state.container = container;
  if (state.closed) throw new RunClosed("create");
  const info = await timed(state, "inspect", inputs.log, () => container.inspect());
  const missing = missingProtections(info, plan);
  if (missing.length > 0) return `refusing to run: the engine did not apply ${missing.join(", ")}`;
  await timed(state, "start", inputs.log, () => container.start());
  inputs.log.event("container.started", { id: container.id });
  return null;
}

/** A suite whose exec has returned and whose report the next step collects. */
interface RanSuite {
  suite: SuiteName;
  exitCode: number | null;
  ran: NonNullable<StepResult["suite"]>;
}

function logExit(inputs: ContainerRunInputs, ran: RanSuite): void {
  const out = ran.ran.stdout.captured();
  const err = ran.ran.stderr.captured();
  inputs.log.event("suite.exit", {
    suite: ran.suite,
    exitCode: ran.exitCode,
    durationMs: ran.ran.durationMs,
    stdoutBytes: out.bytes,
    stderrBytes: err.bytes,
    stdoutTail: out.truncated ? out.tail : undefined,
    stderrTail: err.truncated ? err.tail : undefined,
  });
}

/** Judges a ran suite from what the next step collected; the run's reason when it must stop (OOM). */
function judgeCollected(
  inputs: ContainerRunInputs,
  state: RunState,
  ran: RanSuite,
  record: StepRecord,
  exitCode: number | null,
): RunOutcome | null {
  const { suite } = ran;
  inputs.log.event("collect.done", { suite, kill: record.kill, oomKills: record.oomKills, exitCode });
  if (record.kill && record.kill.survivors > 0)
    throw new Error(`${record.kill.survivors} process(es) of the ${suite} suite survived SIGKILL`);
  if (!record.report || record.oomKills === undefined) {
    const why = record.protocolError ?? `exit code ${exitCode}`;
    throw new Error(`the collect step of the ${suite} suite failed (${why})`);
  }
  const out = ran.ran.stdout.captured();
  const err = ran.ran.stderr.captured();
  const output = { bytes: out.bytes + err.bytes, truncated: out.truncated || err.truncated };
  const oomKilled = record.oomKills > state.oomKills;
  state.oomKills = record.oomKills;
  const sentinel = suite === "hidden" ? inputs.sentinel : null;
  const { durationMs } = ran.ran;
  const judged = judgeSuite({
    suite,
    exitCode: ran.exitCode,
    durationMs,
    report: record.report,
    output,
    sentinel,
  });
  const { result, message } = judged;
  if (result.status !== "PASS") state.failures[suite] = message;
  // Any OOM kill fails the suite, even when its runner carried on: the tests ran starved.
  if (oomKilled) {
    state.suites[suite] = { ...result, status: "FAIL", reason: "OUT_OF_MEMORY" };
    return {
      reason: "OUT_OF_MEMORY",
      message: `${suite} suite: a process was OOM-killed at the ${inputs.loaded.task.resources.memoryMb} MiB limit`,
    };
  }
  state.suites[suite] = result;
  inputs.log.info(message, {
    suite,
    counts: result.counts,
    tests: result.tests.map((t) => `${t.outcome} ${t.id}`),
  });
  return null;
}

/** The steps of a run: each collects the previous suite's report, then prepares and runs the next suite. */
const STEPS: Array<[collect: SuiteName | null, run: SuiteName | null]> = [
  [null, "existing"],
  ["existing", "hidden"],
  ["hidden", null],
];

/**
 * The container part of a run: create and check the container, then for the existing suite and
 * then the hidden suite a fresh checkout, the suite, and its report. Returns the run's reason.
 */
export async function runInContainer(inputs: ContainerRunInputs, state: RunState): Promise<RunOutcome> {
  const refused = await startContainer(inputs, state);
  if (refused) return { reason: "INFRA_ERROR", message: refused };
  const stale = await inputs.imageCurrent();
  if (stale) return stale;
  let ran: RanSuite | null = null;
  for (const [collect, run] of STEPS) {
    const step = await runStep(inputs, state, collect, run);
    if (ran) {
      const stop = judgeCollected(inputs, state, ran, step.record, step.exitCode);
      if (stop) return stop;
    }
    if (!run) break;
    const stop = readPrep(inputs, state, run, step);
    if (stop) return stop;
    ran = { suite: run, exitCode: step.exitCode, ran: step.suite! };
    logExit(inputs, ran);
  }
  for (const suite of ["existing", "hidden"] as const) {
    const result = state.suites[suite];
    if (result && result.status !== "PASS")
      return {
        reason: result.reason ?? "TESTS_FAILED",
        message: state.failures[suite] ?? `${suite} suite failed: ${result.reason}`,
      };
  }
  return { reason: "PASS", message: "both suites ran and passed" };
}
