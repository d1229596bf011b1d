import type { Canon } from "./canon.js";
import { exactKey, fromDecimal, fromDouble, fromFloatHex, fromHexInt, integer } from "./exact.js";
import type { SealSite } from "./plan.js";

/**
 * How hard each sealed value is to guess from inside the container (plan.ts: SealStrength): a
 * truth value, None/null/nil, 0, 1, -1, NaN, ±Infinity, an empty string or container is `weak`; a value that stands
 * as a literal elsewhere in the sealed files (which the code under test can read) is `exposed`, and so is one
 * that can be read inside a string literal or a comment of them (`texts`: a test's title, a parametrize id, a
 * docstring; the runner hands titles and ids to the code, jest's `expect.getState().currentTestName`,
 * pytest's PYTEST_CURRENT_TEST: attack review s24, findings 5 and 5b).
 */

/** The shortest string counted as readable inside a text (shorter ones are guessed anyway). */
const MIN_EXPOSED = 3;

const NUMBER_TAGS = new Set(["int", "float", "num", "bigint", "decimal"]);

/** A key equal for equal values across number kinds (1, 1.0, 1n), for strings by their text, for containers by their items. */
export function valueKey(node: Canon): string {
  if (NUMBER_TAGS.has(node.t)) {
    try {
      if (node.t === "int")
        return `n:${exactKey(integer(typeof node.x === "string" ? fromHexInt(node.x) : BigInt(node.v as string)))}`;
      if (node.t === "float")
        return `n:${exactKey(typeof node.x === "string" ? fromFloatHex(node.x) : fromDouble(Number(node.d)))}`;
      if (node.t === "num") return `n:${exactKey(fromDouble(Number(node.v)))}`;
      if (node.t === "bigint") return `n:${exactKey(integer(BigInt(node.v as string)))}`;
      return `n:${exactKey(fromDecimal(node.v as string))}`;
    } catch {
      return JSON.stringify(node);
    }
  }
  if (node.t === "str") return `s:${JSON.stringify(node.v)}`;
  const items = (node.v ?? node.items) as unknown;
  if (Array.isArray(items))
    return `${node.t}:[${items.map((i) => (Array.isArray(i) ? `(${i.map((p) => valueKey(p as Canon)).join(",")})` : valueKey(i as Canon))).join(",")}]`;
  return JSON.stringify(node);
}

/** Whether a value is one a guesser tries first. */
export function isTrivial(node: Canon): boolean {
  if (["bool", "none", "null", "undefined", "nil"].includes(node.t)) return true;
  if (node.t === "const")
    return (
      node.c === "bool" ||
      node.c === "nil" ||
      (node.c === "string" && node.x === "") ||
      (["int", "rune"].includes(node.c as string) && ["0", "1", "-1"].includes(node.v as string)) ||
      // `!= 0.0`, `!= 1.0` (and 0i): the same guesses, spelled as floats (attack review s24).
      (["float", "imag"].includes(node.c as string) && [0, 1, -1].includes(Number(node.v)))
    );
  if (node.t === "str") return node.v === "";
  // NaN and ±Infinity: the first values a guesser writes for a number after 0 and ±1.
  if (node.t === "num" && !Number.isFinite(Number(node.v))) return true;
  if (node.t === "float" && ["nan", "inf", "-inf"].includes(String(node.x ?? node.d).toLowerCase()))
    return true;
  if (NUMBER_TAGS.has(node.t)) return ["n:0/1", "n:1/1", "n:-1/1"].includes(valueKey(node));
  const items = node.v ?? node.items ?? node.props;
  return Array.isArray(items) && items.length === 0;
}

/**
 * The texts of a value's string leaves (keys included), or null when it has none or a leaf of another
 * kind. Numbers are left out: `parse("734") == 734` spells its answer in the input the code is handed.
 */
function leafTexts(node: Canon): string[] | null {
  if (node.t === "str") return typeof node.v === "string" ? [node.v] : null;
  if (node.t === "const") {
    if (node.c !== "string") return null;
    // A Go string constant holds its bytes in hex.
    return typeof node.x === "string" ? [Buffer.from(node.x, "hex").toString("utf8")] : null;
  }
  const items = (node.v ?? node.items ?? node.props) as unknown;
  if (!Array.isArray(items)) return null;
  const out: string[] = [];
  for (const item of items.flat()) {
    if (typeof item !== "object" || item === null) return null;
    const inner = leafTexts(item as Canon);
    if (inner === null) return null;
    out.push(...inner);
  }
  return out;
}

/**
 * Whether a value can be read inside the texts: each of its string leaves of MIN_EXPOSED characters or
 * more stands in one of them, and there is at least one such leaf (the shorter ones a guesser tries anyway).
 */
function readIn(node: Canon, texts: readonly string[]): boolean {
  const leaves = leafTexts(node)?.filter((t) => t.length >= MIN_EXPOSED);
  if (!leaves || leaves.length === 0) return false;
  return leaves.every((leaf) => texts.some((text) => text.includes(leaf)));
}

/**
 * The sites with their strength: weak, exposed (the value is among `literals`, or readable inside the
 * `texts`, the string literals and comments of the sealed files), or strong.
 */
export function strengthOf(
  sites: SealSite[],
  literals: readonly Canon[],
  texts: readonly string[] = [],
): SealSite[] {
  const present = new Set(literals.map(valueKey));
  const exposed = (value: Canon) => present.has(valueKey(value)) || readIn(value, texts);
  return sites.map((site) => {
    if (site.rows) {
      if (site.rows.some(exposed)) return { ...site, strength: "exposed" };
      return { ...site, strength: site.rows.every(isTrivial) ? "weak" : "strong" };
    }
    if (!site.expected) return site;
    if (site.kind.endsWith(".truth") || isTrivial(site.expected)) return { ...site, strength: "weak" };
    if (exposed(site.expected)) return { ...site, strength: "exposed" };
    return { ...site, strength: "strong" };
  });
}
