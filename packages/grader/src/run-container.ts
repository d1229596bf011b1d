import { writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { type ContainerPlan, containerOptions, missingProtections, PATHS } from "./container-config.js";
import {
  type ContainerRunInputs,
  RunClosed,
  type RunOutcome,
  type RunState,
  timed,
} from "./container-steps.js";
import type { SuiteName } from "./junit.js";
import {
  type DriverResult,
  driverProcess,
  planDriver,
  readPrep,
  runDriver,
  type SuiteOutput,
} from "./step.js";
import { type DriverPlan, driverScript } from "./step-script.js";
import { judgeSuite, listedTests } from "./suite-result.js";

function planFor(inputs: ContainerRunInputs): ContainerPlan {
  const { task, hiddenTestsDir, mirrorPath } = inputs.loaded;
  const binds: ContainerPlan["binds"] = [
    { source: hiddenTestsDir, target: PATHS.hidden },
    { source: inputs.runDir, target: PATHS.run },
  ];
  if (mirrorPath) binds.push({ source: mirrorPath, target: PATHS.mirror });
  return { image: inputs.image, labels: inputs.labels, ...task.resources, binds, ...driverProcess(inputs) };
}

/** Creates the container and checks every protection (the driver starts later). Returns a refusal message or null. */
async function startContainer(
  inputs: ContainerRunInputs,
  state: RunState,
  driver: DriverPlan,
): Promise<string | null> {
  // The script is a file, not an argument: execve caps one argument at 128 KiB, and a task with
  // thousands of hidden files makes a longer one.
  const script = driverScript(driver);
  inputs.log.event("driver.script", { path: PATHS.driver, script });
  await writeFile(join(inputs.runDir, basename(PATHS.driver)), script, { mode: 0o644 });
  const plan = planFor(inputs);
  const options = containerOptions(plan);
  inputs.log.event("container.create", { options });
  const container = await timed(state, "create", inputs.log, () => inputs.docker.createContainer(options));
  state.container = container;
  if (state.closed) throw new RunClosed("create");
  const info = await timed(state, "inspect", inputs.log, () => container.inspect());
  const missing = missingProtections(info, plan);
  if (missing.length > 0) return `refusing to run: the engine did not apply ${missing.join(", ")}`;
  return null;
}

function logExit(
  inputs: ContainerRunInputs,
  suite: SuiteName,
  exitCode: number | null,
  ran: SuiteOutput,
): void {
  const out = ran.stdout.captured();
  const err = ran.stderr.captured();
  inputs.log.event("suite.exit", {
    suite,
    exitCode,
    durationMs: ran.durationMs,
    stdoutBytes: out.bytes,
    stderrBytes: err.bytes,
    stdoutTail: out.truncated ? out.tail : undefined,
    stderrTail: err.truncated ? err.tail : undefined,
  });
}

/** Judges a suite from what the driver collected after it; the run's reason when it must stop (OOM). */
function judgeCollected(
  inputs: ContainerRunInputs,
  state: RunState,
  suite: SuiteName,
  driver: DriverResult,
): RunOutcome | null {
  const { record } = driver;
  const ran = driver.outputs[suite];
  const exitCode = record.exitCode[suite] ?? null;
  const kill = record.kill[suite];
  const oomKills = record.oomKills[suite];
  inputs.log.event("collect.done", { suite, kill, oomKills, driverExitCode: driver.exitCode });
  logExit(inputs, suite, exitCode, ran);
  if (kill && kill.survivors > 0)
    throw new Error(`${kill.survivors} process(es) of the ${suite} suite survived SIGKILL`);
  const out = ran.stdout.captured();
  const err = ran.stderr.captured();
  const output = { bytes: out.bytes + err.bytes, truncated: out.truncated || err.truncated };
  const report = record.report[suite];
  if (!report || oomKills === undefined) {
    if (record.protocolError) throw new Error(`the driver's output: ${record.protocolError}`);
    // Nothing to judge: the engine stopped the container (a daemon shutdown), or the code under
    // test killed the driver (same uid). Either way the run cannot be graded.
    throw new Error(
      `the oracle's driver ended (exit code ${driver.exitCode}) before the ${suite} suite's report was read: the engine stopped the container, or the code under test killed the driver`,
    );
  }
  const oomKilled = oomKills > state.oomKills;
  state.oomKills = oomKills;
  const sentinel = suite === "hidden" ? inputs.sentinel : null;
  const { durationMs } = ran;
  const judged = judgeSuite({ suite, exitCode, durationMs, report, output, sentinel });
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
  const listed = listedTests(result.tests);
  inputs.log.info(message, {
    suite,
    counts: result.counts,
    tests: listed.tests.map((t) => `${t.outcome} ${t.id}`),
    testsOmitted: listed.omitted,
  });
  return null;
}

/**
 * The container part of a run: create and check the container, then start its process, the driver:
 * for the existing suite and then the hidden suite a fresh checkout, the suite, and its report.
 * Returns the run's reason.
 */
export async function runInContainer(inputs: ContainerRunInputs, state: RunState): Promise<RunOutcome> {
  const plan = planDriver(inputs);
  const refused = await startContainer(inputs, state, plan);
  if (refused) return { reason: "INFRA_ERROR", message: refused };
  const stale = await inputs.imageCurrent();
  if (stale) return stale;
  const driver = await runDriver(inputs, state, plan);
  for (const suite of ["existing", "hidden"] as const) {
    const prepStop = readPrep(inputs, state, suite, driver);
    if (prepStop) return prepStop;
    const stop = judgeCollected(inputs, state, suite, driver);
    if (stop) return stop;
  }
  if (driver.record.protocolError) throw new Error(`the driver's output: ${driver.record.protocolError}`);
  if (!driver.record.done) throw new Error(`the driver did not finish (exit code ${driver.exitCode})`);
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
