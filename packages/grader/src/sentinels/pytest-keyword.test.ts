import { describe, expect, it } from "vitest";
import { compileKeyword } from "./pytest-keyword.js";

const item = (known: string[], maybe: string[] = []) => ({ known, maybe });

describe("compileKeyword (pytest 7 -k)", () => {
  const names = item(["test_x.py", "TestAdd", "test_small_12"]);
  it.each([
    ["", true],
    ["small", true],
    ["SMALL", true],
    ["testadd and small", true],
    ["testadd and not small", false],
    ["not nothing", true],
    ["nothing or (TestAdd and not big)", true],
    ["not (small or big)", false],
    ["not not small", true],
    ["test_x.py", true],
    ["_12", true],
    ["x.py and 12", true],
  ])("%j -> %s", (expression, expected) => {
    expect(compileKeyword(expression)(names)).toBe(expected);
  });

  it("names the oracle cannot see (markers, package folders) make it unprovable, never true", () => {
    const marked = item(["test_x.py", "test_a_3"], ["slow", "tests"]);
    expect(compileKeyword("not slow")(marked)).toBeNull();
    expect(compileKeyword("slow or test_a")(marked)).toBe(true);
    expect(compileKeyword("slow and test_a")(marked)).toBeNull();
    expect(compileKeyword("fast and slow")(marked)).toBe(false);
  });

  it.each(["and", "a and", "(a", "a)", "a b", "not", "a ; b", "a == b"])("%j is a usage error", (e) => {
    expect(() => compileKeyword(e)).toThrow();
  });

  it("identifiers take pytest's characters: : + - . [ ] \\ /", () => {
    expect(compileKeyword("test_p[1-2]")(item(["test_p[1-2]"]))).toBe(true);
    expect(compileKeyword("a/b.py::c")(item(["x"]))).toBe(false);
  });
});
