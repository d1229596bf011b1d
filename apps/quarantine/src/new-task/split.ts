import picomatch from "picomatch";
import type { ChangedFile } from "./git.js";

/**
 * The test/code split of a fix, by path, as SWE-bench's collection does: a file in a test folder or
 * named like a test is a test file (it goes to hidden-tests/), everything else is the gold diff.
 */
const TEST_DIR = /(^|\/)(tests?|testing|__tests__|spec|e2e)\//;
const TEST_NAME =
  /(^|\/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py|[^/]*_test\.go|[^/]*\.(test|spec)\.[cm]?[jt]sx?)$/;

/**
 * A root file the runners take by default: unittest's discovery pattern `test*.py` takes `tests.py` and
 * `test.py` (stefankoegl/python-json-pointer's one test file), and mocha's default spec `test` takes
 * `./test.js` when there is no test/ folder (blakeembrey/pluralize's, mocha 5.2 and 10.8 alike).
 */
export const ROOT_TEST = /^(tests?\.py|test\.[cm]?js)$/;

export function isTestPath(path: string): boolean {
  return (
    TEST_DIR.test(path) ||
    TEST_NAME.test(path) ||
    ROOT_TEST.test(path) ||
    path.includes("/testdata/") ||
    path.startsWith("testdata/")
  );
}

export interface Split {
  /** Test files the fix adds or changes: the hidden tests, taken at the fix. */
  hidden: string[];
  /** Test files the fix deletes: the existing suite must not run their base versions. */
  deletedTests: string[];
  /** Everything else: the gold diff. */
  code: string[];
}

/**
 * Splits a fix's changed files; `testGlobs`, when given, replaces the path rule; `runnerTests` (the
 * repository's own runner configuration) adds to it.
 */
export function splitFix(
  files: readonly ChangedFile[],
  testGlobs: readonly string[] = [],
  runnerTests?: (path: string) => boolean,
): Split {
  const byPath =
    testGlobs.length > 0 ? picomatch([...testGlobs], { dot: true }) : (p: string) => isTestPath(p);
  const isTest = runnerTests ? (p: string) => byPath(p) || runnerTests(p) : byPath;
  const split: Split = { hidden: [], deletedTests: [], code: [] };
  for (const file of files) {
    if (!isTest(file.path)) split.code.push(file.path);
    else if (file.status === "D") split.deletedTests.push(file.path);
    else split.hidden.push(file.path);
  }
  return split;
}

/**
 * The unchanged files the author's `--tests` globs name that the runner runs, sorted, when no file of
 * the fix's `hidden` ones runs as a test (fb55/css-what 503570e changes only src/__fixtures__/tests.ts,
 * which its src/*.spec.ts import): they are hidden tests too, taken at the fix commit (as at the base),
 * and run with the changed files beside them. Empty otherwise: a changed test file is the hidden test.
 */
export function namedUnchangedTests(
  testGlobs: readonly string[],
  hidden: readonly string[],
  fixFiles: readonly string[],
  code: readonly string[],
  runs: (path: string) => boolean,
): string[] {
  if (testGlobs.length === 0 || hidden.length === 0 || hidden.some(runs)) return [];
  const named = picomatch([...testGlobs], { dot: true });
  const changed = new Set([...hidden, ...code]);
  return fixFiles.filter((p) => !changed.has(p) && named(p) && runs(p)).sort();
}
