import { randomBytes } from "node:crypto";
import { lstat, mkdir, open, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Writes `value` as pretty JSON to `file` atomically: a temporary file in the same folder, fsynced,
 * then renamed over the target. A reader sees the old file or the new one, never a torn one.
 * A target that is not a regular file (`/dev/stdout`, a pipe) is written as it is, and a link to a
 * regular file is followed: a rename would replace the device or the link itself (an attack review,
 * s26: `--result /dev/stdout`, run as root, turned the machine's `/dev/stdout` into a file).
 */
export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const target = await stat(file).catch(() => null);
  if (target && !target.isFile()) return writeFile(file, text);
  if (target && (await lstat(file)).isSymbolicLink()) return renameOver(await realpath(file), text);
  return renameOver(file, text);
}

async function renameOver(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(temp, "w");
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
