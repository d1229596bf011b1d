import { describe, expect, it } from "vitest";
import { jestTests } from "./jest-config.js";
import { planSuites } from "./make.js";

const rule = (packageJson: string | null, configs: Array<{ path: string; text: string }> = []) =>
  jestTests(packageJson, configs);
const matches = (result: ReturnType<typeof jestTests>, paths: string[]) =>
  paths.filter((p) => result.tests?.match(p));

describe("jestTests: the files a repository's jest runs, read from its configuration", () => {
  it("keeps jest's default when nothing sets a rule", () => {
    expect(rule(null).tests).toBeNull();
    expect(rule('{"name":"x","jest":{"testEnvironment":"node"}}').tests).toBeNull();
    expect(
      rule(null, [{ path: "jest.config.js", text: "module.exports = { collectCoverage: true };" }]).tests,
    ).toBeNull();
  });

  it("reads testMatch from package.json's jest key", () => {
    const r = rule('{"jest":{"testMatch":["**/tests/**/*.{js,ts}"]}}');
    expect(r.tests?.source).toBe("package.json jest.testMatch");
    expect(
      matches(r, ["tests/a.js", "tests/deep/b.ts", "src/a.test.js", "node_modules/x/tests/c.js"]),
    ).toEqual(["tests/a.js", "tests/deep/b.ts"]);
  });

  it("reads a literal testMatch from a jest.config.js, with <rootDir> and negations", () => {
    const text = `/** @type {import('jest').Config} */
const config = {
  testEnvironment: 'node',
  testMatch: [
    '<rootDir>/tests/**/*.js', // the unit tests
    "!**/tests/fixtures/**",
  ],
};
module.exports = config;`;
    const r = rule(null, [{ path: "jest.config.js", text }]);
    expect(r.tests?.source).toBe("jest.config.js testMatch");
    expect(matches(r, ["tests/a.js", "tests/fixtures/f.js", "lib/tests/a.js", "tests/a.test.ts"])).toEqual([
      "tests/a.js",
    ]);
  });

  it("reads testRegex, tested as jest does against a path from the root", () => {
    const r = rule(null, [
      { path: "jest.config.js", text: "module.exports = { testRegex: '/test/.*\\\\.spec\\\\.js$' };" },
    ]);
    expect(r.tests?.source).toBe("jest.config.js testRegex");
    expect(matches(r, ["test/a.spec.js", "a.spec.js", "test/a.test.js"])).toEqual(["test/a.spec.js"]);
    // testMatch: null leaves testRegex to decide, in a config file and in package.json.
    const text = `module.exports = { testMatch: null, testRegex: "(/test-js/.*|(\\\\.|/)(test|spec))\\\\.(js?)$" };`;
    const both = [
      rule(null, [{ path: "jest.config.js", text }]),
      rule(JSON.stringify({ jest: { testMatch: null, testRegex: "/test-js/.*\\.js$" } })),
    ];
    for (const r of both) expect(matches(r, ["test-js/a.js", "lib/a.js"])).toEqual(["test-js/a.js"]);
  });

  it("takes testPathIgnorePatterns out of the rule, and out of jest's default when it is alone", () => {
    const withMatch = rule(
      '{"jest":{"testMatch":["**/*.check.js"],"testPathIgnorePatterns":["<rootDir>/dist/"]}}',
    );
    expect(matches(withMatch, ["src/a.check.js", "dist/a.check.js", "src/dist/b.check.js"])).toEqual([
      "src/a.check.js",
      "src/dist/b.check.js",
    ]);
    const alone = rule('{"jest":{"testPathIgnorePatterns":["/e2e/"]}}');
    expect(matches(alone, ["src/a.test.js", "e2e/b.test.js", "__tests__/c.js", "src/d.js"])).toEqual([
      "src/a.test.js",
      "__tests__/c.js",
    ]);
  });

  it("a config file wins over package.json, as jest reads it", () => {
    const r = rule('{"jest":{"testMatch":["**/pkg/*.js"]}}', [
      { path: "jest.config.json", text: '{"testMatch":["**/conf/*.js"]}' },
    ]);
    expect(matches(r, ["pkg/a.js", "conf/a.js"])).toEqual(["conf/a.js"]);
  });

  it("says so, and keeps the default, when the rule is code it does not read", () => {
    const dollar = "$";
    for (const text of [
      `const dirs = ['a']; module.exports = { testMatch: dirs.map((d) => \`${dollar}{d}/**\`) };`,
      `module.exports = { testMatch: [\`${dollar}{__dirname}/tests/*.js\`] };`,
      "module.exports = {\n  // testMatch: ['old/**'],\n  testMatch: ['new/**'],\n};",
    ]) {
      const r = rule(null, [{ path: "jest.config.js", text }]);
      expect(r.tests).toBeNull();
      expect(r.warning).toMatch(/jest\.config\.js sets testMatch with code new-task does not read/);
    }
    expect(rule('{"jest":{"testMatch":7}}').warning).toMatch(
      /testMatch is not a string or a list of strings/,
    );
    expect(rule('{"jest":{"testRegex":"("}}').warning).toMatch(/not a regular expression/);
  });
});

describe("planSuites with the repository's jest rule", () => {
  const baseFiles = ["lib/a.js", "tests/a.js", "tests/b.js", "tests/fixtures/f.js", "package.json"];
  it("runs test files only the repository's testMatch names, which jest's default would refuse", async () => {
    await expect(planSuites({ framework: "jest", baseFiles, hidden: ["tests/a.js"] })).rejects.toThrow(
      /runs as a test[\s\S]*/,
    );
    const repoTests = rule('{"jest":{"testMatch":["**/tests/**/*.js"]}}').tests;
    const plan = await planSuites({ framework: "jest", baseFiles, hidden: ["tests/a.js"], repoTests });
    expect(plan.hidden.command).toContain("'/tests/a\\.js$'");
    expect(plan.existing.command).toContain("'/tests/b\\.js$'");
    expect(plan.existing.command).not.toContain("fixtures");
  });
  it("a refusal's hint says where jest's rule comes from", async () => {
    try {
      await planSuites({ framework: "jest", baseFiles, hidden: ["tests/a.js"] });
      expect.unreachable();
    } catch (error) {
      expect((error as { hint?: string }).hint).toMatch(/testMatch or testRegex/);
    }
  });
});
