import { type HealthRecord, readHealthFile, type ValidationState } from "@oracle/spec";
import { healthRecordDoubt } from "../attest/health.js";
import { loadSigningKey, type PublicKey, trustList } from "../attest/keys.js";
import { imageState } from "../image/image.js";
import { GRADER_VERSION } from "../version.js";
import { taskHashes } from "./task-hash.js";

/** The inputs a task's health rests on, as they are today. */
export interface TaskInputs {
  taskHash: string;
  image: string;
  /** The recorded digest when the record is current (fingerprint matches the folder), else null. */
  imageDigest: string | null;
  graderVersion: string;
}

/**
 * Today's inputs of a task whose folder is `taskDir` and whose image is `image`. The task's content
 * leaves out the expected tests the sweep itself records in the folder (expected-record.ts): a
 * sweep's own output does not make the task it judged stale; the record is tied to the content by
 * its own digest.
 */
export async function taskInputs(root: string, taskDir: string, image: string): Promise<TaskInputs> {
  const [{ health }, imageDigest] = await Promise.all([
    taskHashes(taskDir),
    imageState(root, image).currentDigest(),
  ]);
  return { taskHash: health, image, imageDigest, graderVersion: GRADER_VERSION };
}

export interface Validation {
  state: ValidationState;
  /** What differs from the record (empty unless stale), e.g. `image digest sha256:ab… -> sha256:cd…`. */
  changed: string[];
}

const short = (value: string | null) =>
  value === null ? "none" : value.replace(/^(sha256:)?(.{12}).*$/, "$1$2…");

/**
 * Compares a task's health record with its inputs today. `doubt` says why the record does not
 * verify against the installation's key (attest/health.ts): such a record is stale, whatever it says.
 */
export function validationOf(
  record: HealthRecord | undefined,
  now: TaskInputs,
  doubt: string | null = null,
): Validation {
  if (!record) return { state: "never", changed: [] };
  if (doubt !== null)
    return { state: "stale", changed: [`its record in tasks/health.json does not verify (${doubt})`] };
  const changed: string[] = [];
  if (record.taskHash !== now.taskHash)
    changed.push(`task content ${short(record.taskHash)} -> ${short(now.taskHash)}`);
  if (record.image !== now.image) changed.push(`image ${record.image} -> ${now.image}`);
  else if (record.imageDigest === null || record.imageDigest !== now.imageDigest)
    changed.push(`image digest ${short(record.imageDigest)} -> ${short(now.imageDigest)}`);
  if (record.graderVersion !== now.graderVersion)
    changed.push(`grader ${record.graderVersion} -> ${now.graderVersion}`);
  return { state: changed.length === 0 ? "current" : "stale", changed };
}

/**
 * A task's validation today, from tasks/health.json and its current inputs. `trusted` is the keys a
 * record may be signed with (the installation's own by default); a caller judging many tasks reads
 * them once and passes them in.
 */
export async function taskValidation(
  root: string,
  id: string,
  taskDir: string,
  image: string,
  trusted: ReadonlyMap<string, PublicKey> = trustList(loadSigningKey()),
): Promise<Validation & { inputs: TaskInputs }> {
  const [file, inputs] = await Promise.all([readHealthFile(root), taskInputs(root, taskDir, image)]);
  return { ...verifiedValidation(id, file.tasks[id], inputs, trusted), inputs };
}

/** validationOf, with the record checked against `trusted` (the installation's own key by default). */
export function verifiedValidation(
  id: string,
  record: HealthRecord | undefined,
  now: TaskInputs,
  trusted: ReadonlyMap<string, PublicKey> = trustList(loadSigningKey()),
): Validation {
  const doubt = record === undefined ? null : healthRecordDoubt(id, record, trusted);
  return validationOf(record, now, doubt);
}

/** One line for stderr about a task that is not current; null when it is. */
export function validationLine(task: string, validation: Validation): string | null {
  if (validation.state === "current") return null;
  const what =
    validation.state === "never"
      ? "no quarantine sweep has judged it"
      : `changed since its last sweep: ${validation.changed.join(", ")}`;
  return `task '${task}' is not validated (${validation.state}): ${what}; run pnpm quarantine-sweep --changed`;
}
