import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { GradeResult, ReasonCode, SuiteResult, TestOutcome } from "@oracle/spec";
import type { GradeFn, GradeOptions, RunRecord, SuiteSummary } from "../types.js";

/** How one fake suite behaves: test name -> outcome; an empty object means no test ran. */
export type FakeSuite = Record<string, TestOutcome> | "NOT_RUN";

export interface FakeRun {
  existing?: FakeSuite;
  hidden?: FakeSuite;
  /** A run-level reason that stops the run (TIMEOUT, IMAGE_NOT_BUILT, INFRA_ERROR...). */
  stop?: ReasonCode;
}

function suite(spec: FakeSuite, name: string): SuiteResult {
  const empty = { passed: 0, failed: 0, error: 0, skipped: 0 };
  if (spec === "NOT_RUN") {
    return {
      status: "NOT_RUN",
      exitCode: null,
      durationMs: 0,
      counts: empty,
      tests: [],
      output: { bytes: 0, truncated: false },
    };
  }
  const tests = Object.entries(spec).map(([test, outcome]) => ({ id: `${name}:t.py::${test}`, outcome }));
  const counts = { ...empty };
  for (const t of tests) counts[t.outcome] += 1;
  const ran = counts.passed + counts.failed + counts.error;
  const failed = counts.failed + counts.error > 0;
  const status = ran > 0 && !failed ? "PASS" : "FAIL";
  const reason: ReasonCode | undefined = ran === 0 ? "NO_TESTS_RAN" : failed ? "TESTS_FAILED" : undefined;
  return {
    status,
    ...(reason ? { reason } : {}),
    exitCode: status === "PASS" ? 0 : 1,
    durationMs: 5,
    counts,
    tests,
    output: { bytes: 0, truncated: false },
  };
}

/** A GradeResult as the grader would return it for `run`. */
export function fakeResult(options: GradeOptions, run: FakeRun): GradeResult {
  const existing = suite(run.stop ? "NOT_RUN" : (run.existing ?? { a: "passed" }), "existing");
  const hidden = suite(run.stop ? "NOT_RUN" : (run.hidden ?? { h: "failed" }), "hidden");
  const ids = [...existing.tests, ...hidden.tests]
    .filter((t) => t.outcome !== "skipped")
    .map((t) => t.id)
    .sort();
  const pass = existing.status === "PASS" && hidden.status === "PASS";
  const reason: ReasonCode =
    run.stop ?? (pass ? "PASS" : (existing.reason ?? hidden.reason ?? "TESTS_FAILED"));
  return {
    graderVersion: "0.0.0-fake",
    task: options.task,
    mode: options.mode,
    verdict: pass && !run.stop ? "PASS" : "FAIL",
    reason,
    message: `fake ${reason}`,
    testsHash: createHash("sha256")
      .update(ids.map((id) => `${id}\n`).join(""))
      .digest("hex"),
    testIds: ids,
    suites: { existing, hidden },
    image: { name: "fake", reference: null, digest: null },
    diff: null,
    timings: {},
    logPath: options.logFile ?? "",
    startedAt: new Date().toISOString(),
    durationMs: 10,
  };
}

/** A fake `grade` that writes the log file it is given and answers with `behave`. */
export function fakeGrade(
  behave: (options: GradeOptions, call: number) => FakeRun | Promise<FakeRun>,
): GradeFn & {
  calls: GradeOptions[];
} {
  const calls: GradeOptions[] = [];
  const grade = async (options: GradeOptions) => {
    calls.push(options);
    const run = await behave(options, calls.length);
    if (options.logFile) {
      await mkdir(dirname(options.logFile), { recursive: true });
      await writeFile(options.logFile, `${JSON.stringify({ fake: true, task: options.task })}\n`);
    }
    return fakeResult(options, run);
  };
  return Object.assign(grade, { calls });
}

/** A RunRecord for pure-logic tests. */
export function record(partial: Partial<RunRecord> & Pick<RunRecord, "mode">): RunRecord {
  const existing: SuiteSummary = {
    status: "PASS",
    reason: null,
    counts: { passed: 1, failed: 0, error: 0, skipped: 0 },
  };
  const hidden: SuiteSummary = {
    status: "FAIL",
    reason: "TESTS_FAILED",
    counts: { passed: 0, failed: 1, error: 0, skipped: 0 },
  };
  return {
    repeat: 1,
    attempts: 1,
    verdict: partial.mode === "gold" ? "PASS" : "FAIL",
    reason: partial.mode === "gold" ? "PASS" : "TESTS_FAILED",
    message: "",
    existing,
    hidden: partial.mode === "gold" ? { ...existing } : hidden,
    sentinel: null,
    testsHash: "a".repeat(64),
    durationMs: 100,
    timings: {},
    log: `logs/${partial.mode}-${partial.repeat ?? 1}.jsonl`,
    retriedLogs: [],
    ...partial,
  };
}

/** Writes a loadable task folder under `<root>/tasks/<id>/`. */
export async function writeTask(
  root: string,
  id: string,
  options: { gold?: boolean; raw?: string } = {},
): Promise<void> {
  const dir = join(root, "tasks", id);
  await mkdir(join(dir, "hidden-tests"), { recursive: true });
  await mkdir(join(dir, "mirror.git"), { recursive: true });
  const task = {
    id,
    image: "py",
    repo: { mirror: "mirror.git", baseCommit: "0".repeat(40) },
    suites: { existing: { command: "pytest", files: ["tests/**"] }, hidden: { command: "pytest hidden" } },
  };
  await writeFile(join(dir, "task.json"), options.raw ?? JSON.stringify(task));
  if (options.gold) await writeFile(join(dir, "gold.diff"), "diff --git a/x b/x\n");
}
