import { type ContainerPlan, containerOptions, missingProtections, PATHS } from "./container-config.js";
import {
  BASE_ENV,
  type ContainerRunInputs,
  collect,
  execIn,
  prepare,
  RunClosed,
  type RunOutcome,
  type RunState,
  reportPath,
  timed,
} from "./container-steps.js";
import type { SuiteName } from "./junit.js";
import { judgeSuite } from "./suite-result.js";

const OUTPUT_HEAD = 256 * 1024;
const OUTPUT_TAIL = 64 * 1024;

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

async function runSuite(
  inputs: ContainerRunInputs,
  state: RunState,
  suite: SuiteName,
): Promise<RunOutcome | null> {
  const prepared = await prepare(inputs, state, suite);
  if (!("epoch" in prepared)) return prepared;
  const { task } = inputs.loaded;
  const command = task.suites[suite].command;
  const env = [
    ...Object.entries(task.env).map(([k, v]) => `${k}=${v}`),
    ...BASE_ENV,
    `SOURCE_DATE_EPOCH=${prepared.epoch}`,
    `ORACLE_JUNIT=${reportPath(suite)}`,
  ];
  inputs.log.event("suite.start", { suite, command, env });
  inputs.log.info(`${suite}: running ${command}`);
  const started = performance.now();
  const onChunk = (stream: string, chunk: Buffer) =>
    inputs.log.event("suite.output", { suite, stream, text: chunk.toString("utf8") });
  const ran = await timed(state, `suite.${suite}`, inputs.log, () =>
    execIn(
      state,
      ["sh", "-c", command],
      env,
      PATHS.checkout,
      { head: OUTPUT_HEAD, tail: OUTPUT_TAIL },
      onChunk,
    ),
  );
  const durationMs = Math.round(performance.now() - started);
  const out = ran.stdout.captured();
  const err = ran.stderr.captured();
  inputs.log.event("suite.exit", {
    suite,
    exitCode: ran.exitCode,
    durationMs,
    stdoutBytes: out.bytes,
    stderrBytes: err.bytes,
    stdoutTail: out.truncated ? out.tail : undefined,
    stderrTail: err.truncated ? err.tail : undefined,
  });
  const { report, oomKills } = await collect(inputs, state, suite);
  const output = { bytes: out.bytes + err.bytes, truncated: out.truncated || err.truncated };
  const oomKilled = oomKills > state.oomKills;
  state.oomKills = oomKills;
  const sentinel = suite === "hidden" ? inputs.sentinel : null;
  const judged = judgeSuite({ suite, exitCode: ran.exitCode, durationMs, report, output, sentinel });
  const { result, message } = judged;
  if (result.status !== "PASS") state.failures[suite] = message;
  // Any OOM kill fails the suite, even when its runner carried on: the tests ran starved.
  if (oomKilled) {
    state.suites[suite] = { ...result, status: "FAIL", reason: "OUT_OF_MEMORY" };
    return {
      reason: "OUT_OF_MEMORY",
      message: `${suite} suite: a process was OOM-killed at the ${task.resources.memoryMb} MiB limit`,
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

/**
 * The container part of a run: create and check the container, then for the existing suite and
 * then the hidden suite a fresh checkout, the suite, and its report. Returns the run's reason.
 */
export async function runInContainer(inputs: ContainerRunInputs, state: RunState): Promise<RunOutcome> {
  const refused = await startContainer(inputs, state);
  if (refused) return { reason: "INFRA_ERROR", message: refused };
  const stale = await inputs.imageCurrent();
  if (stale) return stale;
  for (const suite of ["existing", "hidden"] as const) {
    const stop = await runSuite(inputs, state, suite);
    if (stop) return stop;
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
