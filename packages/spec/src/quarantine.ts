import { join, resolve } from "node:path";
import { z } from "zod";
import { readJsonFile } from "./parse.js";

/** The closed set of reasons a task is quarantined. The README documents each. */
export const QUARANTINE_FLAGS = {
  INVALID_TASK: "task.json or the task folder does not load.",
  IMAGE_NOT_BUILT: "The task's image has no current recorded digest.",
  EXISTING_SUITE_FAILS: "At the base commit, the existing suite does not pass.",
  NO_EXISTING_TESTS: "At the base commit, no test of the existing suite ran.",
  NO_HIDDEN_TESTS: "At the base commit, no hidden test ran.",
  HIDDEN_PASS_AT_BASELINE: "At the base commit, the hidden tests pass: they test nothing the diff must fix.",
  GOLD_FAILS: "The task's gold.diff does not PASS.",
  FLAKY: "Repeated runs of the same check gave different outcomes.",
  TESTS_HASH_UNSTABLE: "Repeated runs of the same check ran different tests.",
  TIMEOUT: "A check ran past the task's wall-clock limit.",
  OUT_OF_MEMORY: "A check was OOM-killed at the task's memory limit.",
  INFRA_ERROR: "The engine failed on every retry; reported apart, not the task's fault.",
} as const;
export type QuarantineFlag = keyof typeof QUARANTINE_FLAGS;

export const QuarantineReasonSchema = z.strictObject({
  flag: z.enum(Object.keys(QUARANTINE_FLAGS) as [QuarantineFlag, ...QuarantineFlag[]]),
  message: z.string(),
  evidence: z.array(z.string()).default([]),
});
export type QuarantineReason = z.output<typeof QuarantineReasonSchema>;

export const QuarantineEntrySchema = z.strictObject({
  reasons: z.array(QuarantineReasonSchema).min(1),
  firstSeen: z.iso.datetime(),
  lastChecked: z.iso.datetime(),
});
export type QuarantineEntry = z.output<typeof QuarantineEntrySchema>;

export const QuarantineFileSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  tasks: z.record(z.string(), QuarantineEntrySchema),
});
export type QuarantineFile = z.output<typeof QuarantineFileSchema>;

export function quarantineFilePath(root: string): string {
  return join(resolve(root), "tasks", "quarantine.json");
}

/** Reads tasks/quarantine.json; a missing file is an empty list. */
export async function readQuarantineFile(root: string): Promise<QuarantineFile> {
  try {
    return await readJsonFile(QuarantineFileSchema, quarantineFilePath(root), "tasks/quarantine.json");
  } catch (error) {
    if ((error as { cause?: NodeJS.ErrnoException }).cause?.code === "ENOENT")
      return { version: 1, tasks: {} };
    throw error;
  }
}
