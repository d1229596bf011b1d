import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planSuites, readVitestConfigs } from "./make.js";
import { splitFix } from "./split.js";
import { runsAsTest, vitestSplitRule } from "./templates.js";
import { vitestTests } from "./vitest-config.js";

const config = (text: string, path = "vitest.config.ts") => vitestTests([{ path, text }]);
const matches = (result: ReturnType<typeof vitestTests>, paths: string[]) =>
  paths.filter((p) => result.tests?.match(p));

describe("vitestTests: the files a repository's vitest runs, read from its config's test block", () => {
  it("no config, or one that sets neither include nor exclude: new-task's own rule stays", () => {
    expect(vitestTests([]).tests).toBeNull();
    expect(config("export default defineConfig({ test: { environment: 'node' } });").tests).toBeNull();
    expect(config("export default defineConfig({ plugins: [] });").tests).toBeNull();
  });

  it("reads a literal test.include (globs from the root), vitest's default exclude beside it", () => {
    const r = config(`import { defineConfig } from 'vitest/config';
export default defineConfig({
  test: {
    // the unit tests
    include: ['tests/**/*.ts', "spec/*.spec.js"],
    coverage: { include: ['src/**'], exclude: ["src/gen/**"] },
  },
});`);
    expect(r.tests?.source).toBe("vitest.config.ts test.include");
    expect(
      matches(r, [
        "tests/a.ts",
        "tests/deep/b.ts",
        "spec/x.spec.js",
        "src/a.ts",
        "node_modules/p/tests/c.ts",
      ]),
    ).toEqual(["tests/a.ts", "tests/deep/b.ts", "spec/x.spec.js"]);
    expect(r.warning).toBeUndefined();
  });

  it("a literal exclude replaces vitest's default; one that is code is said, and the default stands", () => {
    const own = config("export default { test: { include: ['test/**/*.ts'], exclude: ['test/e2e/**'] } }");
    expect(matches(own, ["test/a.ts", "test/e2e/b.ts"])).toEqual(["test/a.ts"]);
    const spread = config(
      "export default { test: { include: ['test/**/*.ts'], exclude: [...configDefaults.exclude, 'test/e2e/**'] } }",
    );
    expect(spread.warning).toBe("vitest.config.ts sets test.exclude with code new-task does not read");
    expect(matches(spread, ["test/a.ts", "test/e2e/b.ts", "test/node_modules/c.ts"])).toEqual([
      "test/a.ts",
      "test/e2e/b.ts",
    ]);
    // exclude alone: vitest's default include, less it.
    const alone = config("export default { test: { exclude: ['src/legacy/**'] } }", "vite.config.mjs");
    expect(alone.tests?.source).toBe("vite.config.mjs test.exclude");
    expect(matches(alone, ["src/a.test.ts", "src/legacy/b.test.ts", "src/c.ts"])).toEqual(["src/a.test.ts"]);
  });

  it("an include that is code, or a dir or projects it does not follow: said, and new-task's own rule stays", () => {
    const computed = config(
      "const dirs = ['a']; export default { test: { include: dirs.map((d) => d + '/**') } }",
    );
    expect(computed.tests).toBeNull();
    expect(computed.warning).toBe("vitest.config.ts sets test.include with code new-task does not read");
    expect(config("export default { test: { dir: 'tests', include: ['**/*.ts'] } }").warning).toMatch(
      /sets test\.dir, which new-task does not follow/,
    );
  });
});

describe("a vitest repository whose tests are tests/**/*.ts (brief s28 fix, item 2)", () => {
  const dir = mkdtempSync(join(tmpdir(), "vitest-include-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: dir,
      encoding: "utf8",
    });
  const baseFiles = ["src/sum.ts", "tests/sum.ts", "tests/other.ts", "tests/helpers/make.ts", "package.json"];

  it("is read from the repository, splits the fix and makes suites, where the name rule refused it", async () => {
    git("init", "-q");
    writeFileSync(join(dir, "package.json"), '{"devDependencies":{"vitest":"2.1.9"}}');
    writeFileSync(
      join(dir, "vitest.config.ts"),
      "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['tests/**/*.ts'] } });\n",
    );
    git("add", ".");
    git("commit", "-qm", "base");
    const head = git("rev-parse", "HEAD").trim();
    const configs = await readVitestConfigs(dir, head);
    expect(configs.map((c) => c.path)).toEqual(["vitest.config.ts"]);
    const rule = vitestTests(configs).tests;
    // Before: vitest's files were known only by name (*.test.ts, __tests__/): refused.
    await expect(planSuites({ framework: "vitest", baseFiles, hidden: ["tests/sum.ts"] })).rejects.toThrow(
      /the fix changes no file the vitest runner runs as a test/,
    );
    const plan = await planSuites({
      framework: "vitest",
      baseFiles,
      hidden: ["tests/sum.ts"],
      repoTests: rule,
    });
    expect(plan.hidden.command).toContain("tests/sum.ts");
    expect(plan.existing.command).toContain("tests/other.ts");
    expect(plan.existing.command).not.toContain("helpers");
    expect(runsAsTest("vitest", "src/sum.ts", rule)).toBe(false);
    // The split takes the rule's files as tests when vitest is the runner (package.json names it).
    const split = splitFix(
      [
        { path: "lib/sum.ts", status: "M" },
        { path: "checks/sum.ts", status: "M" },
      ],
      [],
      vitestSplitRule(
        vitestTests([
          { path: "vitest.config.ts", text: "export default { test: { include: ['checks/*.ts'] } }" },
        ]).tests,
        '{"devDependencies":{"vitest":"2"}}',
        undefined,
      ),
    );
    expect(split).toEqual({ hidden: ["checks/sum.ts"], deletedTests: [], code: ["lib/sum.ts"] });
    expect(vitestSplitRule(rule, '{"devDependencies":{"jest":"29"}}', undefined)).toBeUndefined();
  });
});
