import { type Canon, UNJUDGEABLE } from "./canon.js";
import type { Verdict } from "./python-eq.js";

/**
 * JavaScript's equalities over plain data (docs/security.md, "What is plain data: JavaScript"), on
 * the host, one per matcher family (kinds.ts):
 * - `Object.is` (jest/vitest `toBe`, node `strictEqual`, node:assert/strict's `equal`): NaN is NaN,
 *   0 is not -0; objects only themselves;
 * - `===` (chai `equal`): NaN is not NaN, 0 is -0;
 * - `==` (chai `assert.equal`) between primitives;
 * - node's legacy `==` (`assert.equal`, and `deepEqual` on primitives): `==`, but NaN equals NaN
 *   (node's `actual == expected || (NumberIsNaN(actual) && NumberIsNaN(expected))`);
 * - `toEqual`: recursive, Object.is on primitives, properties whose value is undefined and array
 *   holes ignored, prototypes not compared (a class instance equals a literal with its fields); two
 *   Errors of the test's realm by their message alone (jest 30 and vitest 2.1 both); under jest an
 *   array's missing items read as undefined (`[1, undefined]` equals `[1]`; vitest checks lengths);
 * - `toStrictEqual`: the same, but undefined properties and holes count and constructors must match
 *   (`value.constructor`, as the runtime found it without running code: identity under vitest; under
 *   jest also two native constructors of one name, and any two arrays);
 * - `deepStrictEqual` (node): prototypes must be the same, undefined properties and holes count;
 * - `deepEqual` (legacy node): node's legacy `==` on primitives, prototypes ignored, undefined
 *   properties and holes count (node 18 and 20: `deepEqual([, 1], [undefined, 1])` fails), symbol
 *   keys do not (node reads them in strict mode only);
 * - `eql` (chai's deep-eql): Object.is on primitives, the values' type tags must match; an object's
 *   keys are what `for…in` lists (inherited enumerable ones count), an array is its items alone
 *   (its own other properties are not compared: a regex match equals `["b"]`), and so is an
 *   `arguments` object; an Error is its name, message and `code`.
 * A value that is not plain data (opaque, too deep, too large) makes the comparison "unknown".
 */

type PrimitiveRule = "objectIs" | "strict" | "loose" | "nodeLoose";

/** The runner whose matchers a toEqual/toStrictEqual comparison runs under; null: not known, the stricter of the two. */
export type JsRunner = "jest" | "vitest" | null;

interface DeepRules {
  primitive: PrimitiveRule;
  /** jest/vitest's `equals`: Errors of the test's realm by message, the runner's own array and constructor rules. */
  matcher?: { runner: JsRunner };
  /** Whether a property whose value is undefined (and an array hole) counts. */
  undefinedCounts: boolean;
  /** Whether an array hole differs from an undefined item. */
  holesCount: boolean;
  /** How prototypes are compared: not at all (only the type tag), constructor by constructor, or identical. */
  proto: "tag" | "constructor" | "identical";
  /**
   * chai's deep-eql: an object's keys are those `for…in` lists (its inherited enumerable ones too:
   * the runtime's `inh`), and an array is its length and items alone (`iterableEqual`).
   */
  forIn?: boolean;
  /**
   * Whether own enumerable symbol keys count (default yes): node's legacy deepEqual reads them in
   * strict mode only, at every level (comparisons.js keyCheck; `js/runtime.test.ts` "symbol keys").
   */
  symbols?: false;
}

const PRIMITIVES = new Set(["undefined", "null", "bool", "num", "bigint", "str", "sym"]);
const OBJECTS = new Set(["arr", "obj", "map", "set", "date", "regexp", "error", "boxed", "typed", "fn"]);

const num = (node: Canon): number => Number(node.v as string);

function all(verdicts: Iterable<Verdict>): Verdict {
  let unknown = false;
  for (const v of verdicts) {
    if (v === false) return false;
    if (v === "unknown") unknown = true;
  }
  return unknown ? "unknown" : true;
}

/** `Object.is` between two canon primitives (or the same object, by its identity). */
export function objectIs(a: Canon, b: Canon): Verdict {
  if (UNJUDGEABLE.has(a.t) || UNJUDGEABLE.has(b.t)) return "unknown";
  if (a.t !== b.t) return false;
  switch (a.t) {
    case "undefined":
    case "null":
      return true;
    case "bool":
    case "str":
    case "bigint":
      return a.v === b.v;
    case "num":
      return Object.is(num(a), num(b));
    case "sym":
    case "fn":
      return a.id === b.id;
    default:
      return a.ref !== undefined && a.ref === b.ref;
  }
}

/** `===`: Object.is but NaN is not NaN and 0 is -0. */
export function strictEquals(a: Canon, b: Canon): Verdict {
  if (a.t === "num" && b.t === "num") return num(a) === num(b);
  return objectIs(a, b);
}

/**
 * The primitive `==` converts an object to (ToPrimitive, hint "default"), for the objects whose
 * conversion is the language's own and reads only data the runtime recorded: a boxed string, number,
 * boolean or bigint is what its `valueOf` gave (recorded as `v`); an array of the realm's Array with
 * no own `toString`, `join` or `valueOf` and no own symbol key (`Symbol.toPrimitive`) is its items
 * joined by "," (Array.prototype.toString), each item as String() makes it (undefined, null and holes
 * empty, an inner array the same way, a boxed primitive its value, a plain object "[object Object]").
 * A node Buffer is its bytes decoded as UTF-8 (Buffer.prototype.toString), another typed array of
 * the realm's own class its items joined. A symbol item throws (false: the runner's comparison
 * throws too); anything else (a Date, whose string depends on the time zone, a function, a class
 * instance, a subclass of a typed array) is null: unknown.
 * legacy `assert.equal([1, 2], "1,2")` and `assert.equal(new String("a"), "a")` pass in node; the host
 * said VALUE_NOT_PLAIN_DATA (eqdiff seed 27).
 */
const TYPED: Record<string, { new (buffer: ArrayBuffer): unknown; BYTES_PER_ELEMENT: number }> = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
};

function toPrimitive(node: Canon, depth = 0): Canon | null | "throws" {
  if (PRIMITIVES.has(node.t)) return node;
  const shadows = (x: Canon) =>
    ((x.syms as unknown[] | undefined)?.length ?? 0) > 0 ||
    props(x).some(([k]) => k === "toString" || k === "valueOf" || k === "join");
  if (node.t === "boxed") {
    const value = node.v as Canon | undefined;
    if (!value || !["str", "num", "bool", "bigint"].includes(value.t) || shadows(node)) return null;
    return /^\[object (String|Number|Boolean|BigInt)\]$/.test(String(node.tag)) ? value : null;
  }
  // A plain object (or an arguments object) of the realm: Object.prototype.toString, by its tag.
  if (node.t === "obj" && node.proto === "Object" && !shadows(node) && node.inh === undefined)
    return node.tag === "[object Object]" || node.tag === "[object Arguments]"
      ? { t: "str", v: String(node.tag) }
      : null;
  if (node.t === "typed" && !shadows(node)) {
    const name = /^\[object (\w+)\]$/.exec(String(node.tag))?.[1] ?? "";
    const bytes = Uint8Array.from(String(node.v).match(/../g) ?? [], (h) => Number.parseInt(h, 16));
    // node's Buffer (FastBuffer, whose prototype is Buffer's): its toString decodes UTF-8, each
    // malformed sequence one U+FFFD, as TextDecoder does; `assert.equal(fs.readFileSync(p), "text")`.
    if (name === "Uint8Array" && /^#\d+:Buffer$/.test(String(node.proto)))
      return { t: "str", v: new TextDecoder().decode(bytes) };
    // Another typed array of the realm's own class: Array.prototype.toString, its items joined.
    const Typed = TYPED[name];
    if (!Typed || !new RegExp(`^#\\d+:${name}$`).test(String(node.proto))) return null;
    if (bytes.length % Typed.BYTES_PER_ELEMENT !== 0) return null;
    return {
      t: "str",
      v: Array.from(new Typed(bytes.buffer) as ArrayLike<number | bigint>, String).join(","),
    };
  }
  if (node.t === "arr" && node.proto === "Array" && !shadows(node) && depth < 64) {
    const parts: string[] = [];
    for (const item of (node.v as Canon[]) ?? []) {
      if (item.t === "hole" || item.t === "undefined" || item.t === "null") parts.push("");
      else if (item.t === "sym") return "throws";
      else if (
        item.t === "obj" &&
        item.proto === "Object" &&
        item.tag === "[object Object]" &&
        !shadows(item)
      )
        parts.push("[object Object]");
      else {
        const inner = toPrimitive(item, depth + 1);
        if (inner === null || inner === "throws") return inner;
        if (inner.t === "sym") return "throws";
        parts.push(
          inner.t === "num"
            ? String(num(inner))
            : inner.t === "bool"
              ? String(inner.v === true)
              : String(inner.v),
        );
      }
    }
    return { t: "str", v: parts.join(",") };
  }
  return null;
}

/** `==`: between primitives, or an object the host can convert to one (toPrimitive) against a primitive. */
export function looseEquals(a: Canon, b: Canon): Verdict {
  if (UNJUDGEABLE.has(a.t) || UNJUDGEABLE.has(b.t)) return "unknown";
  const nullish = (x: Canon) => x.t === "null" || x.t === "undefined";
  if (nullish(a) || nullish(b)) return nullish(a) && nullish(b);
  if (OBJECTS.has(a.t) && OBJECTS.has(b.t)) return objectIs(a, b);
  if (OBJECTS.has(a.t) || OBJECTS.has(b.t)) {
    const [x, y] = [toPrimitive(a), toPrimitive(b)];
    if (x === "throws" || y === "throws") return false;
    if (x === null || y === null) return "unknown";
    return looseEquals(x, y);
  }
  if (a.t === "sym" || b.t === "sym") return a.t === b.t && a.id === b.id;
  const toNumber = (x: Canon): number | bigint => {
    if (x.t === "num") return num(x);
    if (x.t === "bool") return x.v ? 1 : 0;
    if (x.t === "bigint") return BigInt(x.v as string);
    const text = (x.v as string).trim();
    return text === "" ? 0 : Number(text);
  };
  if (a.t === b.t) return a.t === "num" ? num(a) === num(b) : a.v === b.v;
  // A bigint against a string reads the string as a bigint (StringToBigInt, what BigInt() does), not
  // through a double: 12345678901234567890n == "12345678901234567890" holds.
  const [big, text] =
    a.t === "bigint" && b.t === "str" ? [a, b] : b.t === "bigint" && a.t === "str" ? [b, a] : [];
  if (big && text) {
    try {
      return BigInt(text.v as string) === BigInt(big.v as string);
    } catch {
      return false;
    }
  }
  const [x, y] = [toNumber(a), toNumber(b)];
  if (typeof x === "bigint" || typeof y === "bigint") {
    const big = (v: number | bigint) => (typeof v === "bigint" ? v : Number.isInteger(v) ? BigInt(v) : null);
    const [p, q] = [big(x), big(y)];
    return p !== null && q !== null && p === q;
  }
  return x === y;
}

/** Node's legacy `assert.equal` and `deepEqual` on primitives: `==`, but NaN equals NaN (node 10 on, checked on node 18 and 20). */
export function nodeLooseEquals(a: Canon, b: Canon): Verdict {
  if (a.t === "num" && b.t === "num" && Number.isNaN(num(a)) && Number.isNaN(num(b))) return true;
  return looseEquals(a, b);
}

const primitiveRule = (rule: PrimitiveRule) =>
  rule === "objectIs"
    ? objectIs
    : rule === "strict"
      ? strictEquals
      : rule === "nodeLoose"
        ? nodeLooseEquals
        : looseEquals;

const props = (node: Canon): Array<[string, Canon]> => (node.props as Array<[string, Canon]>) ?? [];
const syms = (node: Canon): Array<[string, number, Canon]> =>
  (node.syms as Array<[string, number, Canon]>) ?? [];
const items = (node: Canon): Canon[] => (node.v as Canon[]) ?? [];

/** The type tag the matchers compare (Object.prototype.toString's). */
function tagOf(node: Canon): string {
  switch (node.t) {
    case "arr":
      return "[object Array]";
    case "obj":
      return (node.tag as string) ?? "[object Object]";
    case "map":
      return "[object Map]";
    case "set":
      return "[object Set]";
    case "date":
      return "[object Date]";
    case "regexp":
      return "[object RegExp]";
    case "error":
      return "[object Error]";
    case "boxed":
    case "typed":
      return node.tag as string;
    default:
      return `primitive:${node.t}`;
  }
}

/**
 * `value.constructor` as the runtime recorded it (js/runtime.ts `__oracleCtor`): "Object" and "Array"
 * (the test realm's own), "undefined", "null", "native:<name>#<id>" (a native function), "#<id>" (any
 * other function), or null when the matcher would have run code to read it. A literal made on the host
 * has its realm's Object or Array, unless it holds a `constructor` key of its own.
 */
function ctorOf(node: Canon): string | null {
  if (typeof node.ctor === "string") return node.ctor === "?" ? null : node.ctor;
  if ("ctor" in node) return null;
  // A literal with a `constructor` key of its own: that value is its constructor as toStrictEqual
  // reads it (`{ constructor: "x" }` strictly equals another such object: eqdiff js seed 2), in the
  // runtime's form for a primitive one (`=s:x`, `=n:0`; NaN is no value ===).
  const own = props(node).find(([k]) => k === "constructor");
  if (own) return primitiveCtor(own[1]);
  if (node.t === "obj" && node.proto === "Object") return "Object";
  if (node.t === "arr" && node.proto === "Array") return "Array";
  return null;
}

/** A primitive `constructor` value as the runtime writes it (js/runtime.ts, __oracleCtor), or null. */
function primitiveCtor(value: Canon): string | null {
  switch (value.t) {
    case "undefined":
    case "null":
      return value.t;
    case "str":
      return `=s:${value.v as string}`;
    case "num": {
      const n = num(value);
      return Number.isNaN(n) ? null : `=n:${String(n === 0 ? 0 : n)}`;
    }
    case "bool":
      return `=b:${String(value.v === true)}`;
    case "bigint":
      return `=g:${value.v as string}`;
    default:
      return null;
  }
}

/** The name of a native constructor (jest compares those by name across realms), or null. */
function nativeName(ctor: string): string | null {
  if (ctor === "Object" || ctor === "Array") return ctor;
  const m = /^native:(.*)#\d+$/s.exec(ctor);
  return m ? m[1]! : null;
}

/**
 * jest's and vitest's typeEquality (toStrictEqual): `a.constructor === b.constructor`; jest 30 also
 * passes any two arrays and two native constructors of one name (another realm's Object).
 */
function constructorsMatch(a: Canon, b: Canon, runner: JsRunner): Verdict {
  if (runner === "jest" && a.t === "arr" && b.t === "arr") return true;
  const [p, q] = [ctorOf(a), ctorOf(b)];
  if (p === null || q === null) return "unknown";
  if (p === q) return true;
  if (runner !== "jest") return false;
  const [m, n] = [nativeName(p), nativeName(q)];
  return m !== null && m === n;
}

/** Whether two prototypes match under the rule (a literal's is "Object" or "Array"). */
function protosMatch(a: Canon, b: Canon, rules: DeepRules): Verdict {
  if (rules.proto === "tag") return true;
  if (rules.proto === "constructor") return constructorsMatch(a, b, rules.matcher?.runner ?? null);
  return a.proto === b.proto;
}

function keyed(node: Canon, rules: DeepRules): Map<string, Canon> {
  const out = new Map<string, Canon>();
  const inherited = rules.forIn && Array.isArray(node.inh) ? (node.inh as Array<[string, Canon]>) : [];
  for (const [k, v] of [...props(node), ...inherited])
    if (rules.undefinedCounts || v.t !== "undefined") out.set(`s:${k}`, v);
  if (rules.symbols !== false)
    for (const [, id, v] of syms(node))
      if (rules.undefinedCounts || v.t !== "undefined") out.set(`y:${id}`, v);
  return out;
}

function keysEqual(a: Canon, b: Canon, rules: DeepRules): Verdict {
  // A Proxy on the prototype chain: what `for…in` lists there was not read.
  if (rules.forIn && (a.inh === "?" || b.inh === "?")) return "unknown";
  const [x, y] = [keyed(a, rules), keyed(b, rules)];
  if (x.size !== y.size) return false;
  return all([...x].map(([k, v]) => (y.has(k) ? deepEquals(v, y.get(k)!, rules) : false)));
}

function arraysEqual(a: Canon, b: Canon, rules: DeepRules): Verdict {
  const [x, y] = [items(a), items(b)];
  // jest 30's toEqual checks no length: an index one array lacks reads as undefined there.
  const padded = rules.matcher?.runner === "jest" && !rules.undefinedCounts;
  if (x.length !== y.length && !padded) return false;
  const item = (v: Canon | undefined): Canon =>
    v === undefined || (v.t === "hole" && !rules.holesCount) ? { t: "undefined" } : v;
  const pairs = Array.from({ length: Math.max(x.length, y.length) }, (_, i) => {
    const [p, q] = [item(x[i]), item(y[i])];
    if (p.t === "hole" || q.t === "hole") return p.t === q.t;
    return deepEquals(p, q, rules);
  });
  return all(rules.forIn ? pairs : [...pairs, keysEqual(a, b, rules)]);
}

/**
 * A member's kind and value where deepEquals under `rules` can say true or "unknown" only between
 * members of the same one: a primitive's type and value under Object.is and `===` (0 and -0 one), an
 * object's type tag; under `==` a primitive's number (1, "1", true and 1n one kind); null where it
 * cannot tell (a value not plain data, a function under `==`), which is compared with every member. Two members of different
 * kinds are unequal, so matching need not try them (attack review s29, finding 4).
 */
function memberKind(node: Canon, rules: DeepRules): string | null {
  if (UNJUDGEABLE.has(node.t)) return null;
  if (rules.primitive === "loose" || rules.primitive === "nodeLoose") {
    // `==` between primitives: by the number each converts to (a string only equals another string
    // when it names no number), null and undefined one kind (each marked `=`); a function by its
    // identity (`~`), but against a primitive its conversion is unknown: matchMembers tries each
    // function against every primitive, and each primitive against every function.
    switch (node.t) {
      case "fn":
        return `~fn#${String(node.id)}`;
      case "undefined":
      case "null":
        return "=nullish";
      case "sym":
        return `=sym#${String(node.id)}`;
      case "num":
      case "bool":
      case "bigint":
      case "str": {
        const n =
          node.t === "bool"
            ? node.v === true
              ? 1
              : 0
            : node.t === "bigint"
              ? Number(BigInt(node.v as string))
              : Number(node.t === "str" ? String(node.v).trim() : node.v);
        if (node.t === "str" && Number.isNaN(n)) return `=str:${String(node.v)}`;
        return `=num:${n === 0 ? 0 : n}`;
      }
    }
  }
  switch (node.t) {
    case "undefined":
    case "null":
      return node.t;
    case "num": {
      const n = num(node);
      return `num:${n === 0 ? 0 : n}`;
    }
    case "bool":
    case "str":
    case "bigint":
      return `${node.t}:${String(node.v)}`;
    case "sym":
    case "fn":
      return `${node.t}#${String(node.id)}`;
    default: {
      // A plain object equals another only with the same own keys holding equal values: its keys
      // whose values are primitives (under toEqual, not undefined) belong to its kind, each with its
      // value's (not under chai's deep-eql, which reads inherited keys too).
      const tag = `tag:${tagOf(node)}`;
      if (node.t !== "obj" || rules.forIn) return tag;
      const own = new Map<string, Canon>(props(node));
      const parts: string[] = [];
      for (const [k, v] of own) {
        if (!PRIMITIVES.has(v.t) || (!rules.undefinedCounts && v.t === "undefined")) continue;
        const kind = memberKind(v, rules);
        if (kind !== null) parts.push(`${JSON.stringify(k)}=${kind}`);
      }
      return `${tag}{${parts.sort().join(",")}}`;
    }
  }
}

/**
 * Members of `b` that some member of `a` equals, one each (Set and Map equality without order): for
 * each member of `a` in order, the first unused member of `b` it equals, tried among those of its kind
 * (memberKind, by `kindOf`) and those of no known kind, in `b`'s order, as trying every member did.
 */
function matchMembers(
  a: Canon[],
  b: Canon[],
  equal: (p: Canon, q: Canon) => Verdict,
  kindOf: (node: Canon) => string | null,
): Verdict {
  if (a.length !== b.length) return false;
  const byKind = new Map<string, number[]>();
  const unkinded: number[] = [];
  // Under `==`: the primitives (kinds marked `=`) and the functions (`~`), each tried against the other.
  const [primitives, functions]: [number[], number[]] = [[], []];
  for (const [j, q] of b.entries()) {
    const kind = kindOf(q);
    if (kind?.startsWith("=")) primitives.push(j);
    if (kind?.startsWith("~")) functions.push(j);
    if (kind === null) unkinded.push(j);
    else {
      const list = byKind.get(kind);
      if (list) list.push(j);
      else byKind.set(kind, [j]);
    }
  }
  const all = b.map((_, j) => j);
  const used = new Set<number>();
  // Where each list's unused members begin (a kind's members are mostly used in order).
  const start = new Map<number[], number>();
  const firstUnused = (list: number[], from: number) => {
    let i = from;
    while (i < list.length && used.has(list[i]!)) i++;
    return i;
  };
  let unknown = false;
  for (const p of a) {
    const kind = kindOf(p);
    const lists =
      kind === null
        ? [all]
        : [
            byKind.get(kind) ?? [],
            unkinded,
            ...(kind.startsWith("=") ? [functions] : kind.startsWith("~") ? [primitives] : []),
          ];
    // The lists' unused members in ascending order (b's order), merged.
    const at = lists.map((list) => {
      const i = firstUnused(list, start.get(list) ?? 0);
      start.set(list, i);
      return i;
    });
    let found = false;
    for (;;) {
      let best = -1;
      for (let k = 0; k < lists.length; k++) {
        at[k] = firstUnused(lists[k]!, at[k]!);
        if (at[k]! < lists[k]!.length && (best < 0 || lists[k]![at[k]!]! < lists[best]![at[best]!]!))
          best = k;
      }
      if (best < 0) break;
      const j = lists[best]![at[best]!]!;
      at[best]!++;
      const v = equal(p, b[j]!);
      if (v === true) {
        used.add(j);
        found = true;
        break;
      }
      if (v === "unknown") unknown = true;
    }
    if (!found) return unknown ? "unknown" : false;
  }
  return true;
}

/** The recursive equality under `rules`. */
function deepEquals(a: Canon, b: Canon, rules: DeepRules): Verdict {
  if (UNJUDGEABLE.has(a.t) || UNJUDGEABLE.has(b.t)) return "unknown";
  // A primitive against an object is unequal in every deep comparison (node's legacy deepEqual
  // too: `val1 == val2` only when neither is an object), whatever `==` would make of it; a function
  // (not an object to node) goes to the primitive rule, which cannot judge it.
  if (PRIMITIVES.has(a.t) !== PRIMITIVES.has(b.t) && a.t !== "fn" && b.t !== "fn") return false;
  if (PRIMITIVES.has(a.t) || PRIMITIVES.has(b.t)) return primitiveRule(rules.primitive)(a, b);
  if (a.ref !== undefined && a.ref === b.ref) return true;
  if (tagOf(a) !== tagOf(b)) return false;
  const proto = protosMatch(a, b, rules);
  if (proto === false) return false;
  return all([proto, sameKind(a, b, rules)]);
}

/** Two values of one type tag (and prototypes matched) under `rules`. */
function sameKind(a: Canon, b: Canon, rules: DeepRules): Verdict {
  switch (a.t) {
    case "arr":
      return arraysEqual(a, b, rules);
    case "obj":
      // deep-eql compares two `arguments` objects as it does arrays: their length and items alone.
      if (rules.forIn && a.tag === "[object Arguments]") {
        if (!Array.isArray(a.args) || !Array.isArray(b.args)) return "unknown";
        const [x, y] = [a.args as Canon[], b.args as Canon[]];
        if (x.length !== y.length) return false;
        return all(x.map((v, i) => deepEquals(v, y[i]!, rules)));
      }
      return keysEqual(a, b, rules);
    case "map": {
      const entries = (n: Canon) =>
        (n.v as Array<[Canon, Canon]>).map(
          ([k, v]): Canon => ({ t: "arr", proto: "Array", v: [k, v], props: [], syms: [] }),
        );
      // An entry equals another only when their keys are equal: its kind is its key's.
      return matchMembers(
        entries(a),
        entries(b),
        (p, q) => deepEquals(p, q, rules),
        (entry) => memberKind((entry.v as Canon[])[0]!, rules),
      );
    }
    case "set":
      return matchMembers(
        items(a),
        items(b),
        (p, q) => deepEquals(p, q, rules),
        (member) => memberKind(member, rules),
      );
    case "date":
      return a.v === b.v && a.v !== "NaN";
    case "regexp":
      return a.src === b.src && a.flags === b.flags;
    case "error":
      if (rules.matcher) {
        // jest/vitest: `a instanceof Error && b instanceof Error` compares messages alone; an Error of
        // another realm (or unknown) goes on as an object, by its own enumerable keys.
        if (a.ofError === true && b.ofError === true) return a.message === b.message;
        if (a.ofError === undefined || b.ofError === undefined) return "unknown";
        return keysEqual(a, b, rules);
      }
      if (a.name !== b.name || a.message !== b.message) return false;
      // deep-eql: name, message and `code` (read as a property, enumerable or not), nothing else.
      if (rules.forIn)
        return a.code && b.code ? deepEquals(a.code as Canon, b.code as Canon, rules) : "unknown";
      return rules.proto !== "identical" || keysEqual(a, b, rules) === true;
    case "boxed":
      return objectIs(a.v as Canon, b.v as Canon);
    case "typed":
      return a.v === b.v;
    case "fn":
      return a.id === b.id;
    default:
      return "unknown";
  }
}

const RULES = {
  deepStrictEqual: { primitive: "objectIs", undefinedCounts: true, holesCount: true, proto: "identical" },
  deepEqual: {
    primitive: "nodeLoose",
    undefinedCounts: true,
    holesCount: true,
    proto: "tag",
    symbols: false,
  },
  eql: { primitive: "objectIs", undefinedCounts: true, holesCount: false, proto: "tag", forIn: true },
} as const satisfies Record<string, DeepRules>;

/** jest/vitest `toEqual` under `runner` (null: not known, the stricter of the two). */
export const jsToEqual = (a: Canon, b: Canon, runner: JsRunner = null): Verdict =>
  deepEquals(a, b, {
    primitive: "objectIs",
    undefinedCounts: false,
    holesCount: false,
    proto: "tag",
    matcher: { runner },
  });
/** jest/vitest `toStrictEqual` under `runner` (null: not known, the stricter of the two). */
export const jsToStrictEqual = (a: Canon, b: Canon, runner: JsRunner = null): Verdict =>
  deepEquals(a, b, {
    primitive: "objectIs",
    undefinedCounts: true,
    holesCount: true,
    proto: "constructor",
    matcher: { runner },
  });
export const jsDeepStrictEqual = (a: Canon, b: Canon): Verdict => deepEquals(a, b, RULES.deepStrictEqual);
export const jsDeepEqual = (a: Canon, b: Canon): Verdict => deepEquals(a, b, RULES.deepEqual);
export const jsEql = (a: Canon, b: Canon): Verdict => deepEquals(a, b, RULES.eql);

/** A recorded truth value against the one wanted. */
export function jsTruth(actual: Canon, want: boolean): Verdict {
  return actual.t === "bool" ? actual.v === want : "unknown";
}
