import { execFileSync } from "node:child_process";
import { lstat, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeJsonAtomic } from "./files.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "spec-files-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeJsonAtomic", () => {
  it("writes pretty JSON and leaves no temporary file", async () => {
    const file = join(dir, "nested", "x.json");
    await writeJsonAtomic(file, { a: 1 });
    expect(await readFile(file, "utf8")).toBe('{\n  "a": 1\n}\n');
    expect(await readdir(join(dir, "nested"))).toEqual(["x.json"]);
  });

  it("never exposes a torn file to concurrent writers and readers", async () => {
    const file = join(dir, "x.json");
    const big = (n: number) => ({ n, data: "x".repeat(200_000) });
    const writes = Array.from({ length: 20 }, (_, n) => writeJsonAtomic(file, big(n)));
    const reads: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      reads.push(
        readFile(file, "utf8").then(
          (text) => void JSON.parse(text),
          (error: NodeJS.ErrnoException) => {
            if (error.code !== "ENOENT") throw error;
          },
        ),
      );
    }
    await Promise.all([...writes, ...reads]);
    expect(JSON.parse(await readFile(file, "utf8")).data).toHaveLength(200_000);
  });

  it("writes into a pipe as it is, and never renames over it", async () => {
    const fifo = join(dir, "out");
    execFileSync("mkfifo", [fifo]);
    const read = readFile(fifo, "utf8");
    await writeJsonAtomic(fifo, { a: 1 });
    expect(await read).toBe('{\n  "a": 1\n}\n');
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    expect(await readdir(dir)).toEqual(["out"]);
  });

  it("writes through a link to a regular file and keeps the link", async () => {
    const target = join(dir, "target.json");
    await writeFile(target, "old");
    await symlink("target.json", join(dir, "link.json"));
    await writeJsonAtomic(join(dir, "link.json"), { a: 2 });
    expect(await readlink(join(dir, "link.json"))).toBe("target.json");
    expect(await readFile(target, "utf8")).toBe('{\n  "a": 2\n}\n');
    expect((await readdir(dir)).sort()).toEqual(["link.json", "target.json"]);
  });
});
