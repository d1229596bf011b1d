import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { extract } from "tar-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CA_ENTRY_NAME, listBuildContext, packBuildContext } from "./context.js";

let dir: string;
let out: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "oracle-ctx-"));
  out = await mkdtemp(join(tmpdir(), "oracle-ctx-out-"));
  await writeFile(join(dir, "Dockerfile"), "FROM debian:bookworm-slim\n");
  await writeFile(join(dir, ".dockerignore"), "secret.txt\nDockerfile\n*.md\n!KEEP.md\n");
  await writeFile(join(dir, "secret.txt"), "no\n");
  await writeFile(join(dir, "README.md"), "no\n");
  await writeFile(join(dir, "KEEP.md"), "yes\n");
  await writeFile(join(dir, CA_ENTRY_NAME), "stale on disk\n");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(out, { recursive: true, force: true });
});

describe("build context", () => {
  it("honours .dockerignore (with exceptions) but always sends the Dockerfile and .dockerignore", async () => {
    expect((await listBuildContext(dir)).map((e) => e.relpath)).toEqual([
      ".dockerignore",
      "Dockerfile",
      "KEEP.md",
    ]);
  });

  it("packs the listed files plus the CA bundle as oracle-build-ca.pem", async () => {
    const tar = packBuildContext(dir, await listBuildContext(dir), Buffer.from("CA BUNDLE\n"));
    await pipeline(tar, extract(out));
    expect(await readFile(join(out, CA_ENTRY_NAME), "utf8")).toBe("CA BUNDLE\n");
    expect(await readFile(join(out, "KEEP.md"), "utf8")).toBe("yes\n");
    await expect(readFile(join(out, "secret.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("packs an empty oracle-build-ca.pem when no CA is given", async () => {
    await pipeline(packBuildContext(dir, await listBuildContext(dir), Buffer.alloc(0)), extract(out));
    expect(await readFile(join(out, CA_ENTRY_NAME), "utf8")).toBe("");
  });
});
