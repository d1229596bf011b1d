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
import type { PublicKey } from "../attest/keys.js";
import { openStatement } from "../attest/statement.js";

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

/**
 * Why a recorded entry cannot be trusted, or null: it must carry the statement of the line it was
 * recorded from, signed by a trusted key, and that statement must say this entry's verdict, reason and
 * tests_hash for exactly these inputs. An entry edited on disk, or copied from other inputs, fails.
 */
export function entryDistrust(
  entry: ResultCacheEntry,
  trusted: ReadonlyMap<string, PublicKey>,
): string | null {
  const opened = openStatement(entry.attestation, trusted);
  if (!opened.ok) return opened.why;
  const p = opened.statement.predicate;
  const i = entry.inputs;
  const checks: Array<[string, boolean]> = [
    ["outcome", p.outcome === "graded" && !p.cached],
    ["verdict", p.verdict === entry.verdict],
    ["reason", p.reason === entry.reason],
    ["tests_hash", p.testsHash === entry.testsHash],
    ["task hash", p.taskHash === i.taskHash],
    // A run refused before any container (an empty diff) used no image: its line names none.
    ["image", p.imageDigest === i.imageDigest || p.imageDigest === null],
    ["grader", p.graderVersion === i.graderVersion],
    ["timeout", p.timeoutSeconds === i.timeoutSeconds],
    ["diff", opened.statement.subject[0]?.digest.sha256 === i.diffSha256],
  ];
  const wrong = checks.filter(([, ok]) => !ok).map(([name]) => name);
  return wrong.length === 0 ? null : `the signed statement differs in ${wrong.join(", ")}`;
}

function sameInputs(a: CacheInputs, b: CacheInputs): boolean {
  return (
    a.graderVersion === b.graderVersion &&
    a.imageDigest === b.imageDigest &&
    a.taskHash === b.taskHash &&
    a.diffSha256 === b.diffSha256 &&
    a.timeoutSeconds === b.timeoutSeconds
  );
}

/** Recorded results under `<root>/.oracle/cache/results/`, one JSON file per key. */
export class ResultCache {
  readonly dir: string;

  constructor(
    root: string,
    private readonly trusted: ReadonlyMap<string, PublicKey>,
  ) {
    this.dir = join(resolve(root), ".oracle", "cache", "results");
  }

  private file(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /**
   * The entry for `inputs`, or null: missing, unreadable, of an older format, not matching its key,
   * or not verified by its signed statement (entryDistrust) — a miss, graded again, never an error.
   */
  async get(inputs: CacheInputs): Promise<ResultCacheEntry | null> {
    const key = cacheKey(inputs);
    try {
      const parsed = ResultCacheEntrySchema.safeParse(JSON.parse(await readFile(this.file(key), "utf8")));
      if (!parsed.success || parsed.data.key !== key) return null;
      // An entry counts only for the very inputs looked up (a signed entry copied under another
      // key, with its own inputs left as signed, must not be served for these).
      if (!sameInputs(parsed.data.inputs, inputs)) return null;
      return entryDistrust(parsed.data, this.trusted) === null ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Records a reusable, signed result; others are ignored (an unsigned result is never recorded). */
  async put(inputs: CacheInputs, line: ResultLine): Promise<void> {
    if (!isReusable(line) || line.verdict === null || line.reason === null || !line.attestation) return;
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
      attestation: line.attestation,
    };
    await writeJsonAtomic(this.file(key), entry);
  }
}
