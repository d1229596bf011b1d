import { describe, expect, it } from "vitest";
import { Demuxer } from "./demux.js";

const frame = (type: number, text: string) => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

function demux(chunks: Buffer[]) {
  const out: string[] = [];
  const err: string[] = [];
  const d = new Demuxer(
    (c) => out.push(c.toString()),
    (c) => err.push(c.toString()),
  );
  for (const chunk of chunks) d.push(chunk);
  return { out: out.join(""), err: err.join("") };
}

describe("Demuxer", () => {
  it("splits whole frames by stream", () => {
    expect(demux([Buffer.concat([frame(1, "hello "), frame(2, "oops"), frame(1, "world")])])).toEqual({
      out: "hello world",
      err: "oops",
    });
  });

  it("handles frames and headers cut at every byte", () => {
    const all = Buffer.concat([frame(1, "abc"), frame(2, "de"), frame(1, ""), frame(1, "fghij")]);
    const bytes = [...all].map((b) => Buffer.from([b]));
    expect(demux(bytes)).toEqual({ out: "abcfghij", err: "de" });
  });

  it("passes a large frame through in pieces without waiting for its end", () => {
    const big = frame(1, "x".repeat(100_000));
    const seen: number[] = [];
    const d = new Demuxer(
      (c) => seen.push(c.length),
      () => undefined,
    );
    d.push(big.subarray(0, 50_008));
    expect(seen).toEqual([50_000]);
    d.push(big.subarray(50_008));
    expect(seen.reduce((a, b) => a + b)).toBe(100_000);
  });
});
