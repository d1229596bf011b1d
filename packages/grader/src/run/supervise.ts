import { createHash } from "node:crypto";
import { chmod, cp, link, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_DENY, type GradeResult, type LoadedTask } from "@oracle/spec";
import { baseOnlyMirror, MirrorError } from "../base-mirror.js";
import { type FilteredDiff, filterDiff } from "../diff/filter.js";
import { countFileHeaders, DiffParseError } from "../diff/split.js";
import type { GradeDocker } from "../docker.js";
import { baseHiddenTexts, baseTestTexts, existingSentinels } from "../existing-sentinels.js";
import { loadExpectation } from "../expected-judge.js";
import { listHiddenFiles } from "../hidden-files.js";
import { resolveImage, staleImageMessage } from "../image.js";
import { gradeLabels, leaseDeadline, removeLeftovers } from "../leftovers.js";
import { writeMochaGuards } from "../mocha-guard.js";
import type { RunLog } from "../oracle-log.js";
import { plantSentinels } from "../plant-sentinels.js";
import { buildResult } from "../result.js";
import { runInContainer } from "./pipeline.js";
import { makeRunTempDir, removeOrphanRunDirs } from "./run-folder.js";
import { RunClosed, type RunOutcome, type RunState } from "./run-scope.js";

export interface SuperviseInputs {
  loaded: LoadedTask;
  mode: "grade" | "baseline";
  diff: Buffer | { tooLarge: number } | null;
  runId: string;
  startedAt: Date;
  logPath: string;
  timeoutMs: number;
  docker: GradeDocker;
  log: RunLog;
  root: string;
  signal: AbortSignal | undefined;
}

/** What the steps learnt so far; the result is built from it whichever way the run ends. */
interface RunFacts {
  image: GradeResult["image"];
  diff: { sha256: string; filtered: FilteredDiff | null } | null;
  tempDir: string | null;
}

const bounded = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([promise, new Promise<undefined>((done) => setTimeout(() => done(undefined), ms).unref())]);

const MAX_DROPS_SHOWN = 50;
/** More file sections than this are not parsed (DIFF_INVALID): the parse must stay within the grader's memory bound. */
export const MAX_DIFF_FILES = 10_000;

function filterStep(inputs: SuperviseInputs, facts: RunFacts): RunOutcome | FilteredDiff | null {
  const { diff, log, loaded } = inputs;
  if (diff === null) return null;
  if (!Buffer.isBuffer(diff)) {
    facts.diff = { sha256: "(not hashed: too large)", filtered: null };
    return {
      reason: "DIFF_INVALID",
      message: `the diff is ${diff.tooLarge} bytes, more than the grader parses`,
    };
  }
  const sections = countFileHeaders(diff);
  if (sections > MAX_DIFF_FILES) {
    facts.diff = { sha256: filterDiffSha(diff), filtered: null };
    return {
      reason: "DIFF_INVALID",
      message: `the diff touches about ${sections} files, more than the grader parses (${MAX_DIFF_FILES})`,
    };
  }
  try {
    const { allow, deny, denyDefaults } = loaded.task.diff;
    const filtered = filterDiff(diff, { allow, deny, defaultDeny: denyDefaults ? DEFAULT_DENY : [] });
    facts.diff = { sha256: filtered.sha256, filtered };
    log.event("diff.filtered", {
      sha256: filtered.sha256,
      filteredSha256: filtered.filteredSha256,
      kept: filtered.kept.length,
      dropped: filtered.dropped,
    });
    // Every drop is in the diff.filtered event; the human account names the first few (a 50,000-file
    // diff must not become 50,000 log calls and their buffers).
    for (const entry of filtered.dropped.slice(0, MAX_DROPS_SHOWN))
      log.warn(`dropped ${entry.path}${entry.hunk ? ` ${entry.hunk}` : ""}: ${entry.why}`, { entry });
    if (filtered.dropped.length > MAX_DROPS_SHOWN)
      log.warn(
        `… and ${filtered.dropped.length - MAX_DROPS_SHOWN} more dropped entries (all in the oracle log)`,
      );
    log.info(
      `diff: ${filtered.kept.length} file(s) kept, ${new Set(filtered.dropped.map((d) => d.path)).size} dropped`,
    );
    if (filtered.kept.length === 0)
      return {
        reason: "DIFF_EMPTY_AFTER_FILTER",
        message: "nothing of the diff is left after the allow/deny filter",
      };
    return filtered;
  } catch (error) {
    if (!(error instanceof DiffParseError)) throw error;
    facts.diff = { sha256: filterDiffSha(diff), filtered: null };
    return { reason: "DIFF_INVALID", message: `the diff cannot be parsed: ${error.message}` };
  }
}

const filterDiffSha = (diff: Buffer): string => createHash("sha256").update(diff).digest("hex");

async function steps(inputs: SuperviseInputs, state: RunState, facts: RunFacts): Promise<RunOutcome> {
  const { docker, log } = inputs;
  // Leftovers of dead graders go while the diff is filtered and the image resolved; before the container is made.
  const leftovers = Promise.all([
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
  try {
    return await prepareAndRun(inputs, state, facts, leftovers);
  } finally {
    await leftovers;
  }
}

async function prepareAndRun(
  inputs: SuperviseInputs,
  state: RunState,
  facts: RunFacts,
  leftovers: Promise<void>,
): Promise<RunOutcome> {
  const { docker, log } = inputs;
  let { loaded } = inputs;
  // The engine looks the image up while the diff is filtered.
  const resolving = resolveImage(inputs.root, loaded.task.image, docker);
  resolving.catch(() => undefined);
  const filtered = filterStep(inputs, facts);
  if (filtered !== null && !("kept" in filtered)) return filtered;
  const image = await resolving;
  facts.image = { name: image.name, reference: image.reference, digest: image.digest };
  log.event("image", { ...image });
  if (!image.ok) return { reason: "IMAGE_NOT_BUILT", message: image.message };
  // The fingerprint check (lockfile trees) runs while the container starts; nothing runs in it before it passes.
  const stale = timedPromise(
    state,
    "image.fingerprint",
    log,
    staleImageMessage(inputs.root, image.name, image.record),
  );
  stale.catch(() => undefined);
  const imageCurrent = async (): Promise<RunOutcome | null> => {
    const message = await stale;
    return message ? { reason: "IMAGE_NOT_BUILT", message } : null;
  };
  log.info(`image: ${image.reference}`);
  const mirror = baseMirrorStep(inputs, state);
  mirror.catch(() => undefined);
  const tempDir = await makeRunTempDir();
  facts.tempDir = tempDir;
  const runDirs = await makeRunDirs(tempDir, filtered, loaded.hiddenTestsDir);
  const diff = filtered ? { filtered } : null;
  const hiddenFiles = await listHiddenFiles(loaded.hiddenTestsDir);
  const labels = gradeLabels(inputs.runId, loaded.task.id, leaseDeadline(inputs.startedAt, inputs.timeoutMs));
  const expectation = await loadExpectation(loaded);
  log.event("expected.loaded", { ...expectation });
  if (expectation.ignored) log.warn(`expected tests: ${expectation.ignored}`);
  await leftovers;
  const baseOnly = await mirror;
  if (typeof baseOnly !== "string" && baseOnly !== null) return baseOnly;
  const { task } = loaded;
  const base = baseOnly
    ? await baseTestTexts(baseOnly, task.repo.baseCommit, task.suites.existing.files)
    : null;
  const runTests = join(runDirs.hidden, "tests");
  const baseHidden = baseOnly ? await baseHiddenTexts(baseOnly, task.repo.baseCommit, hiddenFiles) : null;
  const sentinel = await plantSentinels(loaded, hiddenFiles, runTests, log, state, base?.texts, baseHidden);
  const existingSentinel = existingSentinels(task, base, log, state);
  await writeMochaGuards(runDirs, hiddenFiles);
  // The container is given the base-only repository where the task's mirror was (docs/security.md, "History").
  loaded = { ...loaded, mirrorPath: baseOnly };
  return runInContainer(
    {
      loaded,
      image: image.runAs,
      labels,
      diff,
      runDirs,
      hiddenFiles,
      sentinel,
      expectation,
      existingSentinel,
      docker,
      log,
      imageCurrent,
    },
    state,
  );
}

/**
 * Each suite's run folder (its container's only view of the host besides the mirror): the filtered
 * diff in both, the hidden tests copied into the hidden suite's, so that no task folder is mounted.
 */
async function makeRunDirs(
  tempDir: string,
  filtered: FilteredDiff | null,
  hiddenTestsDir: string,
): Promise<Record<"existing" | "hidden", string>> {
  await chmod(tempDir, 0o755);
  const dirs = { existing: join(tempDir, "existing"), hidden: join(tempDir, "hidden") };
  await Promise.all([mkdir(dirs.existing, { mode: 0o755 }), mkdir(dirs.hidden, { mode: 0o755 })]);
  const copied = cp(hiddenTestsDir, join(dirs.hidden, "tests"), { recursive: true, verbatimSymlinks: true });
  if (filtered) {
    await writeFile(join(dirs.existing, "filtered.diff"), filtered.filtered, { mode: 0o644 });
    await link(join(dirs.existing, "filtered.diff"), join(dirs.hidden, "filtered.diff"));
  }
  await copied;
  return dirs;
}

/** The host mirror's base-only repository (base-mirror.ts); null for a mirror in the image. */
async function baseMirrorStep(inputs: SuperviseInputs, state: RunState): Promise<string | null | RunOutcome> {
  const { loaded, log, root } = inputs;
  if (!loaded.mirrorPath) return null;
  const making = baseOnlyMirror(root, loaded.mirrorPath, loaded.task.repo.baseCommit);
  try {
    const { path, cached } = await timedPromise(state, "mirror", log, making);
    log.event("mirror.base", { path, cached });
    return path;
  } catch (error) {
    if (!(error instanceof MirrorError)) throw error;
    return {
      reason: "CHECKOUT_FAILED",
      message: `the base-only repository cannot be made: ${error.message}`,
    };
  }
}

function timedPromise<T>(state: RunState, step: string, log: RunLog, promise: Promise<T>): Promise<T> {
  const started = performance.now();
  return promise.finally(() => {
    state.timings[step] = Math.round(performance.now() - started);
    log.event("step", { name: step, ms: state.timings[step] });
  });
}

type Ending =
  | { kind: "done"; outcome: RunOutcome }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" }
  | { kind: "abort" };

/** Bounded waits (kill 2.5 s, settle 1.5–2.5 s, remove 5 s): a timed-out run returns within its limit + 10 s even when the engine hangs. */
async function cleanUp(state: RunState, work: Promise<unknown>, facts: RunFacts, log: RunLog): Promise<void> {
  await bounded(
    work.catch(() => undefined),
    state.containers.length > 0 ? 1500 : 2500,
  );
  await Promise.all(
    state.containers.map(async (container) => {
      const removed = await bounded(
        container.remove().then(
          () => true,
          (error: Error) => {
            log.warn(`could not remove container ${container.id}: ${error.message}`);
            return false;
          },
        ),
        5000,
      );
      log.event("container.removed", { id: container.id, removed: removed === true });
    }),
  );
  if (facts.tempDir) await rm(facts.tempDir, { recursive: true, force: true });
}

/** Runs the steps under one wall-clock deadline and the abort signal; always removes the container. */
export async function superviseRun(inputs: SuperviseInputs): Promise<GradeResult> {
  const { log, loaded, signal } = inputs;
  const state: RunState = {
    containers: [],
    closed: false,
    suites: {},
    failures: {},
    timings: {},
  };
  const facts: RunFacts = {
    image: { name: loaded.task.image, reference: null, digest: null },
    diff: null,
    tempDir: null,
  };
  const work = steps(inputs, state, facts);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const ending = await Promise.race<Ending>([
    work.then(
      (outcome) => ({ kind: "done", outcome }),
      (error: unknown) => ({ kind: "error", error }),
    ),
    new Promise<Ending>((done) => {
      timer = setTimeout(
        () => done({ kind: "timeout" }),
        Math.max(0, inputs.timeoutMs - (Date.now() - inputs.startedAt.getTime())),
      );
    }),
    new Promise<Ending>((done) => {
      onAbort = () => done({ kind: "abort" });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort) signal?.removeEventListener("abort", onAbort);
  state.closed = true;
  if (ending.kind === "timeout" || ending.kind === "abort") {
    await bounded(Promise.all(state.containers.map((c) => c.kill().catch(() => undefined))), 2500);
  }
  await cleanUp(state, work, facts, log);
  if (ending.kind === "abort") {
    log.warn("aborted: the container was removed");
    throw signal?.reason ?? new Error("aborted");
  }
  const outcome = endingOutcome(ending, inputs.timeoutMs);
  const result = buildResult({
    task: loaded.task.id,
    mode: inputs.mode,
    ...outcome,
    suites: state.suites,
    ...(state.sentinel ? { sentinel: state.sentinel } : {}),
    ...(state.expected ? { expected: state.expected } : {}),
    image: facts.image,
    diff: facts.diff,
    timings: state.timings,
    logPath: inputs.logPath,
    startedAt: inputs.startedAt,
  });
  log.event("verdict", {
    verdict: result.verdict,
    reason: result.reason,
    message: result.message,
    testsHash: result.testsHash,
    testIds: result.testIds,
    testIdsOmitted: result.testIdsOmitted,
    timings: result.timings,
  });
  log.info(`verdict: ${result.verdict} (${result.reason}) ${result.message}`);
  log.info(`log: ${inputs.logPath}`);
  return result;
}

function endingOutcome(ending: Ending, timeoutMs: number): RunOutcome {
  if (ending.kind === "done") return ending.outcome;
  if (ending.kind === "timeout")
    return {
      reason: "TIMEOUT",
      message: `the run passed its ${timeoutMs / 1000} s limit; the container was killed`,
    };
  const error = ending.kind === "error" ? ending.error : new Error("aborted");
  if (error instanceof RunClosed) return { reason: "INFRA_ERROR", message: "the run was closed" };
  return {
    reason: "INFRA_ERROR",
    message: engineFailureMessage(error),
  };
}

/** The daemon gone (socket missing, refused, connection cut) says so; anything else is named as it is. */
export function engineFailureMessage(error: unknown): string {
  const text = (error as Error)?.message ?? String(error);
  const code = (error as NodeJS.ErrnoException)?.code ?? "";
  if (/ENOENT|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up/.test(`${code} ${text}`))
    return `engine or host failure: the Docker engine stopped answering mid-run (${text}); the container could not be removed, the next run removes it`;
  return `engine or host failure: ${text}`;
}
