import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import type { Task, TestCase } from "@oracle/spec";

/**
 * Must-fail / must-pass sentinels: one extra test file the grader writes beside the hidden tests,
 * under a random name chosen per run. The runner's report must show the must-fail test failed and
 * the must-pass test passed, and the runner must exit non-zero; a runner patched in-process (or a
 * report rewritten at exit) that turns failures into passes contradicts it. See docs/security.md.
 */
export interface Sentinel {
  framework: SentinelFramework;
  /** A random token in the file name and both test names. */
  nonce: string;
  /** Path of the sentinel file in the checkout (relative, UTF-8). */
  path: string;
  content: string;
}

export type SentinelFramework = "pytest" | "mocha" | "jest" | "vitest";

const PY_TEST_FILE = /^(test_.*|.*_test)\.py$/;
const JS_TEST_FILE = /^[^.]+((?:\.[^.]+)*\.(?:test|spec)\.[cm]?[jt]sx?)$/;

/** The framework that gets sentinels: the task's, else pytest when the hidden files look like pytest's. */
export function sentinelFramework(
  task: Pick<Task, "framework">,
  hiddenFiles: readonly string[],
): SentinelFramework | null {
  const framework = task.framework;
  if (framework === "pytest" || framework === "mocha" || framework === "jest" || framework === "vitest")
    return framework;
  if (framework !== undefined) return null;
  return hiddenFiles.some((f) => PY_TEST_FILE.test(posix.basename(f))) ? "pytest" : null;
}

function pythonSentinel(nonce: string): string {
  return [
    `def test_${nonce}_must_fail():`,
    `    assert False, "oracle sentinel ${nonce}: this test must fail"`,
    "",
    "",
    `def test_${nonce}_must_pass():`,
    "    pass",
    "",
  ].join("\n");
}

function jsSentinel(nonce: string, framework: SentinelFramework): string {
  const lines = [
    `it("${nonce} must fail", () => {`,
    `  throw new Error("oracle sentinel ${nonce}: this test must fail");`,
    "});",
    `it("${nonce} must pass", () => {});`,
    "",
  ];
  return framework === "vitest" ? [`import { it } from "vitest";`, ...lines].join("\n") : lines.join("\n");
}

/**
 * Plans the sentinel file for a run: beside the first hidden test file the framework would collect,
 * named after it (`test_<nonce>.py`, `<nonce>_test.py`, `<nonce>.hidden.test.js`). Null when the
 * framework gets none or no hidden file looks like a test file.
 */
export function planSentinel(
  framework: SentinelFramework | null,
  hiddenFiles: readonly string[],
  nonce = `s${randomBytes(6).toString("hex")}`,
): Sentinel | null {
  if (framework === null) return null;
  const sorted = [...hiddenFiles].sort();
  if (framework === "pytest") {
    const model = sorted.find((f) => PY_TEST_FILE.test(posix.basename(f)));
    if (!model) return null;
    const name = posix.basename(model).startsWith("test_") ? `test_${nonce}.py` : `${nonce}_test.py`;
    return { framework, nonce, path: posix.join(posix.dirname(model), name), content: pythonSentinel(nonce) };
  }
  for (const file of sorted) {
    const suffix = JS_TEST_FILE.exec(posix.basename(file))?.[1];
    if (suffix) {
      const path = posix.join(posix.dirname(file), `${nonce}${suffix}`);
      return { framework, nonce, path, content: jsSentinel(nonce, framework) };
    }
  }
  return null;
}

/** The report's tests without the sentinel's, and what the sentinel says about the report. */
export interface SentinelVerdict {
  tests: TestCase[];
  /** The exit code to judge the rest by: 0 when the sentinel's own failure explains it (exit 1). */
  exitCode: number | null;
  /** Why the report cannot be trusted, or null. */
  problem: string | null;
}

const outcomeOf = (tests: TestCase[], pattern: RegExp): string =>
  tests.find((t) => pattern.test(t.id))?.outcome ?? "missing";

/** Checks the sentinel's two tests in the report and removes them from it. */
export function checkSentinel(
  sentinel: Sentinel,
  tests: TestCase[],
  exitCode: number | null,
): SentinelVerdict {
  const own = tests.filter((t) => t.id.includes(sentinel.nonce));
  const rest = tests.filter((t) => !t.id.includes(sentinel.nonce));
  const mustFail = outcomeOf(own, /must[ _]fail/);
  const mustPass = outcomeOf(own, /must[ _]pass/);
  const problems: string[] = [];
  if (mustFail !== "failed")
    problems.push(
      `the must-fail sentinel ${mustFail === "missing" ? "is missing from the report" : `is ${mustFail}`}`,
    );
  if (mustPass !== "passed")
    problems.push(
      `the must-pass sentinel ${mustPass === "missing" ? "is missing from the report" : `is ${mustPass}`}`,
    );
  if (problems.length === 0 && exitCode === 0)
    problems.push("the runner exited 0 although the must-fail sentinel failed");
  const problem =
    problems.length === 0
      ? null
      : `the report contradicts the oracle's sentinel ${sentinel.path}: ${problems.join("; ")} — the runner's results cannot be trusted`;
  // One failure (the sentinel's) explains exit code 1; any other code stays for the caller to judge.
  return { tests: rest, exitCode: problem === null && exitCode === 1 ? 0 : exitCode, problem };
}
