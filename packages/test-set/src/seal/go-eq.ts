import { elementType, keyType } from "../go/literal.js";
import { type Canon, UNJUDGEABLE } from "./canon.js";
import type { Verdict } from "./python-eq.js";

/**
 * Go's equalities over what the runtime records (docs/security.md, "What is plain data: Go"),
 * on the host. Go has no user-defined `==`: the runtime reads values by reflection only (a
 * `String()` method never speaks for a value), so every value is plain data but funcs and
 * channels, which compare by address.
 * - `go.eq` (`got != <constant>`): the constant converted to the static type of `got` (an interface
 *   holds a value of the constant's default type: int, float64, int32 for a rune, string, bool);
 * - `go.deepEqual` (`reflect.DeepEqual`, testify `Equal`): identical dynamic types, nil and empty
 *   slices and maps differ, maps without order, NaN equal to nothing;
 * - `go.nil`: a nil pointer, slice, map, channel, func or interface.
 */

const DEFAULT_TYPE: Record<string, string> = {
  int: "int",
  float: "float64",
  imag: "complex128",
  rune: "int32",
  string: "string",
  bool: "bool",
};

/** A float64 from the runtime's bits. */
function bitsToDouble(bits: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${bits}`));
  return view.getFloat64(0);
}

/** An untyped constant's value as a number of the given float kind (float32 rounds once more). */
function constFloat(value: string, kind: string): number {
  const n = Number(value);
  return kind === "float32" || kind === "complex64" ? Math.fround(n) : n;
}

/** An integer constant's exact value, or null when the constant is not an integer (`2.5`). */
function constInt(c: Canon): bigint | null {
  if (c.c === "int" || c.c === "rune") return BigInt(c.v as string);
  if (c.c === "float") {
    const m = /^(-?)(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/.exec(c.v as string);
    if (!m) return null;
    const digits = BigInt(`${m[2]}${m[3]}` || "0");
    const exp = Number(m[4] ?? 0) - (m[3]?.length ?? 0);
    const value =
      exp >= 0
        ? digits * 10n ** BigInt(exp)
        : digits % 10n ** BigInt(-exp) === 0n
          ? digits / 10n ** BigInt(-exp)
          : null;
    return value === null ? null : m[1] === "-" ? -value : value;
  }
  return null;
}

/** Whether a runtime value (of a basic kind) equals an untyped constant converted to its type. */
function basicEqualsConst(value: Canon, c: Canon): Verdict {
  switch (value.t) {
    case "bool":
      return c.c === "bool" && value.v === c.v;
    case "int":
    case "uint": {
      const n = constInt(c);
      return n !== null && BigInt(value.v as string) === n;
    }
    case "float": {
      if (!["int", "float", "rune"].includes(c.c as string)) return false;
      const v = bitsToDouble(value.b as string);
      return v === constFloat(c.v as string, value.k as string);
    }
    case "complex": {
      const re = bitsToDouble(value.re as string);
      const im = bitsToDouble(value.im as string);
      if (c.c === "imag") return re === 0 && im === constFloat(c.v as string, value.k as string);
      if (["int", "float", "rune"].includes(c.c as string))
        return im === 0 && re === constFloat(c.v as string, value.k as string);
      return false;
    }
    case "string":
      return c.c === "string" && value.x === c.x;
    default:
      return false;
  }
}

const NILABLE = new Set(["ptr", "slice", "map", "iface", "ref"]);

/** The interface types a table's column can carry as `as` (literal.ts goTypeString, go/seal.ts: `any`, `interface{}`, `error`). */
const INTERFACES = new Set(["interface {}", "error"]);

/**
 * `got != <constant>` held false: got equals the constant. A constant of a column of interface type
 * (`want any`, `want error`) is that interface already, holding the constant's default type (or nil):
 * Go compares `got` converted to it, so a concrete `got` must have exactly that type (an `int64(11)`
 * is not `want any: 11`) and is never a nil interface (a nil `*MyError` returned as `error` is no nil
 * `want error`). Else the constant is converted to the static type of `got`.
 */
export function goEq(actual: Canon, expected: Canon): Verdict {
  if (UNJUDGEABLE.has(actual.t)) return "unknown";
  if (expected.t !== "const") return "unknown";
  const column = typeof expected.as === "string" ? expected.as : null;
  const iface = column !== null && INTERFACES.has(column);
  if (expected.c === "nil") {
    if (iface) return actual.t === "iface" && actual.nil === true;
    return NILABLE.has(actual.t) ? actual.nil === true : false;
  }
  const type = iface || column === null ? DEFAULT_TYPE[expected.c as string] : column;
  if (actual.t === "iface") {
    if (actual.nil === true) return false;
    const inner = actual.v as Canon;
    return inner.ty === type && basicEqualsConst(inner, expected);
  }
  if (iface) return actual.ty === type && basicEqualsConst(actual, expected);
  if (typeof expected.named === "string") return namedColumnEq(actual, expected, expected.named);
  return basicEqualsConst(actual, expected);
}

/** Whether a runtime type string (`calc.Celsius`) is the type a column names (`calc.Celsius`, or `Celsius` in its own package). */
const isNamed = (ty: unknown, named: string): boolean =>
  typeof ty === "string" && (ty === named || (!named.includes(".") && ty.endsWith(`.${named}`)));

/**
 * `got != tt.want` for a concrete got and a constant of a column whose named type the host does not
 * know (`want driver.Value`, `want Celsius`): a concrete type (then got is of that very type, or the
 * file would not compile, and the constant converts to it) or an interface (then Go compares got's
 * dynamic type with the constant's default one: an int64 count is no `want driver.Value: 11`, attack
 * review s28). Equal values of the default type or of the column's type are equal either way; any
 * other type is unequal under an interface, equal under an alias of it: unknown.
 */
function namedColumnEq(actual: Canon, expected: Canon, named: string): Verdict {
  const same = basicEqualsConst(actual, expected);
  if (same !== true) return same;
  if (actual.ty === DEFAULT_TYPE[expected.c as string] || isNamed(actual.ty, named)) return true;
  return "unknown";
}

/** An expected value's type as reflect names it. */
function typeOf(expected: Canon): string | null {
  if (expected.t === "lit") return expected.ty as string;
  if (expected.t === "const") return DEFAULT_TYPE[expected.c as string] ?? null;
  return null;
}

/** `reflect.DeepEqual(got, <literal>)`: identical types, then values; an expected element takes its type from the literal's. */
export function goDeepEqual(actual: Canon, expected: Canon, as?: string): Verdict {
  if (UNJUDGEABLE.has(actual.t)) return "unknown";
  let value = actual;
  while (value.t === "iface" && value.nil !== true) value = value.v as Canon;
  // A constant of a named column (`want Celsius: 2`) is of that type when got is (else an interface's).
  const want =
    as ??
    (typeof expected.as === "string"
      ? expected.as
      : typeof expected.named === "string" && isNamed(value.ty, expected.named)
        ? (value.ty as string)
        : typeOf(expected));
  if (expected.t === "const" && expected.c === "nil") return value.t === "iface" && value.nil === true;
  if (want === null) return "unknown";
  if (want !== null && INTERFACES.has(want)) {
    // An element of []interface{} / map[…]interface{}, or a cell of a `want any` column: the
    // value's own type (a constant's default type). Not `expected.as`, which names the interface.
    const own = typeOf(expected);
    return own === null || INTERFACES.has(own) ? "unknown" : goDeepEqual(actual, expected, own);
  }
  if (value.ty !== want) return false;
  if (expected.t === "const") {
    if (value.t === "float" && Number.isNaN(bitsToDouble(value.b as string))) return false;
    return basicEqualsConst(value, expected);
  }
  if (expected.nil === true) return (value.t === "slice" || value.t === "map") && value.nil === true;
  const items = (expected.v as unknown[]) ?? [];
  // (A record whose type names a slice but whose kind is a map, say, is not one reflect writes.)
  if ((value.t === "map") !== (expected.k === "map")) return false;
  if (value.t === "slice" || value.t === "array") {
    if (value.nil === true) return false;
    const got = (value.v as Canon[]) ?? [];
    if (got.length !== items.length) return false;
    return all(got.map((g, i) => goDeepEqual(g, items[i] as Canon, elementType(want))));
  }
  if (value.t === "map") {
    if (value.nil === true) return false;
    const got = (value.v as Array<[Canon, Canon]>) ?? [];
    const pairs = items as Array<[Canon, Canon]>;
    if (got.length !== pairs.length) return false;
    return all(
      pairs.map(([k, v]) => {
        const match = got.find(([gk]) => goDeepEqual(gk, k, keyType(want)) === true);
        return match ? goDeepEqual(match[1], v, elementType(want)) : false;
      }),
    );
  }
  return "unknown";
}

function all(verdicts: Iterable<Verdict>): Verdict {
  let unknown = false;
  for (const v of verdicts) {
    if (v === false) return false;
    if (v === "unknown") unknown = true;
  }
  return unknown ? "unknown" : true;
}

/** A recorded truth value against the one wanted. */
export function goTruth(actual: Canon, want: boolean): Verdict {
  return actual.t === "bool" ? actual.v === want : "unknown";
}

/** `got == nil` for what the runtime recorded. */
export function goNil(actual: Canon): Verdict {
  if (UNJUDGEABLE.has(actual.t)) return "unknown";
  return NILABLE.has(actual.t) ? actual.nil === true : false;
}
