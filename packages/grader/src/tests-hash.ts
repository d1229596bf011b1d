import { createHash } from "node:crypto";

/** The identifiers sorted bytewise (UTF-8, as `LC_ALL=C sort` does) without duplicates. */
export function sortIds(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)].map((id) => ({ id, bytes: Buffer.from(id, "utf8") }));
  unique.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return unique.map((entry) => entry.id);
}

/**
 * SHA-256 (lowercase hex) of the identifiers of the tests that ran, sorted bytewise, each followed
 * by LF — what `LC_ALL=C sort -u ids.txt | sha256sum` prints for the logged list. No ids: sha256("").
 */
export function testsHash(ids: readonly string[]): string {
  const hash = createHash("sha256");
  for (const id of sortIds(ids)) hash.update(`${id}\n`, "utf8");
  return hash.digest("hex");
}
