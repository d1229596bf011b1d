import { describe, expect, it } from "vitest";
import { codeSpan, printable } from "./printable.js";

/** Characters a terminal acts on or a reader cannot see: none may survive printable(). */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/u;

describe("printable", () => {
  it("removes escape sequences whole and shows other control and bidi characters as escapes", () => {
    const hostile = "\u001b[2J\u001b]0;owned\u0007PASS\u001b[31m red\u001b[0m\r\nnext\rover\u0000\u202e!";
    const text = printable(hostile);
    expect(text).toBe("PASS red\nnext\nover\\u{0}\\u{202e}!");
    expect(text).not.toMatch(UNSAFE);
  });

  it("cannot clear, retitle, fake a verdict line or reorder: the review's 12 bytes and their kin", () => {
    const attacks = [
      "\u001b[H\u001b[2Jverdict: PASS\n", // clear the screen, print a fake verdict
      "\u001b]0;oracle: PASS\u0007", // window title, ended by BEL
      "\u001b]2;oracle: PASS\u001b\\", // ended by ST
      "\u001b]8;;http://127.0.0.1/\u001b\\link\u001b]8;;\u001b\\", // a hyperlink
      "\u001bP1$r0m\u001b\\", // a DCS string
      "\u001b7\u001b8\u001bc", // save, restore, reset
      "\u009b2J\u009d0;title\u009c", // 8-bit CSI and OSC
      "\u202eSSAP\u202c \u2067x\u2069 \u200bzero\u200dwidth\ufeff\u00ad\u061c\u2028",
      "\u001b[", // cut short
      "\ud800lone",
    ];
    for (const attack of attacks) {
      const text = printable(attack);
      expect(text, JSON.stringify(attack)).not.toMatch(UNSAFE);
      expect(text).not.toContain("\u001b");
    }
    expect(printable("\u001b]0;oracle: PASS\u0007FAIL")).toBe("FAIL");
    expect(printable("\u009b2J")).toBe("\\u{9b}2J");
    expect(printable("a\u202eb")).toBe("a\\u{202e}b");
  });

  it("keeps tabs, newlines and every printing character, and is idempotent", () => {
    const text = "tab\there\nlines é 日本 🙂 \\u{1b} ok";
    expect(printable(text)).toBe(text);
    const hostile = "\u001b[31m\u0007\u009b\u202e\r\n";
    expect(printable(printable(hostile))).toBe(printable(hostile));
  });

  it("with oneLine, writes newlines and tabs as escapes so an id stays on its line", () => {
    expect(printable("id\nverdict: PASS\tx\r", { oneLine: true })).toBe("id\\u{a}verdict: PASS\\u{9}x\\u{a}");
  });
});

describe("codeSpan", () => {
  it("fences text longer than its backtick runs, escapes pipes, keeps one line", () => {
    expect(codeSpan("https://evil.example/x")).toBe("`https://evil.example/x`");
    expect(codeSpan("a ``b`` c")).toBe("```a ``b`` c```");
    expect(codeSpan("`x`")).toBe("`` `x` ``");
    expect(codeSpan("a|b\nc")).toBe("`a\\|b c`");
    expect(codeSpan("\u001b[2Jok")).toBe("`ok`");
  });
});
