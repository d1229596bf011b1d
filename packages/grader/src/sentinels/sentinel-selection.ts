import { posix } from "node:path";
import picomatch from "picomatch";
import { compileKeyword, type KeywordExpression } from "./pytest-keyword.js";
import { findRunner, type PackageScripts, type RunnerCall } from "./runner-command.js";
import { titleFilter } from "./title-filter.js";

/** What a runner's arguments select among the hidden test files, as far as the oracle can tell. */
export interface Selection {
  /** Hidden files the command surely collects (with the pytest class a `file::Class` selection names). */
  covered: Map<string, { className?: string }>;
  /** pytest's `-k` expression: sentinel names must provably satisfy it. */
  keyword?: KeywordExpression;
  /** mocha's `--grep`/`--fgrep` (with `--invert`), jest's and vitest's `-t`: true for a full title the run keeps. */
  keepsTitle?: (fullTitle: string) => boolean;
  /**
   * The name filter, when the oracle can widen it to the pair's full titles (a filter anchored to
   * exact titles keeps no name like the file's): its spellings in the command, and its value that
   * also keeps exactly `titles`. Unset for `--fgrep`, `--invert`, and a filter given twice.
   */
  widenTitles?: { flags: readonly string[]; value: (titles: readonly string[]) => string };
  /** Why a sentinel may be left out although the run is honest (the oracle then only notes it). */
  unsure?: string;
  /** Why no sentinel can be planted at all (a run that stops at its first failure). */
  unprotected?: string;
  /**
   * pytest: files the command selects only by node ids of single tests (`file::test_x`,
   * `file::Class::test_x`, `file::test_x[1-2]`), each with one of its node ids as the command writes
   * it: the pair is selected by adding its own node ids after that word (sentinels.ts).
   */
  nodeIds?: Map<string, string>;
  /** pytest: `--deselect`'s node-id prefixes, from the checkout's top: a test whose node id starts with one is left out. */
  deselect?: readonly string[];
}

interface Parsed {
  positionals: string[];
  values: Map<string, string[]>;
  flags: Set<string>;
}

/**
 * Splits runner arguments into positionals, options with values (`--opt v`, `--opt=v`, `-kv`) and
 * flags. `shortEquals`: the runner reads `-t=v` as `v` (yargs, cac: mocha, jest, vitest), where
 * pytest's argparse reads `-k=v` as `=v`.
 */
function parseArgs(
  args: string[],
  withValue: Set<string>,
  aliases: Record<string, string> = {},
  shortEquals = false,
): Parsed {
  const parsed: Parsed = { positionals: [], values: new Map(), flags: new Set() };
  const add = (name: string, value: string) => {
    const key = aliases[name] ?? name;
    parsed.values.set(key, [...(parsed.values.get(key) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      parsed.positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq > 0 ? arg.slice(0, eq) : arg;
      if (eq > 0) add(name, arg.slice(eq + 1));
      else if (withValue.has(name)) add(name, args[++i] ?? "");
      else parsed.flags.add(aliases[name] ?? name);
    } else if (arg.startsWith("-") && arg.length > 1) {
      const name = arg.slice(0, 2);
      const attached = shortEquals && arg[2] === "=" ? arg.slice(3) : arg.slice(2);
      if (withValue.has(name)) add(name, arg.length > 2 ? attached : (args[++i] ?? ""));
      else for (const c of arg.slice(1)) parsed.flags.add(aliases[`-${c}`] ?? `-${c}`);
    } else parsed.positionals.push(arg);
  }
  return parsed;
}

const joinCwd = (cwd: string, path: string) =>
  posix.normalize(posix.join(cwd, path)).replace(/\/+$/, "").replace(/^\.$/, "");
const GLOB = /[*?[\]{}]/;
const under = (file: string, dir: string) => dir === "" || file.startsWith(`${dir}/`);
const PY_TEST_FILE = /^(test_.*|.*_test)\.py$/;

const PYTEST_VALUES = new Set(
  "-k -m -p -c -o -W -r -n --junitxml --junit-xml --junit-prefix --rootdir --deselect --ignore --ignore-glob --confcutdir --basetemp --maxfail --tb --durations --log-level --log-file --log-cli-level --log-format --cov --cov-report --cov-config --import-mode --capture --color --override-ini --config-file --timeout --dist --count".split(
    " ",
  ),
);

/** An fnmatch pattern (`*` and `?` cross folders, `[…]` a class) as a whole-string regular expression. */
function fnmatch(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) out += "\\[";
      else {
        const body = pattern.slice(i + 1, end);
        out += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else out += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`, "s");
}

/** pytest's `--ignore` (a path, and what is under it) and `--ignore-glob` (fnmatch over the path), from the command's folder. */
function pytestIgnored(
  cwd: string,
  paths: readonly string[],
  globs: readonly string[],
): (file: string) => boolean {
  const dirs = paths.map((p) => joinCwd(cwd, p));
  const patterns = globs.map((g) => fnmatch(joinCwd(cwd, g)));
  return (file) => dirs.some((d) => file === d || under(file, d)) || patterns.some((re) => re.test(file));
}

/** pytest: paths, `file::Class` node ids, `-k` expressions; `-x`/`--maxfail` get no sentinel. */
function pytestSelection(call: RunnerCall, texts: ReadonlyMap<string, string>): Selection {
  const files = [...texts.keys()];
  const p = parseArgs(call.args, PYTEST_VALUES);
  if (["-x", "--exitfirst", "--sw", "--stepwise"].some((f) => p.flags.has(f)) || p.values.has("--maxfail"))
    return {
      covered: new Map(),
      unprotected: "the hidden command stops at its first failure (-x, --maxfail)",
    };
  const selection: Selection = { covered: new Map() };
  const notes: string[] = [];
  const keyword = p.values.get("-k")?.at(-1);
  if (keyword !== undefined) {
    try {
      selection.keyword = compileKeyword(keyword);
    } catch (error) {
      notes.push(`-k ${JSON.stringify(keyword)} is not a pytest expression (${(error as Error).message})`);
    }
  }
  const marker = p.values.get("-m")?.at(-1);
  if (marker !== undefined && !/^not\s+\w+$/.test(marker.trim()))
    notes.push(`-m ${JSON.stringify(marker)} selects by marker`);
  if (p.flags.has("--pyargs")) notes.push("--pyargs names modules, not files");
  const targets = p.positionals.length > 0 ? p.positionals : [""];
  const nodeIds = new Map<string, string>();
  for (const target of targets) {
    const [path = "", ...rest] = target.split("::");
    const full = joinCwd(call.cwd, path);
    if (rest.length > 0) {
      const className = rest[0]!;
      const isClass = () => new RegExp(`^class[ \\t]+${className}\\b`, "m").test(texts.get(full) ?? "");
      if (rest.length === 1 && /^[A-Za-z_]\w*$/.test(className) && isClass())
        selection.covered.set(full, { className });
      else if (texts.has(full) && !nodeIds.has(full)) nodeIds.set(full, target);
      continue;
    }
    const match = GLOB.test(full) ? picomatch(full, { dot: true }) : null;
    for (const file of files) {
      const named = match ? match(file) : file === full;
      if (named || (!match && under(file, full) && PY_TEST_FILE.test(posix.basename(file))))
        selection.covered.set(file, {});
    }
  }
  // `--ignore` (a file or folder) and `--ignore-glob` (fnmatch over the whole path) leave files out.
  const ignored = pytestIgnored(
    call.cwd,
    p.values.get("--ignore") ?? [],
    p.values.get("--ignore-glob") ?? [],
  );
  for (const file of [...selection.covered.keys()]) if (ignored(file)) selection.covered.delete(file);
  for (const file of [...nodeIds.keys()])
    if (ignored(file) || selection.covered.has(file)) nodeIds.delete(file);
  // `--deselect` leaves the tests it names alone; `--ff`/`--nf` only order the run. `-m` and `--lf`
  // select by what the oracle does not read: a pair named by node id could still be left out.
  const byName = p.values.has("-m");
  const byLastRun = ["--lf", "--last-failed"].some((f) => p.flags.has(f));
  const deselect = (p.values.get("--deselect") ?? []).map((id) => {
    const [path = "", ...rest] = id.split("::");
    return [joinCwd(call.cwd, path), ...rest].join("::");
  });
  if (deselect.length > 0) selection.deselect = deselect;
  const unreadK = p.values.has("-k") && selection.keyword === undefined;
  if (!byName && !byLastRun && !unreadK && !p.flags.has("--pyargs") && nodeIds.size > 0)
    selection.nodeIds = nodeIds;
  if (selection.covered.size === 0 && selection.nodeIds === undefined)
    notes.push("no hidden test file is selected by path");
  if (notes.length > 0) selection.unsure = notes.join("; ");
  return selection;
}

const MOCHA_VALUES = new Set(
  "-R --reporter -O --reporter-option --reporter-options -r --require -u --ui -t --timeout -s --slow -g --grep -f --fgrep --config --package --extension --ignore --exclude --file --spec --retries -j --jobs -n --node-option --watch-files --watch-ignore".split(
    " ",
  ),
);
const MOCHA_ALIASES = { "-g": "--grep", "-f": "--fgrep", "-b": "--bail", "-i": "--invert" };

/** mocha: spec files, folders and globs (default ./test); `--grep`/`--fgrep`/`--invert`; `--bail` gets no sentinel. */
function mochaSelection(call: RunnerCall, files: string[]): Selection {
  const p = parseArgs(call.args, MOCHA_VALUES, MOCHA_ALIASES, true);
  if (p.flags.has("--bail"))
    return { covered: new Map(), unprotected: "the hidden command stops at its first failure (--bail)" };
  const selection: Selection = { covered: new Map() };
  const notes: string[] = [];
  const grep = p.values.get("--grep")?.at(-1);
  const fgrep = p.values.get("--fgrep")?.at(-1);
  if (grep !== undefined || fgrep !== undefined) {
    const filter = titleFilter("mocha", { grep, fgrep, invert: p.flags.has("--invert") });
    if (typeof filter === "string") notes.push(filter);
    else selection.keepsTitle = filter;
    const once = (p.values.get("--grep") ?? []).length === 1;
    if (
      typeof filter !== "string" &&
      grep !== undefined &&
      fgrep === undefined &&
      !p.flags.has("--invert") &&
      once
    ) {
      // mocha reads `/re/flags` as a RegExp with flags, anything else as the pattern itself.
      const slashed = /^\/(.*)\/([gimy]{0,4})$/s.exec(grep);
      selection.widenTitles = {
        flags: ["-g", "--grep"],
        value: (titles) =>
          slashed ? `/${slashed[1]}|${exactly(titles)}/${slashed[2]}` : `${grep}|${exactly(titles)}`,
      };
    }
  }
  const exts = (p.values.get("--extension") ?? [])
    .flatMap((e) => e.split(","))
    .map((e) => e.replace(/^\./, ""));
  const extensions = new Set(["js", "cjs", "mjs", ...exts]);
  const recursive = p.flags.has("--recursive");
  const specs = [...p.positionals, ...(p.values.get("--spec") ?? []), ...(p.values.get("--file") ?? [])];
  for (const spec of specs.length > 0 ? specs : ["test"]) {
    const full = joinCwd(call.cwd, spec.replace(/^\.\//, ""));
    const match = GLOB.test(full) ? picomatch(full, { dot: true }) : null;
    for (const file of files) {
      const inDir =
        under(file, full) &&
        extensions.has(posix.extname(file).slice(1)) &&
        (recursive || posix.dirname(file) === (full || "."));
      if (match ? match(file) : file === full || inDir) selection.covered.set(file, {});
    }
  }
  // `--ignore`/`--exclude`: globs (from the command's folder) of spec files mocha leaves out.
  const ignores = [...(p.values.get("--ignore") ?? []), ...(p.values.get("--exclude") ?? [])].map((g) =>
    picomatch(joinCwd(call.cwd, g.replace(/^\.\//, "")), { dot: true }),
  );
  for (const file of [...selection.covered.keys()])
    if (ignores.some((ignored) => ignored(file))) selection.covered.delete(file);
  if (selection.covered.size === 0) notes.push("no hidden test file is selected by the spec");
  if (notes.length > 0) selection.unsure = notes.join("; ");
  return selection;
}

const JEST_VALUES = new Set(
  "--testPathIgnorePatterns --exclude -t --testNamePattern --testPathPattern --testPathPatterns -c --config --reporters --testResultsProcessor --maxWorkers -w --rootDir --roots --testTimeout --outputFile --reporter --dir --project --environment --pool --shard --root".split(
    " ",
  ),
);
const JS_TEST_FILE = /(?:\/__tests__\/.*|\.(?:test|spec))\.[cm]?[jt]sx?$/;
/**
 * jest's default testMatch (`**\/?(*.)+(spec|test).[jt]s?(x)`) also takes a bare `test.js` or
 * `spec.ts` in any folder (new-task makes such tasks: templates.ts jestDefaultTests); vitest's
 * default include (`**\/*.{test,spec}.?(c|m)[jt]s?(x)`) does not.
 */
const JEST_BARE_TEST_FILE = /\/(?:test|spec)\.[cm]?[jt]sx?$/;

/**
 * jest's `--testPathIgnorePatterns` (regular expressions over the absolute path; one that does not
 * compile leaves every file out) and vitest's `--exclude` (globs from the command's folder).
 */
function ignoredByJest(call: RunnerCall, p: Parsed, abs: string): boolean {
  if (call.framework === "vitest")
    return (p.values.get("--exclude") ?? []).some((g) =>
      picomatch(`/work/repo/${joinCwd(call.cwd, g.replace(/^\.\//, ""))}`, { dot: true })(abs),
    );
  return (p.values.get("--testPathIgnorePatterns") ?? []).some((pattern) => {
    try {
      return new RegExp(pattern).test(abs);
    } catch {
      return true;
    }
  });
}

/** jest / vitest: path patterns (regular expressions for jest, substrings for vitest), `-t`; `--bail` gets no sentinel. */
function jestLikeSelection(call: RunnerCall, files: string[]): Selection {
  const p = parseArgs(call.args, JEST_VALUES, { "--testNamePattern": "-t" }, true);
  if (p.flags.has("--bail") || p.values.has("--bail") || p.flags.has("-b"))
    return { covered: new Map(), unprotected: "the hidden command stops at its first failure (--bail)" };
  const selection: Selection = { covered: new Map() };
  const notes: string[] = [];
  const name = p.values.get("-t")?.at(-1);
  if (name !== undefined) {
    const filter = titleFilter(call.framework === "vitest" ? "vitest" : "jest", { grep: name });
    if (typeof filter === "string") notes.push(filter);
    else selection.keepsTitle = filter;
    if (typeof filter !== "string" && p.values.get("-t")!.length === 1)
      selection.widenTitles = {
        flags: ["-t", "--testNamePattern"],
        value: (titles) => `${name}|${exactly(titles)}`,
      };
  }
  const positionals = p.positionals.filter((w, i) => !(i === 0 && ["run", "related", "watch"].includes(w)));
  const patterns = [...positionals, ...(p.values.get("--testPathPattern") ?? [])];
  for (const file of files) {
    const named =
      JS_TEST_FILE.test(`/${file}`) || (call.framework === "jest" && JEST_BARE_TEST_FILE.test(`/${file}`));
    if (!named || !under(file, call.cwd)) continue;
    const abs = `/work/repo/${file}`;
    const picked =
      patterns.length === 0 ||
      patterns.some((pattern) => {
        if (call.framework === "vitest") return abs.includes(pattern.replace(/^\.\//, ""));
        try {
          return new RegExp(pattern).test(abs);
        } catch {
          return false;
        }
      });
    if (picked && !ignoredByJest(call, p, abs)) selection.covered.set(file, {});
  }
  if (selection.covered.size === 0) notes.push("no hidden test file matches the command's path patterns");
  if (notes.length > 0) selection.unsure = notes.join("; ");
  return selection;
}

/**
 * A pattern that matches these titles whole, each escaped, alone or after the titles of the suites
 * around them (`(?:^| )(?:a|b)$`): a pair appended after mocha's qunit `suite("x");` belongs to that
 * suite, whatever the file's first `describe` says.
 */
const exactly = (titles: readonly string[]) =>
  `(?:^| )(?:${titles.map((t) => t.replace(/[|\\{}()[\]^$+*?.]/g, "\\$&")).join("|")})$`;

/** What the hidden command's runner selects among the hidden test files. */
export function selectionOf(call: RunnerCall, texts: ReadonlyMap<string, string>): Selection {
  if (call.framework === "pytest") return pytestSelection(call, texts);
  const files = [...texts.keys()];
  if (call.framework === "mocha") return mochaSelection(call, files);
  return jestLikeSelection(call, files);
}

/**
 * jest's and vitest's `-t`: a report lists the tests the filter leaves out as skipped (jest-junit,
 * vitest's junit reporter). True for a report test whose full title the hidden command's own name
 * filter does not keep: the command deselected it, the code under test did not skip it. Null when
 * the command has no such filter (mocha's `--grep` leaves its tests out of the report).
 */
export function deselectedByName(
  command: string,
  scripts: PackageScripts | null = null,
): ((test: { id: string }) => boolean) | null {
  const call = findRunner(command, scripts);
  if (call === null || (call.framework !== "jest" && call.framework !== "vitest")) return null;
  const keeps = jestLikeSelection(call, []).keepsTitle;
  if (keeps === undefined) return null;
  return (test) => {
    const at = test.id.indexOf("::");
    if (at < 0) return false;
    // vitest names a test by its describes and title joined with " > "; the filter sees them joined by spaces.
    return !keeps(
      test.id
        .slice(at + 2)
        .split(" > ")
        .join(" "),
    );
  };
}
