import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort();
}

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
  const whole = createHash("sha256");
  const exclude = new Set(options.exclude ?? []);
  for (const path of await filesUnder(taskDir)) {
    if (exclude.has(path)) continue;
    const bytes = await readFile(join(taskDir, ...path.split("/")));
    whole.update(`${path}\0${createHash("sha256").update(bytes).digest("hex")}\n`);
  }
  return whole.digest("hex");
}
