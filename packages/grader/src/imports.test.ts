import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every relative import of every source file (tests included), as `from -> to`, paths under src/. */
function imports(): Array<{ from: string; to: string }> {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  return files.flatMap((from) =>
    [...readFileSync(join(SRC, from), "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.\.?\/[^"]+)"/g)].map(
      (m) => ({ from, to: relative(SRC, resolve(SRC, dirname(from), m[1] as string)) }),
    ),
  );
}

const under = (folder: string) => (path: string) => path.startsWith(`${folder}/`);

describe("the batch, the queue and what they share", () => {
  const all = imports();
  const edges = (from: string, to: string) =>
    all.filter((e) => under(from)(e.from) && under(to)(e.to)).map((e) => `${e.from} -> ${e.to}`);

  it("queue/ never imports batch/: what both need is in prediction/ and task/prepare.ts", () => {
    expect(edges("queue", "batch")).toEqual([]);
  });

  it("prediction/ imports neither batch/ nor queue/", () => {
    expect([...edges("prediction", "batch"), ...edges("prediction", "queue")]).toEqual([]);
  });

  it("batch/ reaches queue/ only from its command line, which picks the executor", () => {
    const found = edges("batch", "queue").filter((e) => !/^batch\/cli[^/]*\.ts ->/.test(e));
    expect(found).toEqual([]);
  });
});
