import { posix } from "node:path";
import type { SentinelState, Task, TestCase } from "@oracle/spec";
import { cryptoRandom, type Random } from "@oracle/test-set";
import {
  findRunner,
  insertAfterWord,
  type PackageScripts,
  type RunnerCall,
  replaceFlagValue,
  type SentinelFramework,
} from "./runner-command.js";
import { matchPlanted, type PlantedUnit } from "./sentinel-check.js";
import { GO_RUN_FLAGS, goTestArgs, planGo } from "./sentinel-go.js";
import { type Selection, selectionOf } from "./sentinel-selection.js";
import { jsSentinel, pythonSentinel, type SentinelAppend } from "./sentinel-text.js";

export type { SentinelFramework } from "./runner-command.js";

/**
 * Must-fail / must-pass sentinels (docs/security.md): two tests appended to each hidden test file
 * the hidden command selects, written with that file's own imports, test function and assertions,
 * named like its tests. The runner's report must show each must-fail failed and each must-pass
 * passed; a runner patched in-process (or a report rewritten at exit) contradicts it.
 */
export interface Sentinel {
  framework: SentinelFramework;
  appends: SentinelAppend[];
  /** Paths of the appends the command's selection is sure to collect: missing ones are the diff's doing. */
  required: string[];
  /** Why the selection may leave a sentinel out, for the result and the log. */
  note?: string;
  /**
   * The suite's command rewritten to select the pair too (a selection of single tests by exact name:
   * pytest node ids, Go's `-run '^(TestA|TestB)$'`, an anchored `-t`/`--grep`), run instead of the
   * task's; unset: the task's command runs.
   */
  command?: string;
}

/** Files larger than this are not read for sentinels, hidden or existing (a test module is far smaller). */
export const MAX_TEST_FILE_BYTES = 2 * 1024 * 1024;
/** The test sources sentinels can be planted in (pytest, Go, JS/TS). */
export const TEST_SOURCE = /\.(py|go|[cm]?[jt]sx?)$/;

/** A hidden test file's path (relative, UTF-8) and text. */
export interface HiddenText {
  path: string;
  text: string;
}

const FRAMEWORKS = new Set<string>(["pytest", "mocha", "jest", "vitest", "go"]);

/** The runner of the hidden command: the task's `framework` when it names one, else detected from the command. */
export function sentinelRunner(
  task: Pick<Task, "framework"> & { suites: { hidden: { command: string } } },
  /** The base commit's package scripts, for a command that runs one (`npm test -- …`). */
  scripts: PackageScripts | null = null,
): RunnerCall | { framework: SentinelFramework; args: null } | null {
  const found = findRunner(task.suites.hidden.command, scripts);
  if (task.framework === undefined) return found;
  if (!FRAMEWORKS.has(task.framework)) return null;
  const framework = task.framework as SentinelFramework;
  return found?.framework === framework ? found : { framework, args: null };
}

const isPython = (f: HiddenText) =>
  f.path.endsWith(".py") && /^[ \t]*(?:async[ \t]+)?def[ \t]+test/m.test(f.text);
/**
 * A JS test file: one that calls `it`/`test`, plainly or through a modifier that still runs the test
 * (`test.each`, `it.concurrent`, vitest's `test.for`/`test.extend`…). A file written only with such
 * modifiers got no sentinel before, which left its suite unprotected. `.only`/`.skip`/`.todo` are not
 * counted: a file of only those runs no plain test, so the oracle's own would not run either.
 */
export const JS_TEST_CALL =
  /(?:^|[^.\w$])(?:it|test)\s*(?:\(|\.\s*(?:each|concurrent|failing|fails|for|sequential|extend|skipIf|runIf)\b)/m;
const isJs = (f: HiddenText) => /\.[cm]?[jt]sx?$/.test(f.path) && JS_TEST_CALL.test(f.text);

/**
 * The pair of each chosen file, and the files whose pair runs only once the command is rewritten:
 * named by node ids (pytest), or kept only by a name filter widened to the pair's titles (an anchored
 * filter). A file without a pair is noted; the other files' pairs stay required (a name the filter
 * keeps is collected whatever this file holds).
 */
function filePairs(
  chosen: readonly HiddenText[],
  notes: string[],
  plan: {
    framework: SentinelFramework;
    selection: Selection;
    rewritable: boolean;
    texts: readonly string[];
    sealed: ReadonlyMap<string, readonly string[]>;
    random: Random;
  },
): { appends: SentinelAppend[]; rewritten: Set<string> } {
  const { framework, selection, rewritable } = plan;
  const nodeIds = selection.nodeIds ?? new Map<string, string>();
  const appends: SentinelAppend[] = [];
  const rewritten = new Set<string>();
  const kept = (p: SentinelAppend) => selection.keepsTitle?.(p.tests[0]!.names[0]!) ?? true;
  for (const f of chosen) {
    const byNodeId = nodeIds.has(f.path);
    const context = {
      // Every name planned in the run is taken: a report id ends in the test's name, whatever its file.
      elsewhere: [...plan.texts, ...appends.map((a) => a.text)].join("\n"),
      taken: appends.flatMap((a) => a.tests.flatMap((t) => t.names)),
      sealed: plan.sealed.get(f.path) ?? [],
      random: plan.random,
      bare: byNodeId,
    };
    let pair = byNodeId && !rewritable ? null : pairFor(framework, f, selection, context);
    if (!pair && selection.widenTitles && rewritable)
      pair = pairFor(framework, f, { ...selection, keepsTitle: () => true }, context);
    if (pair && (byNodeId || !kept(pair))) rewritten.add(f.path);
    if (pair) appends.push(pair);
    else notes.push(`no test name in ${f.path} that the command's selection provably keeps`);
  }
  return { appends, rewritten };
}

/**
 * Plans the sentinels of a run: the files the selection collects get them (required); when it
 * cannot be sure of any, every hidden test file does, and a missing sentinel is only noted. `sealed`
 * names, per file, the tests whose comparisons are sealed: the must-fail never copies their bodies
 * (it would bring their expected values back into the container).
 */
export function planSentinels(
  runner: ReturnType<typeof sentinelRunner>,
  files: readonly HiddenText[],
  others: readonly HiddenText[] = [],
  sealed: ReadonlyMap<string, readonly string[]> = new Map(),
  /** The pairs' draws (names, order, values): node:crypto, or a seeded source for recorded plans. */
  random: Random = cryptoRandom,
): Sentinel | null {
  if (runner === null) return null;
  const { framework } = runner;
  if (framework === "go") return planGoSentinels(runner, files, others, random);
  const candidates = files.filter(framework === "pytest" ? isPython : isJs);
  if (candidates.length === 0) return null;
  const selection: Selection = runner.args
    ? selectionOf(runner as RunnerCall, new Map(candidates.map((f) => [f.path, f.text])))
    : {
        covered: new Map(),
        unsure: "the task names its framework but the command's runner was not recognised",
      };
  if (selection.unprotected) return null;
  const nodeIds = selection.nodeIds ?? new Map<string, string>();
  const chosen =
    selection.covered.size > 0 || nodeIds.size > 0
      ? candidates.filter((f) => selection.covered.has(f.path) || nodeIds.has(f.path))
      : candidates;
  const notes = selection.unsure ? [selection.unsure] : [];
  const rewritable = "command" in runner && runner.command !== undefined;
  const { appends, rewritten } = filePairs(chosen, notes, {
    framework,
    selection,
    rewritable,
    texts: [...files, ...others].map((o) => o.text),
    sealed,
    random,
  });
  const command =
    rewritten.size > 0
      ? rewrittenCommand(
          runner as RunnerCall,
          selection,
          candidates,
          appends.filter((a) => rewritten.has(a.path)),
        )
      : undefined;
  if (rewritten.size > 0 && command === undefined) {
    for (const path of rewritten)
      notes.push(`the command selects no test the oracle could add to ${path}, and cannot be rewritten to`);
    appends.splice(0, appends.length, ...appends.filter((a) => !rewritten.has(a.path)));
  }
  if (appends.length === 0) return null;
  const required = appends.filter(() => !selection.unsure).map((a) => a.path);
  return {
    framework,
    appends,
    required,
    ...(notes.length > 0 ? { note: notes.join("; ") } : {}),
    ...(command ? { command } : {}),
  };
}

/** A node id of the pair's test `name`, written as the command writes `word` (its file, from the command's folder). */
const nodeIdLike = (word: string, name: string) => `${word.slice(0, word.indexOf("::"))}::${name}`;

/**
 * The command rewritten to select the pairs of `added` too, or undefined when it cannot be, or the
 * rewrite does not read back as the same selection plus the pairs:
 * - pytest: each file's pair named by node ids, after a node id of that file the command gives;
 * - mocha `--grep`, jest's and vitest's `-t`: the filter widened to the pairs' full titles, exactly.
 */
function rewrittenCommand(
  runner: RunnerCall,
  selection: Selection,
  candidates: readonly HiddenText[],
  added: readonly SentinelAppend[],
): string | undefined {
  if (runner.command === undefined) return undefined;
  let command: string | null = runner.command;
  const titles: string[] = [];
  const ids: string[] = [];
  for (const append of added) {
    const word = selection.nodeIds?.get(append.path);
    if (word === undefined) titles.push(...append.tests.map((t) => t.names[0]!));
    else {
      const named = append.tests.map((t) => nodeIdLike(word, t.names[0]!));
      ids.push(...named);
      command = command && insertAfterWord(command, word, named);
    }
  }
  const widen = selection.widenTitles;
  if (titles.length > 0)
    command = command && widen ? replaceFlagValue(command, widen.flags, widen.value(titles)) : null;
  const keys = (m: ReadonlyMap<string, unknown> | undefined) => JSON.stringify([...(m?.keys() ?? [])]);
  return readBack(runner, command, (again) => {
    const after = selectionOf(again, new Map(candidates.map((f) => [f.path, f.text])));
    return (
      titles.every((t) => after.keepsTitle?.(t) === true) &&
      ids.every((id) => again.args.filter((a) => a === id).length === 1) &&
      keys(after.covered) === keys(selection.covered) &&
      keys(after.nodeIds) === keys(selection.nodeIds) &&
      after.unsure === selection.unsure
    );
  });
}

/**
 * A rewritten command read back with the parser that read the task's: kept when it starts the same
 * runner in the same folder and `same` holds of it; else undefined, and the command runs as written.
 */
function readBack(
  runner: RunnerCall,
  command: string | null,
  same: (again: RunnerCall) => boolean,
): string | undefined {
  const again = command === null ? null : findRunner(command);
  if (command === null || again === null) return undefined;
  return again.framework === runner.framework && again.cwd === runner.cwd && same(again)
    ? command
    : undefined;
}

/**
 * Go: one pair per selected package (sentinel-go.ts); `others` are the packages' other test files,
 * whose names are taken. A `-run` anchored to exact names is widened to the pair's names, and the
 * command rewritten to it, when the rewrite reads back as that selection; else planned as written.
 */
function planGoSentinels(
  runner: NonNullable<ReturnType<typeof sentinelRunner>>,
  files: readonly HiddenText[],
  others: readonly HiddenText[],
  random: Random,
): Sentinel | null {
  const texts = new Map(files.map((f) => [f.path, f.text]));
  const call = runner.args ? goTestArgs(runner.args) : { packages: ["./..."], failfast: false, unsure: [] };
  const cwd = runner.args ? (runner as RunnerCall).cwd : "";
  const taken = new Map(others.map((f) => [f.path, f.text]));
  let plan = planGo(call, cwd, texts, taken, { widen: runner.args !== null, random });
  const command = plan.run === undefined ? undefined : widenedGoCommand(runner as RunnerCall, plan.run);
  if (plan.run !== undefined && command === undefined) plan = planGo(call, cwd, texts, taken, { random });
  if (plan.unprotected || plan.appends.length === 0) return null;
  const unsure = runner.args
    ? plan.unsure
    : "the task names its framework but the command's runner was not recognised";
  const required = unsure ? [] : plan.appends.map((a) => a.path);
  const note = [unsure, plan.gaps].filter((n) => n !== undefined).join("; ");
  return {
    framework: "go",
    appends: plan.appends,
    required,
    ...(note ? { note } : {}),
    ...(command ? { command } : {}),
  };
}

/**
 * The Go command with its `-run` replaced by `run` (which also selects the planted names), or
 * undefined when it cannot be rewritten or the rewrite does not read back as that very selection.
 */
function widenedGoCommand(runner: RunnerCall, run: string): string | undefined {
  if (runner.command === undefined) return undefined;
  const before = goTestArgs(runner.args);
  return readBack(runner, replaceFlagValue(runner.command, GO_RUN_FLAGS, run), (again) => {
    const after = goTestArgs(again.args);
    return (
      after.run === run &&
      JSON.stringify(after.packages) === JSON.stringify(before.packages) &&
      after.failfast === before.failfast
    );
  });
}

/** The `-k` filter of a pytest file's names, and the class a `file::Class` selection names. */
function pytestFilter(f: HiddenText, selection: Selection) {
  const className = selection.covered.get(f.path)?.className;
  const keyword = selection.keyword;
  const maybe = [...posix.dirname(f.path).split("/"), ...markerNames(f.text)];
  const known = [posix.basename(f.path), ...(className ? [className] : [])];
  const accepts = keyword ? { accepts: (name: string) => keyword({ known: [...known, name], maybe }) } : {};
  return { className, accepts };
}

/**
 * pytest's `--deselect`: a node-id prefix (`file::Class` takes the class's tests, `file::test_x`
 * takes `test_x_17` too); a test of `f` it takes is neither twinned nor used as a new name.
 */
function deselectsIn(f: HiddenText, selection: Selection) {
  const prefixes = selection.deselect;
  if (!prefixes) return {};
  return {
    deselects: (name: string, className?: string) =>
      prefixes.some((p) => `${f.path}::${className ? `${className}::` : ""}${name}`.startsWith(p)),
  };
}

/** The must-fail/must-pass pair of one hidden file, named so that the selection's name filter keeps it, or null. */
function pairFor(
  framework: SentinelFramework,
  f: HiddenText,
  selection: Selection,
  context: {
    elsewhere: string;
    taken: readonly string[];
    sealed: readonly string[];
    random: Random;
    /** A file selected by node ids: the must-fail copies none of its tests' bodies. */
    bare?: boolean;
  },
): SentinelAppend | null {
  if (framework !== "pytest")
    return jsSentinel(f.path, f.text, framework, {
      ...(selection.keepsTitle ? { accepts: selection.keepsTitle } : {}),
      elsewhere: context.elsewhere,
      taken: context.taken,
      random: context.random,
    });
  const { className, accepts } = pytestFilter(f, selection);
  return pythonSentinel(f.path, f.text, {
    ...(className ? { className } : {}),
    ...accepts,
    ...deselectsIn(f, selection),
    elsewhere: context.elsewhere,
    taken: context.taken,
    twinned: context.sealed,
    random: context.random,
    ...(context.bare ? { bare: true } : {}),
  });
}

/** Marker names a module's items may carry (`@pytest.mark.x`, `pytestmark`), which `-k` also matches. */
const markerNames = (text: string) => [
  ...[...text.matchAll(/\bmark\.(\w+)/g)].map((m) => m[1]!),
  ...(/\bpytestmark\b/.test(text) ? ["pytestmark"] : []),
];

/** Why a run has no sentinel, for the log (a runner the oracle cannot protect, or a selection that stops early). */
export function noSentinelNote(
  runner: ReturnType<typeof sentinelRunner>,
  files: readonly HiddenText[],
): string {
  if (runner === null) return "no protected runner (pytest, mocha, jest, vitest, go) in the hidden command";
  if (runner.framework === "go") {
    const texts = new Map(files.map((f) => [f.path, f.text]));
    const call = runner.args ? goTestArgs(runner.args) : { packages: ["./..."], failfast: false, unsure: [] };
    const plan = planGo(call, (runner as RunnerCall).cwd ?? "", texts);
    return plan.unprotected ?? plan.unsure ?? plan.gaps ?? "no hidden file looks like a go test file";
  }
  if (runner.args) {
    const selection = selectionOf(runner as RunnerCall, new Map(files.map((f) => [f.path, f.text])));
    if (selection.unprotected) return selection.unprotected;
    if (selection.nodeIds && selection.covered.size === 0)
      return "the command names single tests by node id and cannot be rewritten to name the oracle's; the seals in the named tests protect what they cover";
  }
  return `no hidden file looks like a ${runner.framework} test file`;
}

/** The report's tests without the sentinels', and what the sentinels say about the report. */
export interface SentinelVerdict {
  tests: TestCase[];
  /** The exit code to judge the rest by: 0 when the sentinels' own failures explain it. */
  exitCode: number | null;
  /** Why the report cannot be trusted, or null. */
  problem: string | null;
  state: SentinelState;
}

/** Checks the sentinels' tests in the report and removes them from it. */
export function checkSentinel(
  sentinel: Sentinel,
  tests: TestCase[],
  exitCode: number | null,
): SentinelVerdict {
  const all = sentinel.appends.flatMap((a) => a.tests.map((t) => ({ ...t, path: a.path })));
  // One unit per pair test (sentinel-check.ts): each report entry is one planted test's at most.
  const units: PlantedUnit[] = all.map((s) => ({ path: s.path, names: s.names, parametrised: false }));
  const planted = matchPlanted(units, tests);
  const of = (u: number) => planted.entries[u]!.map((i) => tests[i]!);
  const rest = tests.filter((_, i) => !planted.claimed.has(i));
  const problems: string[] = [...planted.problems];
  let failed = 0;
  const collected = new Set<string>();
  const missing = new Set<string>();
  all.forEach((s, u) => {
    const seen = of(u);
    if (seen.length === 0) {
      missing.add(s.path);
      if (sentinel.required.includes(s.path))
        problems.push(`a test the oracle added to ${s.path} is missing from the report`);
      return;
    }
    collected.add(s.path);
    const want = s.role === "fail" ? "failed" : "passed";
    for (const t of seen) {
      if (t.outcome !== want)
        problems.push(`a test the oracle added to ${s.path} that must ${s.role} is ${t.outcome}`);
      else if (s.role === "fail") failed += 1;
    }
  });
  for (const path of collected)
    if (missing.has(path))
      problems.push(`only one of the two tests the oracle added to ${path} is in the report`);
  const restFailed = rest.some((t) => t.outcome === "failed" || t.outcome === "error");
  const onlyMissing = problems.every((p) => p.endsWith("is missing from the report"));
  // A run that failed before any test (a Go package that does not build: the report lists nothing
  // and the runner exits non-zero) left the sentinels out with everything else: it fails as such.
  const nothingRan = tests.length === 0 && exitCode !== null && exitCode !== 0;
  // A required sentinel left out of a run that fails anyway (a module that does not import at baseline) is no contradiction.
  const contradicts = problems.length > 0 && !(onlyMissing && (restFailed || nothingRan));
  const contradictions = contradicts ? problems : [];
  if (!contradicts && failed > 0 && exitCode === 0)
    contradictions.push("the runner exited 0 although a test that must fail failed");
  const problem = contradictions.length > 0 ? contradictions.join("; ") : null;
  const state: SentinelState =
    collected.size > 0 && sentinel.required.every((p) => collected.has(p)) ? "collected" : "not-collected";
  const ownExit = sentinel.framework === "mocha" ? Math.min(failed, 255) : 1;
  return {
    tests: rest,
    exitCode: problem === null && !restFailed && failed > 0 && exitCode === ownExit ? 0 : exitCode,
    problem:
      problem &&
      `the report contradicts the oracle's sentinels (${sentinel.framework}): ${problem} — the runner's results cannot be trusted`,
    state,
  };
}
