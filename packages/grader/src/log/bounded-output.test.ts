import { describe, expect, it } from "vitest";
import { BoundedOutput } from "./bounded-output.js";

describe("BoundedOutput", () => {
  it("keeps everything when small", () => {
    const out = new BoundedOutput(10, 10);
    out.take(Buffer.from("hello"));
    expect(out.captured()).toEqual({ bytes: 5, truncated: false, head: "hello", tail: "" });
  });

  it("keeps the head and the last bytes, counts all, and logs only the head", () => {
    const logged: string[] = [];
    const out = new BoundedOutput(4, 3, (c) => logged.push(c.toString()));
    for (const part of ["abcdef", "ghij", "klmnopq", "rs"]) out.take(Buffer.from(part));
    const captured = out.captured();
    expect(captured).toMatchObject({ bytes: 19, truncated: true, head: "abcd", tail: "qrs" });
    expect(logged.join("")).toBe("abcd");
  });

  it("stays bounded over 64 MiB of input", () => {
    const out = new BoundedOutput(1024, 1024);
    const chunk = Buffer.alloc(64 * 1024, 120);
    for (let i = 0; i < 1024; i += 1) out.take(chunk);
    expect(out.keptBuffer().length).toBe(2048);
    expect(out.captured().bytes).toBe(64 * 1024 * 1024);
    expect(out.captured().tail.length).toBe(1024);
  });

  it("keeps what a whole copy would, over chunks of every size and head/tail shape", () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round += 1) {
      const headBytes = next(6);
      const tailBytes = next(9);
      const out = new BoundedOutput(headBytes, tailBytes);
      let all = "";
      const chunks = next(12);
      for (let c = 0; c < chunks; c += 1) {
        const part = Array.from({ length: next(20) }, () => String.fromCharCode(97 + next(26))).join("");
        all += part;
        out.take(Buffer.from(part));
        const head = all.slice(0, headBytes);
        const rest = all.slice(head.length);
        const tail = tailBytes === 0 ? "" : rest.slice(Math.max(0, rest.length - tailBytes));
        expect(out.captured()).toEqual({
          bytes: all.length,
          truncated: all.length > head.length + tail.length,
          head,
          tail,
        });
        expect(out.keptBuffer().toString()).toBe(head + tail);
      }
    }
  });
});
