import { posix } from "node:path";
import type { TaskReport } from "../types.js";
import type { Framework } from "./templates.js";

/**
 * When a repository's whole test suite is too large to be a task's existing suite (its report passes
 * the oracle's caps, or it runs past the time limit: all 60 packages of a Go module gave more than
 * 50,000 testcases), new-task keeps the existing suite's test files next to what the fix touches
 * and validates again. These are the two halves: whether a validation says so, and which files.
 */

/**
 * Why the validation's baseline runs say the existing suite is too large, or null: its report
 * passed a cap, or every run timed out in it. A timeout in some runs while others finished the
 * existing suite is the machine's load, not the suite's size (uuidjs/uuid fcd7388, load 28-62: its
 * 12 files were narrowed to 9 and the task lost the rest): null, and the sweep's TIMEOUT names the
 * limit.
 */
export function suiteTooLarge(task: TaskReport): { why: string; timeout: boolean } | null {
  const finished = task.runs.some(
    (r) => r.reason !== "TIMEOUT" && r.existing !== null && r.existing.status !== "NOT_RUN",
  );
  for (const run of task.runs) {
    if (run.mode !== "baseline") continue;
    if (run.reason === "REPORT_INVALID" && /^existing suite's report: more than /.test(run.message))
      return { why: run.message, timeout: false };
    // The run passed its limit before the existing suite reported (the result has no existing suite,
    // or one NOT_RUN: jmespath.py's hypothesis tests): it is the existing suite that ran long.
    if (run.reason === "TIMEOUT" && (run.existing === null || run.existing.status === "NOT_RUN") && !finished)
      return { why: `${run.message} in the existing suite`, timeout: true };
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
