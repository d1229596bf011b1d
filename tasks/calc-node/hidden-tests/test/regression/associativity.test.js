import assert from "node:assert/strict";
import { calculate, parse } from "../../src/index.js";

const num = (value) => ({ type: "number", value });

describe("operators of equal precedence associate to the left", () => {
  it("subtracts left to right", () => {
    assert.equal(calculate("10 - 4 - 3"), 3);
    assert.equal(calculate("1 - 2 - 3 - 4"), -8);
  });

  it("divides left to right", () => {
    assert.equal(calculate("100 / 10 / 5"), 2);
  });

  it("mixes + and - left to right", () => {
    assert.equal(calculate("2 - 3 + 4"), 3);
  });

  it("mixes * and / left to right", () => {
    assert.equal(calculate("8 / 2 * 4"), 16);
  });

  it("builds a left-leaning tree", () => {
    assert.deepEqual(parse("1 - 2 - 3"), {
      type: "binary",
      op: "-",
      left: { type: "binary", op: "-", left: num(1), right: num(2) },
      right: num(3),
    });
  });

  it("still honours explicit grouping", () => {
    assert.equal(calculate("10 - (4 - 3)"), 9);
  });
});
