import { globMatcher, type JestTestsResult, literalAfter } from "./jest-config.js";

/**
 * Which files a repository's vitest runs as tests, read as vitest reads them: `test.include` (globs
 * from the root; vitest's default `**\/*.{test,spec}.?(c|m)[jt]s?(x)` when the config sets none) less
 * `test.exclude` (its default when the config sets none), from the first config file vitest finds at
 * the root. A config is code: only literal strings and arrays of them are read, inside the `test`
 * block (a `coverage.include` beside them is not the test files'); anything else is reported, and
 * new-task's own rule stays.
 */

/** Config files vitest finds at the root, in its own order (vitest's before vite's). */
export const VITEST_CONFIG_FILES = ["vitest", "vite"].flatMap((name) =>
  ["ts", "mts", "cts", "js", "mjs", "cjs"].map((ext) => `${name}.config.${ext}`),
);

/** vitest's default include and exclude (vitest 1 to 3, `configDefaults`). */
const DEFAULT_INCLUDE = ["**/*.{test,spec}.?(c|m)[jt]s?(x)"];
const DEFAULT_EXCLUDE = [
  "**/node_modules/**",
  "**/dist/**",
  "**/cypress/**",
  "**/.{idea,git,cache,output,temp}/**",
  "**/{karma,rollup,webpack,vite,vitest,jest,ava,babel,nyc,cypress,tsup,build,eslint,prettier}.config.*",
];

/** The repository's vitest test rule, or null when its config sets no include or exclude (or there is none). */
export function vitestTests(configs: ReadonlyArray<{ path: string; text: string }>): JestTestsResult {
  const config = configs[0];
  if (config === undefined) return { tests: null };
  const body = testBlock(config.text);
  if (body === null) return { tests: null };
  const where = `${config.path} test.`;
  const unreadable = (name: string) => `${config.path} sets test.${name} with code new-task does not read`;
  for (const name of ["dir", "workspace", "projects"])
    if (literalAfter(body, name) !== null)
      return { tests: null, warning: `${config.path} sets test.${name}, which new-task does not follow` };
  const include = literalAfter(body, "include");
  if (include === "unreadable") return { tests: null, warning: unreadable("include") };
  const exclude = literalAfter(body, "exclude");
  if (include === null && exclude === null) return { tests: null };
  // An exclude that is code (`[...configDefaults.exclude, "e2e/**"]`) leaves out files new-task takes
  // as tests: said, and vitest's default exclude stands in for it.
  const warning = exclude === "unreadable" ? unreadable("exclude") : undefined;
  const kept = globMatcher(include ?? DEFAULT_INCLUDE);
  const left = globMatcher(exclude === null || exclude === "unreadable" ? DEFAULT_EXCLUDE : exclude);
  const source = `${where}${include !== null ? "include" : "exclude"}`;
  return {
    tests: { source, match: (p) => kept(p) && !left(p) },
    ...(warning ? { warning } : {}),
  };
}

/**
 * The text of the config's `test: { … }` object with the objects nested in it blanked out (their
 * keys are not the test block's), or null when there is none.
 */
function testBlock(source: string): string | null {
  const key = /(?:^|[\s,{])["']?test["']?\s*:\s*\{/g;
  const found = key.exec(source);
  if (found === null) return null;
  const start = found.index + found[0].length;
  let depth = 1;
  let out = "";
  for (let i = start; i < source.length; i++) {
    const c = source[i]!;
    // Strings and comments are copied whole: a brace in them is no brace.
    const skipped = skipLiteral(source, i);
    if (skipped > i) {
      if (depth === 1) out += source.slice(i, skipped);
      i = skipped - 1;
      continue;
    }
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return out;
    else if (depth === 1) out += c;
  }
  return null;
}

/** The index after a string or comment starting at `i`, or `i` when none starts there. */
function skipLiteral(source: string, i: number): number {
  const c = source[i]!;
  if (c === "/" && source[i + 1] === "/") {
    const end = source.indexOf("\n", i);
    return end < 0 ? source.length : end;
  }
  if (c === "/" && source[i + 1] === "*") {
    const end = source.indexOf("*/", i + 2);
    return end < 0 ? source.length : end + 2;
  }
  if (c !== "'" && c !== '"' && c !== "`") return i;
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === "\\") j++;
    else if (source[j] === c) return j + 1;
  }
  return source.length;
}
