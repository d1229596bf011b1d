import type { SealRecord, SealsResult } from "@oracle/spec";
import { namesSameTest, type SealJudgement, type SealRun, unsealedRule } from "@oracle/test-set";

/**
 * The result's `seals` section from the run's seal plan and their judgement: how many comparisons
 * were sealed and how strongly, how they fared, and the FAIL_TO_PASS tests no strong seal covers
 * (docs/security.md, "Sealed expectations").
 */
/** The result lists at most this many sites' outcomes and tests' runs. */
const MAX_SITES = 2000;
const MAX_TESTS = 1000;

export function sealsResult(
  run: SealRun,
  judgement: SealJudgement | null,
  options: { failToPass?: readonly string[]; source: SealsResult["source"]; record?: SealRecord },
): SealsResult {
  const count = (strength: string) => run.sites.filter((s) => s.strength === strength).length;
  const reached = (strength: string) =>
    run.sites.filter(
      (s) =>
        s.strength === strength &&
        judgement?.sites[s.key] !== undefined &&
        judgement.sites[s.key] !== "not-run",
    ).length;
  const outcomes = Object.values(judgement?.sites ?? {});
  const outcome = (o: string) => outcomes.filter((x) => x === o).length;
  // Without the sweep's record, a strong seal no unjudged check comes before (a seal behind a
  // pytest.raises or toThrow may never run against the unfixed code: judge.ts decidedBy).
  const strong = new Set(
    run.sites.filter((s) => s.strength === "strong" && !s.afterUnsealed).map((s) => s.test.entry),
  );
  const tests = run.tests.map((t) => t.test);
  const failToPass = options.failToPass ?? [];
  const covered = (entry: string) => tests.some((t) => strong.has(t.entry) && namesSameTest(entry, t.entry));
  // With the sweep's record, what decided each FAIL_TO_PASS test at baseline; else the plan: a strong seal in it.
  const recorded = options.record?.failToPass;
  const unsealed = recorded
    ? recorded.filter((f) => f.seal !== "strong").map((f) => f.test)
    : failToPass.filter((e) => !covered(e));
  const total = recorded ? recorded.length : failToPass.length;
  return {
    source: options.source,
    files: run.files.filter((f) => f.sites.length > 0).length,
    sealed: { strong: count("strong"), weak: count("weak"), exposed: count("exposed") },
    checked: count("checked"),
    ...(judgement
      ? {
          ran: {
            strong: reached("strong"),
            weak: reached("weak"),
            exposed: reached("exposed"),
            checked: reached("checked"),
          },
        }
      : {}),
    tests: { sealed: run.tests.length, unsealed: run.unsealed.length },
    outcome: {
      matched: outcome("matched"),
      mismatch: outcome("mismatch"),
      notPlain: outcome("not-plain"),
      notRun: judgement ? outcome("not-run") : run.sites.length,
    },
    ...(total > 0
      ? {
          failToPass: {
            total,
            sealed: total - unsealed.length,
            unsealed: unsealed.slice(0, 50),
            ...(unsealed.length > 0
              ? { rules: Object.fromEntries(unsealed.slice(0, 50).map((e) => [e, unsealedRule(run, e)])) }
              : {}),
          },
        }
      : {}),
    plan: run.fingerprint,
    ...(options.record ? { demoted: options.record.demoted.length } : {}),
    ...(judgement
      ? {
          sites: Object.fromEntries(Object.entries(judgement.sites).slice(0, MAX_SITES)),
          executions: judgement.executions.slice(0, MAX_TESTS),
          decided: {
            strong: Object.keys(judgement.decided)
              .filter((e) => judgement.decided[e] === "strong")
              .slice(0, MAX_TESTS),
            weak: Object.keys(judgement.decided)
              .filter((e) => judgement.decided[e] === "weak")
              .slice(0, MAX_TESTS),
          },
        }
      : {}),
    ...(judgement?.inconsistent ? { problem: judgement.inconsistent } : {}),
    ...(judgement?.inconsistentTest ? { problemTest: judgement.inconsistentTest } : {}),
    ...(judgement?.inconsistentKeys ? { problemKeys: judgement.inconsistentKeys } : {}),
  };
}
