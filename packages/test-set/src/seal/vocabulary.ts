import { type Canon, canonChildren } from "./canon.js";

/**
 * What each language's seal runtime writes (python/runtime.ts, js/runtime.ts, go/runtime.ts), tag
 * by tag: the fields a node of that tag carries and the form of each. A record from the container
 * is read only if its value is a tree of this vocabulary (rules.ts `seal.records`): the code under
 * test can write records too, and a node the runtime never writes (a tag of the host's literals, a
 * field missing, a number where the runtime writes text, an exponent no float has) is not a value
 * the oracle's equality was written for. Such a record makes the suite SEAL_RECORDS_INCONSISTENT,
 * as a record for a key the oracle did not plan does; the host's equality and rendering are total
 * over the vocabulary (vocabulary.test.ts draws trees from it and runs every comparison over them).
 */
export type SealLanguage = "python" | "js" | "go";

/** The form of one field. */
export type Form =
  | { k: "text"; re?: RegExp; samples: readonly string[]; ok?: (v: string) => boolean }
  | { k: "bool" }
  | { k: "count" }
  | { k: "counts" }
  | { k: "scalar" }
  | { k: "node" }
  | { k: "nodes" }
  | { k: "items" }
  | { k: "nodesOrUnknown" }
  | { k: "pairs" }
  | { k: "named" }
  | { k: "namedOrUnknown" }
  | { k: "symbols" };

/**
 * A tag's fields: those it always carries, those it may carry, a pair of which exactly one is
 * there, the fields it carries exactly when its `nil` is false (a Go pointer's address and target),
 * and whether it stands only for an array's missing item (JavaScript's hole).
 */
export interface TagForm {
  need?: Readonly<Record<string, Form>>;
  may?: Readonly<Record<string, Form>>;
  oneOf?: readonly [string, string];
  unlessNil?: readonly string[];
  itemOnly?: true;
}

const text = (samples: readonly string[], re?: RegExp, ok?: (v: string) => boolean): Form => ({
  k: "text",
  samples,
  ...(re ? { re } : {}),
  ...(ok ? { ok } : {}),
});
const ANY_TEXT = text(["", "a", "é\u0000", "Object", "#3:Point"]);
const BOOL: Form = { k: "bool" };
const COUNT: Form = { k: "count" };
const NODE: Form = { k: "node" };
const NODES: Form = { k: "nodes" };
const PAIRS: Form = { k: "pairs" };
const NAMED: Form = { k: "named" };

/** Python's hex(int). */
const PY_HEX_INT = text(
  ["0x0", "-0x1", "0x7fffffffffffffff", "0x10000000000000000000000001"],
  /^-?0x[0-9a-f]+$/,
);
/**
 * float.hex() (nan, inf), and a numpy long double that no double equals as its exact numerator over
 * a power of two (`0x<hex>p-<n>`, python/runtime.ts `_oracle_long_hex`: up to 2**16384, 4,097 hex
 * digits, past 2**128 more than 32: attack review s29, finding 3). Exponents as floats have them:
 * none past a long double's smallest subnormal, 2**-16445 (an exponent of 99999 cost the host 8 ms
 * a number, a set of such keys minutes: finding 2).
 */
const PY_FLOAT_HEX = text(
  [
    "nan",
    "inf",
    "-inf",
    "0x0.0p+0",
    "-0x0.0p+0",
    "0x1.8p+1",
    "0x1.fffffffffffffp+1023",
    "0x0.0000000000001p-1022",
    "0xc000000000000000p-63",
    "-0x1p-16445",
    `0x1${"0".repeat(4096)}p-0`,
    "-0x100000000000000020000000000000000000000000000000000p-0",
  ],
  /^(-?0x[0-9a-f]{1,32}(\.[0-9a-f]{1,32})?p[+-]\d{1,5}|-?0x[0-9a-f]{33,4097}p-\d{1,5}|-?inf|nan)$/,
  (v) => !v.includes("p") || Math.abs(Number(v.slice(v.indexOf("p") + 1))) <= 16445,
);
/** str(Decimal): the runtime writes a Decimal whose exponent has more than five digits as opaque. */
const PY_DECIMAL = text(
  [
    "0",
    "-0",
    "1.50",
    "1E+2",
    "-1.2E-7",
    "NaN",
    "-sNaN",
    "NaN123",
    "Infinity",
    "-Infinity",
    "0E-99999",
    "12345678901234567890.5",
  ],
  /^-?(\d+(\.\d+)?(E[+-]\d{1,5})?|Infinity|s?NaN\d*)$/,
);
const HEX_BYTES = text(["", "00", "ff7f", "e282ac"], /^([0-9a-f]{2})*$/);
const CLS = text(["builtins.int", "collections.OrderedDict", "numpy.ndarray", "mod.Point"]);

/** Every Python node may carry its class (`cls`: a view, a wrapper, a 0-d array recorded as what it compares like). */
const PYTHON: Readonly<Record<string, TagForm>> = {
  none: {},
  big: {},
  deep: {},
  bool: { need: { v: BOOL }, may: { np: text(["bool_", "bool"]) } },
  int: { need: { x: PY_HEX_INT }, may: { np: text(["int64", "uint8"]) } },
  float: { need: { x: PY_FLOAT_HEX }, may: { np: text(["float64", "float32", "longdouble"]) } },
  complex: { need: { re: PY_FLOAT_HEX, im: PY_FLOAT_HEX }, may: { np: text(["complex128", "clongdouble"]) } },
  str: { may: { v: ANY_TEXT, cp: { k: "counts" } }, oneOf: ["v", "cp"] },
  bytes: { need: { v: HEX_BYTES } },
  list: { need: { v: NODES }, may: { sub: CLS } },
  tuple: { need: { v: NODES } },
  dict: { need: { v: PAIRS } },
  odict: { need: { v: PAIRS } },
  counter: { need: { v: PAIRS } },
  set: { need: { frozen: BOOL, v: NODES } },
  ident: { need: { cls: CLS, id: text(["7f3a", "1"], /^[0-9a-f]+$/) }, may: { seq: NODES } },
  opaque: { may: { why: ANY_TEXT, seq: NODES } },
  decimal: { need: { v: PY_DECIMAL } },
  fraction: {
    need: { n: PY_HEX_INT, d: text(["0x1", "0x3", "0x100000000000000000"], /^0x0*[1-9a-f][0-9a-f]*$/) },
  },
  ndarray: { need: { dtype: text(["<i8", "<f8", "|b1", "<U3", "|O"]), shape: { k: "counts" }, v: NODES } },
  call: { need: { v: NODES }, may: { parent: NODE } },
  dataclass: { need: { cls: CLS, v: NAMED } },
};

/** String(number) as JavaScript writes it, and "-0". */
const JS_NUMBER = text([
  "0",
  "-0",
  "1.5",
  "-7",
  "NaN",
  "Infinity",
  "-Infinity",
  "1e+21",
  "5e-324",
  "1.7976931348623157e+308",
]);
const isJsNumber = (v: string) => v === "-0" || String(Number(v)) === v;
const REF = COUNT;
const PROTO = text(["Object", "Array", "null", "#4:Point", "#5:"]);
const CTOR = text(["Object", "Array", "?", "undefined", "=s:x", "#6", "native:Map#7"]);
const OBJECT_HEAD = { proto: PROTO, ref: REF, ctor: CTOR } as const;

const JS: Readonly<Record<string, TagForm>> = {
  undefined: {},
  null: {},
  hole: { itemOnly: true },
  big: {},
  deep: {},
  bool: { need: { v: BOOL } },
  num: { need: { v: JS_NUMBER } },
  bigint: { need: { v: text(["0", "-1", "123456789012345678901234567890"], /^-?\d+$/) } },
  str: { need: { v: ANY_TEXT } },
  sym: { need: { d: ANY_TEXT, id: REF } },
  fn: { need: { name: ANY_TEXT, id: REF } },
  opaque: { may: { why: ANY_TEXT, cls: text(["Proxy", "[object WeakMap]"]) } },
  arr: { need: { ...OBJECT_HEAD, v: { k: "items" }, props: NAMED, syms: { k: "symbols" } } },
  map: { need: { ...OBJECT_HEAD, v: PAIRS } },
  set: { need: { ...OBJECT_HEAD, v: NODES } },
  date: { need: { ...OBJECT_HEAD, v: text(["0", "-1", "NaN", "8640000000000000"], /^(NaN|-?\d+)$/) } },
  regexp: {
    need: { ...OBJECT_HEAD, src: ANY_TEXT, flags: text(["", "gi", "dgimsuy"]) },
    may: { last: { k: "scalar" } },
  },
  error: {
    need: {
      ...OBJECT_HEAD,
      name: ANY_TEXT,
      message: ANY_TEXT,
      code: NODE,
      props: NAMED,
      syms: { k: "symbols" },
    },
    may: { ofError: BOOL },
  },
  boxed: {
    need: { ...OBJECT_HEAD, tag: text(["[object Number]", "[object String]", "[object Boolean]"]), v: NODE },
  },
  typed: {
    need: { ...OBJECT_HEAD, tag: text(["[object Uint8Array]", "[object Float64Array]"]), v: HEX_BYTES },
  },
  obj: {
    need: {
      ...OBJECT_HEAD,
      tag: text(["[object Object]", "[object Arguments]"]),
      props: NAMED,
      syms: { k: "symbols" },
    },
    may: { inh: { k: "namedOrUnknown" }, args: { k: "nodesOrUnknown" } },
  },
};

const GO_TYPE = text([
  "int",
  "string",
  "[]int",
  "map[string]int",
  "main.Point",
  "*main.Point",
  "interface {}",
  "error",
]);
const GO_KIND = (samples: readonly string[]) => text(samples);
const HEX = (samples: readonly string[]) => text(samples, /^[0-9a-f]+$/);
const GO_BITS = HEX(["0", "8000000000000000", "7ff8000000000001", "3ff8000000000000", "7ff0000000000000"]);

/** A Go node of a kind reflect reads: it carries its type (`ty`). */
const typed = (need: Readonly<Record<string, Form>>, rest: Omit<TagForm, "need"> = {}): TagForm => ({
  need: { ty: GO_TYPE, ...need },
  ...rest,
});

const GO: Readonly<Record<string, TagForm>> = {
  big: {},
  deep: {},
  opaque: { need: { why: ANY_TEXT }, may: { cls: GO_TYPE } },
  // (A condition's truth, oracleSealTruth, is written without a type.)
  bool: { need: { v: BOOL }, may: { ty: GO_TYPE } },
  int: typed({
    k: GO_KIND(["int", "int8", "int64"]),
    v: text(["0", "-9223372036854775808", "42"], /^-?\d+$/),
  }),
  uint: typed({ k: GO_KIND(["uint", "uint8", "uintptr"]), v: text(["0", "18446744073709551615"], /^\d+$/) }),
  float: typed({
    k: GO_KIND(["float64", "float32"]),
    b: GO_BITS,
    v: text(["0", "-0", "NaN", "+Inf", "1e+21", "0.1"]),
  }),
  complex: typed({ k: GO_KIND(["complex128", "complex64"]), re: GO_BITS, im: GO_BITS }),
  string: typed({ x: HEX_BYTES }, { may: { v: ANY_TEXT } }),
  slice: typed({ nil: BOOL, v: NODES }),
  array: typed({ nil: BOOL, v: NODES }),
  map: typed({ nil: BOOL, v: PAIRS }),
  struct: typed({ v: NAMED }),
  ptr: typed({ nil: BOOL }, { may: { a: HEX(["c000012345"]), v: NODE }, unlessNil: ["a", "v"] }),
  iface: typed({ nil: BOOL }, { may: { v: NODE }, unlessNil: ["v"] }),
  ref: typed({ k: GO_KIND(["func", "chan", "unsafe.Pointer"]), nil: BOOL, a: HEX(["0", "4a2b10"]) }),
};

/** The vocabularies, by language, and the fields every node of a language may carry. */
export const VOCABULARY: Readonly<
  Record<SealLanguage, { tags: Readonly<Record<string, TagForm>>; common: Readonly<Record<string, Form>> }>
> = {
  python: { tags: PYTHON, common: { cls: CLS } },
  js: { tags: JS, common: {} },
  go: { tags: GO, common: {} },
};

/** Past this depth a record is not read (the runtimes write `deep` at 64). */
const MAX_DEPTH = 80;

/**
 * Why a record's value is not a tree the language's runtime writes (the path to the first node that
 * is not, and what is wrong with it), or null when it is one.
 */
export function vocabularyProblem(language: SealLanguage, value: unknown): string | null {
  const { tags, common } = VOCABULARY[language];
  const node = (v: unknown, path: string, depth: number, item = false): string | null => {
    if (depth > MAX_DEPTH) return `${path}: nested deeper than ${MAX_DEPTH}`;
    if (typeof v !== "object" || v === null || Array.isArray(v)) return `${path}: not a node`;
    const { t } = v as { t?: unknown };
    if (typeof t !== "string") return `${path}: no tag`;
    const tag = Object.hasOwn(tags, t) ? tags[t] : undefined;
    if (!tag) return `${path}: the ${language} runtime writes no "${t.slice(0, 40)}"`;
    if (tag.itemOnly && !item) return `${path}: a "${t}" outside an array's items`;
    const fields = v as Record<string, unknown>;
    for (const name of Object.keys(tag.need ?? {}))
      if (!Object.hasOwn(fields, name)) return `${path}: a "${t}" without "${name}"`;
    if (tag.oneOf && Object.hasOwn(fields, tag.oneOf[0]) === Object.hasOwn(fields, tag.oneOf[1]))
      return `${path}: a "${t}" with ${tag.oneOf.join(" and ")} both or neither`;
    for (const name of tag.unlessNil ?? [])
      if (Object.hasOwn(fields, name) === (fields.nil === true))
        return `${path}: a "${t}" whose "${name}" ${fields.nil === true ? "is there though it is nil" : "is missing though it is not nil"}`;
    for (const [name, field] of Object.entries(fields)) {
      if (name === "t") continue;
      const form =
        tag.need?.[name] ?? tag.may?.[name] ?? (Object.hasOwn(common, name) ? common[name] : undefined);
      if (!form) return `${path}: a "${t}" with a field "${name.slice(0, 40)}" the runtime does not write`;
      const problem = check(form, field, `${path}.${name}`, depth);
      if (problem) return problem;
    }
    return null;
  };
  const list = (v: unknown, path: string, item: (x: unknown, p: string) => string | null): string | null => {
    if (!Array.isArray(v)) return `${path}: not a list`;
    for (const [i, x] of v.entries()) {
      const problem = item(x, `${path}[${i}]`);
      if (problem) return problem;
    }
    return null;
  };
  const tuple = (v: unknown, path: string, parts: Array<(x: unknown, p: string) => string | null>) => {
    if (!Array.isArray(v) || v.length !== parts.length) return `${path}: not ${parts.length} items`;
    for (const [i, part] of parts.entries()) {
      const problem = part(v[i], `${path}[${i}]`);
      if (problem) return problem;
    }
    return null;
  };
  const isText = (x: unknown, p: string) => (typeof x === "string" ? null : `${p}: not text`);
  const isCount = (x: unknown, p: string) =>
    typeof x === "number" && Number.isSafeInteger(x) && x >= 0 ? null : `${p}: not a count`;
  const check = (form: Form, v: unknown, path: string, depth: number): string | null => {
    const sub = (x: unknown, p: string) => node(x, p, depth + 1);
    switch (form.k) {
      case "text":
        if (typeof v !== "string") return `${path}: not text`;
        if (form.re && !form.re.test(v)) return `${path}: not in the form the runtime writes`;
        if (form === JS_NUMBER && !isJsNumber(v)) return `${path}: not a number as JavaScript writes it`;
        if (form.ok && !form.ok(v)) return `${path}: not a value the runtime writes`;
        return null;
      case "bool":
        return typeof v === "boolean" ? null : `${path}: not true or false`;
      case "count":
        return isCount(v, path);
      case "counts":
        return list(v, path, isCount);
      case "scalar":
        return v === null || ["string", "number", "boolean"].includes(typeof v)
          ? null
          : `${path}: not a scalar`;
      case "node":
        return sub(v, path);
      case "nodes":
        return list(v, path, sub);
      case "items":
        return list(v, path, (x, p) => node(x, p, depth + 1, true));
      case "nodesOrUnknown":
        return v === "?" ? null : list(v, path, sub);
      case "pairs":
        return list(v, path, (x, p) => tuple(x, p, [sub, sub]));
      case "named":
        return list(v, path, (x, p) => tuple(x, p, [isText, sub]));
      case "namedOrUnknown":
        return v === "?" ? null : list(v, path, (x, p) => tuple(x, p, [isText, sub]));
      case "symbols":
        return list(v, path, (x, p) => tuple(x, p, [isText, isCount, sub]));
    }
  };
  return node(value, "value", 0);
}

/** Whether a record's value is a tree of the language's vocabulary. */
export const inVocabulary = (language: SealLanguage, value: unknown): value is Canon =>
  vocabularyProblem(language, value) === null;

/**
 * What a Python record's exact numbers may cost the host to judge, in microseconds as measured on
 * node 20 (attack review s29, finding 2): a Decimal is materialised as a fraction (10**|exponent|,
 * and a gcd of its digits with it, quadratic), a Fraction's gcd is quadratic in its digits, a huge
 * int's decimal digits (an approx against a Decimal) too. Each is within the vocabulary, and a record
 * of a thousand `1E+99999` keys took 18 s, a Fraction of two Fibonacci numbers of 80,000 hex digits
 * 219 s. judge.ts reads a run's records only while their sum stays under MAX_NUMBER_COST.
 */
export function numberCost(language: SealLanguage, value: Canon): number {
  if (language !== "python") return 0;
  let cost = 0;
  const stack: Canon[] = [value];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.t === "decimal") {
      const m = /^-?(\d+)(?:\.(\d+))?(?:E([+-]\d+))?$/.exec(String(node.v));
      if (m) {
        const digits = m[1]!.length + (m[2]?.length ?? 0);
        const power = Math.abs(Number(m[3] ?? 0) - (m[2]?.length ?? 0));
        cost += (digits * power) / 300 + (digits + power) / 30;
      }
    } else if (node.t === "fraction") {
      const [n, d] = [String(node.n).length, String(node.d).length];
      cost += (n * d) / 150 + (n + d) / 30;
    } else if (node.t === "int") {
      const h = String(node.x).length;
      cost += (h * h) / 5e6 + h / 30;
    }
    stack.push(...canonChildren(node));
  }
  return cost;
}

/** The most a run's records may cost to judge (numberCost): about two seconds. */
export const MAX_NUMBER_COST = 2_000_000;
