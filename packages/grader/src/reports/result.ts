import type {
  ExpectedResult,
  GradeResult,
  ReasonCode,
  SealsResult,
  SentinelResult,
  SuiteResult,
} from "@oracle/spec";
import { GradeResultSchema } from "@oracle/spec";
import type { FilteredDiff } from "../diff/filter.js";
import { listedTests, MAX_LISTED_TESTS, notRunSuite, ranIds } from "../judges/judge-report.js";
import { sortIds, testsHash } from "../judges/tests-hash.js";
import { GRADER_VERSION } from "../version.js";

export interface ResultParts {
  task: string;
  mode: "grade" | "baseline";
  reason: ReasonCode;
  message: string;
  suites: Partial<Record<"existing" | "hidden", SuiteResult>>;
  /** What the hidden suite's sentinels showed; absent when it had none or did not run. */
  sentinel?: SentinelResult;
  /** What the hidden suite's seals showed; absent when it had none. */
  seals?: SealsResult;
  /** What the expected tests showed; absent when the run ended before both suites were judged. */
  expected?: ExpectedResult;
  image: GradeResult["image"];
  diff: { sha256: string; filtered: FilteredDiff | null } | null;
  timings: Record<string, number>;
  logPath: string;
  startedAt: Date;
  /** Every test in `suites.*.tests` (GradeOptions.listEveryTest); testIds stays bounded. */
  listEveryTest?: boolean;
}

/** The result lists at most this many ids in testIds (both suites' listing caps together). */
export const MAX_LISTED_IDS = 2 * MAX_LISTED_TESTS;

/** A suite as the result lists it: whole counts, a bounded list of its tests (all of them when asked). */
function listedSuite(suite: SuiteResult, every = false): SuiteResult {
  if (every) return { ...suite, tests: [...suite.tests], testsOmitted: 0 };
  const { tests, omitted } = listedTests(suite.tests);
  return { ...suite, tests, testsOmitted: omitted };
}

/**
 * Assembles the result: PASS only when the reason is PASS; tests_hash over every test that ran
 * (bounded work: a report holds at most REPORT_CAPS.testcases), while testIds and each suite's tests
 * list a bounded sample with the count of the rest.
 */
export function buildResult(parts: ResultParts): GradeResult {
  const existing = parts.suites.existing ?? notRunSuite();
  const hidden = parts.suites.hidden ?? notRunSuite();
  const ids = sortIds([...ranIds(existing), ...ranIds(hidden)]);
  const result: GradeResult = {
    graderVersion: GRADER_VERSION,
    task: parts.task,
    mode: parts.mode,
    verdict: parts.reason === "PASS" ? "PASS" : "FAIL",
    reason: parts.reason,
    message: parts.message,
    testsHash: testsHash(ids),
    testIds: ids.slice(0, MAX_LISTED_IDS),
    testIdsOmitted: Math.max(0, ids.length - MAX_LISTED_IDS),
    suites: {
      existing: listedSuite(existing, parts.listEveryTest),
      hidden: listedSuite(hidden, parts.listEveryTest),
    },
    sentinel: parts.sentinel ?? { state: "none", framework: null, required: false, files: [] },
    ...(parts.seals ? { seals: parts.seals } : {}),
    ...(parts.expected ? { expected: parts.expected } : {}),
    image: parts.image,
    diff: parts.diff && {
      sha256: parts.diff.sha256,
      filteredSha256: parts.diff.filtered?.filteredSha256 ?? null,
      dropped: parts.diff.filtered?.dropped ?? [],
    },
    timings: parts.timings,
    logPath: parts.logPath,
    startedAt: parts.startedAt.toISOString(),
    durationMs: Math.max(0, Date.now() - parts.startedAt.getTime()),
  };
  return GradeResultSchema.parse(result);
}
