import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { type LoadedTask, type SealRecord, SealRecordSchema, writeJsonAtomic } from "@oracle/spec";
import { taskDigest } from "./expected-record.js";

/**
 * What the quarantine sweep's runs showed of a task's seals (docs/security.md, "Sealed
 * expectations"; @oracle/test-set rules.ts `seal.gold`), kept in the task's folder
 * (`tasks/<id>/seals.recorded.json`) like the expected tests' record, and tied to the task's content
 * (`taskDigest`) and to the seal plan it was made for (`plan`): the sites the gold diff could not
 * pass are left unsealed, and each sealed test must run its seals as often as in the gold runs.
 */
export const SEAL_RECORD_FILE = "seals.recorded.json";

export type SealRecordRead =
  | { kind: "current"; record: SealRecord }
  | { kind: "stale" | "invalid"; why: string }
  | { kind: "absent" };

/** Reads the task's seal record and checks it against the task's content now (the plan is checked when planted). */
export async function readSealRecord(loaded: LoadedTask): Promise<SealRecordRead> {
  let text: string;
  try {
    text = await readFile(join(loaded.dir, SEAL_RECORD_FILE), "utf8");
  } catch {
    return { kind: "absent" };
  }
  let record: SealRecord;
  try {
    record = SealRecordSchema.parse(JSON.parse(text));
  } catch (error) {
    return {
      kind: "invalid",
      why: `${SEAL_RECORD_FILE} is not a record: ${(error as Error).message.slice(0, 200)}`,
    };
  }
  const now = await taskDigest(loaded);
  if (record.taskDigest !== now || record.task !== loaded.task.id)
    return {
      kind: "stale",
      why: `${SEAL_RECORD_FILE} is stale: recorded for task digest ${record.taskDigest.slice(0, 12)}, the task is ${now.slice(0, 12)} now; run pnpm quarantine-sweep --tasks ${loaded.task.id}`,
    };
  return { kind: "current", record };
}

/** Writes the seal record atomically into the task's folder. */
export async function writeSealRecord(loaded: LoadedTask, record: SealRecord): Promise<string> {
  const file = join(loaded.dir, SEAL_RECORD_FILE);
  await writeJsonAtomic(file, SealRecordSchema.parse(record));
  return file;
}

/** Removes the task's seal record; false when there was none. */
export async function removeSealRecord(loaded: LoadedTask): Promise<boolean> {
  const file = join(loaded.dir, SEAL_RECORD_FILE);
  try {
    await rm(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
