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
