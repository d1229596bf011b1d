import { constants } from "node:fs";
import { chmod, lstat, open, readFile, realpath } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import type { LoadedTask, SealRecord } from "@oracle/spec";
import { type Grammar, grammarOf, loadParsers, planSeals, type SealRun } from "@oracle/test-set";
import { baseOnlyMirror } from "../git/base-mirror.js";
import type { RunLog } from "../log/oracle-log.js";
import type { SentinelNotes as RunState } from "../run/run-scope.js";
import { listHiddenFiles } from "../task/hidden-files.js";
import { readSealRecord, SEAL_RECORD_FILE } from "../task/seal-record.js";
import { baseInputs } from "./existing-sentinels.js";
import type { PackageScripts } from "./runner-command.js";
import { type PlanInputs, planKey, readPlan, writePlan } from "./seal-plan-cache.js";
import {
  type HiddenText,
  MAX_TEST_FILE_BYTES,
  noSentinelNote,
  planSentinels,
  type Sentinel,
  sentinelRunner,
  TEST_SOURCE,
} from "./sentinels.js";

/** The hidden run folder's regular files (no links), with their text. */
async function readHidden(dir: string, files: string[]): Promise<HiddenText[]> {
  const texts: HiddenText[] = [];
  for (const path of files) {
    if (!TEST_SOURCE.test(path)) continue;
    const info = await lstat(join(dir, path));
    if (!info.isFile() || info.size > MAX_TEST_FILE_BYTES) continue;
    texts.push({ path, text: await readFile(join(dir, path), "utf8") });
  }
  return texts;
}

/** Appends to (or with `replace`, rewrites) a regular file inside `root`, never through a link. */
async function writeInside(root: string, path: string, text: string, replace = false): Promise<void> {
  const realRoot = await realpath(root);
  const target = join(root, path);
  const parent = await realpath(dirname(target));
  if (parent !== realRoot && !parent.startsWith(`${realRoot}${sep}`))
    throw new Error(`hidden test file ${path} is not inside the hidden tests folder`);
  const flags =
    constants.O_WRONLY | constants.O_NOFOLLOW | (replace ? constants.O_TRUNC : constants.O_APPEND);
  const info = await lstat(target);
  if (!info.isFile()) throw new Error(`hidden test file ${path} is not a regular file`);
  // The run folder's copy is the grader's own; a read-only hidden file gets its owner's write bit there.
  if ((info.mode & 0o200) === 0) await chmod(target, info.mode | 0o200);
  const handle = await open(target, flags);
  try {
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
}

/** Writes a new regular file inside `root` (the seals' runtime beside a sealed Go file); refuses one that exists or a path through a link. */
async function createInside(root: string, path: string, text: string): Promise<void> {
  const realRoot = await realpath(root);
  const target = join(root, path);
  const parent = await realpath(dirname(target));
  if (parent !== realRoot && !parent.startsWith(`${realRoot}${sep}`))
    throw new Error(`the seals' file ${path} is not inside the hidden tests folder`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await open(target, flags, 0o644);
  try {
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
}

/** What the hidden suite's files got: the pairs, and the seals. */
export interface PlantedHidden {
  sentinel: Sentinel | null;
  seals: SealRun | null;
  /** Whether the sweep's seal record held for this plan (its demoted sites left unsealed). */
  validated: boolean;
}

/** The tests of each sealed file whose comparisons are sealed, by their function names (the must-fail never copies their bodies). */
export function sealedNames(seals: SealRun): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const { test } of seals.tests)
    names.set(test.file, [...(names.get(test.file) ?? []), test.entry.split("::").at(-1)!]);
  return names;
}

/**
 * Seals the hidden suite's copy of the hidden test files (their run folder, which the prep copies
 * into the checkout: neither the checkout nor the mount holds a version with the expected values
 * of sealed comparisons), then plans the run's sentinels and appends them. Records why a run has
 * no sentinel. `others` are the base commit's test files (Go: names of the same package that the
 * pair must not reuse); `demoted` the seal keys the sweep's gold runs could not pass.
 */
export async function plantSentinels(
  loaded: LoadedTask,
  hiddenFiles: string[],
  runTests: string,
  log: RunLog,
  state: RunState,
  base: {
    /** The base commit's test files (Go: names of the same package that the pair must not reuse). */
    others?: readonly HiddenText[] | undefined;
    /** Other base files that register matchers or equality testers (setup files): read by the seal plan only. */
    setup?: readonly HiddenText[] | undefined;
    /** The base commit's package scripts, for a command that runs one (`npm test -- …`). */
    scripts?: PackageScripts | null;
    /** The sweep's seal record (rules.ts `seal.gold`), when current for the task's content. */
    record?: SealRecord | null;
    /** The root whose `.oracle/seal-plans/` keeps the plans made (seal-plan-cache.ts); none: no cache. */
    cacheRoot?: string;
  } = {},
): Promise<PlantedHidden> {
  const { others = [], setup = [], scripts = null, record = null, cacheRoot } = base;
  const runner = sentinelRunner(loaded.task, scripts);
  const texts = await readHidden(runTests, hiddenFiles);
  const sealed = await sealHidden(texts, runTests, log, {
    record,
    framework: runner?.framework ?? null,
    context: [...others, ...setup],
    cacheRoot,
  });
  const seals = sealed?.seals ?? null;
  const validated = sealed?.validated ?? false;
  const sentinel = planSentinels(runner, texts, others, seals ? sealedNames(seals) : new Map());
  if (!sentinel) {
    const note = noSentinelNote(runner, texts);
    state.sentinel = {
      state: "none",
      framework: runner?.framework ?? null,
      required: false,
      files: [],
      note,
    };
    log.event("sentinel", { none: true, note });
    if (!seals || seals.sites.length === 0) log.warn(`unprotected run: no sentinel and no seal (${note})`);
    return { sentinel: null, seals, validated };
  }
  for (const append of sentinel.appends) await writeInside(runTests, append.path, append.text);
  log.event("sentinel", {
    framework: sentinel.framework,
    files: sentinel.appends.map((a) => a.path),
    required: sentinel.required,
    ...(sentinel.note ? { note: sentinel.note } : {}),
    ...(sentinel.command ? { command: sentinel.command } : {}),
  });
  if (sentinel.command)
    log.info(`hidden: the command's selection widened to the oracle's tests: ${sentinel.command}`);
  return { sentinel, seals, validated };
}

/**
 * The seal plan a grade of the task would make now with the sweep's `demoted` sites left out (none:
 * the plan the sweep's first runs make, whose fingerprint a record holds), read on the host: the hidden files as the task folder holds them (a run folder's copy is the same), the base
 * commit's package scripts and test files from the base-only repository of its host mirror
 * (`baseInputs`, as the run reads them), the same planner through the root's plan cache. Null when no hidden file is in a language the planners read.
 */
export async function taskSealPlan(
  root: string,
  loaded: LoadedTask,
  demoted: ReadonlySet<string> = new Set(),
): Promise<SealRun | null> {
  const texts = await readHidden(loaded.hiddenTestsDir, await listHiddenFiles(loaded.hiddenTestsDir));
  const grammars = texts.map((t) => grammarOf(t.path)).filter((g): g is Grammar => g !== null);
  if (grammars.length === 0) return null;
  const mirror = loaded.mirrorPath
    ? (await baseOnlyMirror(root, loaded.mirrorPath, loaded.task.repo.baseCommit)).path
    : null;
  const { scripts, base } = await baseInputs(loaded.task, mirror);
  const framework = sentinelRunner(loaded.task, scripts)?.framework ?? null;
  const context = [...(base?.texts ?? []), ...(base?.setup ?? [])];
  const { seals } = await planner(grammars, root)({ texts, demoted, framework, context });
  return seals;
}

/**
 * Why the task's seal record will not seal its grades (null: it will, or there is none): made for
 * another seal plan than the oracle makes now (its planners or rules changed since the sweep), or
 * not a record of the task's content. A grade then seals no comparison (sealHidden) until the task
 * is swept again, so `quarantine-sweep --changed` sweeps it.
 */
export async function sealRecordDoubt(root: string, loaded: LoadedTask): Promise<string | null> {
  const read = await readSealRecord(loaded);
  if (read.kind === "absent") return null;
  if (read.kind !== "current") return read.why;
  let now: SealRun | null;
  try {
    now = await taskSealPlan(root, loaded);
  } catch (error) {
    return `the seal plan cannot be made to check ${SEAL_RECORD_FILE} against: ${(error as Error).message}`;
  }
  if (now?.fingerprint === read.record.plan) return null;
  return `${SEAL_RECORD_FILE} was made for another seal plan (${read.record.plan.slice(0, 12)}…, the oracle's is ${now ? `${now.fingerprint.slice(0, 12)}…` : "none"} now): a grade seals no comparison until the task is swept again`;
}

/**
 * planSeals, through the root's plan cache when there is a root: the parsers are loaded only when a
 * plan is not there (seal-plan-cache.ts).
 */
function planner(grammars: Grammar[], cacheRoot: string | undefined) {
  let parsers: ReturnType<typeof loadParsers> | undefined;
  const compute = async (inputs: PlanInputs) => {
    parsers ??= loadParsers(grammars);
    const { texts, demoted, framework, context } = inputs;
    return planSeals(await parsers, texts, { demoted, framework, context });
  };
  return async (inputs: PlanInputs): Promise<{ seals: SealRun; cached: boolean }> => {
    if (cacheRoot === undefined) return { seals: await compute(inputs), cached: false };
    const key = await planKey(inputs);
    const cached = await readPlan(cacheRoot, key);
    if (cached) return { seals: cached, cached: true };
    const seals = await compute(inputs);
    await writePlan(cacheRoot, key, seals);
    return { seals, cached: false };
  };
}

/** Seals the hidden files in the run folder (rewrites them, adds the runtimes' files); null when no file is in a language the planners read. */
async function sealHidden(
  texts: readonly HiddenText[],
  runTests: string,
  log: RunLog,
  options: {
    record: SealRecord | null;
    framework: string | null;
    context: readonly HiddenText[];
    cacheRoot: string | undefined;
  },
): Promise<{ seals: SealRun; validated: boolean } | null> {
  const { record, framework, context, cacheRoot } = options;
  const grammars = texts.map((t) => grammarOf(t.path)).filter((g): g is Grammar => g !== null);
  if (grammars.length === 0) return null;
  const plan = planner(grammars, cacheRoot);
  const demoted = new Set(record?.demoted.map((d) => d.key) ?? []);
  let { seals, cached } = await plan({ texts, demoted, framework, context });
  let validated = record !== null && seals.fingerprint === record.plan;
  if (record && !validated) {
    // The record was made for another plan (the planners changed since the sweep): its sites mean
    // nothing here, and sealing every comparison would fail a correct diff on any site the gold
    // diff cannot pass, which only a sweep finds. A grade must never be the first place a correct
    // diff fails: no comparison is sealed (the runner decides each, the pair still guards the
    // report) until a sweep records the plan again; --changed sweeps such a task (sealRecordDoubt).
    log.warn(
      `seals.recorded.json was made for another seal plan (the oracle changed since the sweep): no comparison is sealed, the runner decides each; run pnpm quarantine-sweep --changed to seal them again (it sweeps every task whose seal record is so)`,
    );
    const fresh = await plan({ texts, demoted: new Set(), framework, context });
    const every = new Set(fresh.seals.sites.map((s) => s.key));
    ({ seals, cached } = await plan({ texts, demoted: every, framework, context }));
    validated = false;
  }
  // Nothing sealed and no test named: the plan still goes to the judge, which reports the
  // FAIL_TO_PASS tests it has no seal for (a file of generated tests is the weakest, not a silent one).
  if (seals.sites.length === 0 && seals.unsealed.length === 0) return { seals, validated };
  for (const file of seals.files)
    if (file.sites.length > 0) await writeInside(runTests, file.path, file.text, true);
  for (const added of seals.added) await createInside(runTests, added.path, added.text);
  log.event("seals.planned", {
    files: seals.files.filter((f) => f.sites.length > 0).map((f) => f.path),
    sites: seals.sites.map((s) => ({
      key: s.key,
      test: s.test.entry,
      line: s.line,
      kind: s.kind,
      strength: s.strength,
    })),
    unsealed: seals.unsealed.map((u) => ({ test: u.test.entry, rule: u.rule })),
    source: validated ? "validated" : "planned",
    cached,
  });
  if (seals.unread.length > 0)
    log.warn(`not sealed (the parser cannot read them): ${seals.unread.join(", ")}`);
  return { seals, validated };
}
