import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  type CacheInputs,
  type ReasonCode,
  type ResultCacheEntry,
  ResultCacheEntrySchema,
  type ResultLine,
  writeJsonAtomic,
} from "@oracle/spec";

/** The cache key: SHA-256 over the inputs in a fixed order. */
export function cacheKey(inputs: CacheInputs): string {
  const fields = [
    `grader=${inputs.graderVersion}`,
    `image=${inputs.imageDigest}`,
    `task=${inputs.taskHash}`,
    `diff=${inputs.diffSha256}`,
    `timeout=${inputs.timeoutSeconds}`,
  ];
  return createHash("sha256").update(fields.join("\n")).digest("hex");
}

/** Reasons that say something about the engine or the moment, not the diff: never reused. */
const NOT_REUSABLE: ReadonlySet<ReasonCode> = new Set(["INFRA_ERROR", "IMAGE_NOT_BUILT", "TIMEOUT"]);

/** Whether a result may be recorded for reuse: a graded run whose reason depends only on its inputs. */
export function isReusable(line: ResultLine): boolean {
  return (
    line.outcome === "graded" &&
    line.verdict !== null &&
    line.reason !== null &&
    !NOT_REUSABLE.has(line.reason)
  );
}

/** Recorded results under `<root>/.oracle/cache/results/`, one JSON file per key. */
export class ResultCache {
  readonly dir: string;

  constructor(root: string) {
    this.dir = join(resolve(root), ".oracle", "cache", "results");
  }

  private file(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The entry for `inputs`, or null (missing, unreadable, of an older format or not matching its key: a miss, never an error). */
  async get(inputs: CacheInputs): Promise<ResultCacheEntry | null> {
    const key = cacheKey(inputs);
    try {
      const parsed = ResultCacheEntrySchema.safeParse(JSON.parse(await readFile(this.file(key), "utf8")));
      return parsed.success && parsed.data.key === key ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Records a reusable result; others are ignored. */
  async put(inputs: CacheInputs, line: ResultLine): Promise<void> {
    if (!isReusable(line) || line.verdict === null || line.reason === null) return;
    const key = cacheKey(inputs);
    const entry: ResultCacheEntry = {
      key,
      inputs,
      verdict: line.verdict,
      reason: line.reason,
      message: line.message,
      testsHash: line.testsHash,
      log: line.log,
      seconds: line.seconds,
      storedAt: new Date().toISOString(),
    };
    await writeJsonAtomic(this.file(key), entry);
  }
}
