import { posix } from "node:path";
import { gotestsumArgs } from "./sentinel-go.js";

/** The runners that get in-process sentinels. */
export type SentinelFramework = "pytest" | "mocha" | "jest" | "vitest" | "go";

/** A runner found in a suite's command: its arguments and the folder it starts in (relative to the checkout). */
export interface RunnerCall {
  framework: SentinelFramework;
  args: string[];
  cwd: string;
  /** The whole command as the task writes it (a rewrite of a word in it: `replaceWord`). */
  command?: string;
}

/** A word `replaceWord` can find and rewrite: no character the shell would read otherwise. */
const PLAIN_WORD = /^[\w./:+@%,=-]+$/;

/**
 * `command` with the one occurrence of each word of `replacements` as a whole shell word (bare, or
 * alone in single or double quotes) replaced by its new words, each quoted as the word was; null
 * when a word does not occur exactly once in the command's text, or a word needs quoting of its own.
 */
export function replaceWords(
  command: string,
  replacements: ReadonlyMap<string, readonly string[]>,
): string | null {
  const spots: Array<{ start: number; end: number; text: string }> = [];
  for (const [word, words] of replacements) {
    if (![word, ...words].every((w) => PLAIN_WORD.test(w))) return null;
    if (command.split(word).length !== 2) return null;
    const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const at = new RegExp(`(^|[\\s;&|(])(["']?)${escaped}\\2(?=$|[\\s;&|)])`).exec(command);
    if (!at) return null;
    const quote = at[2]!;
    const start = at.index + at[1]!.length;
    const text = words.map((w) => `${quote}${w}${quote}`).join(" ");
    spots.push({ start, end: start + quote.length * 2 + word.length, text });
  }
  let out = command;
  for (const spot of spots.sort((a, b) => b.start - a.start))
    out = `${out.slice(0, spot.start)}${spot.text}${out.slice(spot.end)}`;
  return out;
}

/** Splits a shell command into simple commands (at `&&`, `||`, `;`, `|`, newlines) of unquoted words. */
export function shellWords(command: string): string[][] {
  const segments: string[][] = [[]];
  let word: string | null = null;
  const push = () => {
    if (word !== null) segments[segments.length - 1]!.push(word);
    word = null;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? "") + command.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? command.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      while (j < command.length && command[j] !== '"') {
        if (command[j] === "\\" && j + 1 < command.length) j++;
        text += command[j];
        j++;
      }
      word = (word ?? "") + text;
      i = j;
    } else if (c === "\\" && i + 1 < command.length) {
      word = (word ?? "") + command[++i];
    } else if (/\s/.test(c) && c !== "\n") {
      push();
    } else if (c === ";" || c === "|" || c === "&" || c === "\n") {
      push();
      if ((c === "&" || c === "|") && command[i + 1] === c) i++;
      segments.push([]);
    } else {
      word = (word ?? "") + c;
    }
  }
  push();
  return segments.filter((s) => s.length > 0);
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
/** Words that start another program with the rest of the command line. */
const WRAPPERS = new Set(["env", "cross-env", "exec", "command", "nice", "npx", "pnpx", "bunx"]);

/** The runner a simple command starts, with its arguments, or null. */
function runnerOf(words: string[]): { framework: SentinelFramework; args: string[] } | null {
  let i = 0;
  while (i < words.length) {
    const word = words[i]!;
    const name = posix.basename(word);
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || WRAPPERS.has(name) || (word.startsWith("-") && i > 0)) {
      i++;
    } else if ((name === "pnpm" || name === "npm" || name === "yarn") && words[i + 1] === "exec") {
      i += 2;
    } else if (name === "yarn" || name === "pnpm") {
      i++;
    } else if (name === "timeout") {
      i += 2;
    } else break;
  }
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
 * root) each package.json stands in: what `npm test` and `yarn <script>` run.
 */
export type PackageScripts = ReadonlyMap<string, Readonly<Record<string, string>>>;

/** npm's own options that say nothing of the script: anything else before `--` is not read. */
const NPM_QUIET = /^(-s|--silent|-q|--quiet|-d|--loglevel=\w+|--no-update-notifier|--if-present)$/;
/** A script `npm run` calls may call another: this deep and no deeper. */
const MAX_SCRIPT_DEPTH = 3;

/**
 * A simple command that runs a package script: `npm test`/`npm t`/`npm run <name>`,
 * `yarn [run] <name>`, `pnpm [run] <name>`, with the arguments the package manager passes on to the
 * script (npm: its positionals and all after `--`; yarn and pnpm: all after the name, a leading `--`
 * dropped). Null for anything else, and for npm options before `--` the oracle does not know.
 */
export function scriptCall(words: readonly string[]): { name: string; args: string[] } | null {
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
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
  return { name, args: args[0] === "--" ? args.slice(1) : args };
}

/** The scripts of the package a command in `cwd` belongs to (npm looks upwards), with its folder. */
function packageAt(
  scripts: PackageScripts,
  cwd: string,
): { dir: string; scripts: Readonly<Record<string, string>> } | null {
  if (cwd.startsWith("..") || cwd.startsWith("/")) return null;
  for (let dir = cwd; ; dir = posix.dirname(dir).replace(/^\.$/, "")) {
    const found = scripts.get(dir);
    if (found) return { dir, scripts: found };
    if (dir === "") return null;
  }
}

/** The package.json files `command`'s package scripts could be read from (the folders it runs in, upwards). */
export function packageJsonPaths(command: string): string[] {
  const paths = new Set<string>();
  let cwd = "";
  for (const words of shellWords(command)) {
    if (words[0] === "cd" && words[1] !== undefined) {
      cwd = posix.normalize(posix.join(cwd, words[1])).replace(/^\.$/, "");
      continue;
    }
    if (scriptCall(words) === null) continue;
    // A folder outside the checkout (`cd ..`, an absolute path) holds nothing of the base commit.
    if (cwd.startsWith("..") || cwd.startsWith("/")) continue;
    for (let dir = cwd; ; dir = posix.dirname(dir).replace(/^\.$/, "")) {
      paths.add(dir === "" ? "package.json" : `${dir}/package.json`);
      if (dir === "") break;
    }
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
  return runnerIn(command, scripts, "", 0);
}

function runnerIn(
  command: string,
  scripts: PackageScripts | null,
  start: string,
  depth: number,
): RunnerCall | null {
  let cwd = start;
  for (const words of shellWords(command)) {
    if (words[0] === "cd" && words[1] !== undefined) {
      cwd = posix.normalize(posix.join(cwd, words[1])).replace(/^\.$/, "");
      continue;
    }
    const runner = runnerOf(words);
    if (runner) return { ...runner, cwd, command };
    const script = scripts && depth < MAX_SCRIPT_DEPTH ? throughScript(words, scripts, cwd, depth) : null;
    if (script) return script;
  }
  return null;
}

/** The runner a package script starts, with the arguments passed to it appended (no `command`: nothing to rewrite). */
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
  const segments = shellWords(text);
  const inner = runnerIn(text, scripts, pkg.dir, depth + 1);
  if (!inner) return null;
  // npm appends the passed arguments to the script's text: they reach its last command only.
  const last = segments.at(-1) ?? [];
  const runnerIsLast = runnerOf(last) !== null || scriptCall(last) !== null;
  if (call.args.length > 0 && !runnerIsLast) return null;
  return { framework: inner.framework, args: [...inner.args, ...call.args], cwd: inner.cwd };
}
