import { createHash } from "node:crypto";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { GradeResult, ReasonCode } from "@oracle/spec";
import { testsHash } from "../judges/tests-hash.js";
import { readDiffBytes } from "../task/prepare.js";
import { GRADER_VERSION } from "../version.js";
import type { GradeFn } from "./grade-prediction.js";

/** The monorepo root (unit tests copy a sample task from it). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** A temporary root holding copies of the given sample tasks (no images: no digest, so no cache). */
export async function tempRootWithTasks(
  ...tasks: string[]
): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "oracle-batch-unit-"));
  for (const task of tasks)
    await cp(join(REPO_ROOT, "tasks", task), join(root, "tasks", task), { recursive: true });
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** A grade result with the given reason, as the grader would return it for a diff of `diffText`. */
export function fakeResult(
  task: string,
  reason: ReasonCode,
  ids: string[] = [`hidden:t::${task}`],
  diffText = "",
): GradeResult {
  const suite = {
    status: reason === "PASS" ? ("PASS" as const) : ("FAIL" as const),
    exitCode: 0,
    durationMs: 1,
    counts: { passed: ids.length, failed: 0, error: 0, skipped: 0 },
    tests: [],
    output: { bytes: 0, truncated: false },
  };
  return {
    graderVersion: GRADER_VERSION,
    task,
    mode: "grade",
    verdict: reason === "PASS" ? "PASS" : "FAIL",
    reason,
    message: reason,
    testsHash: testsHash(ids),
    testIds: ids,
    suites: { existing: suite, hidden: suite },
    image: { name: "img", reference: null, digest: null },
    diff: {
      sha256: createHash("sha256").update(diffText).digest("hex"),
      filteredSha256: null,
      dropped: [],
    },
    timings: {},
    logPath: `/logs/${task}.jsonl`,
    startedAt: new Date(0).toISOString(),
    durationMs: 1500,
  };
}

/**
 * A fake `grade()`: PASS when the diff contains "fix", TESTS_FAILED otherwise; `plan` can give a
 * sequence of reasons per diff text (e.g. INFRA_ERROR then PASS). Records every call.
 */
export function fakeGrade(plan: Record<string, ReasonCode[]> = {}): GradeFn & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (options: Parameters<GradeFn>[0]) => {
    options.signal?.throwIfAborted();
    const text = options.diff ? (await readDiffBytes(options.diff)).toString("utf8") : "";
    calls.push(text);
    const planned = plan[text]?.shift();
    const reason = planned ?? (text.includes("fix") ? "PASS" : "TESTS_FAILED");
    return fakeResult(options.task, reason, undefined, text);
  };
  return Object.assign(fn, { calls });
}
