import { join } from "node:path";
import type { LoadedTask, SealRecord } from "@oracle/spec";
import type { GradeDocker } from "../image/docker.js";
import { type ResolvedImage, resolveImage, staleImageMessage } from "../image/image.js";
import { gradeLabels, leaseDeadline, removeLeftovers } from "../image/leftovers.js";
import { type Expectation, loadExpectation } from "../judges/expected-judge.js";
import {
  bothSuitesOutcome,
  judgeCollected,
  judgeExpected,
  type SuiteJudgement,
} from "../judges/judge-suite.js";
import { judging } from "../judges/oracle-bug.js";
import type { RunLog } from "../log/oracle-log.js";
import type { SuiteName } from "../reports/junit.js";
import { baseInputs, existingSentinels } from "../sentinels/existing-sentinels.js";
import type { PlantedHidden } from "../sentinels/plant-sentinels.js";
import { plantSentinels } from "../sentinels/plant-sentinels.js";
import type { PackageScripts } from "../sentinels/runner-command.js";
import type { Sentinel } from "../sentinels/sentinels.js";
import { listHiddenFiles } from "../task/hidden-files.js";
import { readSealRecord } from "../task/seal-record.js";
import { filterAndLog } from "./apply-diff.js";
import { prepareBaseMirror } from "./checkout.js";
import { containerOptions } from "./container-config.js";
import { createChecked } from "./create-checked.js";
import { writeMochaGuards } from "./mocha-guard.js";
import { judgePrep } from "./prep.js";
import { fillSuiteFolders, makeRunTempDir, makeSuiteFolders, removeOrphanRunDirs } from "./run-folder.js";
import type { RunOutcome, RunScope, SentinelNotes } from "./run-scope.js";
import {
  type DriverResult,
  letRun,
  openSuite,
  type SuiteInputs,
  type SuitePlanInputs,
  startSuite,
  suiteContainerPlan,
  type WarmContainer,
} from "./run-suite.js";
import { startWarm, type WarmSlot, type WarmTicket } from "./warm-pool.js";

/**
 * The run, top to bottom as docs/specification.md tells it (packages/grader/README.md maps each
 * sentence to its function). Each step returns what the next needs; what the deadline and the
 * clean-up need goes to the run's scope (run-scope.ts), which wall-clock-limit.ts closes.
 */

/** What a run is given. */
export interface PipelineInputs {
  loaded: LoadedTask;
  /** The diff's bytes (grade mode), a marker that it is too large to parse, or null (baseline mode). */
  diff: Buffer | { tooLarge: number } | null;
  runId: string;
  startedAt: Date;
  timeoutMs: number;
  docker: GradeDocker;
  /** images/<name>/'s fingerprint, computed once per grade (prepare.ts). */
  imageFingerprint: () => Promise<string>;
  log: RunLog;
  root: string;
  /** `fresh`: the sweep's seal record is left aside (GradeOptions.sealPlan). */
  sealPlan?: "recorded" | "fresh";
  /** The containers and run folder a batch's warm pool made for this run (warm-pool.ts). */
  warm?: WarmTicket;
}

/** What the host steps hand to the suites. */
interface Prepared {
  suites: SuiteInputs;
  /** Why a suite has no sentinel, as its planner noted. */
  notes: SentinelNotes;
  /** The tests each suite must run and pass (task.json, the sweep's record, or none). */
  expectation: Expectation;
  /** Resolves to a reason to stop (a stale image) or null; awaited before anything runs in a container. */
  imageCurrent: () => Promise<RunOutcome | null>;
  /** The sweep's seal record, when it held for this run's plan. */
  sealRecord: SealRecord | null;
}

/** One grade or baseline run: the host steps, then the two suites. Returns the run's reason. */
export async function runPipeline(inputs: PipelineInputs, scope: RunScope): Promise<RunOutcome> {
  // Leftovers of dead graders go while the diff is filtered and the image resolved; before the container is made.
  const leftovers = removeDeadGradersLeftovers(inputs.docker, inputs.log);
  try {
    const prepared = await prepareRun(inputs, scope, leftovers);
    if ("reason" in prepared) return prepared;
    return await runSuites(prepared, scope);
  } finally {
    await leftovers;
  }
}

/** On the host: filter the diff, resolve the image, make the base-only mirror and the run folders, plan the sentinels. */
async function prepareRun(
  inputs: PipelineInputs,
  scope: RunScope,
  leftovers: Promise<void>,
): Promise<Prepared | RunOutcome> {
  const { docker, log, loaded, root } = inputs;
  // The engine looks the image up while the diff is filtered.
  const resolving = resolveImage(root, loaded.task.image, docker);
  resolving.catch(() => undefined);
  const diff = filterAndLog(inputs.diff, loaded.task, log);
  scope.learn({ diff: diff.record });
  if (diff.stop) return diff.stop;
  const image = await resolving;
  scope.learn({ image: { name: image.name, reference: image.reference, digest: image.digest } });
  log.event("image", { ...image });
  if (!image.ok) return { reason: "IMAGE_NOT_BUILT", message: image.message };
  const imageCurrent = checkImageCurrent(root, image, inputs.imageFingerprint, scope);
  log.info(`image: ${image.reference}`);
  const mirror = prepareBaseMirror(root, loaded, scope, log);
  mirror.catch(() => undefined);
  const slot = await claimWarm(inputs, scope);
  const folder = slot?.folder ?? (await makeRunTempDir());
  scope.adoptFolder(folder);
  // A warm slot's folders are empty and mounted already: filled here, before any script goes in.
  const runDirs = slot
    ? await fillSuiteFolders(slot.runDirs, diff.filtered, loaded.hiddenTestsDir)
    : await makeSuiteFolders(folder, diff.filtered, loaded.hiddenTestsDir);
  const hiddenFiles = await listHiddenFiles(loaded.hiddenTestsDir);
  const deadline = leaseDeadline(inputs.startedAt, inputs.timeoutMs);
  const [expectation, sealRecord] = await Promise.all([
    loadExpectation(loaded),
    inputs.sealPlan === "fresh" ? ({ kind: "absent" } as const) : readSealRecord(loaded),
  ]);
  log.event("expected.loaded", { ...expectation });
  if (expectation.ignored) log.warn(`expected tests: ${expectation.ignored}`);
  if (sealRecord.kind === "stale" || sealRecord.kind === "invalid") log.warn(`seals: ${sealRecord.why}`);
  const record = sealRecord.kind === "current" ? sealRecord.record : null;
  await leftovers;
  const baseOnly = await mirror;
  if (typeof baseOnly !== "string" && baseOnly !== null) return baseOnly;
  const warm = slot && warmFits(slot, image.runAs, baseOnly, deadline, log);
  const labels = warm ? slot.labels : gradeLabels(inputs.runId, loaded.task.id, deadline);
  // Without a warm slot, the run's own containers are made and started (each driver waiting for its
  // script) while the sentinels are planned: neither needs the other. The existing suite's first,
  // the hidden suite's once it is up (openOwn).
  const own = warm
    ? null
    : openOwn(docker, scope, log, {
        task: loaded.task,
        mirrorPath: baseOnly,
        image: image.runAs,
        labels,
        runDirs,
      });
  own?.existing.catch(() => undefined);
  own?.hidden.catch(() => undefined);
  const hostSteps = async () => {
    const planted = await planSentinels(
      root,
      loaded,
      baseOnly,
      hiddenFiles,
      join(runDirs.hidden, "tests"),
      log,
      record,
    );
    scope.learn(planted.notes.sentinel ? { sentinel: planted.notes.sentinel } : {});
    await writeMochaGuards(runDirs, hiddenFiles);
    return planted;
  };
  // A failed step still waits for the containers under way: the clean-up then finds them adopted.
  const planted = await hostSteps().catch(async (error: unknown) => {
    if (own) await Promise.allSettled([own.existing, own.hidden]);
    throw error;
  });
  const ready = warm ? slot.containers : own && { existing: await own.existing, hidden: own.hidden };
  // The container is given the base-only repository where the task's mirror was (docs/security.md, "History").
  const suites: SuiteInputs = {
    loaded: { ...loaded, mirrorPath: baseOnly },
    image: image.runAs,
    labels,
    filtered: diff.filtered,
    runDirs,
    hiddenFiles,
    sentinel: planted.hidden.sentinel,
    seals: planted.hidden.seals,
    existingSentinel: planted.existing,
    scripts: planted.scripts,
    docker,
    log,
    ...(ready ? { warm: ready, warmFrom: warm ? ("pool" as const) : ("run" as const) } : {}),
  };
  const sealed = planted.hidden.validated && record ? record : null;
  return { suites, notes: planted.notes, expectation, imageCurrent, sealRecord: sealed };
}

/**
 * The run's own containers, made (each adopted at once), checked and started while the host steps
 * run, as a warm pool would: a suite whose container lacks a protection is not started and gets none
 * here (null: openSuite then makes one, reads it back and refuses). The existing suite's comes first
 * and the hidden suite's is made once it started: made at once, the two shared the engine's create
 * and start, and the existing suite, which runs first, waited for both (create 215 ms for the two
 * against 100-120 ms for one on an idle 2-core machine); the hidden suite's has the existing suite's
 * prep and run to get ready in.
 */
function openOwn(
  docker: GradeDocker,
  scope: RunScope,
  log: RunLog,
  inputs: SuitePlanInputs,
): { existing: Promise<WarmContainer | null>; hidden: Promise<WarmContainer | null> } {
  const open = async (suite: SuiteName): Promise<WarmContainer | null> => {
    const plan = suiteContainerPlan(inputs, suite);
    log.event("container.create", { suite, options: containerOptions(plan) });
    const { container, info, missing } = await createChecked(docker, plan, scope, suite);
    if (missing.length > 0) return null;
    scope.ensureOpen("start");
    // Timed as boot.<suite>: start.<suite> is the lap startSuite records when the script goes in.
    return scope.timing(`boot.${suite}`, startWarm(container, plan, info));
  };
  const existing = open("existing");
  // Not made when the existing suite's failed: the run stops there.
  const hidden = existing.then(() => open("hidden"));
  return { existing, hidden };
}

/** Takes the warm pool's slot for this run, if any: the run owns its containers and folder from now on. */
async function claimWarm(inputs: PipelineInputs, scope: RunScope): Promise<WarmSlot | null> {
  if (!inputs.warm) return null;
  const slot = await scope.timing("warm", inputs.warm.claim());
  if (!slot) return null;
  // Closed meanwhile (deadline, abort): the clean-up may be over; the ticket's release removes the slot.
  scope.ensureOpen("warm");
  scope.adoptFolder(slot.folder);
  for (const { container } of Object.values(slot.containers)) scope.adopt(container);
  inputs.warm.adopted();
  return slot;
}

/**
 * Whether a warm slot serves this run: the image it runs is the one resolved now (by digest), it
 * mounts the same base-only mirror, and its lease lasts as long as the run's. Otherwise the run makes
 * its own containers (in the slot's folder) and the slot's are removed with the run's.
 */
function warmFits(
  slot: WarmSlot,
  image: string,
  mirror: string | null,
  deadline: Date,
  log: RunLog,
): boolean {
  const why =
    slot.image !== image
      ? "its image is not the one resolved now"
      : slot.mirrorPath !== mirror
        ? "its mirror is not this run's"
        : slot.deadline < deadline.getTime()
          ? "its lease ends before this run's"
          : null;
  if (why) log.warn(`warm containers not used: ${why}`);
  return why === null;
}

/** In the containers: the existing suite, then the hidden suite (prepared while the existing one runs), then both judged. */
async function runSuites(run: Prepared, scope: RunScope): Promise<RunOutcome> {
  try {
    return await runBothSuites(run, scope);
  } finally {
    // The run's own hidden container may still be on its way when the run stops early: it is
    // adopted before the clean-up looks for the run's containers.
    await Promise.resolve(run.suites.warm?.hidden).catch(() => undefined);
  }
}

async function runBothSuites(run: Prepared, scope: RunScope): Promise<RunOutcome> {
  const { suites: inputs } = run;
  const existing = await openSuite(inputs, scope, "existing");
  if ("refused" in existing) return { reason: "INFRA_ERROR", message: existing.refused };
  const stale = await run.imageCurrent();
  if (stale) return stale;
  const existingRun = startSuite(inputs, scope, existing);
  const hidden = openHidden(inputs, scope);
  const existingJudged = judgeDriver(run, scope, await existingRun);
  if ("stopped" in existingJudged) return existingJudged.stopped;
  const prepared = await hidden;
  if ("refused" in prepared) return { reason: "INFRA_ERROR", message: prepared.refused };
  letRun(prepared.opened);
  const hiddenJudged = judgeDriver(run, scope, await prepared.run);
  if ("stopped" in hiddenJudged) return hiddenJudged.stopped;
  const judged = {
    suites: { existing: existingJudged.result, hidden: hiddenJudged.result },
    failures: {
      ...(existingJudged.failure ? { existing: existingJudged.failure } : {}),
      ...(hiddenJudged.failure ? { hidden: hiddenJudged.failure } : {}),
    },
  };
  const checked = judging("the expected tests", () =>
    judgeExpected(
      run.expectation,
      judged,
      { command: inputs.loaded.task.suites.hidden.command, scripts: inputs.scripts },
      inputs.log,
    ),
  );
  scope.learn({ expected: checked.expected, suites: checked.suites });
  return judging("both suites", () => bothSuitesOutcome(checked));
}

/** The hidden suite's container, made and started (its driver prepares, then waits for the go-ahead) while the existing suite runs. */
function openHidden(inputs: SuiteInputs, scope: RunScope) {
  const hidden = openSuite(inputs, scope, "hidden").then((opened) =>
    "refused" in opened ? opened : { opened, run: startSuite(inputs, scope, opened) },
  );
  hidden.then((h) => ("run" in h ? h.run : undefined)).catch(() => undefined);
  return hidden;
}

/** Judges one suite's driver: its prep, then what it collected; the judged suite goes to the scope before any throw. */
function judgeDriver(
  run: Prepared,
  scope: RunScope,
  driver: DriverResult,
): SuiteJudgement | { stopped: RunOutcome } {
  const { log, loaded, filtered } = run.suites;
  const prepStop = judgePrep(driver, filtered, log);
  if (prepStop) return { stopped: prepStop };
  const hidden = driver.suite === "hidden";
  const seals = hidden ? run.suites.seals : null;
  const judged = judgeCollected(driver, {
    sentinel: hidden ? run.suites.sentinel : run.suites.existingSentinel,
    noted: hidden ? run.notes.sentinel : run.notes.existingSentinel,
    memoryMb: loaded.task.resources.memoryMb,
    log,
    // A plan that sealed nothing still says so: its tests are listed unsealed, with the rule why.
    seals:
      seals &&
      (seals.sites.length > 0 || seals.unsealed.length > 0 || (run.expectation.failToPass ?? []).length > 0)
        ? {
            run: seals,
            failToPass: run.expectation.failToPass ?? [],
            source: run.sealRecord ? "validated" : "planned",
            ...(run.sealRecord
              ? { gold: new Map(Object.entries(run.sealRecord.executions)), record: run.sealRecord }
              : {}),
          }
        : null,
  });
  scope.learn({
    suites: { [driver.suite]: judged.result },
    ...(hidden && judged.sentinel ? { sentinel: judged.sentinel } : {}),
    ...(judged.seals ? { seals: judged.seals } : {}),
  });
  if (judged.stop) return { stopped: judged.stop };
  if (driver.record.protocolError) throw new Error(`the driver's output: ${driver.record.protocolError}`);
  if (!driver.record.done)
    throw new Error(`the ${driver.suite} suite's driver did not finish (exit code ${driver.exitCode})`);
  return judged;
}

/** The image's fingerprint check (lockfile trees) runs while the container starts; nothing runs in it before it passes. */
function checkImageCurrent(
  root: string,
  image: Extract<ResolvedImage, { ok: true }>,
  fingerprint: () => Promise<string>,
  scope: RunScope,
): () => Promise<RunOutcome | null> {
  const stale = scope.timing(
    "image.fingerprint",
    staleImageMessage(root, image.name, image.record, fingerprint),
  );
  stale.catch(() => undefined);
  return async () => {
    const message = await stale;
    return message ? { reason: "IMAGE_NOT_BUILT", message } : null;
  };
}

/** The sentinels and seals of both suites, planned from the base commit's test files; why a suite has none is noted. */
async function planSentinels(
  root: string,
  loaded: LoadedTask,
  baseOnly: string | null,
  hiddenFiles: string[],
  runTests: string,
  log: RunLog,
  record: SealRecord | null,
): Promise<{
  hidden: PlantedHidden;
  existing: Sentinel | null;
  notes: SentinelNotes;
  scripts: PackageScripts | null;
}> {
  const { task } = loaded;
  const notes: SentinelNotes = {};
  // The runner behind `npm test` and the like is read from the base commit's package.json (the
  // diff's own is never read: a task that lets a diff change package.json lets it change the runner).
  const { scripts, base } = await baseInputs(task, baseOnly);
  const hidden = await plantSentinels(loaded, hiddenFiles, runTests, log, notes, {
    others: base?.texts,
    setup: base?.setup,
    scripts,
    record,
    cacheRoot: root,
  });
  const existing = existingSentinels(task, base, log, notes, scripts, hiddenFiles);
  return { hidden, existing, notes, scripts };
}

/** Removes what dead graders left (containers past their lease, run folders of gone pids); never throws. */
function removeDeadGradersLeftovers(docker: GradeDocker, log: RunLog): Promise<void> {
  return Promise.all([
    removeLeftovers(docker).then(
      (removed) => {
        if (removed.length > 0)
          log.info(`removed ${removed.length} leftover container(s) of dead graders`, { removed });
      },
      (error: Error) => log.warn(`could not look for leftover containers: ${error.message}`),
    ),
    removeOrphanRunDirs().then((n) => {
      if (n > 0) log.info(`removed ${n} run folder(s) of dead graders`);
    }),
  ]).then(() => undefined);
}
