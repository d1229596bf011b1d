import * as assert from "node:assert";
import { describe, expect, it } from "vitest";
import type { Canon } from "./canon.js";
import { holds } from "./equality.js";

/** Numbers, strings, null and arrays of them as the runtime records them. */
function canon(value: unknown): Canon {
  if (value === null) return { t: "null" };
  if (typeof value === "number") return { t: "num", v: Object.is(value, -0) ? "-0" : String(value) };
  if (typeof value === "string") return { t: "str", v: value };
  if (Array.isArray(value)) return { t: "arr", proto: "Array", v: value.map(canon), props: [], syms: [] };
  throw new Error("not in this test");
}

const passes = (fn: () => void) => {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
};

const PAIRS: Array<[unknown, unknown]> = [
  [Number.NaN, Number.NaN],
  [Number.NaN, 0],
  ["NaN", Number.NaN],
  [1, "1"],
  [0, -0],
  [null, 0],
  [[Number.NaN], [Number.NaN]],
  [
    [Number.NaN, 1],
    [Number.NaN, "1"],
  ],
  [[Number.NaN], [0]],
];

describe("node's legacy assert on the host, against the node running this test", () => {
  it("assert.equal and assert.deepEqual: NaN equals NaN, == otherwise (found by an attack review)", () => {
    for (const [a, b] of PAIRS) {
      expect(holds({ kind: "js.nodeLoose" }, canon(a), canon(b)), `equal(${String(a)}, ${String(b)})`).toBe(
        passes(() => assert.equal(a, b)),
      );
      expect(holds({ kind: "js.deepEqual" }, canon([a]), canon([b])), `deepEqual([${String(a)}])`).toBe(
        passes(() => assert.deepEqual([a], [b])),
      );
    }
  });

  it("chai's assert.equal keeps ==: NaN is not NaN", () => {
    expect(holds({ kind: "js.loose" }, canon(Number.NaN), canon(Number.NaN))).toBe(false);
    expect(holds({ kind: "js.loose" }, canon(1), canon("1"))).toBe(true);
  });
});

describe("node's legacy assert.deepEqual and array holes", () => {
  const hole: Canon = { t: "hole" };
  const arr = (...v: Canon[]): Canon => ({ t: "arr", proto: "Array", v, props: [], syms: [] });
  const b = canon("b");
  const undef: Canon = { t: "undefined" };
  /** An array of `n` holes with "b" at index 1. */
  const holes = (n: number): unknown[] => {
    const out = new Array(n);
    out[1] = "b";
    return out;
  };

  it("a hole is not an undefined item, as node says (finding 10 of an attack review: holes PASSed)", () => {
    const cases: Array<[Canon, Canon, () => void]> = [
      [
        arr(hole, b, hole),
        arr(undef, b, undef),
        () => assert.deepEqual(holes(3), [undefined, "b", undefined]),
      ],
      [arr(hole, b), arr(hole, b), () => assert.deepEqual(holes(2), holes(2))],
      [arr(undef, b), arr({ t: "null" }, b), () => assert.deepEqual([undefined, "b"], [null, "b"])],
    ];
    for (const [x, y, real] of cases) expect(holds({ kind: "js.deepEqual" }, x, y)).toBe(passes(real));
    expect(holds({ kind: "js.deepEqual" }, arr(hole, b, hole), arr(undef, b, undef))).toBe(false);
  });
});
