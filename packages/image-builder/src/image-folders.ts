import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { OracleError } from "@oracle/spec";

/** Docker's rule for one path component of a repository name. */
const IMAGE_NAME = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

/** The folder that holds the image folders. */
export function imagesDir(root: string): string {
  return join(resolve(root), "images");
}

/** Whether `name` can be an image folder's name (it becomes part of a repository name). */
export function isValidImageName(name: string): boolean {
  return IMAGE_NAME.test(name) && name.length <= 128;
}

/** The image folders under `<root>/images/`, sorted; with `only`, just those (each must exist). */
export async function listImageNames(root: string, only: readonly string[] = []): Promise<string[]> {
  let names: string[];
  try {
    const dirents = await readdir(imagesDir(root), { withFileTypes: true });
    names = dirents.filter((d) => d.isDirectory() && !d.name.startsWith(".")).map((d) => d.name);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ENOENT") throw cause;
    throw new OracleError("USAGE", `${imagesDir(root)} does not exist`, {
      cause,
      hint: "pass --root with the folder that holds images/ and tasks/",
    });
  }
  names.sort();
  if (only.length === 0) return names;
  const missing = only.filter((name) => !names.includes(name));
  if (missing.length > 0) {
    throw new OracleError(
      "USAGE",
      `--only: no image folder ${missing.map((m) => `images/${m}/`).join(", ")}`,
      {
        hint: `known images: ${names.join(", ") || "(none)"}`,
      },
    );
  }
  return names.filter((name) => only.includes(name));
}
