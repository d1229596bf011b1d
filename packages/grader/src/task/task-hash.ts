import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { RECORD_FILE } from "./expected-record.js";
import { SEAL_RECORD_FILE } from "./seal-record.js";

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

/** `<relative path>\0<sha256 of its bytes>\n` for every file under `taskDir`, sorted by path. */
async function fileLines(taskDir: string): Promise<Array<{ path: string; line: string }>> {
  const lines: Array<{ path: string; line: string }> = [];
  for (const path of await filesUnder(taskDir)) {
    const bytes = await readFile(join(taskDir, ...path.split("/")));
    lines.push({ path, line: `${path}\0${createHash("sha256").update(bytes).digest("hex")}\n` });
  }
  return lines;
}

const digest = (lines: ReadonlyArray<{ line: string }>): string => {
  const whole = createHash("sha256");
  for (const { line } of lines) whole.update(line);
  return whole.digest("hex");
};

/**
 * The content hash of a task folder: SHA-256 over `<relative path>\0<sha256 of its bytes>\n` for every
 * file under tasks/<id>/, sorted by path. Two hosts with the same task folder agree on it; any change
 * to task.json, the mirror, the hidden tests or the gold diff changes it (and, unless excluded, the
 * sweep's record of its expected tests, which decides verdicts too).
 */
export async function taskContentHash(
  taskDir: string,
  options: { exclude?: readonly string[] } = {},
): Promise<string> {
  const exclude = new Set(options.exclude ?? []);
  return digest((await fileLines(taskDir)).filter(({ path }) => !exclude.has(path)));
}

/** A task folder's two content hashes, from one read of its files. */
export interface TaskHashes {
  /** Over every file: what a verdict rests on (batch resume, the result cache, queue jobs). */
  content: string;
  /**
   * Without what the sweep records in the folder (its expected tests, expected-record.ts; its seals'
   * record, seal-record.ts): what the task's health rests on, so that a sweep's own output does not
   * make the task it judged stale.
   */
  health: string;
}

/** Both content hashes of the task folder `taskDir`, each file read once. */
export async function taskHashes(taskDir: string): Promise<TaskHashes> {
  const lines = await fileLines(taskDir);
  const sweepOutput = new Set([RECORD_FILE, SEAL_RECORD_FILE]);
  return { content: digest(lines), health: digest(lines.filter(({ path }) => !sweepOutput.has(path))) };
}
