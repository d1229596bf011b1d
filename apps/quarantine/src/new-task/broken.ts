import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { TaskReport } from "../types.js";
import { escapeRegex, type Framework, shellQuote } from "./templates.js";

/**
 * Existing tests that fail at the base commit in the task's image, whatever the diff (jmespath.py:
 * its code calls `random.sample(dict.keys())`, which Python 3.11 rejects), are no regression guard:
 * new-task leaves them out of the existing suite, as it treats upstream-skipped hidden tests as
 * skipped, and says which. So are, when the existing suite is the base version of the test files the
 * fix changes (make.ts `planSuites`), the tests that fail only with gold.diff: the fix rewrote them,
 * and their new versions are hidden tests. Anywhere else an existing test that passes at the base and
 * fails with gold.diff is a real GOLD_FAILS: the fix breaks it.
 */

/** The existing suite's tests of one run, as the oracle log lists them (`<status> existing:<id>`). */
export interface SuiteOutcomes {
  passed: Set<string>;
  failed: Set<string>;
}

/** A suite's outcomes in a run's oracle log (the existing one unless said), or null when the log does not list them all. */
export async function existingOutcomes(
  logFile: string,
  suite: "existing" | "hidden" = "existing",
): Promise<SuiteOutcomes | null> {
  const lines = createInterface({ input: createReadStream(logFile, "utf8"), crlfDelay: Infinity });
  let found: SuiteOutcomes | null = null;
  try {
    for await (const line of lines) {
      if (!line.includes(`"suite":"${suite}"`) || !line.includes('"tests":[')) continue;
      let event: { suite?: unknown; tests?: unknown; testsOmitted?: unknown };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        continue;
      }
      if (event.suite !== suite || !Array.isArray(event.tests)) continue;
      if (typeof event.testsOmitted === "number" && event.testsOmitted > 0) return null;
      const outcomes: SuiteOutcomes = { passed: new Set(), failed: new Set() };
      for (const entry of event.tests) {
        if (typeof entry !== "string") continue;
        const [status = "", id = ""] = entry.split(/ (.*)/s);
        if (!id.startsWith(`${suite}:`)) continue;
        if (status === "passed") outcomes.passed.add(id);
        else if (status === "failed" || status === "error") outcomes.failed.add(id);
      }
      found = outcomes;
    }
  } catch {
    return null;
  }
  return found;
}

/** What the validation's runs say of the existing suite's tests. */
export interface Broken {
  /** Failed in every baseline run (and, where gold ran, in every gold run). */
  atBase: string[];
  /** Passed in every baseline run and failed in every gold run. */
  goldOnly: string[];
  /** Tests that passed in every baseline run. */
  passedAtBase: number;
  /**
   * Failed in some runs and passed in others of the same kind (baseline, or gold): flaky, whatever
   * the diff (sqlparse's test_nested_case_within_cap_under_1s times itself, and fails when the machine
   * is loaded). No regression guard either: left out with the broken ones, named apart.
   */
  flaky: string[];
  /** The runs whose existing suite reported (baseline and gold). */
  runs: number;
}

/**
 * Reads the logs of the baseline and gold runs whose existing suite reported; null when none of the
 * baseline runs did, or a log does not list every test.
 */
export async function brokenTests(root: string, task: TaskReport): Promise<Broken | null> {
  const base: SuiteOutcomes[] = [];
  const gold: SuiteOutcomes[] = [];
  // A run that ended before the existing suite reported (a timeout, an engine failure) says nothing.
  for (const run of task.runs) {
    if (run.log === null || run.existing === null || run.existing.status === "NOT_RUN") continue;
    const outcomes = await existingOutcomes(join(root, run.log));
    if (outcomes === null) return null;
    (run.mode === "baseline" ? base : gold).push(outcomes);
  }
  if (base.length === 0) return null;
  const inEvery = (runs: SuiteOutcomes[], key: keyof SuiteOutcomes) =>
    [...runs[0]![key]].filter((id) => runs.every((r) => r[key].has(id))).sort();
  const atBase = inEvery(base, "failed").filter((id) => gold.every((r) => !r.passed.has(id)));
  const passed = inEvery(base, "passed");
  const goldOnly = gold.length === 0 ? [] : inEvery(gold, "failed").filter((id) => passed.includes(id));
  const mixed = (runs: SuiteOutcomes[], id: string) =>
    runs.some((r) => r.failed.has(id)) && runs.some((r) => r.passed.has(id));
  const seen = new Set([...base, ...gold].flatMap((r) => [...r.failed]));
  const flaky = [...seen].filter((id) => mixed(base, id) || mixed(gold, id)).sort();
  return { atBase, goldOnly, passedAtBase: passed.length, flaky, runs: base.length + gold.length };
}

/** How the existing suite leaves tests out: flags for its command, and files it no longer runs. */
export interface LeaveOut {
  /** Shell words (quoted) for the existing command (`--deselect 'f.py::T::t'`, `-skip '^(TestX)$'`). */
  flags: string[];
  /** Test files dropped whole (a Python file that fails to import). */
  files: string[];
}

/**
 * A report id's parts (`existing:<classname>::<name>`). The classname may hold `::` (mocha's is the
 * test's title, which the full title in the name ends with): the split whose name ends with its
 * classname wins, else the first.
 */
function parts(id: string): { classname: string; name: string } | null {
  const body = id.replace(/^(?:existing|hidden):/, "");
  const splits: number[] = [];
  for (let at = body.indexOf("::"); at >= 0; at = body.indexOf("::", at + 1)) splits.push(at);
  if (splits.length === 0) return null;
  for (const at of splits) {
    const classname = body.slice(0, at);
    const name = body.slice(at + 2);
    if (classname !== "" && name.endsWith(classname)) return { classname, name };
  }
  return { classname: body.slice(0, splits[0]), name: body.slice(splits[0]! + 2) };
}

/**
 * The flags that leave `ids` out of the existing suite, per runner, and the ids it cannot place
 * (then nothing is left out: the user reads why). pytest: `--deselect` by node id, the file dropped
 * when it failed to import; Go: `-skip` of the top-level test names; mocha: an inverted `--grep` of
 * the full titles; jest and vitest: an anchored negative lookahead of the full names as `-t`.
 */
export function leaveOut(
  framework: Framework,
  existingFiles: readonly string[],
  ids: readonly string[],
  /** The existing command as it is: a selection of its own of the same kind is not overridden. */
  command = "",
): { leave: LeaveOut; unplaced: string[] } {
  const leave: LeaveOut = { flags: [], files: [] };
  const unplaced: string[] = [];
  if (framework === "pytest" || framework === "unittest") {
    const modules = existingFiles
      .filter((f) => f.endsWith(".py"))
      .map((f) => ({ file: f, module: f.slice(0, -3).split("/").join(".") }))
      // The longest module first: `tests.a.b` before `tests.a`.
      .sort((a, b) => b.module.length - a.module.length);
    for (const id of ids) {
      const p = parts(id);
      // pytest's report may name the file instead of the classname (junit_family=xunit1, legacy):
      // `tests/test_core.py::test_package_version` is then the node id itself.
      if (p?.classname.endsWith(".py") && existingFiles.includes(p.classname)) {
        leave.flags.push("--deselect", shellQuote(`${p.classname}::${p.name}`));
        continue;
      }
      const whole = p && p.classname === "" ? modules.find((m) => m.module === p.name) : undefined;
      if (whole) {
        if (!leave.files.includes(whole.file)) leave.files.push(whole.file);
        continue;
      }
      const m = p
        ? modules.find((x) => p.classname === x.module || p.classname.startsWith(`${x.module}.`))
        : undefined;
      if (!p || !m) {
        unplaced.push(id);
        continue;
      }
      const classes = p.classname.slice(m.module.length + 1);
      const node = [m.file, ...(classes ? classes.split(".") : []), p.name].join("::");
      leave.flags.push("--deselect", shellQuote(node));
    }
  } else if (framework === "go" && !/ -skip /.test(command)) {
    const names = new Set<string>();
    for (const id of ids) {
      const p = parts(id);
      const top = p?.name.split("/")[0];
      if (!top || !/^(Test|Example|Fuzz)/.test(top)) unplaced.push(id);
      else names.add(top);
    }
    if (names.size > 0) leave.flags.push("-skip", shellQuote(`^(${[...names].sort().join("|")})$`));
  } else if (framework === "mocha" && !/ '?(--grep|-g|--fgrep|-f|--invert|-i)\b/.test(command)) {
    const titles: string[] = [];
    for (const id of ids) {
      const p = parts(id);
      if (!p || p.name === "") unplaced.push(id);
      else titles.push(`^${escapeRegex(p.name)}$`);
    }
    if (titles.length > 0) leave.flags.push("--grep", shellQuote(titles.join("|")), "--invert");
  } else if (framework === "jest" && !/ '?(-t|--testNamePattern)\b/.test(command)) {
    // jest matches -t against a test's full name (its describe titles and its own, joined by
    // spaces), which jest-junit writes as the report's name: a negative lookahead of those names,
    // anchored, runs every other test. (jest compares ignoring case.)
    const names: string[] = [];
    for (const id of ids) {
      const p = parts(id);
      if (!p || p.name === "") unplaced.push(id);
      else names.push(escapeRegex(p.name));
    }
    if (names.length > 0) leave.flags.push("-t", shellQuote(`^(?!(?:${names.join("|")})$)`));
  } else if (framework === "vitest" && !/ '?(-t|--testNamePattern)\b/.test(command)) {
    // vitest matches -t against its describe titles and the test's, joined by spaces (after the
    // file's unnamed suite, in some versions a leading space), where its JUnit report joins them by
    // " > ": a negative lookahead of each name so joined, anchored at its end, runs every other test.
    const names: string[] = [];
    for (const id of ids) {
      const p = parts(id);
      if (!p || p.name === "") unplaced.push(id);
      else names.push(escapeRegex(p.name.split(" > ").join(" ")));
    }
    if (names.length > 0) leave.flags.push("-t", shellQuote(`^(?!.*(?:${names.join("|")})$)`));
  } else unplaced.push(...ids);
  return { leave, unplaced };
}

/** What the validation's runs say of the hidden suite's tests. */
export interface HiddenBroken {
  /** Failed in every baseline run and every gold run: neither FAIL_TO_PASS nor PASS_TO_PASS. */
  everywhere: string[];
  /** Failed in some gold run, and not in every run: gold.diff's own failures (a real GOLD_FAILS). */
  goldOnly: string[];
  /** Passed in every gold run and not in every baseline run: what the task still tests without the rest. */
  failToPass: string[];
}

/**
 * The hidden tests that fail whatever the diff (wcwidth 4c91403: `test_package_version` reads
 * `importlib.metadata.version('wcwidth')`, and the image installs nothing of the repository), told
 * apart from those gold.diff fails while the base passes them and from the fix's regression tests
 * that gold passes. Null when a baseline or a gold run's log does not list every hidden test.
 */
export async function hiddenBroken(root: string, task: TaskReport): Promise<HiddenBroken | null> {
  const base: SuiteOutcomes[] = [];
  const gold: SuiteOutcomes[] = [];
  for (const run of task.runs) {
    if (run.log === null || !run.hidden || run.hidden.status === "NOT_RUN") continue;
    const outcomes = await existingOutcomes(join(root, run.log), "hidden");
    if (outcomes === null) return null;
    (run.mode === "baseline" ? base : gold).push(outcomes);
  }
  if (base.length === 0 || gold.length === 0) return null;
  const every = (runs: SuiteOutcomes[], key: keyof SuiteOutcomes, id: string) =>
    runs.every((r) => r[key].has(id));
  const failedByGold = new Set(gold.flatMap((r) => [...r.failed]));
  const everywhere = [...failedByGold]
    .filter((id) => every(gold, "failed", id) && every(base, "failed", id))
    .sort();
  const goldOnly = [...failedByGold].filter((id) => !everywhere.includes(id)).sort();
  const failToPass = [...gold[0]!.passed]
    .filter((id) => every(gold, "passed", id) && !every(base, "passed", id))
    .sort();
  return { everywhere, goldOnly, failToPass };
}

/** The first few of a list, for a line a person reads. */
export function someOf(list: readonly string[], n = 5): string {
  return `${list.slice(0, n).join(", ")}${list.length > n ? `, … (${list.length} in all)` : ""}`;
}

/** The first error line of a suite's output: pytest's `E   TypeError: …`, else a line naming an Error. */
export function firstError(raw: string): string | null {
  const output = raw.replace(/\x1b\[[0-9;]*m/g, "");
  // A dotted class is named whole: `E   importlib.metadata.PackageNotFoundError: …` (wcwidth 4c91403).
  const pytest = /^E {3,}([\w.]*(?:Error|Exception)\b.*)$/m.exec(output);
  if (pytest) return pytest[1]!.trim().slice(0, 300);
  const other = /^\s*(\w*(?:Error|Exception)\b[:\s].*)$/m.exec(output);
  return other ? other[1]!.trim().slice(0, 300) : null;
}

/**
 * When gold.diff fails hidden tests: which, how many of them fail at the base too, and the first
 * error of the gold run's hidden output. Null when no gold run's log lists a failing hidden test.
 */
export async function goldHiddenFailures(
  root: string,
  task: TaskReport,
): Promise<{ failed: string[]; atBaseToo: string[]; error: string | null; log: string } | null> {
  const gold = task.runs.find((r) => r.mode === "gold" && r.log !== null && r.hidden?.status === "FAIL");
  if (!gold) return null;
  const outcomes = await existingOutcomes(join(root, gold.log!), "hidden");
  if (outcomes === null || outcomes.failed.size === 0) return null;
  const failed = [...outcomes.failed].sort();
  const atBaseToo = new Set<string>();
  for (const run of task.runs)
    if (run.mode === "baseline" && run.log !== null) {
      const base = await existingOutcomes(join(root, run.log), "hidden");
      for (const id of failed) if (base?.failed.has(id)) atBaseToo.add(id);
    }
  const output = await suiteOutput(join(root, gold.log!), "hidden");
  return { failed, atBaseToo: [...atBaseToo].sort(), error: firstError(output), log: gold.log! };
}

/** A suite's output in a run's oracle log, its chunks joined. */
async function suiteOutput(logFile: string, suite: "existing" | "hidden"): Promise<string> {
  let output = "";
  const lines = createInterface({ input: createReadStream(logFile, "utf8"), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.includes('"message":"suite.output"') || !line.includes(`"suite":"${suite}"`)) continue;
    try {
      output += (JSON.parse(line) as { text?: string }).text ?? "";
    } catch {
      // a line cut short says nothing
    }
  }
  return output;
}

/** A suite whose runner exited non-zero although its report says every test passed. */
export interface ExitAfterPass {
  suite: "existing" | "hidden";
  /** The runner's exit code, and how many tests passed, as the run's message says. */
  code: number;
  passed: number;
  /** The first error of that suite's output, or null. */
  error: string | null;
  log: string;
}

/**
 * The first run whose runner exited non-zero with every test of its report passed
 * (REPORT_INCONSISTENT, "runner exited N but its report says all passed"): what fails is no test but
 * what the runner does after them (unjs/destr f9c78d4: vitest 0.34 writing its results cache into
 * the image's node_modules), so narrowing the suite, the sweep's hint for EXISTING_SUITE_FAILS,
 * cannot help. Null when no run says so.
 */
export async function exitAfterPass(root: string, task: TaskReport): Promise<ExitAfterPass | null> {
  for (const run of task.runs) {
    const m =
      /^(existing|hidden) suite: runner exited (\d+) but its report says all passed \((\d+) passed/.exec(
        run.message,
      );
    if (run.reason !== "REPORT_INCONSISTENT" || m === null || run.log === null) continue;
    const suite = m[1] as "existing" | "hidden";
    const output = await suiteOutput(join(root, run.log), suite).catch(() => "");
    // vitest names an error after its tests "Unhandled Error": read from there.
    const after = output.slice(Math.max(0, output.lastIndexOf("Unhandled Error")));
    const error = firstError(after) ?? firstError(output);
    return { suite, code: Number(m[2]), passed: Number(m[3]), error, log: run.log };
  }
  return null;
}
