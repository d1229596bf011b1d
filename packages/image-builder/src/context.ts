import { lstat, readdir, readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Readable } from "node:stream";
import dockerignore from "@balena/dockerignore";
import { OracleError } from "@oracle/spec";
import { pack } from "tar-fs";

/** The file every build context gets at its root: the extra CA bundle, or an empty file. */
export const CA_ENTRY_NAME = "oracle-build-ca.pem";

/** One file of a build context. */
export interface ContextEntry {
  /** POSIX path relative to the image folder. */
  relpath: string;
  kind: "file" | "symlink";
  executable: boolean;
}

async function readDockerignore(imageDir: string): Promise<string[]> {
  try {
    return (await readFile(join(imageDir, ".dockerignore"), "utf8")).split(/\r?\n/);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * The files `docker build` would send from `imageDir`: everything not excluded by `.dockerignore`
 * (Dockerfile and .dockerignore are always sent, as the docker CLI does), sorted by path. A file named
 * `oracle-build-ca.pem` at the root is left out: the builder supplies that entry itself.
 */
export async function listBuildContext(imageDir: string): Promise<ContextEntry[]> {
  const patterns = (await readDockerignore(imageDir))
    .map((line) => line.trim())
    .filter((l) => l && !l.startsWith("#"));
  const ig = dockerignore.default().add(patterns);
  const hasExceptions = patterns.some((pattern) => pattern.startsWith("!"));
  const always = new Set(["Dockerfile", ".dockerignore"]);
  const entries: ContextEntry[] = [];

  async function walk(dir: string, prefix: string): Promise<void> {
    for (const dirent of await readdir(dir, { withFileTypes: true })) {
      const relpath = prefix ? posix.join(prefix, dirent.name) : dirent.name;
      if (relpath === CA_ENTRY_NAME) continue;
      const ignored = !always.has(relpath) && ig.ignores(relpath);
      if (dirent.isDirectory()) {
        if (!ignored || hasExceptions) await walk(join(dir, dirent.name), relpath);
        continue;
      }
      if (ignored) continue;
      if (dirent.isSymbolicLink()) entries.push({ relpath, kind: "symlink", executable: false });
      else if (dirent.isFile()) {
        const stats = await lstat(join(dir, dirent.name));
        entries.push({ relpath, kind: "file", executable: (stats.mode & 0o111) !== 0 });
      }
    }
  }

  await walk(imageDir, "");
  if (!entries.some((entry) => entry.relpath === "Dockerfile")) {
    throw new OracleError("IMAGE_INVALID", `${imageDir} has no Dockerfile`, {
      hint: "every images/<name>/ folder needs a Dockerfile at its top",
    });
  }
  return entries.sort((a, b) => (a.relpath < b.relpath ? -1 : a.relpath > b.relpath ? 1 : 0));
}

/**
 * A tar stream of the build context: the listed entries with neutral owners and times, plus the
 * `oracle-build-ca.pem` entry (the CA bundle, or empty).
 */
export function packBuildContext(
  imageDir: string,
  entries: readonly ContextEntry[],
  caBundle: Buffer,
): Readable {
  return pack(imageDir, {
    entries: entries.map((entry) => entry.relpath),
    finalize: false,
    map: (header) => ({ ...header, uid: 0, gid: 0, uname: "root", gname: "root", mtime: new Date(0) }),
    finish: (tar) => {
      tar.entry({ name: CA_ENTRY_NAME, mode: 0o644, mtime: new Date(0) }, caBundle);
      tar.finalize();
    },
  });
}
