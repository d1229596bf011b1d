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
    expect(out.keptBuffer().length).toBeLessThanOrEqual(2048 + chunk.length);
    expect(out.captured().bytes).toBe(64 * 1024 * 1024);
    expect(out.captured().tail.length).toBe(1024);
  });
});
