import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";

/** Every file under the hidden tests folder, relative and sorted. */
export async function listHiddenFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}
