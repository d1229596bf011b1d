import type { Random } from "../random.js";

/**
 * A differential check of the host's equality against the runners' own (seal/eqdiff.test.ts): a
 * seeded generator of (expected literal, actual value) pairs per language, biased to the edges
 * where equalities part (1 == 1.0 == True, NaN, -0.0, str vs bytes, list vs tuple, dict order and
 * key types, numpy, Decimal; JS undefined vs missing, -0, sparse arrays, classes; Go nil vs empty).
 * Each pair becomes one test of one comparison; the test runs as written (the runner's verdict) and
 * sealed (the host's), and every test whose outcomes differ is a disagreement.
 */

/** One generated case: the actual value's source (an expression in the code under test), the expected literal's, the assertion form. */
export interface Pair {
  actual: string;
  expected: string;
  form: string;
}

const pick = <T>(random: Random, items: readonly T[]): T => items[random.int(0, items.length)]!;

/** How often each case is also a case of its near twin (the same value made another way). */
const twinOf = <T>(random: Random, value: T, twins: (v: T) => readonly T[]): T => {
  const options = twins(value);
  return options.length > 0 && random.int(0, 4) > 0 ? pick(random, options) : value;
};

// ---------------------------------------------------------------------------------------------
// Python

const PY_SCALARS = [
  "0",
  "1",
  "-1",
  "2",
  "True",
  "False",
  "None",
  "0.0",
  "-0.0",
  "1.0",
  "0.1",
  "0.30000000000000004",
  "1e308",
  "1e400",
  "-1e400",
  "5e-324",
  "1e16",
  "10000000000000001",
  "18446744073709551616",
  "-9223372036854775809",
  "1j",
  "0j",
  "(1+0j)",
  '""',
  '"a"',
  '"1"',
  '"\\u00e9"',
  '"e\\u0301"',
  '"\\U0001F600"',
  '"\\x00"',
  '"None"',
  'b""',
  'b"a"',
  'b"\\xff"',
  "0.5",
  "2.5",
  "3",
  "1.5",
  "0.3",
];

/** A Python literal, nested at most `depth` deep. */
function pyLiteral(random: Random, depth: number): string {
  const roll = random.int(0, 10);
  if (depth <= 0 || roll < 5) return pick(random, PY_SCALARS);
  const n = random.int(0, 4);
  const items = () => Array.from({ length: n }, () => pyLiteral(random, depth - 1));
  switch (roll) {
    case 5:
    case 6:
      return `[${items().join(", ")}]`;
    case 7:
      return n === 1 ? `(${pyLiteral(random, depth - 1)},)` : `(${items().join(", ")})`;
    case 8: {
      const keys = Array.from({ length: n }, () => pick(random, PY_HASHABLE));
      return `{${keys.map((k) => `${k}: ${pyLiteral(random, depth - 1)}`).join(", ")}}`;
    }
    default: {
      const keys = Array.from({ length: Math.max(n, 1) }, () => pick(random, PY_HASHABLE));
      return `{${keys.join(", ")}}`;
    }
  }
}

const PY_HASHABLE = [
  "0",
  "1",
  "True",
  "False",
  "1.0",
  "0.0",
  "-0.0",
  '"a"',
  '"1"',
  'b"a"',
  "None",
  "(1, 2)",
  "2",
  "1j",
];

/** Ways to make a value Python may hold equal to a literal, and near misses. */
function pyTwins(literal: string): string[] {
  const out: string[] = [];
  const number = /^-?[\d.]+(e[+-]?\d+)?$/.test(literal);
  if (literal === "True" || literal === "False")
    out.push(
      literal === "True" ? "1" : "0",
      `np.bool_(${literal})`,
      `int(${literal})`,
      `float(${literal})`,
      `Decimal(int(${literal}))`,
    );
  if (/^-?\d+$/.test(literal))
    out.push(
      `float(${literal})`,
      `Decimal(${literal})`,
      `Fraction(${literal})`,
      `complex(${literal})`,
      `np.int64(${literal}) if abs(${literal}) < 2**63 else ${literal}`,
      `np.uint8(${literal}) if 0 <= ${literal} < 256 else ${literal}`,
      `np.float64(${literal})`,
      `np.float32(${literal})`,
      `np.array(${literal})`,
      `np.array([${literal}])`,
      `IntEnumX(${literal}) if ${literal} in (0, 1, 2) else ${literal}`,
      `${literal} + 1`,
      `str(${literal})`,
      `IntSub(${literal})`,
      `bool(${literal})`,
    );
  if (number && literal.includes("."))
    out.push(
      `int(${literal}) if ${literal} == int(${literal}) else ${literal}`,
      `Decimal(${JSON.stringify(literal)})`,
      `Decimal(${literal})`,
      `Fraction(${JSON.stringify(literal)})`,
      `Fraction(${literal})`,
      `np.float64(${literal})`,
      `np.float32(${literal})`,
      `np.float16(${literal})`,
      `np.array([${literal}])`,
      `np.array([${literal}], dtype=np.float32)`,
      `np.longdouble(${literal})`,
      `${literal} + 1e-9`,
      `${literal} * (1 + 1e-12)`,
      `math.nextafter(${literal}, 1e400)`,
      `complex(${literal})`,
      `FloatSub(${literal})`,
    );
  if (literal.startsWith("1e400") || literal === "-1e400")
    out.push("float('inf')", "float('-inf')", "float('nan')", "np.inf");
  if (literal === "0.0" || literal === "-0.0" || literal === "0")
    out.push("-0.0", "0.0", "np.float64(-0.0)", "0j", "Decimal('-0')", "Fraction(0)");
  if (literal === "None") out.push("None", "NoneSub()", "0", '""', "[]", "float('nan')");
  if (/^"/.test(literal))
    out.push(
      `unicodedata.normalize("NFC", ${literal})`,
      `unicodedata.normalize("NFD", ${literal})`,
      `${literal}.encode()`,
      `bytearray(${literal}.encode())`,
      `StrSub(${literal})`,
      `UserString(${literal})`,
      `np.str_(${literal})`,
      `${literal} + " "`,
      `[${literal}]`,
    );
  if (/^b"/.test(literal))
    out.push(
      `bytearray(${literal})`,
      `memoryview(${literal})`,
      `${literal}.decode("latin-1")`,
      `np.bytes_(${literal})`,
      `list(${literal})`,
    );
  if (/^\[/.test(literal))
    out.push(
      `tuple(${literal})`,
      `(x for x in ${literal})`,
      `UserList(${literal})`,
      `deque(${literal})`,
      `ListSub(${literal})`,
      `list(reversed(${literal}))`,
      `${literal} + [None]`,
      `${literal}[:-1]`,
      `np.array(${literal}) if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in ${literal}) else ${literal}`,
      `Point(*${literal}) if len(${literal}) == 2 else ${literal}`,
      `[float(x) if type(x) is int else x for x in ${literal}]`,
      `[Decimal(x) if type(x) is int else x for x in ${literal}]`,
      `[np.float64(x) if type(x) is float else x for x in ${literal}]`,
    );
  if (/^\(/.test(literal))
    out.push(
      `list(${literal})`,
      `Point(*${literal}) if len(${literal}) == 2 else ${literal}`,
      `TupleSub(${literal})`,
      `tuple(reversed(${literal}))`,
    );
  if (/^\{.*:/.test(literal))
    out.push(
      `OrderedDict(${literal})`,
      `dict(reversed(list(${literal}.items())))`,
      `Counter(${literal}) if all(isinstance(v, (int, float)) for v in ${literal}.values()) else ${literal}`,
      `defaultdict(list, ${literal})`,
      `UserDict(${literal})`,
      `ChainMap(${literal})`,
      `types.MappingProxyType(${literal})`,
      `DictSub(${literal})`,
      `{(float(k) if type(k) is int else k): v for k, v in ${literal}.items()}`,
      `{**${literal}, "extra": 0}`,
      `${literal}.keys()`,
      `${literal}.items()`,
      `${literal}.values()`,
      `{k: v for k, v in ${literal}.items() if v is not None}`,
    );
  if (/^\{[^:]*\}$/.test(literal) || literal === "{}")
    out.push(
      `frozenset(${literal})`,
      `set(${literal})`,
      `dict.fromkeys(${literal}).keys()`,
      `sorted(${literal}, key=repr)`,
      `SetSub(${literal})`,
      `{(float(k) if type(k) is int else k) for k in ${literal}}`,
    );
  return out;
}

/** The Python comparison forms a pair is put through: pytest asserts and unittest's. */
const PY_FORMS = [
  "==",
  "==",
  "==",
  "rev==",
  "!=",
  "approx",
  "approx",
  "approx-rel",
  "approx-abs",
  "approx-nan",
  "assertEqual",
  "assertEqual",
  "assertListEqual",
  "assertTupleEqual",
  "assertDictEqual",
  "assertSetEqual",
  "assertMultiLineEqual",
  "assertNotEqual",
  "assertAlmostEqual",
  "assertAlmostEqual-places",
  "assertAlmostEqual-delta",
  "is",
] as const;

export function pythonPairs(random: Random, count: number): Pair[] {
  const out: Pair[] = [];
  while (out.length < count) {
    const expected = pyLiteral(random, 3);
    let actual = twinOf(random, expected, pyTwins);
    // Sometimes a twin of a twin inside a container.
    if (random.int(0, 6) === 0) actual = `[${actual}]`;
    let form: string = pick(random, PY_FORMS);
    if (form === "is" && !["None", "True", "False"].includes(expected)) form = "==";
    out.push({
      actual,
      expected: random.int(0, 8) === 0 && form === "==" ? `[${expected}]` : expected,
      form,
    });
  }
  return out;
}

/** The module under test: one function per pair returning its actual value. */
export function pythonModule(pairs: readonly Pair[]): string {
  const head = `import math, types, unicodedata
from collections import OrderedDict, Counter, defaultdict, UserDict, UserList, UserString, ChainMap, deque, namedtuple
from decimal import Decimal
from fractions import Fraction
from enum import IntEnum
import numpy as np

Point = namedtuple("Point", "x y")


class IntEnumX(IntEnum):
    A = 0
    B = 1
    C = 2


class IntSub(int):
    pass


class FloatSub(float):
    pass


class StrSub(str):
    pass


class ListSub(list):
    pass


class TupleSub(tuple):
    pass


class DictSub(dict):
    pass


class SetSub(set):
    pass


class NoneSub:
    pass
`;
  return `${head}${pairs.map((p, i) => `\n\ndef v${i}():\n    return ${p.actual}\n`).join("")}`;
}

/** The test module: one test per pair (pytest functions, and unittest methods for the unittest forms). */
export function pythonTests(pairs: readonly Pair[]): string {
  const fns: string[] = [];
  const methods: string[] = [];
  pairs.forEach(({ expected: e, form }, i) => {
    const a = `v${i}()`;
    const assertion: Record<string, string> = {
      "==": `assert ${a} == ${e}`,
      "rev==": `assert ${e} == ${a}`,
      "!=": `assert ${a} != ${e}`,
      approx: `assert ${a} == pytest.approx(${e})`,
      "approx-rel": `assert ${a} == pytest.approx(${e}, rel=1e-6)`,
      "approx-abs": `assert ${a} == pytest.approx(${e}, abs=0.01)`,
      "approx-nan": `assert ${a} == pytest.approx(${e}, nan_ok=True)`,
      is: `assert ${a} is ${e}`,
    };
    if (assertion[form]) fns.push(`\n\ndef test_${i}():\n    ${assertion[form]}\n`);
    else {
      const call =
        form === "assertAlmostEqual-places"
          ? `self.assertAlmostEqual(${a}, ${e}, places=3)`
          : form === "assertAlmostEqual-delta"
            ? `self.assertAlmostEqual(${a}, ${e}, delta=0.5)`
            : `self.${form}(${a}, ${e})`;
      methods.push(`\n    def test_${i}(self):\n        ${call}\n`);
    }
  });
  const cls = methods.length > 0 ? `\n\nclass TestU(unittest.TestCase):${methods.join("")}` : "";
  return `import unittest\n\nimport pytest\nfrom calc import *  # noqa\n${fns.join("")}${cls}`;
}

// ---------------------------------------------------------------------------------------------
// JavaScript

const JS_SCALARS = [
  "undefined",
  "null",
  "true",
  "false",
  "0",
  "-0",
  "1",
  "-1",
  "1.5",
  "0.1",
  "NaN",
  "Infinity",
  "-Infinity",
  "9007199254740993",
  "1e21",
  "0n",
  "1n",
  "-1n",
  "12345678901234567890n",
  '""',
  '"a"',
  '"1"',
  '"0"',
  '"true"',
  '"\\u00e9"',
  '"e\\u0301"',
  '"\\ud83d\\ude00"',
  '"undefined"',
  '"12345678901234567890"',
  '" 1 "',
  '"0x10"',
  '"1,2"',
  '"[object Object]"',
  '"null"',
];

const JS_KEYS = ["a", "b", '"1"', '"0"', '"01"', '"-0"', "constructor", '"x y"', "length"];

/** A JS literal, nested at most `depth` deep. */
function jsLiteralText(random: Random, depth: number): string {
  const roll = random.int(0, 10);
  if (depth <= 0 || roll < 5) return pick(random, JS_SCALARS);
  const n = random.int(0, 4);
  if (roll < 8) return `[${Array.from({ length: n }, () => jsLiteralText(random, depth - 1)).join(", ")}]`;
  const keys = [...new Set(Array.from({ length: n }, () => pick(random, JS_KEYS)))];
  return `{ ${keys.map((k) => `${k}: ${jsLiteralText(random, depth - 1)}`).join(", ")} }`;
}

/** Ways to make a value a JS matcher may hold equal to a literal, and near misses. */
function jsTwins(literal: string): string[] {
  const v = `(${literal})`;
  const out: string[] = [
    `JSON.parse(JSON.stringify(${v}) ?? "null")`,
    `structuredClone(${v})`,
    `Object(${v})`,
  ];
  if (/^-?\d|^-?Infinity$|^NaN$/.test(literal) && !literal.endsWith("n"))
    out.push(
      `String(${v})`,
      `new Number(${v})`,
      `-${v}`,
      `${v} + 0`,
      `Number.isInteger(${v}) && Math.abs(${v}) < 1e300 ? BigInt(${v}) : ${v}`,
      `${v} + 1e-15`,
      `${v} === 0 ? -0 : ${v}`,
      `[${literal}]`,
      `Boolean(${v})`,
      `Math.fround(${v})`,
      `new Float64Array([${literal}])[0]`,
      `Number.NaN`,
      `0 * -1`,
    );
  if (literal.endsWith("n"))
    out.push(`Number(${v})`, `String(${v})`, `BigInt.asIntN(64, ${v})`, `Object(${v})`, `${v} + 1n`);
  if (literal.startsWith('"'))
    out.push(
      `${v}.normalize("NFC")`,
      `${v}.normalize("NFD")`,
      `new String(${v})`,
      `[...${v}]`,
      `Buffer.from(${v})`,
      `${v} + ""`,
      `Number(${v})`,
      `${v}.length`,
      `Symbol.for(${v})`,
    );
  if (literal === "undefined" || literal === "null")
    out.push("undefined", "null", "void 0", "Object.create(null)", "0", '""', "NaN", "[]", "({})");
  if (literal === "true" || literal === "false")
    out.push(`new Boolean(${v})`, `Number(${v})`, `String(${v})`, `!${v}`);
  if (literal.startsWith("["))
    out.push(
      `Array.from(${v})`,
      `Object.assign([], ${v})`,
      `(() => { const a = [...${v}]; if (a.length) delete a[0]; return a; })()`,
      `(() => { const a = new Array(${v}.length); ${v}.forEach((x, i) => { if (x !== undefined) a[i] = x; }); return a; })()`,
      `Object.assign({}, ${v})`,
      `new Set(${v})`,
      `new Map(${v}.map((x, i) => [i, x]))`,
      `Object.freeze([...${v}])`,
      `ArrSub.from(${v})`,
      `${v}.every((x) => typeof x === "number") ? Uint8Array.from(${v}) : ${v}`,
      `${v}.every((x) => typeof x === "number") ? Float64Array.from(${v}) : ${v}`,
      `(function () { return arguments; })(...${v})`,
      `${v}.concat([undefined])`,
      `[...${v}].reverse()`,
      `Object.assign([...${v}], { extra: 1 })`,
      `[...${v}, ...[]].map((x) => (x === undefined ? null : x))`,
      `"abc".match(/b/) ?? ${v}`,
    );
  if (literal.startsWith("{"))
    out.push(
      `Object.assign(Object.create(null), ${v})`,
      `Object.assign(new Klass(), ${v})`,
      `Object.assign(new Other(), ${v})`,
      `{ ...${v}, extra: undefined }`,
      `Object.fromEntries(Object.entries(${v}).reverse())`,
      `Object.assign(Object.create({ inherited: 1 }), ${v})`,
      `Object.assign(Object.create(${v}), {})`,
      `new Map(Object.entries(${v}))`,
      `Object.fromEntries(Object.entries(${v}).filter(([, x]) => x !== undefined))`,
      `Object.defineProperty({ ...${v} }, "hidden", { value: 1, enumerable: false })`,
      `Object.defineProperty({}, "a", { get: () => 1, enumerable: true })`,
      `{ ...${v}, [Symbol.for("s")]: 1 }`,
      `Object.freeze({ ...${v} })`,
      `Object.assign(new Error("x"), ${v})`,
      `new Date(0)`,
      `/a/`,
      `new Map()`,
      `new Set()`,
      `new Uint8Array(0)`,
      `Buffer.alloc(0)`,
      `Object.assign(() => 0, ${v})`,
      `new Proxy(${v}, {})`,
    );
  return out;
}

/** The JS comparison forms, each with the file it belongs to (the assertion library the file binds). */
const JS_FORMS = [
  ["vitest", "toBe"],
  ["vitest", "toEqual"],
  ["vitest", "toEqual"],
  ["vitest", "toStrictEqual"],
  ["vitest", "toStrictEqual"],
  ["vitest", "to.equal"],
  ["vitest", "to.eql"],
  ["vitest", "to.deep.equal"],
  ["assert", "strictEqual"],
  ["assert", "deepStrictEqual"],
  ["assert", "equal"],
  ["assert", "deepEqual"],
  ["strict", "equal"],
  ["strict", "deepEqual"],
  ["chai", "expect.to.equal"],
  ["chai", "expect.to.eql"],
  ["chai", "expect.to.deep.equal"],
  ["chai", "assert.equal"],
  ["chai", "assert.strictEqual"],
  ["chai", "assert.deepEqual"],
] as const;

export type JsFile = "vitest" | "assert" | "strict" | "chai";

export function jsPairs(random: Random, count: number): Array<Pair & { file: JsFile }> {
  const out: Array<Pair & { file: JsFile }> = [];
  while (out.length < count) {
    const expected = jsLiteralText(random, 3);
    let actual = twinOf(random, expected, jsTwins);
    if (random.int(0, 6) === 0) actual = random.int(0, 2) ? `[${actual}]` : `({ a: ${actual} })`;
    const [file, form] = pick(random, JS_FORMS);
    const wrap = random.int(0, 8) === 0 && file !== "vitest";
    out.push({ actual, expected: wrap ? `[${expected}]` : expected, form, file });
  }
  return out;
}

/** The module under test (CommonJS): one function per pair, by index. */
export function jsModule(pairs: readonly Pair[]): string {
  return `class Klass {}
class Other {}
class ArrSub extends Array {}
const fns = [
${pairs.map((p) => `  () => (${p.actual}),`).join("\n")}
];
module.exports = fns;
`;
}

/** The comparison as the test writes it, on `lib[i]()` against the literal. */
export function jsAssertion(file: JsFile, form: string, actual: string, expected: string): string {
  if (file === "vitest")
    return form.startsWith("to.")
      ? `expect(${actual}).${form}(${expected})`
      : `expect(${actual}).${form}(${expected})`;
  if (file === "chai")
    return form.startsWith("expect.")
      ? `expect(${actual}).${form.slice(7)}(${expected})`
      : `${form}(${actual}, ${expected})`;
  return `assert.${form}(${actual}, ${expected})`;
}

/** A test file of one library's comparisons, one test each, titled by the pair's index. */
export function jsTests(file: JsFile, pairs: ReadonlyArray<readonly [number, Pair]>): string {
  const head = {
    vitest: 'import lib from "../src/lib.js";',
    assert: 'const assert = require("node:assert");\nconst lib = require("../src/lib");',
    strict: 'const assert = require("node:assert/strict");\nconst lib = require("../src/lib");',
    chai: 'const { expect, assert } = require("chai");\nconst lib = require("../src/lib");',
  }[file];
  const body = pairs
    .map(
      ([i, p]) =>
        `  it("case ${i}", () => {\n    ${jsAssertion(file, p.form, `lib[${i}]()`, p.expected)};\n  });\n`,
    )
    .join("");
  return `${head}\n\ndescribe("eq", () => {\n${body}});\n`;
}

// ---------------------------------------------------------------------------------------------
// Go

/** Composite literals and constants, each with values of the code that DeepEqual may or may not hold equal to it. */
const GO_DEEP: ReadonlyArray<readonly [string, readonly string[]]> = [
  [
    "[]int{1, 2}",
    [
      "[]int{1, 2}",
      "[]int64{1, 2}",
      "[]MyInt{1, 2}",
      "[2]int{1, 2}",
      "[]interface{}{1, 2}",
      "[]int{2, 1}",
      "append([]int(nil), 1, 2)",
    ],
  ],
  ["[]int{}", ["[]int{}", "[]int(nil)", "make([]int, 0)", "[]int64{}", "[]interface{}{}", "[]int{0}"]],
  ["[]string{}", ["[]string{}", "[]string(nil)", 'strings.Fields("")', 'strings.Split("", ",")']],
  [
    "map[string]int{}",
    ["map[string]int{}", "map[string]int(nil)", "make(map[string]int)", "map[string]int64{}"],
  ],
  [
    'map[string]int{"a": 1, "b": 2}',
    [
      'map[string]int{"b": 2, "a": 1}',
      'map[string]int64{"a": 1, "b": 2}',
      'map[MyStr]int{"a": 1, "b": 2}',
      'map[string]int{"a": 1}',
      'map[string]int{"a": 1, "b": 2, "c": 0}',
    ],
  ],
  ["[]byte{97}", ['[]byte("a")', "[]uint8{97}", "[]byte{}", "[]int32{97}", '"a"', "[]byte{97, 0}"]],
  ["[]byte{}", ["[]byte{}", "[]byte(nil)", '[]byte("")', "make([]byte, 0, 8)"]],
  [
    '[]interface{}{1, "a", nil}',
    [
      '[]interface{}{1, "a", nil}',
      '[]interface{}{int64(1), "a", nil}',
      '[]interface{}{1, "a", (*int)(nil)}',
      '[]interface{}{1.0, "a", nil}',
      '[]interface{}{MyInt(1), "a", nil}',
      '[]interface{}{1, MyStr("a"), nil}',
    ],
  ],
  [
    "[]float64{0.1, 1}",
    [
      "[]float64{f(0.1), 1}",
      "[]float32{0.1, 1}",
      "[]float64{f(0.1) + f(1e-17), 1}",
      "[]float64{f(0.3) - f(0.2), 1}",
      "[]float64{0.1, f(1)}",
    ],
  ],
  ["[]float64{0, 1}", ["[]float64{math.Copysign(0, -1), 1}", "[]float64{math.NaN(), 1}", "[]float64{0, 1}"]],
  ["1", ["1", "int64(1)", "1.0", "MyInt(1)", "uint(1)", "true", '"1"', "'1'", "int(f(1))"]],
  ["1.0", ["1.0", "1", "float32(1)", "f(1)", "MyFloat(1)"]],
  ["0.0", ["math.Copysign(0, -1)", "0.0", "math.NaN()", "f(0)"]],
  ['"a"', ['"a"', 'MyStr("a")', '[]byte("a")', "'a'", "string(rune(97))", '"a\\x00"']],
  ['"\\u00e9"', ['"\\u00e9"', '"e\\u0301"', "string([]byte{0xc3, 0xa9})", "'\\u00e9'"]],
  ["'a'", ["'a'", "int32(97)", "97", '"a"', "byte('a')", "rune(97)"]],
  ["true", ["true", "1", "!false", "MyBool(true)"]],
  [
    "nil",
    [
      "nil",
      "(*int)(nil)",
      "[]int(nil)",
      "error(nil)",
      "map[string]int(nil)",
      "interface{}(nil)",
      "(func())(nil)",
    ],
  ],
  [
    'map[string]interface{}{"a": 1}',
    [
      'map[string]interface{}{"a": 1}',
      'map[string]interface{}{"a": 1.0}',
      'map[string]int{"a": 1}',
      'map[string]interface{}{"a": int64(1)}',
      'map[string]interface{}{"a": []int{1}}',
    ],
  ],
  ["[2]int{1, 2}", ["[2]int{1, 2}", "[]int{1, 2}", "[2]int64{1, 2}", "[2]int{1}"]],
  [
    'map[int]string{1: "a"}',
    ['map[int]string{1: "a"}', 'map[int64]string{1: "a"}', 'map[int]string{1: "a", 2: ""}'],
  ],
  ["[][]int{{1}, {}}", ["[][]int{{1}, {}}", "[][]int{{1}, nil}", "[][]int{{1}}", "[][]int{{1}, {0}}"]],
  ["1i", ["1i", "complex(f(0), 1)", "complex64(1i)", "complex(f(1), 0)"]],
  [
    '[]string{"a", "b"}',
    ['strings.Split("a,b", ",")', '[]string{"b", "a"}', '[]MyStr{"a", "b"}', '[]interface{}{"a", "b"}'],
  ],
  [
    'map[string][]int{"a": {}}',
    ['map[string][]int{"a": {}}', 'map[string][]int{"a": nil}', 'map[string][]int{"a": {1}}'],
  ],
  ["uint8(1)", ["uint8(1)", "byte(1)", "1", "uint16(1)"]],
  [
    "[]interface{}{nil}",
    ["[]interface{}{nil}", "[]interface{}{(*int)(nil)}", "[]*int{nil}", "[]interface{}{}", "[]error{nil}"],
  ],
  [
    'map[string]interface{}{"a": nil}',
    [
      'map[string]interface{}{"a": nil}',
      'map[string]interface{}{"a": (*int)(nil)}',
      'map[string]*int{"a": nil}',
      "map[string]interface{}{}",
    ],
  ],
  ["[]float64{}", ["[]float64{math.NaN()}", "[]float64(nil)", "[]float64{}", "[]S{}"]],
  [
    '[]interface{}{[]int{1}, map[string]int{"a": 1}}',
    [
      '[]interface{}{[]int{1}, map[string]int{"a": 1}}',
      '[]interface{}{[]int64{1}, map[string]int{"a": 1}}',
      "[]interface{}{[]int{1}, map[string]int(nil)}",
    ],
  ],
  ["[]int{0}", ["[]int{0}", "S{}", "&S{}", "(*S)(nil)", "[1]int{}", "[]int{int(f(-0.0))}"]],
];

/** go.eq: a static type, values of it, and constants Go converts to it (all in range, so the test builds). */
const GO_EQ: ReadonlyArray<readonly [string, readonly string[], readonly string[]]> = [
  ["int", ["0", "1", "-1", "97", "100", "int(f(1.9))"], ["0", "1", "-1", "1.0", "'a'", "97", "100", "1e2"]],
  [
    "int8",
    ["0", "1", "-1", "int8(i(97))", "int8(i(353))", "int8(i(-255))"],
    ["0", "1", "-1", "1.0", "'a'", "97", "127"],
  ],
  [
    "uint8",
    ["0", "1", "uint8(i(97))", "uint8(i(353))", "uint8(i(-1))"],
    ["0", "1", "1.0", "'a'", "97", "255"],
  ],
  ["uint64", ["0", "1", "uint64(i(-1))", "uint64(i(97))"], ["0", "1", "'a'", "18446744073709551615"]],
  [
    "int64",
    ["0", "1", "-1", "int64(f(9007199254740993))", "1 << 62"],
    ["0", "1", "-1", "9007199254740993", "9007199254740992", "4611686018427387904"],
  ],
  [
    "float64",
    [
      "0",
      "math.Copysign(0, -1)",
      "math.NaN()",
      "math.Inf(1)",
      "f(0.1) + f(0.2)",
      "f(0.1)",
      "f(97)",
      "f(1.5)",
      "float64(float32(f(0.1)))",
      "f(16777217)",
    ],
    ["0", "-0.0", "0.0", "1", "0.1", "0.3", "0.30000000000000004", "'a'", "1.5", "1e300", "16777217"],
  ],
  [
    "float32",
    [
      "0",
      "float32(f(0.1))",
      "float32(f(16777217))",
      "float32(math.NaN())",
      "float32(f(1.5))",
      "float32(f(0.1)) + float32(f(0.2))",
    ],
    ["0", "0.1", "1.5", "16777216", "16777217", "0.3", "0.30000001"],
  ],
  [
    "complex128",
    ["complex(f(1), 0)", "complex(f(0), 1)", "complex(f(0.1), 0)"],
    ["0", "1", "1i", "0.1", "-1i"],
  ],
  ["complex64", ["complex64(complex(f(0.1), 0))", "complex64(complex(f(0), 1))"], ["0.1", "1i", "0"]],
  [
    "string",
    ['""', '"a"', '"\\u00e9"', '"e\\u0301"', "string([]byte{0xff})", '"\\x00"', "string(rune(97))"],
    ['""', '"a"', '"\\u00e9"', '"e\\u0301"', '"\\xff"', '"\\x00"', "`a`"],
  ],
  ["bool", ["true", "false", "!true"], ["true", "false"]],
  [
    "interface{}",
    [
      "nil",
      "1",
      "int64(1)",
      "1.0",
      '"a"',
      "'a'",
      "MyInt(1)",
      "(*int)(nil)",
      "true",
      "uint8(1)",
      "error(nil)",
    ],
    ["nil", "1", "1.0", '"a"', "'a'", "true"],
  ],
  ["error", ["nil", 'errors.New("x")', "(*MyErr)(nil)"], ["nil"]],
  ["*int", ["nil", "new(int)"], ["nil"]],
  ["[]int", ["nil", "[]int{}", "[]int{1}"], ["nil"]],
  ["map[string]int", ["nil", "map[string]int{}"], ["nil"]],
  ["MyInt", ["MyInt(1)", "MyInt(i(97))", "0"], ["1", "0", "'a'", "97"]],
  ["MyStr", ['MyStr("a")', '""'], ['"a"', '""']],
  ["MyFloat", ["MyFloat(f(0.1))", "MyFloat(math.NaN())", "0"], ["0.1", "0", "-0.0"]],
  ["rune", ["'a'", "rune(i(97))", "rune(i(-1))"], ["'a'", "97", "97.0", "-1"]],
  ["byte", ["'a'", "byte(i(353))"], ["'a'", "97"]],
  ["uintptr", ["0", "uintptr(i(1))"], ["0", "1"]],
];

const GO_FORMS = ["deep", "deep", "testify", "testify", "eq", "eq"] as const;

export function goPairs(random: Random, count: number): Pair[] {
  const out: Pair[] = [];
  while (out.length < count) {
    const form = pick(random, GO_FORMS);
    if (form === "eq") {
      const [type, values, constants] = pick(random, GO_EQ);
      out.push({ form: `eq:${type}`, actual: pick(random, values), expected: pick(random, constants) });
    } else {
      const [literal, twins] = pick(random, GO_DEEP);
      // Now and then another entry's value: a near miss of another shape.
      const actual = random.int(0, 5) === 0 ? pick(random, pick(random, GO_DEEP)[1]) : pick(random, twins);
      out.push({ form, actual, expected: literal });
    }
  }
  return out;
}

/** The package under test: one function per pair, its result of the pair's static type. */
export function goModule(pairs: readonly Pair[]): string {
  const fns = pairs.map((p, i) => {
    const type = p.form.startsWith("eq:") ? p.form.slice(3) : "interface{}";
    return `func V${i}() ${type} { return ${p.actual} }\n`;
  });
  return `package calc

import (
	"errors"
	"math"
	"strings"
)

type MyInt int
type MyStr string
type MyFloat float64
type MyBool bool
type MyErr struct{}
type S struct{ A int }

func (*MyErr) Error() string { return "x" }

func f(x float64) float64 { return x }
func i(x int64) int64     { return x }

var _ = errors.New
var _ = math.NaN
var _ = strings.Fields

${fns.join("\n")}`;
}

/** The test file: one test per pair, as Go tests write each form. */
export function goTests(pairs: readonly Pair[]): string {
  const tests = pairs.map((p, i) => {
    const check =
      p.form === "deep"
        ? `\tif !reflect.DeepEqual(got, ${p.expected}) {\n\t\tt.Errorf("got %v", got)\n\t}`
        : p.form === "testify"
          ? `\tassert.Equal(t, ${p.expected}, got)`
          : `\tif got != ${p.expected} {\n\t\tt.Errorf("got %v", got)\n\t}`;
    return `func Test${i}(t *testing.T) {\n\tgot := calc.V${i}()\n${check}\n}\n`;
  });
  return `package calc_test

import (
	"reflect"
	"testing"

	"example.com/calc"
	"github.com/stretchr/testify/assert"
)

var _ = reflect.DeepEqual
var _ = assert.Equal

${tests.join("\n")}`;
}

/** testify's assert.Equal as testify has it (assertions.go: validateEqualArgs, ObjectsAreEqual), for a module without a proxy. */
export const TESTIFY_EQUAL = `package assert

import (
	"bytes"
	"reflect"
)

type TestingT interface{ Errorf(string, ...interface{}) }

func isFunction(arg interface{}) bool {
	if arg == nil {
		return false
	}
	return reflect.TypeOf(arg).Kind() == reflect.Func
}

func ObjectsAreEqual(expected, actual interface{}) bool {
	if expected == nil || actual == nil {
		return expected == actual
	}
	exp, ok := expected.([]byte)
	if !ok {
		return reflect.DeepEqual(expected, actual)
	}
	act, ok := actual.([]byte)
	if !ok {
		return false
	}
	if exp == nil || act == nil {
		return exp == nil && act == nil
	}
	return bytes.Equal(exp, act)
}

func Equal(t TestingT, expected, actual interface{}, msgAndArgs ...interface{}) bool {
	if expected != nil || actual != nil {
		if isFunction(expected) || isFunction(actual) {
			t.Errorf("Invalid operation")
			return false
		}
	}
	if !ObjectsAreEqual(expected, actual) {
		t.Errorf("Not equal")
		return false
	}
	return true
}
`;
