import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type LockfileCacheFile, LockfileCacheFileSchema, writeJsonAtomic } from "@oracle/spec";

const CACHE_VERSION: LockfileCacheFile["version"] = 1;
const MAX_ENTRIES = 5000;

async function readOptional(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Remembers npm lockfile fingerprints by the exact bytes Arborist reads (the lockfile, package.json,
 * yarn.lock beside it), so that a run where nothing changed need not load Arborist at all. Only
 * successful fingerprints are kept; a lockfile out of sync is checked again on every run.
 */
export class LockfileCache {
  readonly #file: string | undefined;
  readonly #entries: Map<string, string>;
  readonly #used = new Set<string>();
  #dirty = false;

  private constructor(file: string | undefined, entries: Map<string, string>) {
    this.#file = file;
    this.#entries = entries;
  }

  /** A cache kept in `<root>/.oracle/lockfile-fingerprints.json`; an unreadable file is an empty cache. */
  static async open(root: string): Promise<LockfileCache> {
    const file = join(root, ".oracle", "lockfile-fingerprints.json");
    try {
      const parsed = LockfileCacheFileSchema.safeParse(JSON.parse(await readFile(file, "utf8")));
      return new LockfileCache(file, new Map(parsed.success ? Object.entries(parsed.data.entries) : []));
    } catch {
      return new LockfileCache(file, new Map());
    }
  }

  /** A cache that lives only in memory. */
  static inMemory(): LockfileCache {
    return new LockfileCache(undefined, new Map());
  }

  /** The key of the lockfile `lockName` in `folder`: a hash of every input Arborist reads. */
  static async keyOf(folder: string, lockName: string): Promise<string> {
    const hash = createHash("sha256").update(`npm-lockfile-cache v${CACHE_VERSION}\0${lockName}\0`);
    for (const name of [lockName, "package.json", "yarn.lock"]) {
      const content = await readOptional(join(folder, name));
      hash.update(content === null ? "absent\0" : `${content.length}\0`);
      if (content) hash.update(content);
    }
    return hash.digest("hex");
  }

  get(key: string): string | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) this.#used.add(key);
    return value;
  }

  set(key: string, fingerprint: string): void {
    this.#entries.set(key, fingerprint);
    this.#used.add(key);
    this.#dirty = true;
  }

  /** Writes the cache back if anything was added; past MAX_ENTRIES, only the entries this run used are kept. */
  async save(): Promise<void> {
    if (!this.#file || !this.#dirty) return;
    const all = [...this.#entries];
    const kept = all.length > MAX_ENTRIES ? all.filter(([key]) => this.#used.has(key)) : all;
    const entries = Object.fromEntries(kept.sort(([a], [b]) => (a < b ? -1 : 1)));
    await writeJsonAtomic(this.#file, { version: CACHE_VERSION, entries });
    this.#dirty = false;
  }
}
