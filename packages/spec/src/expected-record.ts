import { z } from "zod";

const ids = z.array(z.string());
const recordSuite = z.strictObject({ failToPass: ids, passToPass: ids });

/**
 * tasks/<id>/expected-tests.recorded.json: the expected tests the quarantine sweep recorded for a
 * task that declares none. It is tied to the task's content by `taskDigest` (the grader's
 * expected-record.ts): a record whose digest differs from the task's now is stale and ignored.
 */
export const ExpectedRecordSchema = z.strictObject({
  version: z.literal(1),
  task: z.string(),
  /** taskDigest() of the task when the sweep recorded it. */
  taskDigest: z.string().regex(/^[0-9a-f]{64}$/),
  recordedAt: z.string(),
  graderVersion: z.string(),
  suites: z.strictObject({ existing: recordSuite, hidden: recordSuite }),
});
export type ExpectedRecord = z.output<typeof ExpectedRecordSchema>;

/**
 * tasks/<id>/seals.recorded.json: what the quarantine sweep's gold and baseline runs showed of the
 * task's seals (docs/security.md, "Sealed expectations"; rules.ts `seal.gold`). It holds for the
 * task's content (`taskDigest`, as the expected record) and for one seal plan (`plan`, the planners'
 * fingerprint): a grader with another plan ignores it.
 */
export const SealRecordSchema = z.strictObject({
  version: z.literal(1),
  task: z.string(),
  taskDigest: z.string().regex(/^[0-9a-f]{64}$/),
  plan: z.string().regex(/^[0-9a-f]{64}$/),
  recordedAt: z.string(),
  graderVersion: z.string(),
  /** Sites a gold run could not pass (its value did not match, or was not plain data): left unsealed. */
  demoted: z.array(z.strictObject({ key: z.string(), why: z.string() })),
  /** Complete runs of each sealed test's seals in every gold run (the same in each): a grade must run them as often. */
  executions: z.record(z.string(), z.number().int().nonnegative()),
  /** Each FAIL_TO_PASS test and the strongest seal that decided it at every baseline run (none: no seal did). */
  failToPass: z.array(z.strictObject({ test: z.string(), seal: z.enum(["strong", "weak", "none"]) })),
});
export type SealRecord = z.output<typeof SealRecordSchema>;
