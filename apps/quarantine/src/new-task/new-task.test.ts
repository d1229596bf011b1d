import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingDeps } from "./image.js";
import {
  deniedGoldPaths,
  deniedGoldWarning,
  diffPolicy,
  goRunSelection,
  planSuites,
  taskIdFrom,
  taskJson,
} from "./make.js";
import { isTestPath, namedUnchangedTests, splitFix } from "./split.js";
import { readDataset } from "./swebench.js";
import {
  detectFramework,
  forJestVersion,
  forVitestVersion,
  goModule,
  jestRunFlags,
  jestSplitRule,
  pythonSrcLayout,
  pythonVersionFile,
  repoRunnerFlags,
  runsAsTest,
  scriptEnv,
  scriptTestPaths,
  shellQuote,
  suiteCommand,
  suiteEnv,
  versionFilePrelude,
} from "./templates.js";
import { buildFailedHint, failedBuildLogs } from "./validate.js";

describe("splitFix", () => {
  it("splits by path as SWE-bench does; deleted tests apart; --tests replaces the rule", () => {
    const files = [
      { status: "M" as const, path: "src/a.py" },
      { status: "M" as const, path: "tests/test_a.py" },
      { status: "A" as const, path: "pkg/b_test.go" },
      { status: "D" as const, path: "test/old.test.js" },
      { status: "M" as const, path: "lib/__tests__/x.js" },
      { status: "M" as const, path: "docs/testing.md" },
    ];
    expect(splitFix(files)).toEqual({
      hidden: ["tests/test_a.py", "pkg/b_test.go", "lib/__tests__/x.js"],
      deletedTests: ["test/old.test.js"],
      code: ["src/a.py", "docs/testing.md"],
    });
    expect(splitFix(files, ["src/**"]).hidden).toEqual(["src/a.py"]);
    expect(isTestPath("src/contest.py")).toBe(false);
    // fb55/css-what 503570e changes only src/__fixtures__/tests.ts, which src/*.spec.ts import: the
    // unchanged spec files --tests names are the hidden tests too, when no changed file runs as one.
    const runs = (p: string) => p.endsWith(".spec.ts");
    const fixFiles = ["src/__fixtures__/tests.ts", "src/parse.ts", "src/parse.spec.ts", "src/wpt.spec.ts"];
    expect(
      namedUnchangedTests(["src/*.spec.ts"], ["src/__fixtures__/tests.ts"], fixFiles, ["src/parse.ts"], runs),
    ).toEqual(["src/parse.spec.ts", "src/wpt.spec.ts"]);
    // A changed file that runs is the hidden test as before: nothing is added.
    expect(namedUnchangedTests(["src/*.spec.ts"], ["src/parse.spec.ts"], fixFiles, [], runs)).toEqual([]);
    expect(namedUnchangedTests([], ["src/__fixtures__/tests.ts"], fixFiles, [], runs)).toEqual([]);
    expect(isTestPath("pkg/testdata/in.txt")).toBe(true);
  });
});

describe("templates", () => {
  it("Python: the version file a build writes (hatch-vcs, setuptools-scm) gets a stand-in before the suites (python-humanize 823ad60)", async () => {
    expect(
      pythonVersionFile(
        '[tool.hatch]\nversion.source = "vcs"\nbuild.hooks.vcs.version-file = "src/humanize/_version.py"\n',
      ),
    ).toBe("src/humanize/_version.py");
    expect(pythonVersionFile('[tool.setuptools_scm]\nwrite_to = "pkg/_v.py"\n')).toBe("pkg/_v.py");
    expect(pythonVersionFile('[tool.setuptools_scm]\nwrite_to = "../x.py"\n')).toBeNull();
    expect(pythonVersionFile(null)).toBeNull();
    const plan = await planSuites({
      framework: "pytest",
      baseFiles: ["src/humanize/__init__.py", "tests/test_a.py", "tests/test_b.py"],
      hidden: ["tests/test_a.py"],
      prelude: versionFilePrelude("src/humanize/_version.py"),
    });
    for (const command of [plan.hidden.command, plan.existing.command])
      expect(command).toMatch(
        /^printf '%s\\n' '__version__ = version = '\\''0\.0\.0'\\''' .* > src\/humanize\/_version\.py && python3 -m pytest /,
      );
  });
  it("jest: runs in workers and with a 30 s test timeout unless the repository's scripts or config say (commander.js 2e96cd3)", () => {
    const pkg = (scripts: Record<string, string>, jest?: unknown) => JSON.stringify({ scripts, jest });
    // commander.js: `jest && npm run check:type:ts`, jest.config.js without either.
    const commander = jestRunFlags(pkg({ test: "jest && npm run check:type:ts" }), [
      "const config = { testEnvironment: 'node', collectCoverage: true };",
    ]);
    expect(commander).toEqual(["--maxWorkers=2", "--testTimeout=30000"]);
    expect(suiteCommand("jest", ["tests/a.test.js"], [], commander)).toContain(
      "--coverage=false --maxWorkers=2 --testTimeout=30000 '/tests/a\\.test\\.js$'",
    );
    expect(jestRunFlags(pkg({ test: "jest -i --testTimeout 9000 src" }))).toEqual([
      "-i",
      "--testTimeout=9000",
    ]);
    expect(jestRunFlags(pkg({ test: "jest" }, { testTimeout: 60000, maxWorkers: 4 }))).toEqual([]);
    expect(jestRunFlags(null, ["module.exports = { testTimeout: 20000 }"])).toEqual(["--maxWorkers=2"]);
  });
  it("carries the mocha flags the repository's own scripts give (the interface, requires, timeout)", () => {
    const pkg = (scripts: Record<string, string>) => JSON.stringify({ scripts });
    expect(
      repoRunnerFlags("mocha", pkg({ test: "mocha --reporter spec --bail --check-leaks --ui qunit test/" })),
    ).toEqual(["--ui", "qunit"]);
    expect(
      repoRunnerFlags(
        "mocha",
        pkg({ lint: "eslint .", "test:src": "mocha -u tdd -r ts-node/register --timeout=5000 src" }),
      ),
    ).toEqual(["--ui", "tdd", "--require", "ts-node/register", "--timeout", "5000"]);
    expect(repoRunnerFlags("mocha", pkg({ test: "nyc mocha --ui $UI" }))).toEqual([]);
    // Read as the shell reads it (the grader's shellSegments): a quoted `|` does not split the
    // script, and only a word the shell would expand is left out.
    expect(repoRunnerFlags("mocha", pkg({ test: `mocha --grep "a|b" --ui 'tdd' --timeout "\\$5"` }))).toEqual(
      ["--ui", "tdd", "--timeout", "$5"],
    );
    expect(repoRunnerFlags("mocha", pkg({ test: `mocha --require '$lib' --ui="\${UI}"` }))).toEqual([
      "--require",
      "$lib",
    ]);
    expect(repoRunnerFlags("jest", pkg({ test: "mocha --ui qunit" }))).toEqual([]);
    expect(repoRunnerFlags("mocha", null)).toEqual([]);
    expect(suiteCommand("mocha", ["test/a.js"], [], ["--ui", "qunit"])).toContain(
      "node_modules/.bin/mocha --ui qunit --reporter mocha-junit-reporter",
    );
    // mocha before 6 knows only --reporter-options (pluralize c46c6af, mocha 5: no report); 6 to 10 take both.
    expect(suiteCommand("mocha", ["test.js"])).toContain(
      '--reporter-options mochaFile="$ORACLE_JUNIT" test.js',
    );
  });

  it("tells the runner from the hidden files and package.json, or asks for --framework", () => {
    expect(detectFramework(["x_test.go"], null)).toBe("go");
    expect(detectFramework(["tests/test_x.py"], null)).toBe("pytest");
    expect(detectFramework(["test/a.test.js"], JSON.stringify({ devDependencies: { jest: "30" } }))).toBe(
      "jest",
    );
    expect(detectFramework(["test/a.js"], JSON.stringify({ devDependencies: { mocha: "10" } }))).toBe(
      "mocha",
    );
    expect(() => detectFramework(["test/a.js"], "{}")).toThrow(/names no vitest, jest or mocha/);
    expect(() => detectFramework(["test/data.txt"], null)).toThrow(/cannot tell/);
  });

  it("knows which files each runner runs as tests", () => {
    expect(runsAsTest("pytest", "tests/helpers.py")).toBe(false);
    expect(runsAsTest("pytest", "tests/test_x.py")).toBe(true);
    expect(runsAsTest("mocha", "test/fixtures/a.js")).toBe(false);
    expect(runsAsTest("mocha", "test/a.js")).toBe(true);
    expect(runsAsTest("jest", "src/__tests__/a.ts")).toBe(true);
    expect(runsAsTest("go", "pkg/testdata/x_test.go")).toBe(false);
  });

  it("quotes for the shell and writes jest's paths as regular expressions", () => {
    expect(shellQuote("tests/test_x.py")).toBe("tests/test_x.py");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    // the patterns before --reporters: after it, jest takes them as more reporters
    expect(suiteCommand("jest", ["test/a.test.js"])).toMatch(
      / '\/test\/a\\.test\\.js\$' --reporters=default --reporters=jest-junit$/,
    );
    expect(suiteCommand("go", ["a_test.go", "pkg/b_test.go"], ["a_test.go"])).toBe(
      'rm -f -- a_test.go && gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1 . ./pkg',
    );
  });

  it("carries the variables the repository's own test script sets for its runner into the suites' env (uuidjs/uuid fcd7388: BABEL_ENV)", () => {
    const uuid = JSON.stringify({
      scripts: {
        lint: "FOO=1 eslint src/",
        test: "BABEL_ENV=commonjs node --throw-deprecation node_modules/.bin/jest test/unit/",
      },
    });
    expect(scriptEnv("jest", uuid)).toEqual({ BABEL_ENV: "commonjs" });
    expect(suiteEnv("jest", false, false, scriptEnv("jest", uuid))).toEqual({ BABEL_ENV: "commonjs" });
    const crossEnv = JSON.stringify({
      scripts: { test: "npm run lint && cross-env NODE_ENV=test TZ=UTC HOME=$PWD mocha test/" },
    });
    // TZ is the oracle's own; a value the shell expands is not a value.
    expect(scriptEnv("mocha", crossEnv)).toEqual({ NODE_ENV: "test" });
    expect(scriptEnv("vitest", crossEnv)).toEqual({});
    expect(scriptEnv("pytest", uuid)).toEqual({});
  });

  it("keeps the existing suite to the folders the repository's own test script gives its runner (uuidjs/uuid fcd7388: jest test/unit/, not wdio's test/browser/)", async () => {
    const uuid = JSON.stringify({
      scripts: {
        "test:browser": "wdio run ./wdio.conf.js",
        test: "BABEL_ENV=commonjs node --throw-deprecation node_modules/.bin/jest test/unit/",
      },
    });
    const baseFiles = [
      "package.json",
      "src/v35.js",
      "test/unit/parse.test.js",
      "test/unit/v35.test.js",
      "test/unit/rng.test.js",
      "test/browser/browser.test.js",
    ];
    expect(scriptTestPaths("jest", uuid, baseFiles)).toEqual(["test/unit"]);
    // A word that names no folder or file of the base (a config value, a glob) is not a path.
    expect(
      scriptTestPaths(
        "mocha",
        JSON.stringify({ scripts: { test: "mocha --config x.json 'test/**/*.js' ./test/unit/" } }),
        baseFiles,
      ),
    ).toEqual(["test/unit"]);
    expect(scriptTestPaths("jest", JSON.stringify({ scripts: { test: "jest" } }), baseFiles)).toEqual([]);
    const plan = await planSuites({
      framework: "jest",
      baseFiles,
      hidden: ["test/unit/v35.test.js"],
      scriptPaths: ["test/unit"],
    });
    expect(plan.existing.files).toContain("test/unit/parse.test.js");
    expect(plan.existing.files).not.toContain("test/browser/browser.test.js");
    expect(plan.notes.join("\n")).toMatch(
      /own test script gives its jest test\/unit: the existing suite runs the 2 test files there, not 1 other \(test\/browser\/browser\.test\.js\)/,
    );
    // A script that names only folders without the base's other tests leaves the suite as it is.
    const all = await planSuites({
      framework: "jest",
      baseFiles,
      hidden: ["test/unit/v35.test.js"],
      scriptPaths: ["src"],
    });
    expect(all.existing.files).toContain("test/browser/browser.test.js");
  });

  it("writes vitest's --no-cache only for a vitest that has it (2+): vitest 1 stops at an unknown --cache", () => {
    const command = suiteCommand("vitest", ["test/a.test.ts"]);
    expect(command).toContain(" --no-cache ");
    expect(forVitestVersion(command, "2.1.9")).toBe(command);
    expect(forVitestVersion(command, null)).toBe(command);
    expect(forVitestVersion(command, "1.0.1")).toBe(command.replace(" --no-cache ", " "));
    expect(forVitestVersion(command, "0.34.6")).not.toContain("--no-cache");
  });
  it("drops jest's --testTimeout for a jest older than 24.9: dayjs 99691c5's own jest 22.4.4 stopped at it", () => {
    const command =
      "ln -sfn /opt/deps/node_modules node_modules && JEST_JUNIT_OUTPUT_FILE=\"$ORACLE_JUNIT\" node_modules/.bin/jest --ci --watchman=false --coverage=false --maxWorkers=2 --testTimeout=30000 '/test/a\\.test\\.js$' --reporters=default --reporters=jest-junit";
    expect(forJestVersion(command, "22.4.4")).toBe(command.replace(" --testTimeout=30000", ""));
    expect(forJestVersion(command, "24.8.0")).not.toContain("--testTimeout");
    expect(forJestVersion(command, "24.9.0")).toBe(command);
    expect(forJestVersion(command, "30.5.2")).toBe(command);
    expect(forJestVersion(command, null)).toBe(command);
  });
});

describe("a Python repository's src/ layout", () => {
  it("packages only under src/ run with PYTHONPATH=src (tkem/cachetools: every import failed without it)", () => {
    const cachetools = [
      "src/cachetools/__init__.py",
      "src/cachetools/func.py",
      "tests/test_func.py",
      "setup.cfg",
    ];
    expect(pythonSrcLayout(cachetools)).toBe(true);
    expect(pythonSrcLayout(["src/single.py", "tests/test_single.py"])).toBe(true);
    expect(suiteEnv("pytest", false, true)).toEqual({ PYTHONDONTWRITEBYTECODE: "1", PYTHONPATH: "src" });
  });
  it("a package at the top, or none under src/, keeps the environment as it was", () => {
    expect(pythonSrcLayout(["boltons/__init__.py", "tests/test_x.py"])).toBe(false);
    expect(pythonSrcLayout(["pkg/__init__.py", "src/pkg/__init__.py"])).toBe(false);
    expect(pythonSrcLayout(["src/__init__.py", "src/tools/run.sh"])).toBe(false);
    expect(suiteEnv("pytest", false)).toEqual({ PYTHONDONTWRITEBYTECODE: "1" });
  });
});

describe("a Go repository from before modules (go-humanize bb3d318, 2017: no go.mod at the base)", () => {
  it("runs its suites in GOPATH mode, where a module build said 'cannot find main module' and ran no test", () => {
    const humanize = ["bytes.go", "bytes_test.go", "comma.go", "README.markdown", ".travis.yml"];
    expect(goModule(humanize)).toBe(false);
    expect(suiteEnv("go", false, false, {}, goModule(humanize))).toEqual({
      GOPROXY: "off",
      GO111MODULE: "off",
      GOFLAGS: "",
      CGO_ENABLED: "0",
    });
    expect(goModule(["go.mod", "version.go"])).toBe(true);
    expect(goModule(["tools/go.mod", "tools/main.go"])).toBe(true);
    expect(suiteEnv("go", false, false, {}, true)).toEqual({
      GOPROXY: "off",
      GOFLAGS: "-mod=readonly",
      CGO_ENABLED: "0",
    });
  });
});

describe("taskJson", () => {
  it("writes a 900 s limit, not the spec's 300 s: real suites ran up to 294 s to completion on the loaded machine", () => {
    const suite = { command: "python3 -m pytest", files: ["tests/test_a.py"] };
    const hidden = { command: "python3 -m pytest tests/test_a.py" };
    const task = taskJson({
      id: "t",
      description: "d",
      image: "python-pytest",
      framework: "pytest",
      base: "a".repeat(40),
      suites: { existing: suite, hidden, notes: [] } as never,
      hidden: ["tests/test_a.py"],
      hasVendor: false,
      schema: "../schema.json",
    });
    expect(task.timeoutSeconds).toBe(900);
  });
});

describe("planSuites", () => {
  const baseFiles = [
    "src/a.py",
    "tests/test_a.py",
    "tests/test_b.py",
    "tests/helpers.py",
    "vendor/x/test_v.py",
  ];
  it("runs the hidden files by name and the other base test files in the existing suite", async () => {
    const plan = await planSuites({
      framework: "pytest",
      baseFiles,
      hidden: ["tests/test_a.py", "tests/data.json"],
    });
    expect(plan.hidden.command).toMatch(/ tests\/test_a\.py$/);
    expect(plan.existing.command).toMatch(/ tests\/test_b\.py$/);
    expect(plan.existing.files).toContain("tests/test_b.py");
    expect(plan.existing.files).not.toContain("tests/test_a.py");
  });
  it("refuses a fix without runnable hidden tests, or a base without any test file", async () => {
    await expect(planSuites({ framework: "pytest", baseFiles, hidden: ["tests/data.json"] })).rejects.toThrow(
      /runs as a test/,
    );
    await expect(
      planSuites({
        framework: "pytest",
        baseFiles,
        hidden: ["tests/test_c.py"],
        deletedTests: ["tests/test_a.py", "tests/test_b.py"],
      }),
    ).rejects.toThrow(/the fix adds tests\/test_c\.py\): the task's existing suite would run nothing/);
  });
  it("--tests names the hidden tests: pytest and mocha run a file named on their command line, whatever its name", async () => {
    // stefankoegl/python-json-pointer d3966dd: its one test file is the root tests.py.
    const py = await planSuites({
      framework: "unittest",
      baseFiles: ["jsonpointer.py", "tests.py", "doc/conf.py"],
      hidden: ["tests.py"],
      testGlobs: ["tests.py"],
    });
    expect(py.hidden.command).toMatch(/ tests\.py$/);
    expect(py.existing.command).toMatch(/ tests\.py$/);
    // blakeembrey/pluralize c46c6af (mocha 5): its one test file is the root test.js.
    const js = await planSuites({
      framework: "mocha",
      baseFiles: ["pluralize.js", "spec.js"],
      hidden: ["spec.js"],
      testGlobs: ["spec.js"],
    });
    expect(js.hidden.command).toMatch(/ spec\.js$/);
    expect(js.existing.command).toMatch(/ spec\.js$/);
    // Another runner's files, or jest's (which filters what it is given by its testMatch), are not widened.
    await expect(
      planSuites({ framework: "mocha", baseFiles: ["a.js", "b.py"], hidden: ["b.py"], testGlobs: ["b.py"] }),
    ).rejects.toThrow(/runs as a test/);
    await expect(
      planSuites({ framework: "jest", baseFiles: ["a.js", "t.js"], hidden: ["t.js"], testGlobs: ["t.js"] }),
    ).rejects.toThrow(/runs as a test/);
  });
  it("a root tests.py or test.py (unittest's test*.py) and a root test.js (mocha before 8 runs ./test.js) are tests with no flags", async () => {
    expect(isTestPath("tests.py")).toBe(true);
    expect(isTestPath("test.js")).toBe(true);
    expect(isTestPath("lib/tests.py")).toBe(false);
    expect(runsAsTest("unittest", "tests.py")).toBe(true);
    expect(runsAsTest("pytest", "test.py")).toBe(true);
    expect(runsAsTest("mocha", "test.js")).toBe(true);
    expect(runsAsTest("mocha", "tests.js")).toBe(false);
    const plan = await planSuites({
      framework: "mocha",
      baseFiles: ["pluralize.js", "test.js"],
      hidden: ["test.js"],
    });
    expect(plan.hidden.command).toMatch(/ test\.js$/);
  });
  it("jest with no testMatch of the repository's: jest's default testMatch, which takes a bare test.js or spec.js in any folder and not tests.js", async () => {
    // jest-config's default: **/__tests__/**/*.?([mc])[jt]s?(x), **/?(*.)+(spec|test).?([mc])[jt]s?(x).
    for (const p of [
      "test.js",
      "spec.ts",
      "src/test.js",
      "lib/spec.jsx",
      "a.test.js",
      "a/b.spec.mjs",
      "__tests__/x.js",
    ])
      expect(runsAsTest("jest", p), p).toBe(true);
    for (const p of [
      "tests.js",
      "src/tests.js",
      "latest.js",
      "a.tests.js",
      "test.py",
      "node_modules/x/test.js",
    ])
      expect(runsAsTest("jest", p), p).toBe(false);
    // vitest's default include (*.{test,spec}.*) takes no bare test.js.
    expect(runsAsTest("vitest", "test.js")).toBe(false);
    const plan = await planSuites({
      framework: "jest",
      baseFiles: ["index.js", "test.js", "lib/spec.js", "lib/a.test.js", "latest.js"],
      hidden: ["test.js"],
    });
    // jest's path patterns are regular expressions over the absolute path: '/test\.js$' is the root
    // test.js alone, not lib/a.test.js or latest.js.
    expect(plan.hidden.command).toContain(" '/test\\.js$' ");
    expect(plan.existing.command).toContain(" '/lib/spec\\.js$' '/lib/a\\.test\\.js$' ");
    expect(plan.existing.command).not.toContain("latest");
    const pattern = /'(\/test\\\.js\$)'/.exec(plan.hidden.command)![1]!;
    expect(
      ["/work/repo/test.js", "/work/repo/lib/a.test.js", "/work/repo/latest.js"].filter((p) =>
        new RegExp(pattern).test(p),
      ),
    ).toEqual(["/work/repo/test.js"]);
    await expect(
      planSuites({
        framework: "jest",
        baseFiles: ["index.js", "tests.js", "a.test.js"],
        hidden: ["tests.js"],
      }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/runs as a test \(test files it changes: tests\.js\)/),
      hint: expect.stringMatching(/a bare test\.js, not tests\.js/),
    });
    // The split of a fix takes src/test.js as a test when jest is the repository's runner (not vitest's).
    const jestPkg = JSON.stringify({ devDependencies: { jest: "^29.7.0" } });
    const rule = jestSplitRule(null, jestPkg, undefined)!;
    expect(
      splitFix(
        [
          { path: "src/test.js", status: "M" },
          { path: "src/a.js", status: "M" },
        ],
        [],
        rule,
      ),
    ).toMatchObject({
      hidden: ["src/test.js"],
      code: ["src/a.js"],
    });
    expect(
      jestSplitRule(null, JSON.stringify({ devDependencies: { jest: "1", vitest: "1" } }), undefined),
    ).toBeUndefined();
    expect(jestSplitRule(null, jestPkg, "mocha")).toBeUndefined();
    expect(jestSplitRule(null, null, "jest")).toBe(rule);
  });
  it("the Go and vitest refusals (no changed file runs as a test) give hints whose remedy works", async () => {
    const hintOf = async (input: Parameters<typeof planSuites>[0]) => {
      try {
        await planSuites(input);
      } catch (error) {
        expect((error as Error).message).toMatch(/runs as a test/);
        return (error as { hint: string }).hint;
      }
      return expect.unreachable();
    };
    // Go: a fix that changes only the golden files its tests read (testdata/ is never a package's test).
    const goFiles = ["go.mod", "parse.go", "parse_test.go", "lex_test.go", "testdata/a.golden"];
    const goHint = await hintOf({ framework: "go", baseFiles: goFiles, hidden: ["testdata/a.golden"] });
    const goGlobs = [...goHint.matchAll(/--tests '([^']+)'/g)].map((m) => m[1]!);
    expect(goGlobs).toEqual(["testdata/**", "parse_test.go"]);
    const goAdded = namedUnchangedTests(goGlobs, ["testdata/a.golden"], goFiles, ["parse.go"], (p) =>
      runsAsTest("go", p),
    );
    expect(goAdded).toEqual(["parse_test.go"]);
    const go = await planSuites({
      framework: "go",
      baseFiles: goFiles,
      hidden: ["testdata/a.golden", ...goAdded],
      testGlobs: goGlobs,
    });
    expect(go.hidden.command).toMatch(/ -- -count=1 \.$/);
    expect(go.existing.command).toContain("rm -f -- parse_test.go");
    // vitest: a fixture its tests import, named with the hint's globs, makes the task.
    const viFiles = [
      "package.json",
      "src/a.ts",
      "test/fixtures/a.json",
      "test/parse.test.ts",
      "test/b.test.ts",
    ];
    const viHint = await hintOf({
      framework: "vitest",
      baseFiles: viFiles,
      hidden: ["test/fixtures/a.json"],
    });
    const viGlobs = [...viHint.matchAll(/--tests '([^']+)'/g)].map((m) => m[1]!);
    expect(viGlobs).toEqual(["test/fixtures/**", "test/*.test.ts"]);
    const viAdded = namedUnchangedTests(viGlobs, ["test/fixtures/a.json"], viFiles, ["src/a.ts"], (p) =>
      runsAsTest("vitest", p),
    );
    expect(viAdded).toEqual(["test/b.test.ts", "test/parse.test.ts"]);
    await expect(
      planSuites({ framework: "vitest", baseFiles: viFiles, hidden: ["test/fixtures/a.json", ...viAdded] }),
    ).resolves.toBeDefined();
    // A vitest test by another name (include: ['test/**/*.ts'] in its config) cannot be widened by
    // --tests (vitest filters what it is given by its include): the hint says new-task reads the
    // config's include when it is literal (vitest-config.test.ts), not "name them so".
    const other = await hintOf({
      framework: "vitest",
      baseFiles: ["src/a.ts", "test/parse.ts"],
      hidden: ["test/parse.ts"],
    });
    expect(other).toMatch(
      /new-task reads test\.include and test\.exclude from a vitest\.config or vite\.config file when they are literal/,
    );
  });
  it("jshttp/mime-types 7c3c63d: the only test file is the one the fix changes: the existing suite runs its base version", async () => {
    const plan = await planSuites({
      framework: "mocha",
      baseFiles: ["index.js", "mimeScore.js", "test/test.js", "test/.eslintrc.yml"],
      hidden: ["test/test.js"],
    });
    expect(plan.existing.command).toMatch(/ test\/test\.js$/);
    expect(plan.existing.files).toContain("test/test.js");
    expect(plan.hidden.command).toMatch(/ test\/test\.js$/);
    expect(plan.notes.join("\n")).toMatch(/runs the base version of test\/test\.js/);
    // Left out by new-task's next try (broken.ts): the tests the fix rewrote.
    const again = await planSuites({
      framework: "mocha",
      baseFiles: ["index.js", "test/test.js"],
      hidden: ["test/test.js"],
      existingOnly: ["test/test.js"],
      leaveOut: { flags: ["--grep", "'^a$'", "--invert"], files: [] },
    });
    expect(again.existing.command).toMatch(/mocha --grep '\^a\$' --invert --reporter .* test\/test\.js$/);
  });
  it("pytest: leaves out the tests and files broken at the base commit", async () => {
    const plan = await planSuites({
      framework: "pytest",
      baseFiles: [...baseFiles, "tests/test_c.py"],
      hidden: ["tests/test_a.py"],
      leaveOut: { flags: ["--deselect", "tests/test_b.py::T::t"], files: ["tests/test_c.py"] },
    });
    expect(plan.existing.command).toMatch(/ --deselect tests\/test_b\.py::T::t tests\/test_b\.py$/);
    expect(plan.existing.files).not.toContain("tests/test_c.py");
  });
  it("Go: leaves out a folder that is a module of its own (buger/jsonparser's benchmark/)", async () => {
    const plan = await planSuites({
      framework: "go",
      baseFiles: [
        "go.mod",
        "parser.go",
        "parser_test.go",
        "bytes_test.go",
        "benchmark/go.mod",
        "benchmark/benchmark_test.go",
      ],
      hidden: ["parser_test.go"],
    });
    expect(plan.existing.command).toMatch(/ -count=1 \.$/);
    expect(plan.existing.files).not.toContain("benchmark/benchmark_test.go");
  });
  it("Go: keeps a changed _test.go whose helper another test file uses, and selects the other tests by name (gorilla/mux 976b536)", async () => {
    const goTexts = new Map([
      [
        "mux_test.go",
        'package mux\n\nimport "testing"\n\nfunc newRequest(m, u string) *http.Request { return nil }\n\nfunc TestHost(t *testing.T) {}\n',
      ],
      [
        "middleware_test.go",
        'package mux\n\nimport "testing"\n\nfunc TestMiddleware(t *testing.T) { _ = newRequest("GET", "/") }\n',
      ],
      ["example_test.go", "package mux_test\n\nfunc ExampleRouter() {}\n"],
      [
        "sub/sub_test.go",
        'package sub\n\nimport "testing"\n\nfunc TestSub(t *testing.T) {}\n\nfunc TestHost(t *testing.T) {}\n',
      ],
      ["lone/lone_test.go", 'package lone\n\nimport "testing"\n\nfunc TestLone(t *testing.T) {}\n'],
      [
        "lone/gone_test.go",
        'package lone\n\nimport "testing"\n\nfunc gone() {}\n\nfunc TestGone(t *testing.T) {}\n',
      ],
    ]);
    const plan = await planSuites({
      framework: "go",
      baseFiles: ["go.mod", "mux.go", "sub/sub.go", "lone/lone.go", ...goTexts.keys()],
      hidden: ["mux_test.go", "lone/gone_test.go"],
      goTexts,
    });
    // mux_test.go stays (middleware_test.go needs newRequest); lone/gone_test.go's helper is unused:
    // it goes. TestHost of sub/ is left out, since selecting it would run mux_test.go's TestHost.
    expect(plan.existing.command).toBe(
      `rm -f -- lone/gone_test.go && gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1 -run '^(ExampleRouter|TestLone|TestMiddleware|TestSub)$' . ./lone ./sub`,
    );
    expect(plan.existing.files).not.toContain("mux_test.go");
    // Nothing used: as before, removed, no -run.
    const plain = await planSuites({
      framework: "go",
      baseFiles: ["go.mod", "mux.go", "lone/lone.go", "lone/lone_test.go", "lone/gone_test.go"],
      hidden: ["lone/gone_test.go"],
      goTexts,
    });
    expect(plain.existing.command).toMatch(
      /^rm -f -- lone\/gone_test\.go && gotestsum .* -- -count=1 \.\/lone$/,
    );
  });
  it("Go: a -run of more names than one argument holds skips the kept file's tests instead, with a note", async () => {
    // 8000 names make a pattern of 112003 bytes: past the 100 KB bound (Linux's limit is 128 KiB)
    const many = Array.from(
      { length: 8000 },
      (_, i) => `func TestCase${String(i).padStart(5, "0")}(t *testing.T) { helper() }`,
    );
    const goTexts = new Map([
      [
        "mux_test.go",
        'package mux\n\nimport "testing"\n\nfunc helper() {}\n\nfunc TestKept(t *testing.T) {}\n',
      ],
      ["big_test.go", `package mux\n\nimport "testing"\n\n${many.join("\n")}\n`],
    ]);
    const input = {
      framework: "go" as const,
      baseFiles: ["go.mod", "mux.go", ...goTexts.keys()],
      hidden: ["mux_test.go"],
      goTexts,
    };
    const plan = await planSuites(input);
    expect(plan.existing.command).toBe(
      `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1 -skip '^(TestKept)$' .`,
    );
    expect(plan.notes).toEqual([
      expect.stringMatching(
        /skips the 1 tests of mux_test\.go with -skip \(Go 1\.20 or later\) instead of selecting the other 8000 tests with -run: that pattern would be 112003 bytes, over the 100000/,
      ),
    ]);
    // under the bound: the -run selection, no note
    const few = await planSuites({
      ...input,
      goTexts: new Map([...goTexts, ["big_test.go", `package mux\n\n${many.slice(0, 10).join("\n")}\n`]]),
    });
    expect(few.existing.command).toContain(` -run '^(TestCase00000|`);
    expect(few.notes).toEqual([]);
    // neither fits: refused, not written to fail at run time
    await expect(goRunSelection(["big_test.go"], ["mux_test.go"], goTexts, 10)).rejects.toThrow(
      /neither selecting the other files' 8000 tests \(-run, \d+ bytes\) nor skipping their 1 \(-skip, 12 bytes\) fits one argument of at most 10 bytes/,
    );
    expect((await goRunSelection(["big_test.go"], ["mux_test.go"], goTexts, 12)).flag).toBe(
      "-skip '^(TestKept)$'",
    );
  });
  it("keeps to SWE-bench's PASS_TO_PASS files when given", async () => {
    const plan = await planSuites({
      framework: "pytest",
      baseFiles: [...baseFiles, "tests/test_c.py"],
      hidden: ["tests/test_a.py"],
      existingOnly: ["tests/test_c.py"],
    });
    expect(plan.existing.command).toMatch(/ tests\/test_c\.py$/);
  });
  it("denies hidden paths the default policy does not already cover", () => {
    expect(diffPolicy(["tests/test_a.py", "checks/regress.py"]).deny).toEqual(["checks/regress.py"]);
    expect(taskIdFrom("my repo!-abc1234")).toBe("my-repo--abc1234");
    expect(taskIdFrom("../x")).toBe("x");
  });
});

describe("missingDeps", () => {
  it("lists the repository's dependencies the image lacks, runners and @types aside", async () => {
    const repo = JSON.stringify({
      dependencies: { lodash: "4" },
      devDependencies: { mocha: "10", "@types/node": "20" },
    });
    expect(missingDeps(repo, JSON.stringify({ devDependencies: { mocha: "10.8.2" } }))).toEqual(["lodash"]);
    expect(missingDeps(repo, JSON.stringify({ devDependencies: { lodash: "4.17.21" } }))).toEqual([]);
  });
});

describe("readDataset", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "oracle-swebench-unit-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const row = {
    instance_id: "a__b-1",
    repo: "a/b",
    base_commit: "a".repeat(40),
    patch: "diff",
    test_patch: "diff",
    FAIL_TO_PASS: '["t.py::x"]',
    PASS_TO_PASS: [],
  };
  it("reads rows, decoding JSON-encoded id lists", async () => {
    const file = join(dir, "ok.jsonl");
    await writeFile(file, `${JSON.stringify(row)}\n\n`);
    const rows = await readDataset(file);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.row.FAIL_TO_PASS).toEqual(["t.py::x"]);
  });
  it("names every bad row as file:LINE: field", async () => {
    const file = join(dir, "bad.jsonl");
    const { patch: _patch, ...noPatch } = row;
    await writeFile(
      file,
      [JSON.stringify(row), "{not json", JSON.stringify(noPatch), JSON.stringify(row)].join("\n"),
    );
    const error = await readDataset(file).catch((e: Error) => e);
    expect(String(error)).toContain(`${file}:2: not a JSON object`);
    expect(String(error)).toContain(`${file}:3: patch:`);
    expect(String(error)).toContain(`${file}:4: instance_id: 'a__b-1' is also on line 1`);
  });
});

describe("failedBuildLogs", () => {
  it("names the logs build-images wrote for the images that failed, and none when it could not run", () => {
    const summary = JSON.stringify({
      images: [
        { name: "a", status: "failed", logFile: "/r/logs/build/a-1.log" },
        { name: "b", status: "built", logFile: "/r/logs/build/b-1.log" },
        { name: "c", status: "failed" },
      ],
    });
    expect(failedBuildLogs(summary)).toEqual(["/r/logs/build/a-1.log"]);
    expect(failedBuildLogs("")).toEqual([]);
  });
});

describe("deniedGoldWarning", () => {
  it("says what the grader does with a denied path in gold.diff: drops that file's change and grades the rest", () => {
    // wcwidth 4c91403's fix bumps pyproject.toml's version beside the code.
    expect(deniedGoldPaths(["wcwidth/wcwidth.py", "pyproject.toml"], [])).toEqual(["pyproject.toml"]);
    const warning = deniedGoldWarning("gold.diff", "pyproject.toml");
    expect(warning).toMatch(
      /^gold\.diff changes pyproject\.toml, .*drops that file's change from every diff it grades, gold's included, and grades the rest/,
    );
    expect(warning).not.toMatch(/rejected/);
  });
});

describe("buildFailedHint", () => {
  it("a Node image's folder: lock again after editing its package.json (dayjs 99691c5: npm ci refused the edit)", async () => {
    const root = await mkdtemp(join(tmpdir(), "nt-hint-"));
    await mkdir(join(root, "images", "dayjs-99691c5"), { recursive: true });
    await writeFile(join(root, "images", "dayjs-99691c5", "package-lock.json"), "{}");
    await mkdir(join(root, "images", "py"), { recursive: true });
    expect(buildFailedHint(root, ["dayjs-99691c5"], ["logs/build/x.log"])).toBe(
      "read the build log (logs/build/x.log), fix the image folder (after editing images/dayjs-99691c5/package.json, run npm install --package-lock-only --ignore-scripts in that folder: the image installs its package-lock.json with npm ci, which refuses a package.json it does not match) and run new-task again",
    );
    expect(buildFailedHint(root, ["py"], ["logs/build/y.log"])).toBe(
      "read the build log (logs/build/y.log), fix the image folder and run new-task again",
    );
    await rm(root, { recursive: true, force: true });
  });
});
