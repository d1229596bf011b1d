import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isOracleError } from "@oracle/spec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  compareRootSpecs,
  fingerprintNpmLockfile,
  fingerprintTextLockfile,
  lockfileKind,
  normaliseLockfileText,
} from "./lockfiles.js";

const fixture = resolve(import.meta.dirname, "../../../test/fixtures/images/npm-demo");
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "oracle-lockfiles-"));
  await cp(fixture, dir, { recursive: true });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: the tests edit arbitrary JSON documents
type Json = Record<string, any>;

async function editJson(file: string, edit: (data: Json) => Json, indent: string | number = 2) {
  const data = JSON.parse(await readFile(join(dir, file), "utf8"));
  await writeFile(join(dir, file), JSON.stringify(edit(data), null, indent));
}

const fingerprint = () =>
  fingerprintNpmLockfile(dir, "package-lock.json", "images/npm-demo/package-lock.json");

async function outOfSyncMessage(): Promise<string> {
  try {
    await fingerprint();
  } catch (error) {
    expect(isOracleError(error, "LOCKFILE_OUT_OF_SYNC")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected LOCKFILE_OUT_OF_SYNC");
}

describe("lockfileKind", () => {
  it("recognises npm and text lockfiles by name, anywhere in the context", () => {
    expect(lockfileKind("package-lock.json")).toBe("npm");
    expect(lockfileKind("app/npm-shrinkwrap.json")).toBe("npm");
    for (const name of [
      "pnpm-lock.yaml",
      "yarn.lock",
      "requirements-dev.txt",
      "poetry.lock",
      "uv.lock",
      "Cargo.lock",
      "go.sum",
      "Gemfile.lock",
    ]) {
      expect(lockfileKind(`x/${name}`)).toBe("text");
    }
    expect(lockfileKind("package.json")).toBeNull();
    expect(lockfileKind("notes.txt")).toBeNull();
  });
});

describe("text lockfiles", () => {
  it("ignore line endings, trailing whitespace and trailing blank lines", () => {
    const plain = "attrs==23.2.0\npluggy==1.5.0\n";
    expect(fingerprintTextLockfile("attrs==23.2.0  \r\npluggy==1.5.0\t\r\n\r\n\r\n")).toBe(
      fingerprintTextLockfile(plain),
    );
    expect(normaliseLockfileText("\uFEFFa \r\nb\r\n\n")).toBe("a\nb");
  });

  it("change with a version bump", () => {
    expect(fingerprintTextLockfile("attrs==23.2.1\n")).not.toBe(fingerprintTextLockfile("attrs==23.2.0\n"));
  });
});

describe("npm lockfiles", () => {
  it("read a lockfile without resolved fields (omit-lockfile-registry-resolved)", async () => {
    expect(await readFile(join(dir, "package-lock.json"), "utf8")).not.toContain('"resolved"');
    expect(await fingerprint()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("are the same after reordering and reformatting the file", async () => {
    const before = await fingerprint();
    await editJson(
      "package-lock.json",
      (lock) => ({ ...lock, packages: Object.fromEntries(Object.entries(lock.packages).reverse()) }),
      "\t",
    );
    expect(await fingerprint()).toBe(before);
  });

  it("change when a locked version changes", async () => {
    const before = await fingerprint();
    await editJson("package-lock.json", (lock) => {
      lock.packages["node_modules/is-number"].version = "7.0.1";
      return lock;
    });
    expect(await fingerprint()).not.toBe(before);
  });

  it("change when an integrity changes", async () => {
    const before = await fingerprint();
    await editJson("package-lock.json", (lock) => {
      lock.packages["node_modules/is-odd/node_modules/is-number"].integrity = "sha512-AAAA";
      return lock;
    });
    expect(await fingerprint()).not.toBe(before);
  });

  it("are out of sync when package.json asks for another range", async () => {
    await editJson("package.json", (pkg) => ({ ...pkg, dependencies: { "is-number": "^6.0.0" } }));
    expect(await outOfSyncMessage()).toMatch(
      /"is-number" is dependencies "\^6\.0\.0" in package\.json but dependencies "\^7\.0\.0"/,
    );
  });

  it("are out of sync when package.json has a dependency the lockfile lacks", async () => {
    await editJson("package.json", (pkg) => ({
      ...pkg,
      dependencies: { ...pkg.dependencies, "left-pad": "^1.3.0" },
    }));
    expect(await outOfSyncMessage()).toContain('"left-pad"');
  });

  it("are out of sync when the tree misses a package another one needs", async () => {
    await editJson("package-lock.json", (lock) => {
      delete lock.packages["node_modules/is-odd/node_modules/is-number"];
      return lock;
    });
    expect(await outOfSyncMessage()).toMatch(/is-odd@3\.0\.1 needs "is-number@\^6\.0\.0"/);
  });

  it("compareRootSpecs names a package only in the lockfile", () => {
    expect(() => compareRootSpecs({}, { dependencies: { a: "1" } }, "x/package-lock.json")).toThrow(
      /"a" .* in the lockfile but not in package\.json/,
    );
  });
});
