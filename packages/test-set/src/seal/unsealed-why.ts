import { namesSameTest } from "../expected-tests.js";
import type { SealRule } from "../rules.js";
import type { TestRef } from "./plan.js";
import type { SealRun } from "./seal-run.js";

/**
 * The rule (a row of rules.ts, docs/security.md "Sealed expectations") that leaves a test without a
 * strong seal in `run`, the plan a grade makes (the sweep's demoted sites left out): the planner's
 * own rule for a test it lists unsealed, `unsealed.gold` when the sweep demoted the sites that
 * would have sealed it, else what its sites are (weak, behind an unjudged check) or, for a test the
 * plan seals strongly, `unsealed.baseline` (no strong seal decided it at the sweep's baseline).
 * A task author reads the row to see why, and what would seal the test.
 */
export function unsealedRule(run: SealRun, test: string): SealRule {
  const names = (ref: TestRef) => [ref.entry, ...(ref.also ?? [])].some((e) => namesSameTest(test, e));
  const listed = run.unsealed.find((u) => names(u.test));
  if (listed && listed.rule !== "unsealed.no-comparison") return listed.rule as SealRule;
  const sites = run.sites.filter((s) => names(s.test));
  const strong = sites.filter((s) => s.strength === "strong");
  const decides = strong.some((s) => !s.afterUnsealed);
  // Every site the planners found, demoted ones too (`key\tline\tkind\ttest`).
  const kept = new Set(sites.map((s) => s.key));
  const demoted = run.files
    .flatMap((f) => f.planned)
    .map((line) => line.split("\t"))
    .some(([key, , , entry]) => entry !== undefined && namesSameTest(test, entry) && !kept.has(key!));
  if (demoted && !decides) return "unsealed.gold";
  if (listed) return "unsealed.no-comparison";
  if (decides) return "unsealed.baseline";
  if (strong.length > 0) return "unsealed.after-check";
  if (sites.length > 0) return "unsealed.weak";
  // `path::Class::test`, or `hidden:dotted.module::test` as a report names it.
  const inFile = test.includes("::") ? test.slice(test.indexOf("::")) : null;
  if (inFile && run.unread.some((path) => namesSameTest(test, `${path}${inFile}`)))
    return "unsealed.no-parse";
  return "unsealed.not-planned";
}
