const { slugify } = require("../../src/slugify");
const { uniqueSlug } = require("../../src/unique");

describe("separators", () => {
  test("collapses runs of spaces", () => {
    expect(slugify("hello   world")).toBe("hello-world");
  });

  test("collapses punctuation between words", () => {
    expect(slugify("Hello, World!")).toBe("hello-world");
  });

  test("trims dashes at the ends", () => {
    expect(slugify("  -- Title --  ")).toBe("title");
  });

  test("numbers titles that differ only in punctuation", () => {
    const taken = new Set();
    expect(uniqueSlug("A title", taken)).toBe("a-title");
    expect(uniqueSlug("A title!", taken)).toBe("a-title-2");
  });
});
