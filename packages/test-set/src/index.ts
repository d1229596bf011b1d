export {
  type EntryMatch,
  type EntryStatus,
  entryKeys,
  matchEntries,
  namesSameTest,
  ReportIndex,
} from "./expected-tests.js";
export {
  assertPatchedIn,
  chaiPluginIn,
  equalityTestersIn,
  expectRebound,
  extendedMatchers,
  setupModuleText,
} from "./js/seal.js";
export { type Grammar, grammarOf, loadParsers, type Parsers, parserFiles } from "./parsers.js";
export { ASSERTS_SWAPPED, assertsSwappedIn } from "./python/seal.js";
export { cryptoRandom, type Random, seededRandom } from "./random.js";
export { SEAL_RULES, type SealRule } from "./rules.js";
export type { Canon } from "./seal/canon.js";
export {
  judgeSeals,
  parseRecords,
  type SealJudgement,
  type SealRecord,
  type SiteOutcome,
} from "./seal/judge.js";
export { COMPARISONS, type ComparisonKind } from "./seal/kinds.js";
export type { AddedFile, FileSeals, SealSite, SealStrength, TestRef, Unsealed } from "./seal/plan.js";
export {
  planFingerprint,
  planSeals,
  SEAL_PLAN_VERSION,
  type SealRun,
  type TestText,
} from "./seal/seal-run.js";
export { unsealedRule } from "./seal/unsealed-why.js";
