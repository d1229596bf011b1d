import { createHash } from "node:crypto";
import { readFile, readlink } from "node:fs/promises";
import { basename, join, posix } from "node:path";
import { type ContextEntry, listBuildContext } from "./context.js";
import { LockfileCache } from "./lockfile-cache.js";
import { fingerprintNpmLockfile, fingerprintTextLockfile, lockfileKind } from "./lockfiles.js";

/** What an image folder's fingerprint is made of. */
export interface ImageFingerprint {
  /** SHA-256 over the canonical listing of the build context (64 hex). */
  fingerprint: string;
  /** SHA-256 of the Dockerfile's bytes. */
  dockerfileHash: string;
  /** Lockfile path (relative to the image folder) -> its fingerprint. */
  lockfiles: Record<string, string>;
  /** Every context file (relative path) -> the hash it counts by (a lockfile counts by its fingerprint). */
  files: Record<string, string>;
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Options of {@link fingerprintImage}. */
export interface FingerprintOptions {
  /** Remembers npm lockfile fingerprints by content, so unchanged lockfiles skip Arborist. */
  lockfileCache?: LockfileCache;
}

async function npmLockHash(
  folder: string,
  lockName: string,
  label: string,
  cache?: LockfileCache,
): Promise<string> {
  if (!cache) return fingerprintNpmLockfile(folder, lockName, label);
  const key = await LockfileCache.keyOf(folder, lockName);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const fingerprint = await fingerprintNpmLockfile(folder, lockName, label);
  cache.set(key, fingerprint);
  return fingerprint;
}

async function hashEntry(
  imageDir: string,
  entry: ContextEntry,
  label: string,
  options: FingerprintOptions,
): Promise<{ hash: string; lock: boolean }> {
  const absolute = join(imageDir, entry.relpath);
  if (entry.kind === "symlink") return { hash: sha256(`symlink\0${await readlink(absolute)}`), lock: false };
  const kind = lockfileKind(entry.relpath);
  if (kind === "npm") {
    const folder = join(imageDir, posix.dirname(entry.relpath));
    return {
      hash: await npmLockHash(folder, basename(entry.relpath), label, options.lockfileCache),
      lock: true,
    };
  }
  const content = await readFile(absolute);
  if (kind === "text") return { hash: fingerprintTextLockfile(content), lock: true };
  const hash = sha256(content);
  return { hash: entry.executable ? sha256(`executable\0${hash}`) : hash, lock: false };
}

/**
 * Fingerprints `imageDir` (an `images/<name>/` folder): every file of its build context (honouring
 * `.dockerignore`), where each lockfile counts by its own fingerprint rather than its bytes. Equal
 * fingerprints mean the same image would be built. Throws IMAGE_INVALID (no Dockerfile, unreadable
 * lockfile) or LOCKFILE_OUT_OF_SYNC.
 */
export async function fingerprintImage(
  imageDir: string,
  options: FingerprintOptions = {},
): Promise<ImageFingerprint> {
  const entries = await listBuildContext(imageDir);
  const name = basename(imageDir);
  const files: Record<string, string> = {};
  const lockfiles: Record<string, string> = {};
  const lines: string[] = [];
  for (const entry of entries) {
    const { hash, lock } = await hashEntry(imageDir, entry, `images/${name}/${entry.relpath}`, options);
    files[entry.relpath] = hash;
    if (lock) lockfiles[entry.relpath] = hash;
    lines.push(`${entry.kind}${lock ? "+lock" : ""}\t${JSON.stringify(entry.relpath)}\t${hash}`);
  }
  const dockerfileHash = sha256(await readFile(join(imageDir, "Dockerfile")));
  const fingerprint = sha256(`oracle-image-fingerprint v1\n${lines.join("\n")}\n`);
  return { fingerprint, dockerfileHash, lockfiles, files };
}
