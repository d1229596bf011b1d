import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packageOf, specifiers, suiteImports } from "./js-imports.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("the packages a task's suites import", () => {
  it("reads import, export-from, dynamic import and require specifiers", () => {
    const text = `import { it } from "vitest";
import * as x from './fixtures/';
import type { A } from "type-only";
export { b } from "re-export/sub";
import "side-effect";
const c = require('cjs-dep');
const d = await import("lazy");
import { describe } from "node:test";`;
    expect(specifiers(text)).toEqual(
      expect.arrayContaining([
        "vitest",
        "./fixtures/",
        "type-only",
        "re-export/sub",
        "side-effect",
        "cjs-dep",
        "lazy",
        "node:test",
      ]),
    );
  });

  it("names the package of a bare specifier only", () => {
    expect(packageOf("@scope/pkg/deep/file.js")).toBe("@scope/pkg");
    expect(packageOf("lodash/merge")).toBe("lodash");
    expect(packageOf("./local")).toBeNull();
    expect(packageOf("/abs")).toBeNull();
    expect(packageOf("node:fs")).toBeNull();
  });

  it("follows relative imports from the tests and the runner's config, and the names a config quotes", async () => {
    const repo = await mkdtemp(join(tmpdir(), "oracle-imports-test-"));
    dirs.push(repo);
    const files: Record<string, string> = {
      "test/a.test.ts": `import { it } from "vitest";\nimport { f } from "../src/f";\nimport * as fx from "./fixtures/";`,
      "test/fixtures/index.ts": `export * from "fixture-dep";`,
      "src/f.ts": `import { g } from "./g.js";\nexport const f = 1;`,
      "src/g.ts": `import "src-dep";`,
      "src/unreached.ts": `import "never";`,
      "vitest.config.ts": `import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { environment: "jsdom", setupFiles: ["./test/setup.ts"] } });`,
      "test/setup.ts": `import "setup-dep";`,
      // uuidjs/uuid fcd7388: jest's babel-jest loads the preset its babel.config.json names.
      "babel.config.json": `{ "presets": [], "env": { "commonjs": { "presets": [["@babel/preset-env", { "modules": "commonjs" }]] } } }`,
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(repo, dirname(path)), { recursive: true });
      await writeFile(join(repo, path), text);
    }
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" }).trim();
    git("init", "-q");
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x");
    const found = await suiteImports(repo, git("rev-parse", "HEAD"), Object.keys(files), ["test/a.test.ts"]);
    expect(found).toEqual(
      expect.arrayContaining(["@babel/preset-env", "fixture-dep", "jsdom", "setup-dep", "src-dep", "vitest"]),
    );
    expect(found).not.toContain("never");
  });
});
