import { join, resolve } from "node:path";
import { z } from "zod";
import { DsseEnvelopeSchema } from "./attestation.js";
import { readJsonFile } from "./parse.js";

/**
 * Whether a task's health was measured on what the grader would run today: `current` when the last
 * sweep that judged it saw the same task content, image digest and grader version; `stale` when one
 * of them changed since; `never` when no sweep judged it.
 */
export const VALIDATION_STATES = ["current", "stale", "never"] as const;
export type ValidationState = (typeof VALIDATION_STATES)[number];
export const ValidationStateSchema = z.enum(VALIDATION_STATES);

/** What a sweep judged a task on, and what it found. */
export const HealthRecordSchema = z.strictObject({
  /** taskContentHash of tasks/<id>/ when it was judged. */
  taskHash: z.string().regex(/^[0-9a-f]{64}$/),
  image: z.string(),
  /** The image's recorded digest, current for its folder's fingerprint; null when it had no current build. */
  imageDigest: z.string().nullable(),
  graderVersion: z.string(),
  checkedAt: z.iso.datetime(),
  outcome: z.enum(["healthy", "quarantined"]),
  /**
   * An in-toto statement in a DSSE envelope, signed by the installation whose sweep judged the task:
   * subject the task (its id, digest the taskHash), predicate this record without its attestation.
   * A record that does not verify against the installation's key counts as stale.
   */
  attestation: DsseEnvelopeSchema.optional(),
});
export type HealthRecord = z.output<typeof HealthRecordSchema>;

export const HealthFileSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  tasks: z.record(z.string(), HealthRecordSchema),
});
export type HealthFile = z.output<typeof HealthFileSchema>;

export function healthFilePath(root: string): string {
  return join(resolve(root), "tasks", "health.json");
}

/** Reads tasks/health.json; a missing file means no task was ever judged. */
export async function readHealthFile(root: string): Promise<HealthFile> {
  try {
    return await readJsonFile(HealthFileSchema, healthFilePath(root), "tasks/health.json");
  } catch (error) {
    if ((error as { cause?: NodeJS.ErrnoException }).cause?.code === "ENOENT")
      return { version: 1, tasks: {} };
    throw error;
  }
}
