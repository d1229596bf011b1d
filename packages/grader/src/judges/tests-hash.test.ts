import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testId } from "../reports/junit.js";
import { compareUtf8, sortIds, testsHash } from "./tests-hash.js";

describe("testsHash", () => {
  it("is sha256 of the empty string for no tests", () => {
    expect(testsHash([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("sorts bytewise, not by locale or UTF-16 units", () => {
    const ids = [
      "hidden:b::x",
      "hidden:B::x",
      "hidden:é::x",
      "hidden:\u{1F600}::x",
      "hidden:\uFF21::x",
      "existing:a::y",
    ];
    expect(sortIds(ids)).toEqual([
      "existing:a::y",
      "hidden:B::x",
      "hidden:b::x",
      "hidden:é::x",
      "hidden:\uFF21::x",
      "hidden:\u{1F600}::x",
    ]);
  });

  it("equals LC_ALL=C sort | sha256sum over the list, LF-terminated", () => {
    const ids = ["hidden:t.py::test_b", "existing:t.py::test_a", "hidden:ü::x", "hidden:Z::y"];
    const sorted = execFileSync("sort", [], {
      input: `${ids.join("\n")}\n`,
      env: { ...process.env, LC_ALL: "C" },
    });
    expect(testsHash(ids)).toBe(createHash("sha256").update(sorted).digest("hex"));
  });

  it("ignores order and duplicates of the input", () => {
    expect(testsHash(["b", "a", "a"])).toBe(testsHash(["a", "b"]));
  });

  it("changes when a test is added", () => {
    expect(testsHash(["a"])).not.toBe(testsHash(["a", "b"]));
  });
});

describe("testId", () => {
  it("is <suite>:<file or classname>::<name>", () => {
    expect(testId("existing", "tests/test_x.py", "test_y[1]")).toBe("existing:tests/test_x.py::test_y[1]");
  });
});

describe("compareUtf8", () => {
  it("orders as Buffer.compare over the UTF-8 bytes does", () => {
    const samples = ["", "a", "ab", "B", "é", "\u07FF", "\u0800", "\uD7FF", "\uE000", "\uFF21", "\uFFFF"];
    samples.push("\u{10000}", "\u{1F600}", "\u{10FFFF}", "a\u{1F600}", "a\uFFFF", "a\uE000b");
    for (const a of samples)
      for (const b of samples)
        expect(Math.sign(compareUtf8(a, b)), `${a} vs ${b}`).toBe(
          Math.sign(Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"))),
        );
  });
});
