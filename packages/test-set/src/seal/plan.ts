import type { Canon } from "./canon.js";
import type { ComparisonKind } from "./kinds.js";

/**
 * A sealed test file's plan: the text that enters the container (each sealable comparison
 * rewritten to hand its actual value to the seal runtime, the expected value left out) and the
 * sites the oracle judges on the host.
 */

/** The test a site belongs to, as an expected-test entry (`path::Class::test`, a JS full title, a Go `TestX`). */
export interface TestRef {
  file: string;
  entry: string;
  /** The same test's entries under classes that inherit it (each runs it, and its seals, once more). */
  also?: string[];
}

/**
 * How hard a seal is to pass without the right value: `strong` (the expected value is nowhere in
 * the container), `weak` (a truth value, None, an empty value: guessable), `exposed` (the same
 * literal stands elsewhere in the sealed files, where code can read it), `checked` (both sides are
 * computed in the container: the host checks they are plain data that compare equal, which stops
 * values built to equal anything, but the expected side is the container's).
 */
export type SealStrength = "strong" | "weak" | "exposed" | "checked";

export interface SealSite {
  /** `<file index>.<site index>`: unique in the run, what the runtime writes. */
  key: string;
  test: TestRef;
  /** 1-based line of the comparison in the hidden file as the task has it. */
  line: number;
  kind: ComparisonKind;
  /** The expected value (never in the container); absent for a checked comparison. */
  expected?: Canon;
  /**
   * A comparison inside a loop over a literal table, or a parametrised test: the expected value of
   * each row, by how many times the comparison ran before in the same run of the test.
   */
  rows?: Canon[];
  /** `run`: a parametrised test's rows, one per run of the test (by the run's index), not by occurrence in a run. */
  rowsBy?: "run";
  /** The comparison's own options (approx's rel/abs, assertAlmostEqual's places/delta). */
  options?: Record<string, number | boolean | null>;
  /** The comparison as the test wrote it, for messages. */
  source: string;
  strength: SealStrength;
  /**
   * An assertion of the test that the oracle does not judge (not sealed, a demoted or checked site,
   * `pytest.raises`, `toThrow`, a helper's check) comes before this one: when a run ends before this
   * seal's record, that assertion may have ended it, so the missing record does not say this seal
   * decided the test (judge.ts decidedBy).
   */
  afterUnsealed?: true;
}

/** Why a test of a sealed file has no seal (rules.ts names the rows). */
export interface Unsealed {
  test: TestRef;
  rule: string;
}

export interface FileSeals {
  path: string;
  /** The file as it enters the container. */
  text: string;
  sites: SealSite[];
  unsealed: Unsealed[];
  /** Every site the planner found (demoted ones too), as `key\tline\tkind\ttest`: what the plan's fingerprint covers. */
  planned: string[];
  /** Tests of the file, in source order, with their sites' keys in the order they run. */
  tests: Array<{ test: TestRef; keys: string[] }>;
}

/** A file the plan adds beside the sealed ones (Go: the runtime, in the sealed file's package). */
export interface AddedFile {
  path: string;
  text: string;
}
