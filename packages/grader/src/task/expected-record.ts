import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ExpectedRecord, ExpectedRecordSchema, type LoadedTask, writeJsonAtomic } from "@oracle/spec";
import { listHiddenFiles } from "./hidden-files.js";

/**
 * The expected tests the quarantine sweep recorded for a task that declares none, kept in the task's
 * own folder (`tasks/<id>/expected-tests.recorded.json`) so that it travels with the task, is
 * committed with it, and is covered by every hash of the task folder (the batch cache, queue job
 * ids). It is tied to the task's content by `taskDigest`: a record whose digest differs from the
 * task's now is stale and ignored.
 */
export const RECORD_FILE = "expected-tests.recorded.json";

/**
 * SHA-256 over what the expected tests depend on: task.json's bytes, every hidden test file (path and
 * bytes), gold.diff's bytes (or its absence) and the base commit, each part length-prefixed.
 */
export async function taskDigest(loaded: LoadedTask): Promise<string> {
  const hash = createHash("sha256");
  const part = (label: string, bytes: Buffer | string) => {
    const data = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
    hash.update(`${label}\0${data.length}\0`);
    hash.update(data);
  };
  part("task.json", await readFile(join(loaded.dir, "task.json")));
  for (const file of await listHiddenFiles(loaded.hiddenTestsDir))
    part(`hidden:${file}`, await readFile(join(loaded.hiddenTestsDir, file)));
  part("gold.diff", loaded.goldDiff ? await readFile(loaded.goldDiff) : "(none)");
  part("baseCommit", loaded.task.repo.baseCommit);
  return hash.digest("hex");
}

/** What reading the record found. */
export type RecordRead =
  | { kind: "current"; record: ExpectedRecord }
  | { kind: "stale" | "invalid"; why: string }
  | { kind: "absent" };

/** Reads the task's record and checks it against the task's content now. */
export async function readExpectedRecord(loaded: LoadedTask): Promise<RecordRead> {
  let text: string;
  try {
    text = await readFile(join(loaded.dir, RECORD_FILE), "utf8");
  } catch {
    return { kind: "absent" };
  }
  let record: ExpectedRecord;
  try {
    record = ExpectedRecordSchema.parse(JSON.parse(text));
  } catch (error) {
    return {
      kind: "invalid",
      why: `${RECORD_FILE} is not a record: ${(error as Error).message.slice(0, 200)}`,
    };
  }
  const now = await taskDigest(loaded);
  if (record.taskDigest !== now || record.task !== loaded.task.id)
    return {
      kind: "stale",
      why: `${RECORD_FILE} is stale: recorded for task digest ${record.taskDigest.slice(0, 12)}, the task is ${now.slice(0, 12)} now (task.json, hidden tests, gold.diff or baseCommit changed); run pnpm quarantine-sweep --tasks ${loaded.task.id}`,
    };
  return { kind: "current", record };
}

/** Writes the record atomically into the task's folder. */
export async function writeExpectedRecord(loaded: LoadedTask, record: ExpectedRecord): Promise<string> {
  const file = join(loaded.dir, RECORD_FILE);
  await writeJsonAtomic(file, ExpectedRecordSchema.parse(record));
  return file;
}
