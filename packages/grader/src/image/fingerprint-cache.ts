import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { pipeline } from "node:stream/promises";
import { type FingerprintCache, FingerprintCacheSchema, writeJsonAtomic } from "@oracle/spec";

/**
 * Memoises `fingerprintImage` (which resolves npm lockfile trees with Arborist: most of a second)
 * by the raw bytes of every file in the image folder and the builder's version: the same bytes give
 * the same fingerprint, and any changed byte recomputes it. Kept in `<root>/.oracle/` (gitignored,
 * written only by the oracle on its host).
 */

const cacheFile = (root: string) => join(root, ".oracle", "grader-fingerprints.json");

let builderVersion: string | undefined;
function imageBuilderVersion(): string {
  if (builderVersion === undefined) {
    const require = createRequire(import.meta.url);
    builderVersion = (require("@oracle/image-builder/package.json") as { version: string }).version;
  }
  return builderVersion;
}

/** SHA-256 of a file's bytes, streamed (a mirror's pack may be larger than the grader's memory bound). */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}

/** SHA-256 over every file under `folder`: its relative path and the SHA-256 of its bytes, sorted. */
export async function folderDigest(folder: string): Promise<string> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(folder, join(e.parentPath, e.name)))
    .sort();
  const hash = createHash("sha256");
  for (const file of files) {
    const digest = await fileSha256(join(folder, file)).catch(() =>
      createHash("sha256").update("\0unreadable").digest("hex"),
    );
    hash.update(`${file}\0${digest}\n`);
  }
  return hash.digest("hex");
}

async function readCache(root: string): Promise<FingerprintCache> {
  try {
    return FingerprintCacheSchema.parse(JSON.parse(await readFile(cacheFile(root), "utf8")));
  } catch {
    return {};
  }
}

/** The image folder's fingerprint, from the cache when its bytes and the builder are unchanged. */
export async function cachedFingerprint(root: string, name: string, folder: string): Promise<string> {
  const [digest, cache] = await Promise.all([folderDigest(folder), readCache(root)]);
  const version = imageBuilderVersion();
  const hit = cache[name];
  if (hit && hit.folderDigest === digest && hit.builderVersion === version) return hit.fingerprint;
  const { fingerprintImage } = await import("@oracle/image-builder");
  const { fingerprint } = await fingerprintImage(folder);
  const fresh = await readCache(root);
  fresh[name] = { folderDigest: digest, builderVersion: version, fingerprint };
  await writeJsonAtomic(cacheFile(root), fresh).catch(() => undefined);
  return fingerprint;
}
