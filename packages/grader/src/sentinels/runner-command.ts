import { posix } from "node:path";
import { shellQuote } from "../run/shell.js";

/** The runners that get in-process sentinels. */
export type SentinelFramework = "pytest" | "mocha" | "jest" | "vitest" | "go";

/** A runner found in a suite's command: its arguments and the folder it starts in (relative to the checkout). */
export interface RunnerCall {
  framework: SentinelFramework;
  args: string[];
  cwd: string;
  /** The whole command as the task writes it, when the runner is started by it (not by a package script): the oracle may rewrite it (`replaceFlagValue`, `insertAfterWord`). */
  command?: string;
}

/**
 * `command` with the value of its one flag spelt as one of `names` (`-t X` or `-t=X`) replaced by
 * `value`, single-quoted; null when no word or more than one is such a flag (the last would win,
 * and the oracle reads one), or the flag has no value after it. The caller reads the rewritten
 * command again to check what it selects.
 */
export function replaceFlagValue(command: string, names: readonly string[], value: string): string | null {
  const words = spannedWords(command);
  const flagOf = (word: string) => names.find((n) => word === n || word.startsWith(`${n}=`));
  const flags = words.flatMap((w, i) => (flagOf(w.text) === undefined ? [] : [i]));
  if (flags.length !== 1) return null;
  const at = flags[0]!;
  const name = flagOf(words[at]!.text)!;
  const joined = words[at]!.text !== name;
  const target = joined ? words[at] : words[at + 1];
  if (target === undefined || target.expands) return null;
  const [start, end] = target.span;
  return `${command.slice(0, start)}${shellQuote(joined ? `${name}=${value}` : value)}${command.slice(end)}`;
}

/**
 * `command` with `added` (each single-quoted) inserted after its word `word` (its unquoted value);
 * null when no word or more than one has that value.
 */
export function insertAfterWord(command: string, word: string, added: readonly string[]): string | null {
  const at = spannedWords(command).filter((w) => w.text === word);
  if (at.length !== 1 || at[0]!.expands) return null;
  const end = at[0]!.span[1];
  return `${command.slice(0, end)}${added.map((w) => ` ${shellQuote(w)}`).join("")}${command.slice(end)}`;
}

/** Every word of a command with its place in the text and whether the shell expands something in it. */
const spannedWords = (command: string) =>
  shellSegments(command).flatMap((s) =>
    s.words.map((text, i) => ({ text, span: s.spans[i]!, expands: s.expands[i]! })),
  );

/** gotestsum's own flags that take a value (before `--`). */
const GOTESTSUM_VALUES = new Set(
  "-f --format --junitfile --jsonfile --packages --post-run-command --hide-summary --format-icons --max-fails --junitfile-testsuite-name --junitfile-testcase-classname --junitfile-project-name --rerun-fails-max-failures --rerun-fails-report".split(
    " ",
  ),
);

/**
 * The `go test` arguments of a gotestsum command line (its words after `gotestsum`), or null for a
 * `--raw-command` that is not `go test`. gotestsum runs `go test -json ./...` without arguments and
 * appends `--packages` to the arguments after `--`.
 */
export function gotestsumArgs(words: string[]): string[] | null {
  const dash = words.indexOf("--");
  const own = dash < 0 ? words : words.slice(0, dash);
  const rest = dash < 0 ? [] : words.slice(dash + 1);
  let packages: string[] = [];
  let raw = false;
  for (let i = 0; i < own.length; i++) {
    const [name = "", value] = own[i]!.split(/=(.*)/s);
    const val = value ?? (GOTESTSUM_VALUES.has(name) ? own[++i] : undefined);
    if (name === "--packages" && val !== undefined) packages = val.split(/\s+/).filter(Boolean);
    if (name === "--raw-command") raw = true;
  }
  if (raw) {
    const go = rest.findIndex((w, i) => posix.basename(w) === "go" && rest[i + 1] === "test");
    return go < 0 ? null : rest.slice(go + 2);
  }
  if (rest.length === 0) return packages.length > 0 ? packages : ["./..."];
  return [...rest, ...packages];
}

/** A simple command of a shell command line and the operator after it (`&&`, `||`, `;`, `|`, `&`, a newline), null at the end. */
export interface ShellSegment {
  words: string[];
  /** Each word's place in the command's text, quotes included: `[start, end)`. */
  spans: Array<[number, number]>;
  /**
   * Per word: whether it has something the shell expands (a parameter, a command substitution,
   * backquotes) outside single quotes. Its value is then not the text read here, and a rewrite
   * would freeze it. `$` before a quote, a space, `|` or `)` is a plain `$` to sh.
   */
  expands: boolean[];
  next: string | null;
}

/**
 * Splits a shell command into simple commands of unquoted words, each with the operator that
 * follows it; an unquoted `#` starting a word comments out the rest of its line.
 */
export function shellSegments(command: string): ShellSegment[] {
  const segments: ShellSegment[] = [{ words: [], spans: [], expands: [], next: null }];
  let word: string | null = null;
  let start = 0;
  let expanding = false;
  const push = (end: number) => {
    if (word !== null) {
      const segment = segments[segments.length - 1]!;
      segment.words.push(word);
      segment.spans.push([start, end]);
      segment.expands.push(expanding);
    }
    word = null;
    expanding = false;
  };
  /** Whether the unescaped character at `at` starts an expansion. */
  const expansionAt = (at: number) =>
    command[at] === "`" || (command[at] === "$" && /[\w{(@*#?$!-]/.test(command[at + 1] ?? ""));
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (word === null) start = i;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? "") + command.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? command.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      while (j < command.length && command[j] !== '"') {
        // Inside double quotes a backslash escapes only $ ` " \ and a newline; elsewhere it stays.
        if (command[j] === "\\" && j + 1 < command.length && '$`"\\\n'.includes(command[j + 1]!)) j++;
        else if (expansionAt(j)) expanding = true;
        text += command[j];
        j++;
      }
      word = (word ?? "") + text;
      i = j;
    } else if (c === "\\" && i + 1 < command.length) {
      word = (word ?? "") + command[++i];
    } else if (c === "#" && word === null) {
      const eol = command.indexOf("\n", i);
      i = (eol < 0 ? command.length : eol) - 1;
    } else if (/\s/.test(c) && c !== "\n") {
      push(i);
    } else if (c === ";" || c === "|" || c === "&" || c === "\n") {
      push(i);
      const double = (c === "&" || c === "|") && command[i + 1] === c;
      if (double) i++;
      segments[segments.length - 1]!.next = double ? `${c}${c}` : c;
      segments.push({ words: [], spans: [], expands: [], next: null });
    } else {
      if (expansionAt(i)) expanding = true;
      word = (word ?? "") + c;
    }
  }
  push(command.length);
  return segments.filter((s) => s.words.length > 0);
}

/** Splits a shell command into simple commands (at `&&`, `||`, `;`, `|`, newlines) of unquoted words. */
export function shellWords(command: string): string[][] {
  return shellSegments(command).map((s) => s.words);
}

const PYTEST_NAMES = new Set(["pytest", "py.test", "pytest-3"]);
const PYTHON = /^python(\d+(\.\d+)?)?$/;
const JS_BINS: Record<string, SentinelFramework> = {
  mocha: "mocha",
  _mocha: "mocha",
  "mocha.js": "mocha",
  jest: "jest",
  "jest.js": "jest",
  vitest: "vitest",
  "vitest.mjs": "vitest",
};
/** An environment assignment before a command's program (`CI=1 npm test`). */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Words that start another program with the rest of the command line. */
const WRAPPERS = new Set(["env", "cross-env", "exec", "command", "nice", "npx", "pnpx", "bunx"]);

/** The index of a simple command's program: past assignments, wrappers and their options, `npm exec`, `timeout N`. */
function programIndex(words: readonly string[]): number {
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    const name = posix.basename(word);
    if (ASSIGNMENT.test(word) || WRAPPERS.has(name) || (word.startsWith("-") && i > 0)) i++;
    else if ((name === "pnpm" || name === "npm" || name === "yarn") && words[i + 1] === "exec") i += 2;
    else if (name === "yarn" || name === "pnpm") i++;
    else if (name === "timeout") i += 2;
    else break;
  }
  return i;
}

/** The runner a simple command starts, with its arguments, or null. */
function runnerOf(words: readonly string[]): { framework: SentinelFramework; args: string[] } | null {
  const i = programIndex(words);
  const program = words[i];
  if (program === undefined) return null;
  const name = posix.basename(program);
  const rest = words.slice(i + 1);
  if (PYTEST_NAMES.has(name)) return { framework: "pytest", args: rest };
  if (PYTHON.test(name)) {
    const m = rest.indexOf("-m");
    const module = m >= 0 ? rest[m + 1] : undefined;
    return module === "pytest" || module === "py.test"
      ? { framework: "pytest", args: rest.slice(m + 2) }
      : null;
  }
  const js = JS_BINS[name];
  if (js) return { framework: js, args: rest };
  if (name === "go" && rest[0] === "test") return { framework: "go", args: rest.slice(1) };
  if (name === "gotestsum") {
    const args = gotestsumArgs(rest);
    return args ? { framework: "go", args } : null;
  }
  if (name === "node" || name === "nodejs") {
    const script = rest.findIndex((w) => !w.startsWith("-"));
    const bin = script >= 0 ? JS_BINS[posix.basename(rest[script]!)] : undefined;
    return bin ? { framework: bin, args: rest.slice(script + 1) } : null;
  }
  return null;
}

/**
 * The base commit's package.json `scripts`, by the folder (relative to the checkout, "" for the
 * root) each package.json stands in: what `npm test` and `yarn <script>` run. Null: a package.json
 * is there that the oracle cannot read (not JSON, too large), which npm would still use.
 */
export type PackageScripts = ReadonlyMap<string, Readonly<Record<string, string>> | null>;

/** npm's own options that say nothing of the script: anything else before `--` is not read. */
const NPM_QUIET = /^(-s|--silent|-q|--quiet|-d|--loglevel=\w+|--no-update-notifier|--if-present)$/;
/** A script `npm run` calls may call another: this deep and no deeper. */
const MAX_SCRIPT_DEPTH = 3;

/**
 * A simple command that runs a package script: `npm test`/`npm t`/`npm run <name>`,
 * `yarn [run] <name>`, `pnpm [run] <name>`, with the arguments the package manager passes on to the
 * script (npm: its positionals and all after `--`; yarn and pnpm: all after the name). Null for
 * anything else, for npm options before `--` the oracle does not know, and for a `--` given to yarn
 * or pnpm (which pass it on or not by version).
 */
export function scriptCall(words: readonly string[]): { name: string; args: string[] } | null {
  let i = 0;
  while (i < words.length && ASSIGNMENT.test(words[i]!)) i++;
  const tool = posix.basename(words[i] ?? "");
  const rest = words.slice(i + 1);
  if (tool === "npm") {
    const at = rest.findIndex((w) => !NPM_QUIET.test(w));
    const verb = rest[at];
    let after = rest.slice(at + 1);
    let name: string | undefined;
    if (verb === "test" || verb === "t" || verb === "tst") name = "test";
    else if (verb === "run" || verb === "run-script") {
      const n = after.findIndex((w) => !NPM_QUIET.test(w));
      name = after[n];
      after = after.slice(n + 1);
    }
    if (name === undefined || at < 0 || name.startsWith("-")) return null;
    const dash = after.indexOf("--");
    const own = (dash < 0 ? after : after.slice(0, dash)).filter((w) => !NPM_QUIET.test(w));
    if (own.some((w) => w.startsWith("-"))) return null;
    return { name, args: [...own, ...(dash < 0 ? [] : after.slice(dash + 1))] };
  }
  if (tool !== "yarn" && tool !== "pnpm") return null;
  const named = rest[0] === "run" ? rest.slice(1) : rest;
  const name = named[0];
  if (name === undefined || name.startsWith("-") || name === "exec" || name === "dlx") return null;
  const args = named.slice(1);
  // yarn 1 drops a `--` before the arguments; pnpm (and yarn 2+) pass it on to the script, where
  // the runner reads what follows as files: not read.
  if (args.includes("--")) return null;
  return { name, args };
}

/** The scripts of the package a command in `cwd` belongs to (npm looks upwards), with its folder. */
function packageAt(
  scripts: PackageScripts,
  cwd: string,
): { dir: string; scripts: Readonly<Record<string, string>> } | null {
  for (const dir of folderAndAbove(cwd)) {
    const found = scripts.get(dir);
    // The nearest package.json is the one npm uses: one the oracle could not read ends the search.
    if (found !== undefined) return found === null ? null : { dir, scripts: found };
  }
  return null;
}

/**
 * A folder of the checkout and those above it, up to the root (""); none for a folder outside the
 * checkout (`cd ..`, an absolute path), which holds nothing of the base commit.
 */
function* folderAndAbove(cwd: string): Generator<string> {
  if (cwd.startsWith("..") || cwd.startsWith("/")) return;
  for (let dir = cwd; dir !== ""; dir = posix.dirname(dir).replace(/^\.$/, "")) yield dir;
  yield "";
}

/** The simple commands of a command line, each with the folder it runs in (after the `cd`s before it). */
function* simpleCommands(command: string): Generator<{ words: string[]; cwd: string }> {
  let cwd = "";
  for (const words of shellWords(command)) {
    if (words[0] === "cd" && words[1] !== undefined)
      cwd = posix.normalize(posix.join(cwd, words[1])).replace(/^\.$/, "");
    else yield { words, cwd };
  }
}

/** The package.json files `command`'s package scripts could be read from (the folders it runs in, upwards). */
export function packageJsonPaths(command: string): string[] {
  const paths = new Set<string>();
  for (const { words, cwd } of simpleCommands(command)) {
    if (scriptCall(words) === null) continue;
    for (const dir of folderAndAbove(cwd)) paths.add(dir === "" ? "package.json" : `${dir}/package.json`);
  }
  return [...paths];
}

/**
 * The test runner a suite's command starts (pytest, `python3 -m pytest`, `pytest-3`, `py.test`;
 * mocha, `npx mocha`, `node_modules/.bin/mocha`; jest; vitest), behind `cd`, `ln … &&`, env
 * assignments and `npx`/`pnpm exec`; `go test`, `gotestsum … -- <go test args>` (its go test
 * arguments); through a package script (`npm test -- <args>`, `yarn test <args>`) when `scripts`
 * holds the base commit's package.json, its arguments then the script's followed by the passed ones
 * (only when the runner is the script's last command, where npm appends them); null for anything
 * else (`python3 -m xmlrunner`).
 */
export function findRunner(command: string, scripts: PackageScripts | null = null): RunnerCall | null {
  for (const { words, cwd } of simpleCommands(command)) {
    const runner = runnerOf(words);
    if (runner) return { ...runner, cwd, command };
    const script = scripts ? throughScript(words, scripts, cwd, 0) : null;
    if (script) return script;
  }
  return null;
}

/**
 * The runner a package script starts, read as npm runs it: the passed arguments appended to the
 * script's text, which reaches its last simple command only. So the runner (or a package script
 * call, followed) must be that last command, after commands joined by `&&` that start neither a
 * runner nor a script nor change folder (a `|`, `||` or `;` before it, or a `| tee` after it, changes
 * the exit code the oracle holds the report to); no redirection. No `command`: nothing to rewrite.
 */
function throughScript(
  words: readonly string[],
  scripts: PackageScripts,
  cwd: string,
  depth: number,
): RunnerCall | null {
  const call = scriptCall(words);
  const pkg = call ? packageAt(scripts, cwd) : null;
  const text = call && pkg ? pkg.scripts[call.name] : undefined;
  if (!call || !pkg || text === undefined) return null;
  // As npm does it: each argument quoted, appended to the text after a space.
  const quoted = call.args.map(shellQuote);
  const segments = shellSegments([text, ...quoted].join(" "));
  const last = segments.at(-1);
  if (last === undefined || last.next !== null) return null;
  const before = segments.slice(0, -1);
  const plain = (s: ShellSegment) =>
    s.next === "&&" && s.words[0] !== "cd" && !mayStartRunner(s.words, scripts, pkg.dir, depth + 1);
  if (!before.every(plain) || last.words.some((w) => /^\d*[<>]/.test(w))) return null;
  const runner = runnerOf(last.words);
  if (runner) return { ...runner, cwd: pkg.dir };
  return depth + 1 < MAX_SCRIPT_DEPTH ? throughScript(last.words, scripts, pkg.dir, depth + 1) : null;
}

/** Whether a simple command inside a script may start a test runner, itself or through the scripts it calls (unsure: yes). */
function mayStartRunner(
  words: readonly string[],
  scripts: PackageScripts,
  cwd: string,
  depth: number,
): boolean {
  if (runnerOf(words) !== null) return true;
  const call = scriptCall(words);
  if (call === null) return false;
  if (depth >= MAX_SCRIPT_DEPTH) return true;
  const pkg = packageAt(scripts, cwd);
  const text = pkg?.scripts[call.name];
  if (pkg === null || text === undefined) return pkg === null;
  return shellSegments(text).some(
    (s) => s.words[0] === "cd" || mayStartRunner(s.words, scripts, pkg.dir, depth + 1),
  );
}
