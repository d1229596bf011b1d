import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import {
  type LoadedTask,
  loadTask,
  OracleError,
  type QuarantineEntry,
  readHealthFile,
  readQuarantineFile,
} from "@oracle/spec";
import { type ImageState, imageState, once } from "../image/image.js";
import { GRADER_VERSION } from "../version.js";
import { type TaskInputs, type Validation, verifiedValidation } from "./health.js";
import { type TaskHashes, taskHashes } from "./task-hash.js";

/**
 * Diffs larger than this are not parsed: DIFF_INVALID. Parsing costs about 4x the diff's size in
 * memory at its peak (one file of 60 MB: 300 MB RSS), and the grader stays under 200 MB.
 */
export const MAX_DIFF_BYTES = 16 * 1024 * 1024;

/**
 * What `grade`, `grade --batch` and the queue worker need to know about a task before a run: the
 * task loaded, its quarantine entry, and (computed once, on first use) its folder's hashes, its
 * image's fingerprint and current digest, and whether a sweep validated it on all of these.
 */
export interface PreparedTask {
  root: string;
  loaded: LoadedTask;
  /** The task's entry on tasks/quarantine.json; null when it is not on it. */
  quarantine: QuarantineEntry | null;
  hashes: () => Promise<TaskHashes>;
  image: ImageState;
  /** tasks/health.json's judgement of the task against its inputs today (health.ts). */
  validation: () => Promise<Validation & { inputs: TaskInputs }>;
}

/**
 * Loads task `id` under `root` (TASK_NOT_FOUND, TASK_INVALID) and reads its quarantine entry; the
 * hashes, the image's state and the validation are computed when first asked for.
 */
export async function prepareTask(root: string, id: string): Promise<PreparedTask> {
  const at = resolve(root);
  const [loaded, quarantine] = await Promise.all([loadTask(at, id), readQuarantineFile(at)]);
  const hashes = once(() => taskHashes(loaded.dir));
  const image = imageState(at, loaded.task.image);
  const validation = once(async () => {
    const [file, { health }, imageDigest] = await Promise.all([
      readHealthFile(at),
      hashes(),
      image.currentDigest(),
    ]);
    const inputs: TaskInputs = {
      taskHash: health,
      image: image.name,
      imageDigest,
      graderVersion: GRADER_VERSION,
    };
    return { ...verifiedValidation(id, file.tasks[id], inputs), inputs };
  });
  return { root: at, loaded, quarantine: quarantine.tasks[id] ?? null, hashes, image, validation };
}

/** TASK_QUARANTINED for a task on the quarantine list, with its reasons and what fixes them. */
export function quarantineError(task: string, entry: QuarantineEntry): OracleError {
  const reasons = entry.reasons.map((r) => `${r.flag}: ${r.message}`).join("; ");
  const fixes = entry.reasons.flatMap((r) => (r.hint ? [`${r.hint}; `] : [])).join("");
  return new OracleError("TASK_QUARANTINED", `task '${task}' is quarantined (${reasons})`, {
    hint: `${fixes}fix the task and run pnpm quarantine-sweep, or grade it anyway with --allow-quarantined`,
  });
}

/** Throws TASK_QUARANTINED unless the task is off the list or grading it anyway is allowed. */
export function checkQuarantine(task: PreparedTask, allowed: boolean): void {
  if (task.quarantine && !allowed) throw quarantineError(task.loaded.task.id, task.quarantine);
}

/** A candidate diff: a file, text, or bytes already read (a queue job's). */
export type DiffSource = { path: string } | { text: string } | { bytes: Buffer };

/** The diff as a run takes it: its bytes and their SHA-256, or its size when it is too large to parse. */
export type PreparedDiff = { bytes: Buffer; sha256: string } | { tooLarge: number };

const sha256 = (data: Buffer): string => createHash("sha256").update(data).digest("hex");

function unreadable(path: string, cause: unknown): OracleError {
  return new OracleError("DIFF_UNREADABLE", `cannot read the diff ${path}: ${(cause as Error).message}`, {
    hint: "pass a readable unified diff file (--diff, or a prediction's diffPath)",
    cause,
  });
}

/** The size of a diff file, refusing what is not a regular file (DIFF_UNREADABLE). */
async function diffFileSize(path: string): Promise<number> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error("not a regular file");
    return info.size;
  } catch (cause) {
    throw unreadable(path, cause);
  }
}

/** A diff's whole bytes, whatever their size (a queue job carries them to a worker); DIFF_UNREADABLE. */
export async function readDiffBytes(source: DiffSource): Promise<Buffer> {
  if ("bytes" in source) return source.bytes;
  if ("text" in source) return Buffer.from(source.text, "utf8");
  await diffFileSize(source.path);
  try {
    return await readFile(source.path);
  } catch (cause) {
    throw unreadable(source.path, cause);
  }
}

/** The diff for a run: read and hashed, unless it is larger than the grader parses (not read then). */
export async function prepareDiff(source: DiffSource): Promise<PreparedDiff> {
  if ("path" in source) {
    const size = await diffFileSize(source.path);
    if (size > MAX_DIFF_BYTES) return { tooLarge: size };
  }
  const bytes = await readDiffBytes(source);
  return bytes.length > MAX_DIFF_BYTES ? { tooLarge: bytes.length } : { bytes, sha256: sha256(bytes) };
}

/** The SHA-256 of a diff's whole bytes (a file is streamed, whatever its size): the diff's part of a verdict's key. */
export async function diffSha256(source: DiffSource): Promise<string> {
  if (!("path" in source)) return sha256(await readDiffBytes(source));
  await diffFileSize(source.path);
  const hash = createHash("sha256");
  try {
    await pipeline(createReadStream(source.path), hash);
  } catch (cause) {
    throw unreadable(source.path, cause);
  }
  return hash.digest("hex");
}
