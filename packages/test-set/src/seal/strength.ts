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
  // A Go table's cell carries its column's type (`as`, `named`): the same constant as a literal
  // elsewhere in the file (`Inverse(4253)` beside a `want int` row of 4253) is the same value.
  if (node.t === "const" && (node.as !== undefined || node.named !== undefined)) {
    const { as: _as, named: _named, ...bare } = node;
    return valueKey(bare as Canon);
  }
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
 * The usual spellings of a number: its literal's own, JS `String(n)`, Python `repr` (`2.0`, `1e-07`),
 * or null for what is not a number.
 */
function numberSpellings(node: Canon): string[] | null {
  const raw =
    node.t === "float"
      ? node.d
      : NUMBER_TAGS.has(node.t) || (node.t === "const" && ["int", "float"].includes(node.c as string))
        ? node.v
        : undefined;
  if (typeof raw !== "string") return null;
  const out = new Set([raw]);
  const n = Number(raw);
  if (Number.isFinite(n)) {
    const js = String(n);
    out.add(js);
    if (Number.isInteger(n) && !/e/i.test(js)) out.add(`${js}.0`);
    out.add(js.replace(/e([+-])(\d)$/, (_, sign: string, digit: string) => `e${sign}0${digit}`));
  }
  return [...out].map((t) => t.replace(/^\+/, ""));
}

/**
 * A value's leaves (keys included): the texts of its strings and its numbers, or null when it has a
 * leaf of another kind.
 */
function leavesOf(node: Canon): { strings: string[]; numbers: Canon[] } | null {
  if (node.t === "str") return typeof node.v === "string" ? { strings: [node.v], numbers: [] } : null;
  // Python bytes hold their hex: `b"secret-token"` reads as its text in a comment or another string.
  if (node.t === "bytes")
    return typeof node.v === "string"
      ? { strings: [Buffer.from(node.v, "hex").toString("latin1")], numbers: [] }
      : null;
  if (numberSpellings(node) !== null) return { strings: [], numbers: [node] };
  if (node.t === "const") {
    if (node.c !== "string") return null;
    // A Go string constant holds its bytes in hex.
    return typeof node.x === "string"
      ? { strings: [Buffer.from(node.x, "hex").toString("utf8")], numbers: [] }
      : null;
  }
  const items = (node.v ?? node.items ?? node.props) as unknown;
  if (!Array.isArray(items)) return null;
  const out = { strings: [] as string[], numbers: [] as Canon[] };
  for (const item of items.flat()) {
    if (typeof item !== "object" || item === null) return null;
    const inner = leavesOf(item as Canon);
    if (inner === null) return null;
    out.strings.push(...inner.strings);
    out.numbers.push(...inner.numbers);
  }
  return out;
}

/** Whether one of the number's spellings stands in a text as a token (no digit or `.digit` on either side). */
function spokenIn(node: Canon, spoken: readonly string[]): boolean {
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return (numberSpellings(node) ?? []).some((spelling) => {
    const token = new RegExp(`(?<![\\d.])${esc(spelling)}(?![\\d]|\\.\\d)`);
    return spoken.some((text) => token.test(text));
  });
}

/**
 * Whether a value can be read inside the texts: each of its string leaves of MIN_EXPOSED characters or
 * more stands in one of them, each number leaf but 0 and ±1 is spelled as a token in a text the runner
 * hands the code or a comment (`spoken`: a title, a parametrize id, a docstring, a comment; not a string
 * argument, where `parse("734") == 734` spells its answer in the input the code is handed), and there is
 * at least one such leaf (the shorter strings a guesser tries anyway). Numbers counted nowhere before:
 * jest's own first example's title, "adds 1 + 2 to equal 3", left `toBe(3)` strong, and code that read
 * the title or pytest's id PASSed unfixed (attack review s25, findings 2 and 2b).
 */
function readIn(node: Canon, texts: readonly string[], spoken: readonly string[]): boolean {
  const leaves = leavesOf(node);
  if (!leaves) return false;
  const strings = leaves.strings.filter((t) => t.length >= MIN_EXPOSED);
  const numbers = leaves.numbers.filter((n) => !isTrivial(n));
  if (strings.length + numbers.length === 0) return false;
  return (
    strings.every((leaf) => texts.some((text) => text.includes(leaf))) &&
    numbers.every((n) => spokenIn(n, spoken))
  );
}

/**
 * Whether a site's expected value (or one of its rows) can be read in `around`, the base commit's
 * files the planner is given (the existing suite's tests, conftests, setup files), read whole: each
 * string of MIN_EXPOSED characters or more stands in one of them, a number but 0 and ±1 as a token;
 * containers are not read so. Those files are in the container beside the hidden ones: a base test's
 * `toBeCloseTo(0.3)` handed unfixed code the `0.3` a hidden `toBe(0.3)` expected, and the grade said
 * "strong" (attack review s26, finding 7).
 */
export function readAround(site: SealSite, around: readonly string[]): boolean {
  if (around.length === 0) return false;
  const values = site.rows ?? (site.expected ? [site.expected] : []);
  return values.some((value) => isScalar(value) && readIn(value, around, around));
}

/**
 * Whether another hidden file spells a site's expected value (or one of its rows) as it enters the
 * container: a scalar as {@link readAround} reads it; a container too, when each of its leaves stands
 * in one text and one leaf is a string of MIN_EXPOSED characters or more, or when its numbers stand in
 * a row in its order in one text (`[4253, 4503]`, `[[17, 4253]]`: spaces and brackets aside). A sibling test that hands a helper the
 * whole list a sealed test expects hands it to the code too (attack review s28: `words(…) ==
 * ["creme", "brulee-q"]` strong beside `_check(…, ["creme", "brulee-q"])` in another hidden file).
 */
export function readInSiblings(site: SealSite, siblings: readonly string[]): boolean {
  if (siblings.length === 0) return false;
  if (readAround(site, siblings)) return true;
  const values = site.rows ?? (site.expected ? [site.expected] : []);
  const squeezed = siblings.map((t) => t.replace(/\s+/g, ""));
  return values.some((value) => {
    if (isScalar(value)) return false;
    const leaves = leavesOf(value);
    if (!leaves) return false;
    if (leaves.strings.some((t) => t.length >= MIN_EXPOSED)) return readIn(value, siblings, siblings);
    const numbers = leaves.numbers;
    if (leaves.strings.length > 0 || numbers.length < 2 || numbers.every(isTrivial)) return false;
    const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const row = numbers
      .map((n) => `(?:${(numberSpellings(n) ?? []).map(esc).join("|")})`)
      .join("[\\[\\](){},]+");
    const inRow = new RegExp(`(?<![\\d.])${row}(?![\\d]|\\.\\d)`);
    return squeezed.some((text) => inRow.test(text));
  });
}

/**
 * A string or a number. A container is not counted exposed by the base files from its leaves alone:
 * their small numbers stand somewhere in nearly every test file (ranges-vitest's `[[1, 5]]`), which
 * says nothing of which container the test expects.
 */
const isScalar = (node: Canon): boolean =>
  node.t === "str" ||
  node.t === "bytes" ||
  numberSpellings(node) !== null ||
  (node.t === "const" && node.c === "string");

/**
 * The sites with their strength: weak, exposed (the value is among `literals`, or readable inside the
 * `texts`, the string literals and comments of the sealed files, its numbers inside `spoken`), or strong.
 */
export function strengthOf(
  sites: SealSite[],
  literals: readonly Canon[],
  texts: readonly string[] = [],
  spoken: readonly string[] = [],
): SealSite[] {
  const present = new Set(literals.map(valueKey));
  const exposed = (value: Canon) => present.has(valueKey(value)) || readIn(value, texts, spoken);
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
