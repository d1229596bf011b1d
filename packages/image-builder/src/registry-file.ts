import { readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
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

/** Who holds the lock, from the owner file, or undefined while it is not (yet) written. */
async function readHolder(ownerFile: string): Promise<string | undefined> {
  try {
    const owner = RegistryLockOwnerSchema.parse(JSON.parse(await readFile(ownerFile, "utf8")));
    return `pid ${owner.pid} on ${owner.host}, since ${owner.since}`;
  } catch {
    return undefined;
  }
}

const UNKNOWN_HOLDER = "an unknown process";
/** How often a waiting run tries the lock again. */
const POLL_MS = 250;
/** How long a waiting run gives the holder to write its owner file before saying it waits on an unknown one. */
const OWNER_GRACE_MS = 1000;

export interface RegistryLockOptions {
  /** How long to wait for another run to release the lock before giving up (default 5000 ms). */
  waitMs?: number;
  /**
   * Called when this run starts waiting for another's lock, and again when the holder changes:
   * `holder` names it (`pid N on HOST, since T`, or `an unknown process`), `waitMs` is the bound.
   */
  onWait?: (holder: string, waitMs: number) => void;
  /** Called if the lock is lost while held (e.g. the lock folder was removed by hand). */
  onCompromised?: (error: Error) => void;
}

/**
 * Takes the lock on `<root>/images/registry.json`, waiting up to `waitMs` for another run to release
 * it (telling `onWait` whom it waits for), and returns a release function. Throws REGISTRY_LOCKED
 * naming the holder when another run still keeps it at the bound.
 */
export async function lockRegistry(
  root: string,
  options: RegistryLockOptions = {},
): Promise<() => Promise<void>> {
  const file = registryFilePath(root);
  const lockDir = join(dirname(file), LOCK_DIR_NAME);
  const ownerFile = join(dirname(file), LOCK_OWNER_NAME);
  const waitMs = options.waitMs ?? 5000;
  const started = Date.now();
  let told: string | undefined;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await lockfile.lock(file, {
        realpath: false,
        lockfilePath: lockDir,
        stale: 15_000,
        update: 5000,
        retries: 0,
        onCompromised: options.onCompromised ?? (() => {}),
      });
      break;
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "ELOCKED") throw cause;
      const waited = Date.now() - started;
      const holder = await readHolder(ownerFile);
      if (waited >= waitMs)
        throw new OracleError(
          "REGISTRY_LOCKED",
          `images/registry.json is locked by another build-images run (${holder ?? UNKNOWN_HOLDER})${waitMs > 0 ? `, still after waiting ${Math.round(waitMs / 1000)} s` : ""}`,
          {
            cause,
            hint: `wait for it to finish, then run pnpm build-images again (--lock-wait SECS waits longer); if no such run exists, the lock (${lockDir}) frees itself 15 s after its holder stopped`,
          },
        );
      const shown = holder ?? (waited >= OWNER_GRACE_MS ? UNKNOWN_HOLDER : undefined);
      if (shown !== undefined && shown !== told) {
        told = shown;
        options.onWait?.(shown, waitMs);
      }
      await delay(Math.min(POLL_MS, waitMs - waited));
    }
  }
  const owner: RegistryLockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  await writeFile(ownerFile, JSON.stringify(owner));
  return async () => {
    await rm(ownerFile, { force: true });
    await release();
  };
}
