import { describe, expect, it } from "vitest";
import { BoundedOutput } from "./bounded-output.js";
import { lastLines, printable, suiteTail, TAIL_BYTES, TAIL_LINES } from "./output-tail.js";

const captured = (text: string, head = 64, tail = 8192) => {
  const out = new BoundedOutput(head, tail);
  out.take(Buffer.from(text));
  return out.captured();
};

describe("suiteTail", () => {
  it("keeps the last 40 lines of a long output, whether or not the bounded capture cut it", () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join("\n");
    for (const out of [captured(`${lines}\n`), captured(`${lines}\n`, 1 << 20, 1 << 20)]) {
      const tail = suiteTail(out, captured("")).stdout.split("\n");
      expect(tail).toHaveLength(TAIL_LINES);
      expect(tail[0]).toBe("line 4961");
      expect(tail.at(-1)).toBe("line 5000");
    }
  });

  it("joins the head and the tail when nothing was cut, and keeps each stream apart", () => {
    const tail = suiteTail(captured("a".repeat(100)), captured("error: unknown option '--ci'\n"));
    expect(tail).toEqual({ stdout: "a".repeat(100), stderr: "error: unknown option '--ci'" });
  });

  it("is printable: what the suite printed cannot drive the terminal that shows it", () => {
    const tail = suiteTail(captured("ok\u001b]0;owned\u0007\u001b[2J\n"), captured("\u001b[31mred\u001b[0m"));
    expect(tail).toEqual({ stdout: "ok", stderr: "red" });
  });

  it("holds at most 4 KiB of a stream, without a broken character at the cut", () => {
    const tail = lastLines("é".repeat(10_000));
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(TAIL_BYTES);
    expect(tail).toMatch(/^é+$/);
  });
});

describe("printable", () => {
  it("removes terminal escape sequences and shows other control and bidi characters as escapes", () => {
    const hostile = "\u001b[2J\u001b]0;owned\u0007PASS\u001b[31m red\u001b[0m\r\nnext\rover\u0000\u202e!";
    const text = printable(hostile);
    expect(text).toBe("PASS red\nnext\nover\\u{0}\\u{202e}!");
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
