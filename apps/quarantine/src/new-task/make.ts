import { mkdir, mkdtemp, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { DEFAULT_DENY, type ExpectedTests, OracleError, parseTask, tasksDir } from "@oracle/spec";
import picomatch from "picomatch";
import type { LeaveOut } from "./broken.js";
import { git } from "./git.js";
import { goFilesToKeep, goRunNames } from "./go-tests.js";
import { JEST_CONFIG_FILES, type RepoTests } from "./jest-config.js";
import { isTestPath } from "./split.js";
import {
  configGlobs,
  type Framework,
  runsAsTest,
  runsByName,
  shellQuote,
  suiteCommand,
  suiteEnv,
  taskFramework,
} from "./templates.js";
import { VITEST_CONFIG_FILES } from "./vitest-config.js";

/** Everything a task folder is made of, before it is written. */
export interface TaskPlan {
  id: string;
  /** task.json, ready to write. */
  task: Record<string, unknown>;
  /** hidden-tests/<path>: the bytes of each hidden file. */
  hidden: Array<{ path: string; bytes: Buffer }>;
  goldDiff: string;
  /** The repository and the commit the mirror holds (and nothing after it). */
  mirror: { repo: string; base: string };
  framework: Framework;
  image: string;
  /** What the author should know: gold changes the diff policy rejects, runner caveats. */
  warnings: string[];
}

const VENDORED = /(^|\/)(node_modules|vendor|third_party|\.git)\//;
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A task id from a name: letters, digits, '.', '_' and '-'. */
export function taskIdFrom(name: string): string {
  const id = name
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 128);
  return id || "task";
}

export function checkTaskId(id: string): string {
  if (!ID.test(id))
    throw new OracleError("USAGE", `--id: '${id}' is not a task id`, {
      hint: "letters, digits, '.', '_' or '-', starting with a letter or digit (it names the folder tasks/<id>/)",
    });
  return id;
}

export interface SuitePlanInput {
  framework: Framework;
  /** Every file of the base commit's tree. */
  baseFiles: readonly string[];
  /** The hidden test files (paths in the checkout). */
  hidden: readonly string[];
  /** Test files the fix deletes. */
  deletedTests?: readonly string[];
  /** Limit the existing suite to these test files (SWE-bench's PASS_TO_PASS files), when given. */
  existingOnly?: readonly string[];
  /** Shell words both commands start with (templates.ts `versionFilePrelude`). */
  prelude?: string;
  /** Existing tests left out: they fail at the base commit in this image (broken.ts `leaveOut`). */
  leaveOut?: LeaveOut;
  /** Shell words that leave hidden tests out: they fail at the base and with gold.diff alike (broken.ts `hiddenBroken`). */
  hiddenLeaveOut?: readonly string[];
  /** The folders and files the repository's own test script gives its runner (templates.ts `scriptTestPaths`). */
  scriptPaths?: readonly string[];
  /** Flags the repository's own scripts give its runner (templates.ts `repoRunnerFlags`). */
  runnerFlags?: readonly string[];
  /** The author's --tests globs: the files they name are tests to a runner given them by name (templates.ts `runsByName`). */
  testGlobs?: readonly string[];
  /** The files the repository's own runner configuration runs as tests (jest's testMatch). */
  repoTests?: RepoTests | null;
  /**
   * Go: the base commit's text of the test files (the existing suite's and the changed ones), by
   * path, for telling which changed files declare helpers the other test files use. Without it the
   * changed files are removed.
   */
  goTexts?: ReadonlyMap<string, string>;
}

/**
 * The two suites: the hidden command runs the hidden test files by name (so the oracle's sentinels
 * are collected); the existing command runs the base commit's other test files, never the base
 * versions of files the fix changes or deletes (their old assertions may test the old behaviour).
 */
export async function planSuites(input: SuitePlanInput): Promise<SuitePlan> {
  const { framework } = input;
  // Files the author names with --tests are tests to runners given them by name (runsByName).
  const named =
    input.testGlobs && input.testGlobs.length > 0 ? picomatch([...input.testGlobs], { dot: true }) : null;
  const byName = (p: string) => named?.(p) === true && runsByName(framework, p);
  const runs = (p: string) => runsAsTest(framework, p, input.repoTests) || byName(p);
  const hiddenRuns = input.hidden.filter(runs);
  if (hiddenRuns.length === 0)
    throw new OracleError(
      "USAGE",
      `the fix changes no file the ${framework} runner runs as a test (test files it changes: ${input.hidden.join(", ") || "none"}${input.repoTests ? `; the runner's rule: ${input.repoTests.source}` : ""})`,
      { hint: noTestsHint(framework, input.repoTests) },
    );
  const left = new Set([...input.hidden, ...(input.deletedTests ?? [])]);
  const only = input.existingOnly ? new Set(input.existingOnly) : null;
  const dropped = new Set(input.leaveOut?.files ?? []);
  // Go: a folder with a go.mod of its own is another module, which `go test` from the top refuses
  // ("main module does not contain package").
  const nested =
    framework === "go"
      ? input.baseFiles.filter((p) => p.endsWith("/go.mod")).map((p) => p.slice(0, -"go.mod".length))
      : [];
  const existing = input.baseFiles.filter(
    (p) =>
      !VENDORED.test(p) &&
      !nested.some((dir) => p.startsWith(dir)) &&
      !left.has(p) &&
      !dropped.has(p) &&
      runs(p) &&
      (isTestPath(p) || byName(p) || framework === "go" || framework === "jest") &&
      (only === null || only.has(p)),
  );
  const baseSet = new Set(input.baseFiles);
  const notes: string[] = [];
  // The repository's own test script names where its runner's tests are: the existing suite keeps
  // those, when that leaves any (the rest may be another runner's: uuid's wdio browser tests).
  const scripted = input.scriptPaths ?? [];
  if (only === null && scripted.length > 0) {
    const inScript = (p: string) => scripted.some((s) => p === s || p.startsWith(`${s}/`));
    const outside = existing.filter((p) => !inScript(p));
    if (outside.length > 0 && outside.length < existing.length) {
      existing.splice(0, existing.length, ...existing.filter(inScript));
      notes.push(
        `the repository's own test script gives its ${framework} ${scripted.join(", ")}: the existing suite runs the ${existing.length} test file${existing.length === 1 ? "" : "s"} there, not ${outside.length} other${outside.length === 1 ? "" : "s"} (${outside.slice(0, 3).join(", ")}${outside.length > 3 ? ", …" : ""})`,
      );
    }
  }
  // No other test file (jshttp/mime-types: its one test file is the one the fix changes): the
  // existing suite runs the base versions of the changed test files. Their tests that pass at the
  // base and with the fix are what guards against regressions; those the fix rewrote fail with
  // gold.diff, and new-task's validation leaves them out (broken.ts). The fix's versions are the
  // hidden suite, as always.
  const ownBase =
    existing.length === 0
      ? input.hidden
          .filter(
            (p) =>
              baseSet.has(p) &&
              runs(p) &&
              !VENDORED.test(p) &&
              !dropped.has(p) &&
              (only === null || only.has(p)),
          )
          .sort()
      : [];
  if (ownBase.length > 0) {
    existing.push(...ownBase);
    for (const p of ownBase) left.delete(p);
    notes.push(
      `the base commit has no test file besides the ones the fix changes: the existing suite runs the base version${ownBase.length === 1 ? "" : "s"} of ${ownBase.join(", ")} (reset to the base commit before it runs), whose tests that pass at the base and with the fix guard against regressions; the hidden suite runs the fix's version`,
    );
  }
  if (existing.length === 0)
    throw new OracleError(
      "USAGE",
      only === null
        ? `the base commit has no test file the ${framework} runner runs (the fix adds ${input.hidden.join(", ")}): the task's existing suite would run nothing`
        : "none of the test files the existing suite was limited to is in the base commit: the task's existing suite would run nothing",
      {
        hint: "a task needs an existing suite that passes at the base commit: pick a fix made after the repository had tests (new-task --fix on a later commit)",
      },
    );
  // Go runs packages, not files: the base versions of changed test files are removed before the run.
  // One that declares a helper the package's other test files use stays (removed, the package's test
  // binary would not build); the run then selects the other files' tests by name, so the changed
  // files' own tests (which may assert the old behaviour) still do not run.
  const changed =
    framework === "go" ? [...left].filter((p) => p.endsWith("_test.go") && baseSet.has(p)).sort() : [];
  const kept = input.goTexts ? await goFilesToKeep(changed, existing, input.goTexts) : [];
  const remove = changed.filter((p) => !kept.includes(p));
  const selection = kept.length > 0 ? await goRunSelection(existing, kept, input.goTexts!) : undefined;
  const existingFiles = [...existing, ...configGlobs(framework)];
  return {
    hidden: {
      command: `${input.prelude ?? ""}${suiteCommand(
        framework,
        hiddenRuns,
        [],
        input.runnerFlags,
        undefined,
        input.hiddenLeaveOut ?? [],
      )}`,
    },
    existing: {
      command: `${input.prelude ?? ""}${suiteCommand(
        framework,
        existing,
        remove,
        input.runnerFlags,
        selection?.flag,
        input.leaveOut?.flags ?? [],
      )}`,
      files: existingFiles,
    },
    notes: [...notes, ...(selection?.note ? [selection.note] : [])],
  };
}

/** The two suites' commands, and what the author should know of how they were written. */
export interface SuitePlan {
  hidden: { command: string };
  existing: { command: string; files: string[] };
  notes: string[];
}

/**
 * The longest `-run` or `-skip` pattern new-task writes: Linux refuses one argument over 128 KiB
 * (MAX_ARG_STRLEN), and the pattern travels as one (`-test.run=…` to the test binary, and inside the
 * whole command `sh -c` runs), so the rest of the command keeps the margin.
 */
export const GO_PATTERN_MAX = 100_000;

/**
 * The anchored `-run` of a Go existing suite that keeps changed test files (`kept`) for their
 * helpers: every test, example and fuzz target of the existing files, of every package the command
 * runs (`-run` applies to each). A name that is also a test of a kept file (in another package) is
 * left out: selecting it would run the kept file's test too.
 */
export async function goRunSelection(
  existing: readonly string[],
  kept: readonly string[],
  texts: ReadonlyMap<string, string>,
  max = GO_PATTERN_MAX,
): Promise<{ flag: string; note?: string }> {
  const unknown = [...kept, ...existing].filter((p) => texts.get(p) === undefined);
  if (unknown.length > 0)
    throw new Error(
      `new-task: the base text of ${unknown.join(", ")} was not read (a Go -run selection needs it)`,
    );
  const runNames = async (files: readonly string[]) => {
    const names = new Set<string>();
    for (const p of files) {
      const found = await goRunNames(texts.get(p)!);
      if (found === null)
        throw new OracleError(
          "USAGE",
          `${p} does not parse as Go, so new-task cannot tell its tests to select the existing suite's by name (the changed test files ${kept.join(", ")} stay for their helpers)`,
          { hint: "check the file builds at the base commit, or limit the existing suite's files" },
        );
      for (const n of found) names.add(n);
    }
    return names;
  };
  const keptTests = await runNames(kept);
  const names = [...(await runNames(existing))].filter((n) => !keptTests.has(n)).sort();
  if (names.length === 0)
    throw new OracleError(
      "USAGE",
      `the changed test files ${kept.join(", ")} declare helpers the other test files use, so they stay, and those other files hold no test to select by name: the task's existing suite would run nothing`,
      {
        hint: "a task needs an existing suite that passes at the base commit; pick a fix in a repository with other tests",
      },
    );
  const run = `^(${names.join("|")})$`;
  if (run.length <= max) return { flag: `-run ${shellQuote(run)}` };
  // Too long for one argument: skip the kept files' tests instead (the same tests run: the kept
  // files' own, and any test of another package sharing a name with one, are the ones left out).
  const skip = `^(${[...keptTests].sort().join("|")})$`;
  if (skip.length <= max)
    return {
      flag: `-skip ${shellQuote(skip)}`,
      note: `the existing suite skips the ${keptTests.size} tests of ${kept.join(", ")} with -skip (Go 1.20 or later) instead of selecting the other ${names.length} tests with -run: that pattern would be ${run.length} bytes, over the ${max} new-task allows for one argument (Linux refuses one over 128 KiB)`,
    };
  throw new OracleError(
    "USAGE",
    `the changed test files ${kept.join(", ")} declare helpers the other test files use, so they stay, and neither selecting the other files' ${names.length} tests (-run, ${run.length} bytes) nor skipping their ${keptTests.size} (-skip, ${skip.length} bytes) fits one argument of at most ${max} bytes (Linux refuses one over 128 KiB)`,
    {
      hint: "limit the existing suite's files, or split the fix's test changes so fewer test files change",
    },
  );
}

function noTestsHint(framework: Framework, repoTests: RepoTests | null | undefined): string {
  if (framework === "jest" && !repoTests)
    return "jest runs the files its testMatch or testRegex names (default: **/__tests__/**/*.[jt]s?(x), **/?(*.)+(spec|test).[jt]s?(x): a.test.js, spec/a.spec.ts, a bare test.js, not tests.js); new-task reads them from package.json's jest key or a jest.config file when they are literal: write them there as a list of strings, or say the runner with --framework";
  if (framework === "jest" || (framework === "vitest" && repoTests))
    return `the hidden test files must be files ${repoTests!.source} names; name the fix's test files with --tests GLOB when the path rule missed them, or say the runner with --framework`;
  if (framework === "vitest")
    return "vitest runs only the files its include names (default: **/*.{test,spec}.?(c|m)[jt]s?(x)), even when they are named on its command line; new-task reads test.include and test.exclude from a vitest.config or vite.config file when they are literal: write them there as a list of strings; when the fix changes only a fixture its tests import, name the fixture and those tests (--tests 'test/fixtures/**' --tests 'test/*.test.ts'); or say the runner with --framework";
  if (framework === "go")
    return "go test runs the *_test.go files of a package (never those under testdata/): when the fix changes only data its tests read, name that data and the test files that read it (--tests 'testdata/**' --tests 'parse_test.go'), which then run as at the fix; or say the runner with --framework";
  return `name the fix's test files with --tests GLOB (${framework === "mocha" ? "mocha" : "pytest"} is given them by name, whatever they are called), or say the runner with --framework`;
}

/** Diff policy: the oracle's defaults plus any hidden path they do not already cover. */
export function diffPolicy(hidden: readonly string[]) {
  const denied = picomatch([...DEFAULT_DENY], { dot: true, nocase: true });
  const extra = hidden.filter((p) => !denied(p)).sort();
  return { allow: ["**"], deny: extra };
}

/** Gold paths the diff policy would reject: the gold diff could never PASS. */
export function deniedGoldPaths(code: readonly string[], deny: readonly string[]): string[] {
  const denied = picomatch([...DEFAULT_DENY, ...deny], { dot: true, nocase: true });
  return code.filter((p) => denied(p));
}

/**
 * What a gold change to a denied path does: the grader drops that file's section from every diff it
 * grades (gold.diff's too; the run's log lists it under diff.filtered) and applies the rest. It does
 * not reject the diff.
 */
export function deniedGoldWarning(what: string, path: string): string {
  return `${what} changes ${path}, which the oracle's diff policy denies (diff.denyDefaults): the grader drops that file's change from every diff it grades, gold's included, and grades the rest (the run's log lists it under diff.filtered); when the fix needs that change, gold.diff fails its hidden tests (GOLD_FAILS), and only diff.denyDefaults: false in task.json keeps it (read docs/security.md first: it lets every diff change such files)`;
}

export interface TaskJsonInput {
  id: string;
  description: string;
  image: string;
  framework: Framework;
  base: string;
  suites: SuitePlan;
  hidden: readonly string[];
  hasVendor: boolean;
  /** Go: whether the base commit has a go.mod (templates.ts `goModule`); false runs the suites in GOPATH mode. */
  goModule?: boolean;
  /** A Python repository whose packages live under `src/` ({@link pythonSrcLayout}). */
  srcLayout?: boolean;
  /** Variables the repository's own script sets for its runner (templates.ts `scriptEnv`). */
  scriptEnv?: Record<string, string>;
  expected?: { hidden?: ExpectedTests; existing?: ExpectedTests };
  /** `$schema`: relative to the task folder inside this repository, or a path given. */
  schema: string;
  timeoutSeconds?: number;
}

/**
 * The wall-clock limit new-task writes in task.json. The spec's default, 300 s, is tight for real
 * suites on a loaded machine: on this 2-core machine shared by ~7 workers (s23–s25), the slowest
 * completed runs of tasks made from public repositories took 294 s (vercel/ms 5e40ced, median 61 s),
 * 291 s (wcwidth 4c91403, median 125 s) and 236 s (jmespath.py c501751, median 73 s), and 14 of those
 * tasks' 98 runs hit 300 s while their siblings completed (a tail, not a hang). 900 s is three times
 * the slowest completed run; a suite that truly hangs costs 900 s a run to flag.
 */
export const NEW_TASK_TIMEOUT_SECONDS = 900;

export function taskJson(input: TaskJsonInput): Record<string, unknown> {
  const env = suiteEnv(input.framework, input.hasVendor, input.srcLayout, input.scriptEnv, input.goModule);
  const task = {
    $schema: input.schema,
    id: input.id,
    description: input.description,
    image: input.image,
    framework: taskFramework(input.framework),
    repo: { mirror: "repo.bundle", baseCommit: input.base },
    suites: {
      existing: {
        ...input.suites.existing,
        ...(input.expected?.existing ? { expected: input.expected.existing } : {}),
      },
      hidden: {
        ...input.suites.hidden,
        ...(input.expected?.hidden ? { expected: input.expected.hidden } : {}),
      },
    },
    diff: diffPolicy(input.hidden),
    timeoutSeconds: input.timeoutSeconds ?? NEW_TASK_TIMEOUT_SECONDS,
    ...(Object.keys(env).length > 0 ? { env } : {}),
  };
  parseTask(task, `task.json of ${input.id}`); // what we write must load
  return task;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The mirror: a bundle of the base commit's history alone, as `main`. A bundle holds only what its
 * refs reach, so the fix and every later commit, branch, tag and stash stay out. Made with one pack
 * thread, so the same base gives the same bytes (and the task the same content hash).
 */
export async function writeMirror(repo: string, base: string, out: string): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), "oracle-new-task-"));
  try {
    const bare = join(scratch, "m.git");
    await git(scratch, ["init", "-q", "--bare", bare]);
    await git(bare, ["fetch", "-q", "--no-tags", resolve(repo), `+${base}:refs/heads/main`], {
      env: { GIT_DIR: bare },
    }).catch(async () => {
      // Older servers refuse a want by sha: fetch everything, then point main at the base.
      await git(bare, ["fetch", "-q", "--no-tags", resolve(repo), "+refs/*:refs/oracle-all/*"], {
        env: { GIT_DIR: bare },
      });
      await git(bare, ["update-ref", "refs/heads/main", base], { env: { GIT_DIR: bare } });
    });
    await git(bare, ["symbolic-ref", "HEAD", "refs/heads/main"], { env: { GIT_DIR: bare } });
    await git(bare, ["-c", "pack.threads=1", "bundle", "create", "-q", out, "HEAD", "main"], {
      env: { GIT_DIR: bare },
    });
    const heads = (await git(scratch, ["bundle", "list-heads", out])).trim().split("\n");
    if (!heads.every((line) => line.startsWith(`${base} `)))
      throw new Error(`the bundle's refs are not all at the base commit: ${heads.join("; ")}`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** tasks/<id>/ under `root`; a USAGE error when it exists and `force` is not given. */
export async function refuseExisting(root: string, id: string, force: boolean): Promise<string> {
  const dir = join(tasksDir(root), id);
  if ((await exists(dir)) && !force)
    throw new OracleError("USAGE", `tasks/${id}/ already exists`, {
      hint: "pick another --id, or pass --force to replace it",
    });
  return dir;
}

/**
 * Writes tasks/<id>/ whole or not at all: everything goes to a scratch folder beside it first, which
 * is renamed into place at the end. An existing task folder is kept unless `force`.
 */
export async function writeTaskFolder(root: string, plan: TaskPlan, force: boolean): Promise<string> {
  const dir = await refuseExisting(root, plan.id, force);
  await mkdir(tasksDir(root), { recursive: true });
  const scratch = await mkdtemp(join(tasksDir(root), `.${plan.id}.new-`));
  try {
    await writeMirror(plan.mirror.repo, plan.mirror.base, join(scratch, "repo.bundle"));
    for (const file of plan.hidden) {
      const target = join(scratch, "hidden-tests", file.path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.bytes);
    }
    await mkdir(join(scratch, "hidden-tests"), { recursive: true });
    if (plan.goldDiff) await writeFile(join(scratch, "gold.diff"), plan.goldDiff);
    await writeFile(join(scratch, "task.json"), `${JSON.stringify(plan.task, null, 2)}\n`);
    if (await exists(dir)) await rm(dir, { recursive: true, force: true });
    await rename(scratch, dir);
    return dir;
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
}

/**
 * `$schema` for tasks/<id>/task.json under `root`: this repository's schema when the root is this
 * repository, else a path from the task folder to the installed @oracle/spec's schema file.
 */
export async function schemaRef(root: string, id: string): Promise<string> {
  const local = join(resolve(root), "packages", "spec", "task.schema.json");
  if (await exists(local)) return "../../packages/spec/task.schema.json";
  const spec = dirname(createRequire(import.meta.url).resolve("@oracle/spec/package.json"));
  return relative(join(tasksDir(root), id), join(spec, "task.schema.json"))
    .split(sep)
    .join("/");
}

/** The text of package.json at a commit, or null. */
export async function readPackageJson(repo: string, commit: string): Promise<string | null> {
  return git(repo, ["cat-file", "blob", `${commit}:package.json`]).catch(() => null);
}

/** The jest config file jest would read at the root of `commit` (the first of its names that exists). */
export async function readJestConfigs(
  repo: string,
  commit: string,
): Promise<Array<{ path: string; text: string }>> {
  for (const path of JEST_CONFIG_FILES) {
    const text = await git(repo, ["cat-file", "blob", `${commit}:${path}`]).catch(() => null);
    if (text !== null) return [{ path, text }];
  }
  return [];
}

/** The vitest config file vitest would read at the root of `commit` (the first of its names that exists). */
export async function readVitestConfigs(
  repo: string,
  commit: string,
): Promise<Array<{ path: string; text: string }>> {
  // One listing of the root's config names, not a read per name (--mine scans every commit).
  const listed = await git(repo, ["ls-tree", "--name-only", commit, "--", ...VITEST_CONFIG_FILES]).catch(
    () => "",
  );
  const present = new Set(listed.split("\n"));
  const path = VITEST_CONFIG_FILES.find((name) => present.has(name));
  if (path === undefined) return [];
  const text = await git(repo, ["cat-file", "blob", `${commit}:${path}`]).catch(() => null);
  return text === null ? [] : [{ path, text }];
}

/** The repository's package-lock.json at `commit` when it has one that npm reads (lockfileVersion 1 to 3). */
export async function readPackageLock(repo: string, commit: string): Promise<string | null> {
  const text = await git(repo, ["cat-file", "blob", `${commit}:package-lock.json`]).catch(() => null);
  return text === null ? null : npmLockfile(text);
}

/** `text` when it is a package-lock.json npm reads (lockfileVersion 1 to 3), else null. */
export function npmLockfile(text: string): string | null {
  try {
    const version = (JSON.parse(text) as { lockfileVersion?: unknown }).lockfileVersion;
    return version === 1 || version === 2 || version === 3 ? text : null;
  } catch {
    return null;
  }
}
