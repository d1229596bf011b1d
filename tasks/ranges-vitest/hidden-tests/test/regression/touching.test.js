import { describe, expect, it } from "vitest";
import { covers } from "../../src/covers.js";
import { merge } from "../../src/ranges.js";

describe("ranges that touch", () => {
  it("are joined", () => {
    expect(merge([[1, 3], [3, 5]])).toEqual([[1, 5]]);
  });

  it("are joined in a chain", () => {
    expect(merge([[5, 7], [1, 3], [3, 5]])).toEqual([[1, 7]]);
  });

  it("cover a span across the seam", () => {
    expect(covers([[1, 3], [3, 5]], [2, 4])).toBe(true);
  });

  it("stay apart from ranges one past their end", () => {
    expect(merge([[1, 3], [4, 5]])).toEqual([[1, 3], [4, 5]]);
  });
});
