import picomatch from "picomatch";

/**
 * Which files a repository's jest runs as tests, read as jest reads them: `testMatch` (globs) or
 * `testRegex` (regular expressions over the path) from package.json's `jest` key or a jest.config
 * file. A JavaScript config is code: only a literal array of string literals (or one string) is
 * read; anything else is reported, and the default rule stays.
 */
export interface RepoTests {
  /** Where the rule was read: "package.json jest.testMatch", "jest.config.js testRegex". */
  source: string;
  match: (path: string) => boolean;
}

/** Config files jest finds at the root, in its own order. */
export const JEST_CONFIG_FILES = [
  "jest.config.js",
  "jest.config.ts",
  "jest.config.mjs",
  "jest.config.cjs",
  "jest.config.json",
] as const;

export interface JestTestsResult {
  tests: RepoTests | null;
  /** Why a rule that exists could not be read. */
  warning?: string;
}

/** The repository's jest test rule, or null when it keeps jest's default. */
export function jestTests(
  packageJson: string | null,
  configs: ReadonlyArray<{ path: string; text: string }>,
): JestTestsResult {
  const config = configs[0];
  if (config !== undefined)
    return config.path.endsWith(".json")
      ? fromObject(parseJson(config.text), config.path)
      : fromSource(config.text, config.path);
  const pkg = parseJson(packageJson ?? "");
  const jest = pkg !== null && typeof pkg === "object" ? (pkg as { jest?: unknown }).jest : undefined;
  return fromObject(jest ?? null, "package.json jest");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function fromObject(value: unknown, where: string): JestTestsResult {
  if (value === null || typeof value !== "object") return { tests: null };
  const fields = value as Record<string, unknown>;
  const strings = (v: unknown): string[] | "unreadable" | null =>
    v === undefined || v === null
      ? null
      : typeof v === "string"
        ? [v]
        : Array.isArray(v) && v.every((s) => typeof s === "string")
          ? v
          : "unreadable";
  return rule(
    (name) => strings(fields[name]),
    (name) => `${where}.${name} is not a string or a list of strings`,
    `${where}.`,
  );
}

type Read = (name: "testMatch" | "testRegex" | "testPathIgnorePatterns") => string[] | "unreadable" | null;

/** testMatch or testRegex, less testPathIgnorePatterns, as jest combines them. */
function rule(read: Read, why: (name: string) => string, where: string): JestTestsResult {
  const ignore = read("testPathIgnorePatterns");
  if (ignore === "unreadable") return { tests: null, warning: why("testPathIgnorePatterns") };
  let ignored: RegExp[];
  try {
    ignored = (ignore ?? []).map((p) => new RegExp(p.replace(ROOT_DIR, "^/")));
  } catch {
    return { tests: null, warning: `${where}testPathIgnorePatterns is not a regular expression` };
  }
  const kept = (p: string) => !NODE_MODULES.test(p) && !ignored.some((re) => re.test(`/${p}`));
  for (const name of ["testMatch", "testRegex"] as const) {
    const value = read(name);
    if (value === null) continue;
    if (value === "unreadable") return { tests: null, warning: why(name) };
    const source = `${where}${name}`;
    if (name === "testMatch") {
      const match = globMatcher(value);
      return { tests: { source, match: (p) => kept(p) && match(p) } };
    }
    try {
      const res = value.map((p) => new RegExp(p));
      // jest tests the regular expressions against the absolute path.
      return { tests: { source, match: (p) => kept(p) && res.some((re) => re.test(`/${p}`)) } };
    } catch {
      return { tests: null, warning: `${source} is not a regular expression` };
    }
  }
  if (ignore === null) return { tests: null };
  const match = globMatcher(DEFAULT_TEST_MATCH);
  return { tests: { source: `${where}testPathIgnorePatterns`, match: (p) => kept(p) && match(p) } };
}

/** jest's own default testMatch (jest-config's Defaults.ts; jest 27 has no `?([mc])`). */
const DEFAULT_TEST_MATCH = ["**/__tests__/**/*.?([mc])[jt]s?(x)", "**/?(*.)+(spec|test).?([mc])[jt]s?(x)"];

/**
 * The files jest runs when the repository says nothing: its default testMatch, as jest matches it
 * (picomatch, dot files too), less node_modules. `?(*.)+(spec|test)` takes a bare `test.js` or
 * `spec.ts` (any folder) as well as `a.test.js`, and not `tests.js`.
 */
export function jestDefaultTests(path: string): boolean {
  return !NODE_MODULES.test(path) && defaultMatch()(path);
}
let defaultMatcher: ((path: string) => boolean) | undefined;
const defaultMatch = () => {
  defaultMatcher ??= globMatcher(DEFAULT_TEST_MATCH);
  return defaultMatcher;
};

const KEY = (name: string) => new RegExp(`(?:^|[\\s,{])["']?${name}["']?\\s*:\\s*`, "g");
const STRING = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\\.)*)`/y;

/** One literal value after `key:` in JavaScript source: a string, or an array of strings. */
export function literalAfter(source: string, name: string): string[] | "unreadable" | null {
  const matches = [...source.matchAll(KEY(name))];
  if (matches.length === 0) return null;
  if (matches.length > 1) return "unreadable";
  let at = (matches[0]!.index ?? 0) + matches[0]![0].length;
  const skip = () => {
    for (;;) {
      while (at < source.length && /[\s,]/.test(source[at]!)) at++;
      if (source.startsWith("//", at))
        at = source.indexOf("\n", at) < 0 ? source.length : source.indexOf("\n", at);
      else if (source.startsWith("/*", at))
        at = source.indexOf("*/", at) < 0 ? source.length : source.indexOf("*/", at) + 2;
      else return;
    }
  };
  const one = (): string | null => {
    STRING.lastIndex = at;
    const m = STRING.exec(source);
    if (m === null) return null;
    at = STRING.lastIndex;
    return unescapeJs(m[1] ?? m[2] ?? m[3] ?? "");
  };
  if (/^null\b/.test(source.slice(at, at + 5))) return null;
  if (source[at] !== "[") {
    const s = one();
    return s === null ? "unreadable" : [s];
  }
  at++;
  const out: string[] = [];
  for (;;) {
    skip();
    if (source[at] === "]") return out;
    const s = one();
    if (s === null) return "unreadable";
    out.push(s);
  }
}

function unescapeJs(text: string): string {
  return text.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\s\S])/g, (_, e: string) => {
    if (e.startsWith("u{")) return String.fromCodePoint(Number.parseInt(e.slice(2, -1), 16));
    if (e[0] === "u" && e.length === 5) return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    if (e[0] === "x" && e.length === 3) return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    return { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0" }[e] ?? e;
  });
}

function fromSource(source: string, path: string): JestTestsResult {
  return rule(
    (name) => literalAfter(source, name),
    (name) => `${path} sets ${name} with code new-task does not read`,
    `${path} `,
  );
}

const ROOT_DIR = /^<rootDir>\/?/;
const NODE_MODULES = /(^|\/)node_modules\//;

/** Globs as jest and vitest match them (picomatch, dot files too), `!` ones taken out, `<rootDir>/` dropped. */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const negated = globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1).replace(ROOT_DIR, ""));
  const positive = globs.filter((g) => !g.startsWith("!")).map((g) => g.replace(ROOT_DIR, ""));
  const yes = picomatch(positive, { dot: true });
  const no = negated.length > 0 ? picomatch(negated, { dot: true }) : () => false;
  return (p) => yes(p) && !no(p);
}
