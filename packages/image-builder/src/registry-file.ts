import { readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import {
  type ImageBuild,
  type ImageRecord,
  OracleError,
  type RegistryFile,
  type RegistryLockOwner,
  RegistryLockOwnerSchema,
  readRegistryFile,
  registryFilePath,
  writeJsonAtomic,
} from "@oracle/spec";
import lockfile from "proper-lockfile";

/** Files next to registry.json that belong to the lock (a watcher ignores them). */
export const LOCK_DIR_NAME = ".registry.lock";
export const LOCK_OWNER_NAME = ".registry.lock.owner";

/** Adds `build` as the current record of `name`, moving the previous current record to the front of its history. */
export function recordBuild(registry: RegistryFile, name: string, build: ImageBuild): RegistryFile {
  const previous = registry.images[name];
  const history: ImageBuild[] = [];
  if (previous) {
    const { history: older, ...current } = previous;
    history.push(current, ...older);
  }
  const record: ImageRecord = { ...build, history };
  const images = { ...registry.images, [name]: record };
  const sorted = Object.fromEntries(Object.entries(images).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ...registry, images: sorted };
}

/** Reads images/registry.json, adds the build and writes it back atomically. Call while holding the lock. */
export async function saveBuild(root: string, name: string, build: ImageBuild): Promise<RegistryFile> {
  const updated = recordBuild(await readRegistryFile(root), name, build);
  await writeJsonAtomic(registryFilePath(root), updated);
  return updated;
}

async function describeHolder(ownerFile: string): Promise<string> {
  try {
    const owner = RegistryLockOwnerSchema.parse(JSON.parse(await readFile(ownerFile, "utf8")));
    return `pid ${owner.pid} on ${owner.host}, since ${owner.since}`;
  } catch {
    return "an unknown process";
  }
}

export interface RegistryLockOptions {
  /** How long to wait for another run to release the lock before giving up (default 5000 ms). */
  waitMs?: number;
  /** Called if the lock is lost while held (e.g. the lock folder was removed by hand). */
  onCompromised?: (error: Error) => void;
}

/**
 * Takes the lock on `<root>/images/registry.json` (waiting a short, bounded time) and returns a release
 * function. Throws REGISTRY_LOCKED naming the holder when another run keeps it.
 */
export async function lockRegistry(
  root: string,
  options: RegistryLockOptions = {},
): Promise<() => Promise<void>> {
  const file = registryFilePath(root);
  const lockDir = join(dirname(file), LOCK_DIR_NAME);
  const ownerFile = join(dirname(file), LOCK_OWNER_NAME);
  const waitMs = options.waitMs ?? 5000;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(file, {
      realpath: false,
      lockfilePath: lockDir,
      stale: 15_000,
      update: 5000,
      retries: { retries: Math.max(0, Math.ceil(waitMs / 250)), factor: 1, minTimeout: 250, maxTimeout: 250 },
      onCompromised: options.onCompromised ?? (() => {}),
    });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ELOCKED") throw cause;
    throw new OracleError(
      "REGISTRY_LOCKED",
      `images/registry.json is locked by another build-images run (${await describeHolder(ownerFile)})`,
      {
        cause,
        hint: `wait for it to finish; if no such run exists, the lock (${lockDir}) frees itself 15 s after its holder stopped`,
      },
    );
  }
  const owner: RegistryLockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  await writeFile(ownerFile, JSON.stringify(owner));
  return async () => {
    await rm(ownerFile, { force: true });
    await release();
  };
}
