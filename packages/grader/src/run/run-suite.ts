import type { Writable } from "node:stream";
import { suiteLabels } from "@oracle/engine";
import type { LoadedTask } from "@oracle/spec";
import type { SealRun } from "@oracle/test-set";
import type { FilteredDiff } from "../diff/filter.js";
import { pathsToReset } from "../diff/filter.js";
import type { AttachedStreams, GradeContainer, GradeDocker } from "../image/docker.js";
import { BoundedOutput } from "../log/bounded-output.js";
import type { RunLog } from "../log/oracle-log.js";
import type { SuiteName } from "../reports/junit.js";
import { existingRunner } from "../sentinels/existing-sentinels.js";
import type { PackageScripts } from "../sentinels/runner-command.js";
import { type Sentinel, sentinelRunner } from "../sentinels/sentinels.js";
import {
  BASE_ENV,
  CONTAINER_SANDBOX,
  type ContainerPlan,
  containerOptions,
  missingProtections,
  PATHS,
  reportPath,
  sealsPath,
} from "./container-config.js";
import { createChecked } from "./create-checked.js";
import { type DriverEvent, DriverOutput, SuiteStderr } from "./driver-output.js";
import { GO_LINE, scriptInput } from "./driver-protocol.js";
import { BOOT, type DriverPlan, driverScript } from "./driver-script.js";
import { MOCHA_GUARD_PATH } from "./mocha-guard.js";
import { type DriverReport, prepScript } from "./prep.js";
import type { RunScope } from "./run-scope.js";
import { runnerGuardFor } from "./runner-guard.js";

/**
 * Run a suite: "the existing suite at the base commit's version, then the hidden tests", each in a
 * container of its own whose one process is the driver (driver-script.ts). A suite's container is
 * created, checked and attached ({@link openSuite}), started with the driver's script on its stdin
 * ({@link startSuite}); a gated one waits for its go-ahead ({@link letRun}).
 */

/** The largest report read; above it the report is REPORT_INVALID. */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;
/** The largest seal records file read; above it the suite is SEAL_RECORDS_INCONSISTENT. */
export const MAX_SEALS_BYTES = 16 * 1024 * 1024;
const MAX_PREP_BYTES = 64 * 1024 * 1024;
const OUTPUT_HEAD = 256 * 1024;
const OUTPUT_TAIL = 64 * 1024;

/** What a suite's container needs, from the pipeline's host steps. */
export interface SuiteInputs {
  loaded: LoadedTask;
  /** The image to run, by digest. */
  image: string;
  labels: Record<string, string>;
  /** The filtered diff (grade mode; in the run folder as filtered.diff), else null. */
  filtered: FilteredDiff | null;
  /** Each suite's host folder (mounted read-only at PATHS.run in its container): the filtered diff, and the hidden tests in the hidden suite's. */
  runDirs: Record<SuiteName, string>;
  hiddenFiles: string[];
  /** The must-fail/must-pass sentinels appended to the hidden test files, or null (docs/security.md). */
  sentinel: Sentinel | null;
  /** The hidden test files' seals (packages/test-set), or null: none was sealed. */
  seals: SealRun | null;
  /** The sentinels the existing suite's prep appends to its base test files, or null (existing-sentinels.ts). */
  existingSentinel: Sentinel | null;
  /** The base commit's package scripts the suites' commands may run (`npm test`), or null: not read. */
  scripts: PackageScripts | null;
  docker: GradeDocker;
  log: RunLog;
  /**
   * Containers made and started ahead for this run (warm-pool.ts), by suite; else none. The run's
   * own hidden container may still be on its way (pipeline.ts openOwn): null once there means none
   * was made that can serve.
   */
  warm?: Partial<Record<SuiteName, WarmContainer | null | Promise<WarmContainer | null>>>;
  /** Who made them: a warm pool (logged as `container.warm`), or the run itself while its host steps ran (pipeline.ts). */
  warmFrom?: "pool" | "run";
}

/**
 * A suite's container made, checked and started ahead by a warm pool (warm-pool.ts): its driver waits
 * on stdin for its script; its output goes to relays until the run attaches its parsers.
 */
export interface WarmContainer {
  /** The plan it was made from (the run's own plan must equal it). */
  plan: ContainerPlan;
  container: GradeContainer;
  /** What the engine made of it, read back once it was created. */
  info: Awaited<ReturnType<GradeContainer["inspect"]>>;
  streams: AttachedStreams;
  /** Hands the container's output to the run's parsers (what came before them first). */
  relay: (stdout: Writable, stderr: Writable) => void;
  /** The container's exit code, once it exits (waited for before it started). */
  exited: Promise<number | null>;
}

/** What one suite printed, bounded, and how long it ran. */
export interface SuiteOutput {
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  durationMs: number;
}

/** What one suite's driver did: its parsed record, the suite's output, the container's exit code (null when not waited for). */
export interface DriverResult extends DriverReport {
  output: SuiteOutput;
  /** The suite's runner is Go's (its output names the packages that did not build). */
  goRunner?: boolean;
}

const oracleEnv = BASE_ENV.map((entry): [string, string] => {
  const at = entry.indexOf("=");
  return [entry.slice(0, at), entry.slice(at + 1)];
});

/** The container's process: the boot entrypoint (the script comes on stdin) and the oracle's env. */
export const DRIVER_PROCESS = { entrypoint: BOOT, cmd: [] as string[], env: BASE_ENV };

/**
 * jest-junit writes nothing for a test file that does not load (a syntax error in the code under
 * test) unless asked: its pair would then be missing while every reported test passed, which reads
 * as a forged report. With this, the file is a failed entry of its own and the run fails as such.
 */
const JEST_SUITE_ERRORS: [string, string] = ["JEST_JUNIT_REPORT_TEST_SUITE_ERRORS", "true"];

/** The runner a suite's command starts, as the sentinels read it (a mocha suite gets the mocha guard). */
const suiteRunner = (task: LoadedTask["task"], suite: SuiteName, scripts: PackageScripts | null) =>
  suite === "hidden" ? sentinelRunner(task, scripts) : existingRunner(task, scripts);

/** What the driver of one suite does: its prep script, its command and env, its report. */
export function planDriver(inputs: SuiteInputs, suite: SuiteName): DriverPlan {
  const { task } = inputs.loaded;
  const sealed = suite === "hidden" && (inputs.seals?.sites.length ?? 0) > 0;
  const framework = suiteRunner(task, suite, inputs.scripts)?.framework ?? null;
  const prep = prepScript({
    baseCommit: task.repo.baseCommit,
    mirror: task.repo.mirrorIn === "image" ? task.repo.mirror : PATHS.mirror,
    mirrorInImage: task.repo.mirrorIn === "image",
    applyDiff: inputs.filtered !== null,
    reset: inputs.filtered ? pathsToReset(inputs.filtered.kept, task.suites.existing.files) : [],
    // The seals' added files (Go's runtime) are copied in like the hidden tests, over anything at their paths.
    hiddenFiles:
      suite === "hidden" ? [...inputs.hiddenFiles, ...(inputs.seals?.added.map((a) => a.path) ?? [])] : null,
    reportDir: `${PATHS.report}/${suite}`,
    list: suite === "existing",
    // The first suite's prep checks; a run whose first prep fails never reaches the hidden suite.
    runnerGuard: suite === "existing" ? runnerGuardFor(task) : null,
    appends: suite === "existing" ? (inputs.existingSentinel?.appends ?? []) : [],
    sandbox: CONTAINER_SANDBOX,
  });
  return {
    suite,
    // A sentinel that needed the selection widened to its names runs with the rewritten command.
    command:
      (suite === "hidden" ? inputs.sentinel : inputs.existingSentinel)?.command ?? task.suites[suite].command,
    prep,
    env: [
      ...Object.entries(task.env),
      ...oracleEnv,
      ["ORACLE_JUNIT", reportPath(suite)],
      ...(framework === "jest" ? [JEST_SUITE_ERRORS] : []),
      ...(sealed ? [["ORACLE_SEALS", sealsPath(suite)] as [string, string]] : []),
    ],
    report: reportPath(suite),
    maxReportBytes: MAX_REPORT_BYTES,
    seals: sealed ? sealsPath(suite) : null,
    maxSealsBytes: MAX_SEALS_BYTES,
    gated: suite === "hidden",
    preload: framework === "mocha" ? MOCHA_GUARD_PATH : null,
    framework,
    reportOptions: { goPassWithoutNewline: framework === "go" },
    sandbox: CONTAINER_SANDBOX,
  };
}

/** What a suite's container is made from: the task's limits, the image, the run's labels and folders. */
export interface SuitePlanInputs {
  task: LoadedTask["task"];
  /** The base-only mirror on the host (mounted read-only), or null: the image holds it. */
  mirrorPath: string | null;
  image: string;
  labels: Record<string, string>;
  runDirs: Record<SuiteName, string>;
}

/** A suite's container: its own run folder, and the mirror; the hidden tests only in the hidden suite's folder. */
export function suiteContainerPlan(inputs: SuitePlanInputs, suite: SuiteName): ContainerPlan {
  const { task, mirrorPath } = inputs;
  const binds: ContainerPlan["binds"] = [{ source: inputs.runDirs[suite], target: PATHS.run }];
  if (mirrorPath) binds.push({ source: mirrorPath, target: PATHS.mirror });
  return {
    image: inputs.image,
    labels: suiteLabels(inputs.labels, suite),
    memoryMb: task.resources.memoryMb,
    cpus: task.resources.cpus,
    pids: task.resources.pids,
    binds,
    ...DRIVER_PROCESS,
  };
}

const containerPlan = (inputs: SuiteInputs, suite: SuiteName): ContainerPlan =>
  suiteContainerPlan({ ...inputs, task: inputs.loaded.task, mirrorPath: inputs.loaded.mirrorPath }, suite);

/** A suite's container, created, checked and attached, not started yet. */
export interface SuiteContainer {
  plan: DriverPlan;
  script: string;
  container: GradeContainer;
  streams: AttachedStreams;
  stdout: DriverOutput;
  stderr: SuiteStderr;
  output: SuiteOutput;
  /** Records the time since the driver's last point (timings, log). */
  lap: (step: string) => number;
  /** The container's exit, when a warm pool started it ahead (else it starts in {@link startSuite}). */
  warmExit?: Promise<number | null>;
  /** Resolves at the driver's `oracle:done` line: everything it had to say was said. */
  said: Promise<void>;
}

/** Creates a suite's container, checks every protection and attaches to it (it starts later); the refusal when a protection is missing. */
export async function openSuite(
  inputs: SuiteInputs,
  scope: RunScope,
  suite: SuiteName,
): Promise<SuiteContainer | { refused: string }> {
  const { docker, log } = inputs;
  const driver = planDriver(inputs, suite);
  const script = driverScript(driver);
  log.event("driver.script", { suite, script });
  const plan = containerPlan(inputs, suite);
  const options = containerOptions(plan);
  const warm = (await inputs.warm?.[suite]) ?? undefined;
  // A warm container serves only a run whose own plan it was made from, every protection read back.
  if (warm && JSON.stringify(warm.plan) === JSON.stringify(plan)) {
    const missing = missingProtections(warm.info, plan);
    if (missing.length > 0)
      return { refused: `refusing to run: the engine did not apply ${missing.join(", ")}` };
    if (inputs.warmFrom !== "run") log.event("container.warm", { suite, id: warm.container.id, options });
    const attach = (stdout: Writable, stderr: Writable) => {
      warm.relay(stdout, stderr);
      return Promise.resolve(warm.streams);
    };
    const attached = await attachDriver(inputs, scope, driver, script, attach);
    return { ...attached, container: warm.container, warmExit: warm.exited };
  }
  if (warm) log.warn(`${suite}: the warm container was made for another plan; making a new one`);
  log.event("container.create", { suite, options });
  const { container, missing } = await createChecked(docker, plan, scope, suite);
  if (missing.length > 0)
    return { refused: `refusing to run: the engine did not apply ${missing.join(", ")}` };
  const attached = await attachDriver(inputs, scope, driver, script, (out, err) =>
    container.attach(out, err),
  );
  return { ...attached, container };
}

/** Attaches the parsers of a created container's driver output (before it starts, or before a warm one gets its script). */
async function attachDriver(
  inputs: SuiteInputs,
  scope: RunScope,
  plan: DriverPlan,
  script: string,
  attach: (stdout: Writable, stderr: Writable) => Promise<AttachedStreams>,
): Promise<Omit<SuiteContainer, "container">> {
  const { suite } = plan;
  const { log } = inputs;
  const output = (stream: "stdout" | "stderr") =>
    new BoundedOutput(OUTPUT_HEAD, OUTPUT_TAIL, (chunk) =>
      log.event("suite.output", { suite, stream, text: chunk.toString("utf8") }),
    );
  const suiteOutput: SuiteOutput = { stdout: output("stdout"), stderr: output("stderr"), durationMs: 0 };
  const watch = scope.stopwatch();
  let saidDone = () => {};
  const said = new Promise<void>((resolve) => (saidDone = resolve));
  const onEvent = (event: DriverEvent) => {
    if (event === "prep") watch.lap(`prep.${suite}`);
    if (event === "suite") {
      watch.restart();
      log.event("suite.start", { suite, command: plan.command, env: plan.env.map(([k, v]) => `${k}=${v}`) });
      log.info(`${suite}: running ${plan.command}`);
    }
    if (event === "end") suiteOutput.durationMs = watch.lap(`suite.${suite}`);
    if (event === "report") watch.lap(`collect.${suite}`);
    if (event === "done") saidDone();
  };
  const stdout = new DriverOutput(
    suite,
    { report: MAX_REPORT_BYTES, seals: MAX_SEALS_BYTES, prepOut: MAX_PREP_BYTES, prepErr: MAX_PREP_BYTES },
    (chunk) => suiteOutput.stdout.take(chunk),
    onEvent,
    true,
    plan.reportOptions,
  );
  const stderr = new SuiteStderr(
    () => stdout.nonce,
    (chunk) => suiteOutput.stderr.take(chunk),
  );
  const streams = await attach(stdout, stderr);
  return { plan, script, streams, stdout, stderr, output: suiteOutput, lap: watch.lap, said };
}

/**
 * Starts a suite's container (its process is the driver: prep, the suite, the report) and hands
 * the driver its script; a gated driver waits for {@link letRun}. Resolves at the driver's
 * `oracle:done` line, or when the container's output ended without it (then with its exit code).
 */
export async function startSuite(
  inputs: SuiteInputs,
  scope: RunScope,
  opened: SuiteContainer,
): Promise<DriverResult> {
  const { plan, container, streams, stdout, stderr, output } = opened;
  scope.ensureOpen("driver");
  const exited = opened.warmExit ?? container.waitForExit();
  exited.catch(() => undefined);
  opened.lap(`created.${plan.suite}`);
  // A warm pool's container is running already, its driver waiting on stdin.
  if (!opened.warmExit) await container.start();
  opened.lap(`start.${plan.suite}`);
  inputs.log.event("container.started", { id: container.id, suite: plan.suite });
  streams.input.write(scriptInput(opened.script));
  if (!plan.gated) streams.input.end();
  // `oracle:done` is the driver's last line, after the kill loop found no process of the suite left,
  // its own checks and the report: nothing it prints after it is read, and all it does next is exit
  // 0. The run goes on there instead of waiting for the engine to tear the container down (50-90 ms
  // before the hidden suite could start, as much again before the verdict); the clean-up removes it.
  const ended = await Promise.race([
    streams.ended.then(() => "ended" as const),
    opened.said.then(() => "said" as const),
  ]);
  // Its stderr is copied apart from its stdout: the suite's last stderr bytes may still be on their
  // way. They all come before the stderr end marker, printed before `oracle:done`.
  if (ended === "said") {
    stderr.settle();
    await Promise.race([stderr.marked, streams.ended]);
  }
  const exitCode = ended === "ended" ? await exited : null;
  stdout.finish();
  stderr.finish();
  // A suite cut short (the driver stopped, the deadline) still ran until now.
  if (stdout.record.started[plan.suite] && stdout.record.exitCode[plan.suite] === undefined)
    output.durationMs = opened.lap(`suite.${plan.suite}`);
  scope.ensureOpen("driver");
  return {
    suite: plan.suite,
    record: stdout.record,
    exitCode,
    output,
    goRunner: plan.framework === "go",
  };
}

/** Lets a gated driver (prepared while the suite before it ran) start its suite. */
export function letRun(opened: SuiteContainer): void {
  opened.streams.input.write(GO_LINE);
  opened.streams.input.end();
}
