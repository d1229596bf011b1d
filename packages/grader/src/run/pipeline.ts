import type { SentinelState } from "@oracle/spec";
import { checkExpected } from "../expected-judge.js";
import type { SuiteName } from "../junit.js";
import { suiteTail } from "../output-tail.js";
import { deselectedByName } from "../sentinel-selection.js";
import type { Sentinel } from "../sentinels.js";
import { type ContainerPlan, containerOptions, missingProtections, PATHS } from "./container-config.js";
import { driverScript } from "./driver-script.js";
import { judgeSuite, listedTests } from "./judge-report.js";
import { type ContainerRunInputs, RunClosed, type RunOutcome, type RunState, timed } from "./run-scope.js";
import {
  attachDriver,
  DRIVER_PROCESS,
  type DriverResult,
  letRun,
  planDriver,
  readPrep,
  runDriver,
  type SuiteContainer,
} from "./run-suite.js";

/** A suite's container: its own run folder, and the mirror; the hidden tests only in the hidden suite's folder. */
function planFor(inputs: ContainerRunInputs, suite: SuiteName): ContainerPlan {
  const { task, mirrorPath } = inputs.loaded;
  const binds: ContainerPlan["binds"] = [{ source: inputs.runDirs[suite], target: PATHS.run }];
  if (mirrorPath) binds.push({ source: mirrorPath, target: PATHS.mirror });
  return {
    image: inputs.image,
    labels: { ...inputs.labels, "dev.oracle.suite": suite },
    ...task.resources,
    binds,
    ...DRIVER_PROCESS,
  };
}

type Opened = { opened: SuiteContainer; script: string } | { refused: string };

/** Creates a suite's container, checks every protection and attaches to it (it starts later). */
async function openSuite(inputs: ContainerRunInputs, state: RunState, suite: SuiteName): Promise<Opened> {
  const driver = planDriver(inputs, suite);
  const script = driverScript(driver);
  inputs.log.event("driver.script", { suite, script });
  const plan = planFor(inputs, suite);
  const options = containerOptions(plan);
  inputs.log.event("container.create", { suite, options });
  const container = await timed(state, `create.${suite}`, inputs.log, () =>
    inputs.docker.createContainer(options),
  );
  state.containers.push(container);
  if (state.closed) throw new RunClosed("create");
  const info = await timed(state, `inspect.${suite}`, inputs.log, () => container.inspect());
  const missing = missingProtections(info, plan);
  if (missing.length > 0)
    return { refused: `refusing to run: the engine did not apply ${missing.join(", ")}` };
  return { opened: await attachDriver(inputs, state, driver, container), script };
}

function logExit(inputs: ContainerRunInputs, driver: DriverResult): void {
  const { suite, output } = driver;
  const out = output.stdout.captured();
  const err = output.stderr.captured();
  inputs.log.event("suite.exit", {
    suite,
    exitCode: driver.record.exitCode[suite] ?? null,
    durationMs: output.durationMs,
    stdoutBytes: out.bytes,
    stderrBytes: err.bytes,
    stdoutTail: out.truncated ? out.tail : undefined,
    stderrTail: err.truncated ? err.tail : undefined,
  });
}

/** Judges a suite from what its driver collected after it; the run's reason when it must stop (OOM). */
function judgeCollected(
  inputs: ContainerRunInputs,
  state: RunState,
  driver: DriverResult,
): RunOutcome | null {
  const { record, suite, output } = driver;
  const exitCode = record.exitCode[suite] ?? null;
  const kill = record.kill[suite];
  const oomKills = record.oomKills[suite];
  inputs.log.event("collect.done", { suite, kill, oomKills, driverExitCode: driver.exitCode });
  logExit(inputs, driver);
  if (kill && kill.survivors > 0)
    throw new Error(`${kill.survivors} process(es) of the ${suite} suite survived SIGKILL`);
  if (record.unsafe) throw new Error(`the ${suite} suite's driver refused to go on: ${record.unsafe}`);
  const out = output.stdout.captured();
  const err = output.stderr.captured();
  const bounded = {
    bytes: out.bytes + err.bytes,
    truncated: out.truncated || err.truncated,
    tail: suiteTail(out, err),
  };
  const report = record.report[suite];
  // An OOM kill explains a driver that stopped after the suite (its fork or itself killed).
  if (oomKills !== undefined && oomKills > 0 && !report) {
    state.suites[suite] = {
      status: "FAIL",
      reason: "OUT_OF_MEMORY",
      exitCode,
      durationMs: output.durationMs,
      counts: { passed: 0, failed: 0, error: 0, skipped: 0 },
      tests: [],
      output: bounded,
    };
    return {
      reason: "OUT_OF_MEMORY",
      message: `${suite} suite: a process was OOM-killed at the ${inputs.loaded.task.resources.memoryMb} MiB limit`,
    };
  }
  if (!report || oomKills === undefined) {
    if (record.protocolError) throw new Error(`the driver's output: ${record.protocolError}`);
    throw new Error(
      `the oracle's driver ended (exit code ${driver.exitCode}) before the ${suite} suite's report was read: the engine stopped the container`,
    );
  }
  const sentinel = suite === "hidden" ? inputs.sentinel : inputs.existingSentinel;
  const judged = judgeSuite({
    suite,
    exitCode,
    durationMs: output.durationMs,
    report,
    output: bounded,
    sentinel,
  });
  const { message } = judged;
  if (sentinel) recordSentinel(inputs, state, suite, sentinel, judged.sentinel);
  const seen = suite === "hidden" ? state.sentinel : state.existingSentinel;
  const result = seen ? { ...judged.result, sentinel: seen } : judged.result;
  if (result.status !== "PASS") state.failures[suite] = message;
  // Any OOM kill fails the suite, even when its runner carried on: the tests ran starved.
  if (oomKills > 0) {
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

/** Judges one suite's driver: its prep, then its report. */
function judgeDriver(inputs: ContainerRunInputs, state: RunState, driver: DriverResult): RunOutcome | null {
  const stop = readPrep(inputs, driver) ?? judgeCollected(inputs, state, driver);
  if (stop) return stop;
  if (driver.record.protocolError) throw new Error(`the driver's output: ${driver.record.protocolError}`);
  if (!driver.record.done)
    throw new Error(`the ${driver.suite} suite's driver did not finish (exit code ${driver.exitCode})`);
  return null;
}

/** The hidden suite's container, made and prepared while the existing suite runs; null on a refusal. */
function prepareHidden(inputs: ContainerRunInputs, state: RunState) {
  const hidden = openSuite(inputs, state, "hidden").then((opened) =>
    "refused" in opened ? opened : { ...opened, run: runDriver(inputs, state, opened.opened, opened.script) },
  );
  hidden.then((h) => ("run" in h ? h.run : undefined)).catch(() => undefined);
  return hidden;
}

/**
 * The container part of a run: the existing suite in a container of its own, then the hidden suite
 * in another, fresh one (made and prepared while the existing suite runs, started on its go-ahead).
 * Returns the run's reason.
 */
export async function runInContainer(inputs: ContainerRunInputs, state: RunState): Promise<RunOutcome> {
  const existing = await openSuite(inputs, state, "existing");
  if ("refused" in existing) return { reason: "INFRA_ERROR", message: existing.refused };
  const stale = await inputs.imageCurrent();
  if (stale) return stale;
  const existingRun = runDriver(inputs, state, existing.opened, existing.script);
  const hidden = prepareHidden(inputs, state);
  const stop = judgeDriver(inputs, state, await existingRun);
  if (stop) return stop;
  const prepared = await hidden;
  if ("refused" in prepared) return { reason: "INFRA_ERROR", message: prepared.refused };
  letRun(prepared.opened);
  const hiddenStop = judgeDriver(inputs, state, await prepared.run);
  if (hiddenStop) return hiddenStop;
  judgeExpected(inputs, state);
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

/** A suite's sentinel outcome, for the result and the log (a missing optional one is only noted). */
function recordSentinel(
  inputs: ContainerRunInputs,
  state: RunState,
  suite: SuiteName,
  sentinel: Sentinel,
  outcome: SentinelState,
): void {
  const record = {
    state: outcome,
    framework: sentinel.framework,
    required: sentinel.required.length > 0,
    files: sentinel.appends.map((a) => a.path),
    ...(sentinel.note ? { note: sentinel.note } : {}),
  };
  if (suite === "hidden") state.sentinel = record;
  else state.existingSentinel = record;
  inputs.log.event("sentinel.checked", { suite, ...record });
  if (outcome === "not-collected")
    inputs.log.warn(
      `sentinel not collected: the ${suite} command did not run the oracle's sentinel tests${sentinel.note ? ` (${sentinel.note})` : ""}; the verdict rests on the other checks`,
    );
}

/**
 * Holds both suites' reports (sentinels already removed) to the expected tests: a suite that passed
 * on its own fails with EXPECTED_TEST_MISSING / EXPECTED_TEST_SKIPPED when one of them did not run
 * and pass; a suite that already failed keeps its reason (an expected test that failed is TESTS_FAILED).
 */
function judgeExpected(inputs: ContainerRunInputs, state: RunState): void {
  const tests = { existing: state.suites.existing?.tests ?? [], hidden: state.suites.hidden?.tests ?? [] };
  const { result, problems } = checkExpected(
    inputs.expectation,
    tests,
    deselectedByName(inputs.loaded.task.suites.hidden.command),
  );
  state.expected = result;
  inputs.log.event("expected.checked", { ...result });
  for (const suite of ["existing", "hidden"] as const) {
    const problem = problems[suite];
    const judged = state.suites[suite];
    if (!problem || !judged || judged.status !== "PASS") continue;
    state.suites[suite] = { ...judged, status: "FAIL", reason: problem.reason };
    state.failures[suite] = problem.message;
  }
  const { missing, skipped, unexpected } = result;
  inputs.log.info(
    `expected tests (${result.source}): ${missing.count} missing, ${skipped.count} skipped, ${unexpected.count} ran unexpected${result.source === "none" ? ` (${result.note})` : ""}`,
  );
}
