import { createHash } from "node:crypto";

/** A UTF-16 code unit as a key in code point order: surrogates (U+10000 and up) after U+E000–U+FFFF. */
const unitKey = (unit: number): number =>
  unit < 0xd800 ? unit : unit < 0xe000 ? unit + 0x2000 : unit - 0x800;

/**
 * Compares two strings in the order of their UTF-8 bytes (code point order), without encoding them:
 * a report's ids are well-formed text (the XML parser admits no lone surrogate).
 */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitKey(x) - unitKey(y);
  }
  return a.length - b.length;
}

/** The identifiers sorted bytewise (UTF-8, as `LC_ALL=C sort` does) without duplicates. */
export function sortIds(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort(compareUtf8);
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
