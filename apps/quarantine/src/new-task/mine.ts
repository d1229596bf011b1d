import { createHash } from "node:crypto";
import { readFile, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { printable } from "@oracle/cli-kit";
import {
  isOracleError,
  OracleError,
  readJsonFile,
  SweepReportSchema,
  tasksDir,
  writeJsonAtomic,
} from "@oracle/spec";
import { eta } from "../progress.js";
import { formatDuration } from "../summary.js";
import { forgetTasks } from "../sweep.js";
import type { TaskReport } from "../types.js";
import { brokenTests, leaveOut, someOf } from "./broken.js";
import { defaultTaskId, planFromFix } from "./from-fix.js";
import { type ChangedFile, changedFiles, checkRepo, git } from "./git.js";
import { jestTests } from "./jest-config.js";
import { readJestConfigs, readPackageJson, readVitestConfigs } from "./make.js";
import { buildWriteValidate } from "./pipeline.js";
import { type FixInput, type LeftOut, repair } from "./repair.js";
import { splitFix } from "./split.js";
import { type Framework, jestSplitRule, vitestSplitRule } from "./templates.js";
import { vitestTests } from "./vitest-config.js";

/** What a commit is, from its files alone (nothing built): only a `candidate` becomes a task. */
export type CommitKind =
  | "candidate"
  | "merge"
  | "root"
  | "empty"
  | "docs-only"
  | "code-only"
  | "test-only"
  | "too-large";

/** Where a commit ended: kept (healthy), or the reason it was lost. */
export type Outcome =
  | "healthy"
  | "not-a-fix"
  | "test-only"
  | "too-large"
  | "not-a-task"
  | "exists"
  | "error"
  | "environment-failed"
  | "hangs-at-base"
  | "test-passes-at-base"
  | "gold-fails"
  | "flaky"
  | "unhealthy"
  | "infra-error"
  | "pending";

/** The stage a commit was lost at (`kept`: healthy). */
export type Stage = "scan" | "plan" | "image" | "validate" | "kept";

export interface MinedCommit {
  sha: string;
  date: string;
  subject: string;
  kind: CommitKind;
  outcome: Outcome;
  stage: Stage;
  reason: string;
  /** The task made from it (kept only when healthy). */
  task?: string;
  flags?: string[];
  seconds?: number;
  /** The sweep's report of its validation (logs/sweep/…), kept for a lost one too. */
  sweepReport?: string;
  /**
   * The existing tests that failed a candidate lost at validation, when only they did (its hidden
   * suite behaved in every run): validated again once at the end of the run when a later candidate
   * found every one of them flaky (MineReport `leftOut`).
   */
  failing?: string[];
  /** Whether it was validated again at the end of a run, so never again. */
  retried?: boolean;
}

/** A commit larger than this is not mined: a task's gold diff should be a fix, not a rewrite. */
export const TOO_LARGE = { files: 40, codeLines: 1500 };

/** Documentation and project prose: a commit that changes only these (and no test) is docs-only. */
const DOC =
  /(^|\/)(docs?|documentation)\/|\.(md|markdown|rst|adoc)$|(^|\/)(LICEN[CS]E|COPYING|AUTHORS|CHANGELOG|CHANGES|HISTORY|NEWS|CONTRIBUTING)([._-][^/]*)?$/i;

export function isDocPath(path: string): boolean {
  return DOC.test(path);
}

export interface CommitFiles {
  parents: number;
  files: readonly ChangedFile[];
  /** Lines added plus deleted by file path (binary files count 0). */
  lines?: ReadonlyMap<string, number>;
}

/**
 * What a commit is, by new-task's own split of a fix (`splitFix`, with `--tests` globs and the
 * repository's jest rule): a candidate is a non-merge commit that adds or changes test files and
 * changes code (not only docs), and is not too large.
 */
export function classifyCommit(
  commit: CommitFiles,
  rules: { tests?: readonly string[]; runnerTests?: (path: string) => boolean } = {},
): { kind: CommitKind; reason: string } {
  if (commit.parents > 1) return { kind: "merge", reason: `a merge of ${commit.parents} parents` };
  if (commit.parents === 0) return { kind: "root", reason: "the first commit: no parent to be the base" };
  if (commit.files.length === 0) return { kind: "empty", reason: "changes no file" };
  const split = splitFix(commit.files, rules.tests ?? [], rules.runnerTests);
  const code = split.code.filter((p) => !isDocPath(p));
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  if (split.hidden.length === 0) {
    if (code.length === 0)
      return split.deletedTests.length > 0
        ? { kind: "test-only", reason: `deletes ${plural(split.deletedTests.length, "test file")} only` }
        : { kind: "docs-only", reason: `changes ${plural(split.code.length, "doc file")} only` };
    return {
      kind: "code-only",
      reason: `changes ${plural(code.length, "code file")} and adds or changes no test file`,
    };
  }
  if (code.length === 0)
    return {
      kind: "test-only",
      reason: `changes ${plural(split.hidden.length, "test file")}${split.code.length > 0 ? ` and ${plural(split.code.length, "doc file")}` : ""}, no code`,
    };
  const codeLines = code.reduce((n, p) => n + (commit.lines?.get(p) ?? 0), 0);
  if (commit.files.length > TOO_LARGE.files || codeLines > TOO_LARGE.codeLines)
    return {
      kind: "too-large",
      reason: `changes ${plural(commit.files.length, "file")} and ${plural(codeLines, "code line")} (a mined fix has at most ${TOO_LARGE.files} files and ${TOO_LARGE.codeLines} code lines)`,
    };
  return {
    kind: "candidate",
    reason: `changes ${plural(code.length, "code file")} and ${plural(split.hidden.length, "test file")}`,
  };
}

/**
 * Whether the base commit hangs: every baseline run passed the task's time limit (TIMEOUT) and every
 * gold run passed, so what waits or loops at the base is what the fix fixes (sqlparse 40ed3aa, a fix
 * for a denial of service: its hidden test never returns at the base). The longest baseline run and
 * the longest gold run, in seconds; null otherwise.
 */
export function hangsAtBase(task: Pick<TaskReport, "runs">): { baseline: number; gold: number } | null {
  const baseline = task.runs.filter((r) => r.mode === "baseline");
  const gold = task.runs.filter((r) => r.mode === "gold");
  if (baseline.length === 0 || gold.length === 0) return null;
  if (!baseline.every((r) => r.reason === "TIMEOUT") || !gold.every((r) => r.verdict === "PASS")) return null;
  const longest = (runs: typeof baseline) => Math.round(Math.max(...runs.map((r) => r.durationMs)) / 1000);
  return { baseline: longest(baseline), gold: longest(gold) };
}

/** A hanging base's reason in the report: what the runs showed, and why it makes no task. */
export function hangReason(hang: { baseline: number; gold: number }, runs: number, limit: unknown): string {
  const seconds = typeof limit === "number" ? `${limit} s` : "its limit";
  return `the base commit hangs: all ${runs} baseline run${runs === 1 ? "" : "s"} passed the task's time limit (timeoutSeconds, ${seconds}; the longest ${hang.baseline} s) while gold.diff passed in at most ${hang.gold} s: the fix is for a hang (a test that never returns at the base), and a task whose baseline never finishes costs every failing grade the whole limit; to keep it, make the hidden test fail fast at the base (a timeout of its own, such as pytest-timeout's @pytest.mark.timeout) and run pnpm new-task --fix on it`;
}

/** The outcome of a validated task that is not healthy, from its quarantine flags (and runs, when given). */
export function validationOutcome(
  task: Pick<TaskReport, "status" | "reasons"> & Partial<Pick<TaskReport, "runs">>,
): Outcome {
  if (task.status === "healthy") return "healthy";
  if (task.status === "infra-error") return "infra-error";
  const flags = new Set(task.reasons.map((r) => r.flag));
  const any = (...names: string[]) => names.some((n) => flags.has(n as never));
  if (any("INFRA_ERROR")) return "infra-error";
  if (task.runs && any("TIMEOUT") && hangsAtBase({ runs: task.runs })) return "hangs-at-base";
  // A test that fails in some runs only (sqlparse's timing test under load) is the task's flakiness,
  // not its environment.
  if (any("FLAKY", "TESTS_HASH_UNSTABLE") && !any("INVALID_TASK", "IMAGE_NOT_BUILT")) return "flaky";
  if (
    any(
      "INVALID_TASK",
      "IMAGE_NOT_BUILT",
      "EXISTING_SUITE_FAILS",
      "NO_EXISTING_TESTS",
      "EXISTING_SENTINEL_FAILS",
      "NO_HIDDEN_TESTS",
      "HIDDEN_REPORT_UNUSABLE",
      "SENTINEL_NOT_COLLECTED",
      "TIMEOUT",
      "OUT_OF_MEMORY",
    )
  )
    return "environment-failed";
  if (any("HIDDEN_PASS_AT_BASELINE", "FAIL_TO_PASS_NOT_FAILING")) return "test-passes-at-base";
  if (any("GOLD_FAILS")) return "gold-fails";
  return "unhealthy";
}

/** The flags of a validation lost on existing tests alone (the hidden suite aside). */
const EXISTING_ONLY = new Set(["GOLD_FAILS", "FLAKY", "EXISTING_SUITE_FAILS"]);

/**
 * Whether a quarantined task was lost on its existing suite alone: no flag but those of failing
 * existing tests, and its hidden suite failed at the base and passed with gold.diff in every run.
 */
export function lostOnExisting(task: Pick<TaskReport, "status" | "reasons" | "runs">): boolean {
  return (
    task.status === "quarantined" &&
    task.reasons.every((r) => EXISTING_ONLY.has(r.flag)) &&
    task.runs.length > 0 &&
    task.runs.every((r) => r.hidden?.status === (r.mode === "baseline" ? "FAIL" : "PASS"))
  );
}

/**
 * The candidates lost at validation on existing tests a later candidate found flaky or failing at
 * its base (`leftOut`), every one of them, and not validated again yet: each is validated again
 * once, with them left out (a194d31 of sqlparse lost on a timing test that a later candidate found
 * flaky, while `--fix` made a healthy task of it).
 */
export function toRetry(commits: readonly MinedCommit[], leftOut: readonly string[]): MinedCommit[] {
  const known = new Set(leftOut);
  return commits.filter(
    (c) =>
      c.stage === "validate" &&
      c.outcome !== "healthy" &&
      !undecided(c) &&
      !c.retried &&
      (c.failing?.length ?? 0) > 0 &&
      c.failing!.every((id) => known.has(id)),
  );
}

/** The existing tests that lost a validated task, when only they did (lostOnExisting); [] else. */
async function failingExisting(root: string, task: TaskReport): Promise<string[]> {
  const broken = lostOnExisting(task) ? await brokenTests(root, task) : null;
  return broken ? [...new Set([...broken.atBase, ...broken.goldOnly, ...broken.flaky])].sort() : [];
}

/**
 * A commit lost at validation by a run before `failing` was recorded: its failing tests read from
 * its sweep report, when that is still there (nothing when it is not, or says nothing).
 */
async function failingFromReport(root: string, c: MinedCommit): Promise<void> {
  if (c.stage !== "validate" || c.retried || c.failing || !c.sweepReport || !c.task) return;
  const report = await readJsonFile(SweepReportSchema, join(c.sweepReport, "report.json")).catch(() => null);
  const task = report?.tasks.find((t) => t.id === c.task);
  const failing = task ? await failingExisting(root, task).catch(() => []) : [];
  if (failing.length > 0) c.failing = failing;
}

/** A retried candidate's reason: what was left out, what it was lost as first, and how it ended. */
export function retriedReason(failing: readonly string[], before: Outcome, reason: string): string {
  const n = failing.length;
  return `retried with ${n} flaky test${n === 1 ? "" : "s"} left out (${someOf(failing, 3)}; a later candidate found ${n === 1 ? "it" : "them"} flaky or failing at its base), first lost as ${before}: ${reason}`;
}

/**
 * A commit whose outcome a later run must try again: not made yet, the engine failed, or new-task
 * failed on it in a way that is not the commit's (an internal error).
 */
const undecided = (c: MinedCommit) =>
  c.outcome === "infra-error" || c.outcome === "pending" || c.outcome === "error";

export interface MineArguments {
  repo: string;
  since?: string;
  limit: number;
  tests: string[];
  framework?: Framework;
  image?: string;
}

export interface MineYield {
  lookedAt: number;
  candidates: number;
  healthy: number;
  /** healthy / looked at, in percent (one decimal). */
  percent: number;
  /** Commits still to decide (not made yet, or the engine failed): a rerun tries them again. */
  undecided: number;
  /** How many were lost at each stage, by outcome (scan: by kind). */
  lost: Record<Exclude<Stage, "kept">, Record<string, number>>;
}

/** report.json: the run's state (a rerun reads it to skip decided commits) and its result. */
export interface MineReport {
  version: 1;
  arguments: MineArguments;
  startedAt: string;
  updatedAt: string;
  finished: boolean;
  seconds: number;
  /**
   * Commits being made into tasks now, with their task id and the image folder made for it (null:
   * none, or one that was there before): a rerun removes what a killed run left.
   */
  running: Record<string, { task: string; image: string | null }>;
  commits: MinedCommit[];
  yield: MineYield;
  /**
   * Existing tests a candidate left out, flaky (failed in some validation runs and passed in others)
   * or failing at its base in every run (sqlparse's timing tests fail in every run when the machine
   * is loaded): left out of every later candidate's existing suite before its validation. A flaky
   * test that passes all of a candidate's runs would be recorded as expected and fail a correct
   * diff later, and each test found anew costs a whole validation.
   */
  leftOut?: string[];
}

export function mineYield(commits: readonly MinedCommit[]): MineYield {
  const lost: MineYield["lost"] = { scan: {}, plan: {}, image: {}, validate: {} };
  for (const c of commits) {
    if (c.stage === "kept" || undecided(c)) continue;
    const key = c.stage === "scan" ? c.kind : c.outcome;
    lost[c.stage][key] = (lost[c.stage][key] ?? 0) + 1;
  }
  const healthy = commits.filter((c) => c.outcome === "healthy").length;
  return {
    lookedAt: commits.length,
    candidates: commits.filter((c) => c.kind === "candidate").length,
    healthy,
    percent: commits.length === 0 ? 0 : Math.round((healthy / commits.length) * 1000) / 10,
    undecided: commits.filter(undecided).length,
    lost,
  };
}

const STAGE_WORDS: Record<Exclude<Stage, "kept">, string> = {
  scan: "not a candidate",
  plan: "no task made",
  image: "image failed",
  validate: "not healthy",
};

/** `2 healthy of 9 commits looked at (22.2%); lost: not a candidate 5 (merge 1, …), …` */
export function yieldLine(y: MineYield): string {
  const stages = (Object.keys(y.lost) as Array<keyof MineYield["lost"]>)
    .map((stage) => {
      const counts = Object.entries(y.lost[stage]).sort(([a], [b]) => (a < b ? -1 : 1));
      const total = counts.reduce((n, [, k]) => n + k, 0);
      return total === 0
        ? null
        : `${STAGE_WORDS[stage]} ${total} (${counts.map(([k, n]) => `${k} ${n}`).join(", ")})`;
    })
    .filter((s) => s !== null);
  return `${y.healthy} healthy of ${y.lookedAt} commits looked at (${y.percent}%; ${y.candidates} candidate${y.candidates === 1 ? "" : "s"})${stages.length > 0 ? `; lost: ${stages.join("; ")}` : ""}${y.undecided > 0 ? `; ${y.undecided} undecided (not made yet, or the engine or new-task failed: run again to go on)` : ""}`;
}

const cell = (text: string) => printable(text, { oneLine: true }).replace(/\|/g, "\\|");

export function mineMarkdown(report: MineReport): string {
  const a = report.arguments;
  const y = report.yield;
  const lines = [
    `# new-task --mine ${basename(a.repo)}`,
    "",
    `Repository \`${cell(a.repo)}\`; limit ${a.limit}${a.since ? `, since ${a.since}` : ""}; started ${report.startedAt}, updated ${report.updatedAt}${report.finished ? "" : " (not finished: run the same command again to go on)"}; ${formatDuration(report.seconds * 1000)} of work.`,
    "",
    `**Yield: ${y.healthy} healthy of ${y.lookedAt} commits looked at (${y.percent}%)**, ${y.candidates} candidates.`,
    "",
    "| stage | lost | by outcome |",
    "| --- | --- | --- |",
  ];
  for (const stage of Object.keys(y.lost) as Array<keyof MineYield["lost"]>) {
    const counts = Object.entries(y.lost[stage]);
    const total = counts.reduce((n, [, k]) => n + k, 0);
    lines.push(`| ${STAGE_WORDS[stage]} | ${total} | ${counts.map(([k, n]) => `${k} ${n}`).join(", ")} |`);
  }
  lines.push(
    "",
    "| commit | date | subject | outcome | reason | task |",
    "| --- | --- | --- | --- | --- | --- |",
  );
  for (const c of report.commits)
    lines.push(
      `| ${c.sha.slice(0, 12)} | ${c.date.slice(0, 10)} | ${cell(c.subject.slice(0, 80))} | ${c.outcome} | ${cell(c.reason.slice(0, 300))} | ${c.task && c.outcome === "healthy" ? `tasks/${c.task}` : ""} |`,
    );
  return `${lines.join("\n")}\n`;
}

/** The folder of a mining run: the same arguments give the same folder, so a rerun resumes there. */
export function mineDir(root: string, args: MineArguments): string {
  const key = createHash("sha256")
    .update(
      JSON.stringify([
        args.repo,
        args.since ?? null,
        args.limit,
        args.tests,
        args.framework ?? null,
        args.image ?? null,
      ]),
    )
    .digest("hex")
    .slice(0, 10);
  const name =
    basename(args.repo)
      .replace(/\.git$/, "")
      .replace(/[^A-Za-z0-9._-]+/g, "-") || "repo";
  return join(root, "mine", `${name}-${key}`);
}

interface HistoryCommit {
  sha: string;
  parents: string[];
  date: string;
  subject: string;
}

/** The newest `limit` commits reachable from HEAD (since `since`), newest first. */
export async function history(repo: string, limit: number, since?: string): Promise<HistoryCommit[]> {
  const out = await git(repo, [
    "log",
    `--max-count=${limit}`,
    ...(since ? [`--since=${since}`] : []),
    "--format=%H %P%x00%cI%x00%s%x00",
    "HEAD",
  ]).catch((error: Error) => {
    throw new OracleError("USAGE", `--mine: git log in ${repo} failed: ${error.message}`, {
      hint: "give a clone whose HEAD is a branch with commits",
    });
  });
  const parts = out.split("\0");
  const commits: HistoryCommit[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const [sha, ...up] = parts[i]!.trim().split(" ");
    if (!sha) continue;
    commits.push({ sha, parents: up.filter(Boolean), date: parts[i + 1]!, subject: parts[i + 2]!.trim() });
  }
  return commits;
}

/** Lines added plus deleted per path, `parent..sha`. */
async function lineCounts(repo: string, parent: string, sha: string): Promise<Map<string, number>> {
  const out = await git(repo, ["diff", "--no-renames", "--numstat", "-z", parent, sha]);
  const lines = new Map<string, number>();
  for (const record of out.split("\0")) {
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(record.replace(/^\n/, ""));
    if (m) lines.set(m[3]!, (Number(m[1]) || 0) + (Number(m[2]) || 0));
  }
  return lines;
}

/** Classifies one commit of the history, reading its files (and its jest rule) with git. */
async function scanCommit(repo: string, c: HistoryCommit, args: MineArguments) {
  if (c.parents.length !== 1) return classifyCommit({ parents: c.parents.length, files: [] });
  const parent = c.parents[0]!;
  const files = await changedFiles(repo, parent, c.sha);
  let runnerTests: ((path: string) => boolean) | undefined;
  if (args.framework === undefined || args.framework === "jest") {
    const packageJson = await readPackageJson(repo, c.sha);
    const configs = await readJestConfigs(repo, c.sha);
    if (configs.length > 0 || packageJson?.includes('"jest"'))
      runnerTests = jestSplitRule(jestTests(packageJson, configs).tests, packageJson, args.framework);
  }
  if (runnerTests === undefined && (args.framework === undefined || args.framework === "vitest")) {
    const configs = await readVitestConfigs(repo, c.sha);
    if (configs.length > 0)
      runnerTests = vitestSplitRule(
        vitestTests(configs).tests,
        await readPackageJson(repo, c.sha),
        args.framework,
      );
  }
  return classifyCommit(
    { parents: 1, files, lines: await lineCounts(repo, parent, c.sha) },
    { tests: args.tests, ...(runnerTests ? { runnerTests } : {}) },
  );
}

export interface MineOptions extends MineArguments {
  root: string;
  jobs: number;
  repeat: number;
  lockWait: number;
  signal: AbortSignal;
  /** A line for the user (stderr). */
  say: (line: string) => void;
  /** Where a progress line is drawn (a TTY), if anywhere. */
  tty?: NodeJS.WriteStream;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function readState(file: string, args: MineArguments): Promise<MineReport | null> {
  const text = await readFile(file, "utf8").catch(() => null);
  if (text === null) return null;
  try {
    const state = JSON.parse(text) as MineReport;
    if (state.version === 1 && JSON.stringify(state.arguments) === JSON.stringify(args)) return state;
  } catch {}
  throw new OracleError("USAGE", `${file} is not the report of a mining run with these arguments`, {
    hint: "move it away to start over",
  });
}

/** One updating line on a TTY: a bar over the candidates, the yield so far and the time left. */
function progressLine(stream: NodeJS.WriteStream | undefined) {
  const tally = { runs: 0, runsDone: 0, started: Date.now(), healthy: 0 };
  if (!stream) return { start(_n: number) {}, done(_healthy: boolean) {}, clear() {}, stop() {} };
  const draw = () => {
    const width = 20;
    const filled = tally.runs === 0 ? width : Math.round((tally.runsDone / tally.runs) * width);
    const left = eta(tally, Date.now());
    stream.write(
      `\r\x1b[2Kmine [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${tally.runsDone}/${tally.runs} candidates · ${tally.healthy} healthy · ${left === null ? "estimating…" : `${formatDuration(left)} left`}`.slice(
        0,
        Math.max(20, (stream.columns || 120) - 1),
      ),
    );
  };
  const timer = setInterval(draw, 1000);
  timer.unref();
  return {
    start(n: number) {
      Object.assign(tally, { runs: n, started: Date.now() });
      draw();
    },
    done(healthy: boolean) {
      tally.runsDone += 1;
      if (healthy) tally.healthy += 1;
      draw();
    },
    clear() {
      stream.write("\r\x1b[2K");
    },
    stop() {
      clearInterval(timer);
      stream.write("\r\x1b[2K");
    },
  };
}

/**
 * Mines a history: classifies the newest commits, makes and validates a task from each candidate as
 * `--fix` does (planFromFix, then the same build, write and validation), keeps the healthy ones and
 * removes what an unhealthy one wrote; report.json (also the state a rerun resumes from) and
 * report.md under `mine/`.
 */
export async function mine(options: MineOptions): Promise<{ report: MineReport; dir: string }> {
  const args: MineArguments = {
    repo: options.repo,
    ...(options.since ? { since: options.since } : {}),
    limit: options.limit,
    tests: options.tests,
    ...(options.framework ? { framework: options.framework } : {}),
    ...(options.image ? { image: options.image } : {}),
  };
  await checkRepo(args.repo, "--mine");
  const dir = mineDir(options.root, args);
  const file = join(dir, "report.json");
  const now = () => new Date().toISOString();
  const previous = await readState(file, args);
  const state: MineReport = previous ?? {
    version: 1,
    arguments: args,
    startedAt: now(),
    updatedAt: now(),
    finished: false,
    seconds: 0,
    running: {},
    commits: [],
    yield: mineYield([]),
  };
  const workStarted = Date.now();
  const workBefore = state.seconds;
  let saving: Promise<void> = Promise.resolve();
  const save = () => {
    state.updatedAt = now();
    state.seconds = Math.round((workBefore + (Date.now() - workStarted) / 1000) * 10) / 10;
    state.yield = mineYield(state.commits);
    const snapshot = JSON.parse(JSON.stringify(state)) as MineReport;
    saving = saving
      .catch(() => undefined)
      .then(async () => {
        await writeJsonAtomic(file, snapshot);
        const { writeFile, rename } = await import("node:fs/promises");
        const md = join(dir, "report.md");
        await writeFile(`${md}.tmp`, mineMarkdown(snapshot));
        await rename(`${md}.tmp`, md);
      });
    return saving;
  };

  // A run killed at once (a second Ctrl-C) may have left a task folder of a commit it did not decide.
  for (const [sha, { task, image }] of Object.entries(state.running)) {
    await rm(join(tasksDir(options.root), task), { recursive: true, force: true });
    if (image) await rm(join(options.root, image), { recursive: true, force: true });
    await forgetTasks(options.root, [task]);
    options.say(
      `removed tasks/${task}/${image ? ` and ${image}/` : ""} of ${sha.slice(0, 12)}, left unfinished by the last run`,
    );
  }
  state.running = {};

  const decided = new Map(state.commits.filter((c) => !undecided(c)).map((c) => [c.sha, c]));
  const commits = await history(args.repo, args.limit, args.since);
  const skipped = commits.filter((c) => decided.has(c.sha)).length;
  if (previous) options.say(`resuming ${file}: ${skipped} of ${commits.length} commits already decided`);
  // The report lists the commits in history order; a commit decided before and now past the limit stays.
  const byOrder = new Map<string, MinedCommit>();
  const candidates: Array<{ commit: HistoryCommit; entry: MinedCommit }> = [];
  for (const c of commits) {
    const known = decided.get(c.sha);
    if (known) {
      byOrder.set(c.sha, known);
      continue;
    }
    const scanned = await scanCommit(args.repo, c, args);
    const entry: MinedCommit = {
      sha: c.sha,
      date: c.date,
      subject: c.subject,
      kind: scanned.kind,
      outcome:
        scanned.kind === "candidate"
          ? "pending"
          : scanned.kind === "test-only"
            ? "test-only"
            : scanned.kind === "too-large"
              ? "too-large"
              : "not-a-fix",
      stage: "scan",
      reason: scanned.kind === "candidate" ? "not made yet" : scanned.reason,
    };
    byOrder.set(c.sha, entry);
    if (scanned.kind === "candidate") candidates.push({ commit: c, entry });
  }
  for (const c of state.commits) if (!byOrder.has(c.sha)) byOrder.set(c.sha, c);
  state.commits = [...byOrder.values()];
  await save();
  options.say(
    `looked at ${commits.length} commits of ${args.repo}: ${candidates.length} candidate${candidates.length === 1 ? "" : "s"} to make into tasks${skipped > 0 ? ` (${skipped} decided before)` : ""}`,
  );

  const progress = progressLine(options.tty);
  const tell = (line: string) => {
    progress.clear();
    options.say(line);
  };
  progress.start(candidates.length);
  let next = 0;
  let done = 0;
  // One worker's failure stops the others after their current candidate.
  let failed = false;
  const worker = async () => {
    while (next < candidates.length && !options.signal.aborted && !failed) {
      const { commit, entry } = candidates[next++]!;
      const started = Date.now();
      Object.assign(
        entry,
        await mineOne(commit, options, state, save).catch((error: unknown) => {
          failed = true;
          throw error;
        }),
      );
      entry.seconds = Math.round((Date.now() - started) / 100) / 10;
      await save();
      done += 1;
      progress.done(entry.outcome === "healthy");
      tell(
        `mine: [${done}/${candidates.length}] ${commit.sha.slice(0, 12)} ${entry.outcome}${entry.task && entry.outcome === "healthy" ? ` tasks/${entry.task}` : ""}: ${entry.reason.split("\n")[0]!.slice(0, 200)} (${formatDuration(entry.seconds * 1000)})`,
      );
    }
  };
  // Every worker settles (an interrupted one removes what it wrote) before the state is saved.
  const settled = await Promise.allSettled(
    Array.from({ length: Math.min(options.jobs, Math.max(1, candidates.length)) }, worker),
  );
  progress.stop();
  await save();
  const rejected = settled.find((s) => s.status === "rejected");
  if (rejected) throw rejected.reason;
  if (options.signal.aborted) throw options.signal.reason ?? new Error("interrupted");
  // Once at the end, also over commits decided by an earlier run: each candidate lost only on tests
  // a later one found flaky, validated again with them left out.
  if ((state.leftOut ?? []).length > 0)
    for (const c of state.commits) if (!undecided(c)) await failingFromReport(options.root, c);
  const retries = toRetry(state.commits, state.leftOut ?? []);
  if (retries.length > 0)
    options.say(
      `mine: validating ${retries.length} lost candidate${retries.length === 1 ? "" : "s"} again without the tests later candidates found flaky`,
    );
  for (const [i, entry] of retries.entries()) {
    if (options.signal.aborted) throw options.signal.reason ?? new Error("interrupted");
    const failing = entry.failing ?? [];
    const before = entry.outcome;
    const started = Date.now();
    const again = await mineOne(
      { sha: entry.sha, parents: [], date: entry.date, subject: entry.subject },
      options,
      state,
      save,
    );
    const seconds = Math.round(((entry.seconds ?? 0) + (Date.now() - started) / 1000) * 10) / 10;
    // What the first validation made is replaced by the second's, not mixed with it.
    for (const key of ["failing", "flags", "sweepReport", "task"] as const) delete entry[key];
    Object.assign(entry, again, { retried: true, seconds });
    entry.reason = retriedReason(failing, before, entry.reason);
    await save();
    options.say(
      `mine: [again ${i + 1}/${retries.length}] ${entry.sha.slice(0, 12)} ${entry.outcome}${entry.task && entry.outcome === "healthy" ? ` tasks/${entry.task}` : ""}: ${entry.reason.split("\n")[0]!.slice(0, 200)}`,
    );
  }
  state.finished = state.commits.every((c) => !undecided(c));
  await save();
  return { report: state, dir };
}

/**
 * Candidates are planned one at a time: planning may copy an image template under images/ or make a
 * task's own image folder, which two at once would both write (`--jobs 2` met EEXIST on
 * images/python-pytest). Building and validating run at once.
 */
let planning: Promise<unknown> = Promise.resolve();
function onePlanAtATime<T>(plan: () => Promise<T>): Promise<T> {
  const turn = planning.then(plan, plan);
  planning = turn.catch(() => undefined);
  return turn;
}

/** What new-task left out of a task's suites, for a mined commit's reason ("" when nothing). */
export function leftWords(left: LeftOut): string {
  const parts: string[] = [];
  const n = (list: readonly string[], what: string) =>
    `${list.length} ${what}${list.length === 1 ? "" : "s"}`;
  const some = (list: readonly string[]) =>
    `${list.slice(0, 3).join(", ")}${list.length > 3 ? `, … (${list.length})` : ""}`;
  if (left.flaky.length > 0)
    parts.push(
      `${n(left.flaky, "flaky existing test")} (failed in some validation runs and passed in others: ${some(left.flaky)})`,
    );
  if (left.earlier.length > 0)
    parts.push(
      `${n(left.earlier, "existing test")} an earlier candidate found flaky or failing at its base (${some(left.earlier)})`,
    );
  if (left.broken.length > 0)
    parts.push(`${n(left.broken, "existing test")} failing at the base in every run (${some(left.broken)})`);
  if (left.rewritten.length > 0) parts.push(`${n(left.rewritten, "existing test")} the fix rewrote`);
  if (left.hidden.length > 0)
    parts.push(`${n(left.hidden, "hidden test")} failing whatever the diff (${some(left.hidden)})`);
  return parts.length === 0 ? "" : `; left out: ${parts.join("; ")}`;
}

/**
 * The candidate's plan with the existing tests earlier candidates left out (MineReport `leftOut`)
 * left out of its existing suite, those its suite runs; the plan as it was when none is.
 */
async function withEarlier(
  input: FixInput,
  made: Awaited<ReturnType<typeof planFromFix>>,
  flaky: readonly string[],
): Promise<Awaited<ReturnType<typeof planFromFix>> & { earlier?: { ids: string[]; command: string } }> {
  if (flaky.length === 0) return made;
  const suite = (made.plan.task.suites as { existing: { files: string[]; command: string } }).existing;
  const files = suite.files.filter((p) => !p.includes("*"));
  const ids = flaky.filter(
    (id) => leaveOut(made.plan.framework, files, [id], suite.command).unplaced.length === 0,
  );
  if (ids.length === 0) return made;
  const { leave } = leaveOut(made.plan.framework, files, ids, suite.command);
  if (leave.files.length >= files.length) return made;
  const again = await planFromFix({ ...input, existingOnly: files, leaveOut: leave });
  return { ...again, earlier: { ids, command: suite.command } };
}

/** Makes, validates and keeps or removes the task of one candidate; returns its outcome. */
async function mineOne(
  commit: HistoryCommit,
  options: MineOptions,
  state: MineReport,
  save: () => Promise<void>,
): Promise<Partial<MinedCommit>> {
  const lost = (stage: Stage, outcome: Outcome, error: unknown): Partial<MinedCommit> => ({
    stage,
    outcome,
    reason:
      error instanceof Error
        ? `${isOracleError(error) ? `${error.code}: ` : ""}${error.message}${isOracleError(error) && error.hint ? ` (hint: ${error.hint})` : ""}`
        : String(error),
  });
  const input: FixInput = {
    root: options.root,
    repo: options.repo,
    fix: commit.sha,
    tests: options.tests,
    ...(options.framework ? { framework: options.framework } : {}),
    ...(options.image ? { image: options.image } : {}),
  };
  let made: Awaited<ReturnType<typeof withEarlier>>;
  // An image folder named after the task that is there before planning is the author's: never removed.
  const ownBefore = new Set<string>();
  try {
    made = await onePlanAtATime(async () => {
      const own = `images/${defaultTaskId(options.repo, commit.sha).toLowerCase()}`;
      if (await exists(join(options.root, own))) ownBefore.add(own);
      const first = await planFromFix(input);
      return withEarlier(input, first, state.leftOut ?? []);
    });
  } catch (error) {
    if (options.signal.aborted) throw error;
    if (isOracleError(error, "IMAGE_INVALID") || isOracleError(error, "BUILD_FAILED"))
      return lost("image", "environment-failed", error);
    if (isOracleError(error, "USAGE")) return lost("plan", "not-a-task", error);
    return lost("plan", "error", error);
  }
  const { plan, image, earlier } = made;
  const id = plan.id;
  const own = `images/${id.toLowerCase()}`;
  const ownImage = image.made === `${own}/` && !ownBefore.has(own) ? own : null;
  if (await exists(join(tasksDir(options.root), id)))
    return {
      stage: "plan",
      outcome: "exists",
      task: id,
      reason: `tasks/${id}/ already exists: not replaced`,
    };
  state.running[commit.sha] = { task: id, image: ownImage };
  await save();
  const removeAll = async () => {
    await rm(join(tasksDir(options.root), id), { recursive: true, force: true });
    if (ownImage) await rm(join(options.root, ownImage), { recursive: true, force: true });
    await forgetTasks(options.root, [id]);
  };
  try {
    let report: Awaited<ReturnType<typeof buildWriteValidate>>;
    let left: LeftOut = { broken: [], flaky: [], earlier: [], rewritten: [], hidden: [] };
    try {
      const pipeline = {
        force: false,
        repeat: options.repeat,
        lockWait: options.lockWait,
        signal: options.signal,
        say: () => undefined,
        quiet: true,
        runIdSuffix: commit.sha.slice(0, 12),
      };
      report = await buildWriteValidate(options.root, [plan], pipeline);
      // --fix's next tries: narrowed, without broken or flaky existing tests, without broken hidden ones.
      const repaired = await repair(
        { ...input, ...(earlier ? { earlier } : {}) },
        plan,
        report,
        pipeline,
        () => undefined,
      );
      report = repaired.report;
      left = repaired.left;
      const found = [...left.flaky, ...left.broken].filter((id) => !(state.leftOut ?? []).includes(id));
      if (found.length > 0) state.leftOut = [...(state.leftOut ?? []), ...found].sort();
    } catch (error) {
      await removeAll();
      if (options.signal.aborted) throw error;
      if (isOracleError(error, "BUILD_FAILED") || isOracleError(error, "IMAGE_INVALID"))
        return { ...lost("image", "environment-failed", error), task: id };
      throw error;
    }
    const task = report.tasks.find((t) => t.id === id);
    const outcome = task ? validationOutcome(task) : "error";
    const flags = task?.reasons.map((r) => r.flag) ?? [];
    const base = { task: id, flags, sweepReport: report.reportDir };
    if (outcome === "healthy")
      return {
        ...base,
        stage: "kept",
        outcome,
        reason: `healthy (${task!.runs.length} runs); expected tests: ${task!.expected}${leftWords(left)}`,
      };
    // The existing tests that lost it, when only they did: a later candidate may find them flaky.
    const failing = task ? await failingExisting(options.root, task) : [];
    await removeAll();
    const first = task?.reasons[0];
    return {
      ...base,
      ...(failing.length > 0 ? { failing } : {}),
      stage: "validate",
      outcome,
      reason:
        task?.status === "infra-error"
          ? `the engine failed: ${task.infra.messages.join("; ")}`
          : outcome === "hangs-at-base"
            ? hangReason(
                hangsAtBase(task!)!,
                task!.runs.filter((r) => r.mode === "baseline").length,
                plan.task.timeoutSeconds,
              )
            : `${flags.join(", ")}${first ? `: ${first.message}` : ""}${leftWords(left)}`,
    };
  } finally {
    delete state.running[commit.sha];
  }
}
