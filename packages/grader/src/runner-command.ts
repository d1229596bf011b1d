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
const WRAPPERS = new Set(["env", "exec", "command", "nice", "npx", "pnpx", "bunx"]);

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
 * The test runner a suite's command starts (pytest, `python3 -m pytest`, `pytest-3`, `py.test`;
 * mocha, `npx mocha`, `node_modules/.bin/mocha`; jest; vitest), behind `cd`, `ln … &&`, env
 * assignments and `npx`/`pnpm exec`; `go test`, `gotestsum … -- <go test args>` (its go test
 * arguments); null for anything else (`python3 -m xmlrunner`).
 */
export function findRunner(command: string): RunnerCall | null {
  let cwd = "";
  for (const words of shellWords(command)) {
    if (words[0] === "cd" && words[1] !== undefined) {
      cwd = posix.normalize(posix.join(cwd, words[1])).replace(/^\.$/, "");
      continue;
    }
    const runner = runnerOf(words);
    if (runner) return { ...runner, cwd, command };
  }
  return null;
}
