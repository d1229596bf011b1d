import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pinnedEnv, type ServeRequest } from "./client.js";
import { filesStamp, loadedFiles, mismatch, type ServedBuild } from "./server.js";

let temp: string | undefined;
afterEach(() => {
  if (temp) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

const request = (build: string, root: string): ServeRequest => ({
  build,
  argv: ["--root", root, "t", "--baseline"],
  cwd: root,
  env: pinnedEnv(process.env),
  stderrTTY: false,
});

describe("which build a local grader grades with", () => {
  it("covers the files it loads outside the bundle: the parser and grammars, the image builder, dockerode", () => {
    const files = loadedFiles();
    expect(files.some((file) => file.endsWith("tree-sitter-python.wasm"))).toBe(true);
    expect(files.some((file) => file.endsWith("/web-tree-sitter/tree-sitter.wasm"))).toBe(true);
    expect(files.some((file) => /image-builder\/dist\/index\.js$/.test(file))).toBe(true);
    expect(files.some((file) => file.endsWith("/dockerode/package.json"))).toBe(true);
    expect(filesStamp(files)).not.toContain("missing");
  });

  it("declines a client once a loaded file was rewritten or replaced since the server started (pnpm install)", () => {
    temp = mkdtempSync(join(tmpdir(), "oracle-serve-build-"));
    const grammar = join(temp, "grammar.wasm");
    writeFileSync(grammar, "one");
    const build: ServedBuild = { id: "b1", files: [grammar], stamp: filesStamp([grammar]) };
    expect(mismatch(request("b1", temp), build, temp)).toBeNull();
    expect(mismatch(request("b2", temp), build, temp)).toBe("another build");

    writeFileSync(join(temp, "new.wasm"), "two");
    renameSync(join(temp, "new.wasm"), grammar); // a package manager's replace: a new inode
    expect(mismatch(request("b1", temp), build, temp)).toBe(
      "another build (node_modules changed since the server started)",
    );
    rmSync(grammar);
    expect(mismatch(request("b1", temp), build, temp)).toMatch(/node_modules changed/);
  });
});
