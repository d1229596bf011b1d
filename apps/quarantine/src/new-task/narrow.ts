import { posix } from "node:path";
import type { TaskReport } from "../types.js";
import type { Framework } from "./templates.js";

/**
 * When a repository's whole test suite is too large to be a task's existing suite (its report passes
 * the oracle's caps, or it runs past the time limit: all 60 packages of a Go module gave more than
 * 50,000 testcases), new-task keeps the existing suite's test files next to what the fix touches
 * and validates again. These are the two halves: whether a validation says so, and which files.
 */

/** Why the validation's baseline runs say the existing suite is too large, or null. */
export function suiteTooLarge(task: TaskReport): string | null {
  for (const run of task.runs) {
    if (run.mode !== "baseline") continue;
    if (run.reason === "REPORT_INVALID" && /^existing suite's report: more than /.test(run.message))
      return run.message;
    // The run passed its limit before the existing suite reported (the result has no existing suite,
    // or one NOT_RUN: jmespath.py's hypothesis tests): it is the existing suite that ran long.
    if (run.reason === "TIMEOUT" && (run.existing === null || run.existing.status === "NOT_RUN"))
      return `${run.message} in the existing suite`;
  }
  return null;
}

/** A file's name without its folder, test affixes and extensions: `tests/test_parse.py` -> `parse`. */
function stem(path: string): string {
  return posix
    .basename(path)
    .replace(/\..*$/, "")
    .replace(/^test_|_test$|^test-|-test$/, "");
}

const TOO_COMMON = new Set([
  "index",
  "__init__",
  "main",
  "util",
  "utils",
  "test",
  "tests",
  "spec",
  "conftest",
]);

/**
 * The existing suite's files near a fix, sorted: Go, the test files of every package (folder) the fix
 * changes a file in; otherwise the test files in the folders of the fix's test files, and those named
 * after a code file the fix changes (`src/pkg/parse.py` -> `tests/test_parse.py`, `parse.test.js`).
 * Empty when nothing is near.
 */
export function nearFix(
  framework: Framework,
  existing: readonly string[],
  code: readonly string[],
  hidden: readonly string[],
): string[] {
  const dirs = new Set([...(framework === "go" ? code : []), ...hidden].map((p) => posix.dirname(p)));
  const stems = new Set(code.map(stem).filter((s) => s.length >= 3 && !TOO_COMMON.has(s)));
  return existing
    .filter((p) => dirs.has(posix.dirname(p)) || (framework !== "go" && stems.has(stem(p))))
    .sort();
}
