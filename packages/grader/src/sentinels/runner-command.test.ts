import { describe, expect, it } from "vitest";
import {
  findRunner,
  insertAfterWord,
  type PackageScripts,
  packageJsonPaths,
  replaceFlagValue,
  scriptCall,
  shellSegments,
  shellWords,
} from "./runner-command.js";

describe("shellWords", () => {
  it("splits simple commands and unquotes words", () => {
    expect(
      shellWords(
        `ln -sfn /opt/x node_modules && mocha --reporter-option mochaFile="$ORACLE_JUNIT" 'a b'; x|y`,
      ),
    ).toEqual([
      ["ln", "-sfn", "/opt/x", "node_modules"],
      ["mocha", "--reporter-option", "mochaFile=$ORACLE_JUNIT", "a b"],
      ["x"],
      ["y"],
    ]);
  });
});

describe("replaceFlagValue", () => {
  const RUN = ["-run", "--run", "-test.run", "--test.run"];
  it("replaces the one flag's value, quoted or bare, joined or not, and leaves the rest of the text alone", () => {
    expect(replaceFlagValue(`a "$X" && go test -run 'A|B' .`, RUN, "A|B|C")).toBe(
      `a "$X" && go test -run 'A|B|C' .`,
    );
    expect(replaceFlagValue(`go test -run "^A$" ./x`, RUN, "^A$|^B$")).toBe(`go test -run '^A$|^B$' ./x`);
    expect(replaceFlagValue(`go test -run=A ./x`, RUN, "it's")).toBe(`go test '-run=it'\\''s' ./x`);
    expect(replaceFlagValue(`go test . -args -test.run='^A$'`, RUN, "^B$")).toBe(
      `go test . -args '-test.run=^B$'`,
    );
    expect(replaceFlagValue(`mocha -g a'b'c t`, ["-g", "--grep"], "x")).toBe(`mocha -g 'x' t`);
  });

  it("refuses no flag, two flags (the last wins), and a flag without a value", () => {
    expect(replaceFlagValue("go test ./...", RUN, "A")).toBeNull();
    expect(replaceFlagValue("go test -run A -run B .", RUN, "C")).toBeNull();
    expect(replaceFlagValue("go test -run", RUN, "C")).toBeNull();
    // A word that only starts like the flag is not it.
    expect(replaceFlagValue("go test -runx A", RUN, "C")).toBeNull();
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${…}, on purpose
  it("refuses a value the shell would expand ($VAR, ${…}, $(…), backquotes): a rewrite would freeze it (review: a wrong PASS)", () => {
    for (const command of [
      `T=A; go test -run "^($T)$" .`,
      `go test -run "^(\${T})$" .`,
      `go test -run "$(cat tests.txt)" .`,
      "go test -run `cat tests.txt` .",
      `go test -run=^$T$ .`,
    ])
      expect(replaceFlagValue(command, RUN, "X"), command).toBeNull();
    // A `$` before a quote, `|` or `)` is a plain `$`; anything inside single quotes is plain.
    expect(replaceFlagValue(`go test -run "^(A|B)$" .`, RUN, "Y")).toBe(`go test -run 'Y' .`);
    expect(replaceFlagValue(`go test -run '^($T)$' .`, RUN, "Y")).toBe(`go test -run 'Y' .`);
    expect(insertAfterWord(`pytest "$D/t.py::test_a"`, "$D/t.py::test_a", ["x"])).toBeNull();
    expect(insertAfterWord(`pytest "t.py::test_a[it's]"`, "t.py::test_a[it's]", ["x"])).toBe(
      `pytest "t.py::test_a[it's]" 'x'`,
    );
  });

  it('reads a backslash inside double quotes as sh does: it escapes only $ ` " \\ and a newline', () => {
    expect(shellWords(`jest -t "^a \\(b\\)$" "\\$x" "\\q"`)).toEqual([
      ["jest", "-t", "^a \\(b\\)$", "$x", "\\q"],
    ]);
  });

  it("each word's span covers its quotes, also across operators", () => {
    const command = `cd 'a b' && x "y z"|w`;
    const spans = shellSegments(command).flatMap((s) => s.spans.map(([a, b]) => command.slice(a, b)));
    expect(spans).toEqual(["cd", "'a b'", "x", '"y z"', "w"]);
  });

  it("marks each word the shell expands something in, read with sh's quoting", () => {
    const command = [
      "a$X",
      "'$X'",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${…}, on purpose
      '"${Y}"',
      '"\\$Z"',
      "\\$Z",
      "`w`",
      '"\\`w\\`"',
      '"$(w)"',
      '"a$"',
      "$'x'",
      '"$1"',
      "plain",
    ].join(" ");
    const marks = shellSegments(command).flatMap((s) => s.words.map((w, i) => [w, s.expands[i]]));
    expect(marks).toEqual([
      ["a$X", true],
      ["$X", false],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${…}, on purpose
      ["${Y}", true],
      ["$Z", false],
      ["$Z", false],
      ["`w`", true],
      ["`w`", false],
      ["$(w)", true],
      ["a$", false],
      ["$x", false],
      ["$1", true],
      ["plain", false],
    ]);
  });
});

describe("findRunner", () => {
  const framework = (command: string) => findRunner(command)?.framework ?? null;

  it("pytest however it is started", () => {
    for (const command of [
      "pytest tests/test_x.py",
      "python3 -m pytest -q tests",
      "python -m pytest tests/test_x.py::TestY",
      "python3.11 -B -m pytest",
      "pytest-3 -k add",
      "py.test tests",
      "/usr/bin/pytest",
      "PYTHONPATH=src timeout 60 python3 -m pytest",
      "env FOO=1 pytest",
    ])
      expect(framework(command), command).toBe("pytest");
    expect(findRunner("python3 -m pytest -q tests/test_x.py")?.args).toEqual(["-q", "tests/test_x.py"]);
  });

  it("mocha, jest and vitest however they are started, behind ln … && and cd", () => {
    for (const command of [
      "mocha test/a.js",
      "npx mocha test/a.js",
      "npx --no-install mocha",
      "node_modules/.bin/mocha 'test/*.test.js'",
      "ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/mocha --reporter xunit",
      "node node_modules/mocha/bin/mocha.js test",
      "node --experimental-vm-modules node_modules/.bin/_mocha",
    ])
      expect(framework(command), command).toBe("mocha");
    expect(framework("npx jest --ci")).toBe("jest");
    expect(framework("pnpm exec jest")).toBe("jest");
    expect(framework("node node_modules/jest/bin/jest.js")).toBe("jest");
    expect(framework("npx vitest run")).toBe("vitest");
    expect(framework("yarn jest --ci")).toBe("jest");
    expect(framework("yarn vitest run")).toBe("vitest");
    expect(framework("pnpm vitest run src")).toBe("vitest");
    expect(framework("pnpm exec vitest run")).toBe("vitest");
    expect(framework("npm exec jest")).toBe("jest");
    expect(framework("node_modules/.bin/vitest run")).toBe("vitest");
    expect(framework("node node_modules/vitest/vitest.mjs run")).toBe("vitest");
    expect(findRunner("npx vitest run -t 'adds'")?.args).toEqual(["run", "-t", "adds"]);
    expect(findRunner("yarn jest -t '^parser'")?.args).toEqual(["-t", "^parser"]);
    expect(findRunner("cd pkg && ../node_modules/.bin/mocha test")).toMatchObject({
      framework: "mocha",
      args: ["test"],
      cwd: "pkg",
    });
  });

  it("not pytest: unittest and xmlrunner, a plain python script; gotestsum is go", () => {
    expect(framework("python3 -m xmlrunner --output-file $ORACLE_JUNIT tests.test_mod")).toBeNull();
    expect(framework("python3 -m unittest discover")).toBeNull();
    expect(framework("python3 run_tests.py")).toBeNull();
    expect(framework("gotestsum --junitfile x -- ./...")).toBe("go");
    expect(framework("node test/run.js")).toBeNull();
  });
});

describe("package scripts (npm test, yarn <script>)", () => {
  const scripts: PackageScripts = new Map<string, Record<string, string>>([
    [
      "",
      {
        test: "mocha 'test/*.test.js'",
        unit: "npm run test --",
        lint: "eslint .",
        both: "mocha test && eslint .",
      },
    ],
    ["web", { test: "cross-env CI=1 jest --ci --watchman=false" }],
  ]);

  it("reads what the package manager passes on to the script", () => {
    expect(scriptCall(["npm", "test"])).toEqual({ name: "test", args: [] });
    expect(scriptCall(["npm", "t", "--", "--grep", "x", "a.js"])).toEqual({
      name: "test",
      args: ["--grep", "x", "a.js"],
    });
    expect(scriptCall(["npm", "-s", "run", "unit", "a.js", "--", "-t", "x"])).toEqual({
      name: "unit",
      args: ["a.js", "-t", "x"],
    });
    expect(scriptCall(["CI=1", "npm", "run-script", "unit"])).toEqual({ name: "unit", args: [] });
    expect(scriptCall(["yarn", "test", "-t", "x"])).toEqual({ name: "test", args: ["-t", "x"] });
    expect(scriptCall(["yarn", "run", "test", "--", "a.js"])).toBeNull();
    expect(scriptCall(["pnpm", "test", "--grep", "x"])).toEqual({ name: "test", args: ["--grep", "x"] });
    // npm reads its own options before `--`: one the oracle does not know, and nothing is read.
    expect(scriptCall(["npm", "test", "--grep", "x"])).toBeNull();
    expect(scriptCall(["npm", "--prefix", "web", "test"])).toBeNull();
    expect(scriptCall(["npm", "install"])).toBeNull();
    expect(scriptCall(["pnpm", "exec", "jest"])).toBeNull();
    expect(scriptCall(["mocha", "test"])).toBeNull();
  });

  it("finds the runner behind the script, with the script's arguments then the passed ones", () => {
    expect(findRunner("npm test -- test/regression/a.test.js --grep 'left'", scripts)).toEqual({
      framework: "mocha",
      args: ["test/*.test.js", "test/regression/a.test.js", "--grep", "left"],
      cwd: "",
    });
    // A script that runs another, and yarn's arguments without `--`.
    expect(findRunner("npm run unit -- --grep x", scripts)?.args).toEqual(["test/*.test.js", "--grep", "x"]);
    expect(
      findRunner("ln -sfn /opt/deps/node_modules node_modules && yarn test a.js", scripts)?.args,
    ).toEqual(["test/*.test.js", "a.js"]);
    // The package a command belongs to is the nearest one upwards; its script runs in its folder.
    expect(findRunner("cd web/src && npm test -- -t slug", scripts)).toEqual({
      framework: "jest",
      args: ["--ci", "--watchman=false", "-t", "slug"],
      cwd: "web",
    });
  });

  it("reads nothing it cannot be sure of", () => {
    // Without the base commit's package.json (a mirror in the image), as before.
    expect(findRunner("npm test -- a.js")).toBeNull();
    // npm appends the arguments to the script's text: they would reach eslint, not mocha.
    expect(findRunner("npm run both -- --grep x", scripts)).toBeNull();
    expect(findRunner("npm run lint", scripts)).toBeNull();
    expect(findRunner("npm run missing", scripts)).toBeNull();
    expect(findRunner("cd .. && npm test", scripts)).toBeNull();
    expect(findRunner("cd /srv && npm test", scripts)).toBeNull();
    // A script that calls itself stops at the depth limit.
    expect(findRunner("npm run loop", new Map([["", { loop: "npm run loop" }]]))).toBeNull();
  });

  it("reads a script only where the runner is its last command, after plain `&&` steps (red team, npm scripts)", () => {
    const read = (script: string, command = "npm test -- test/h.test.js") =>
      findRunner(command, new Map([["", { test: script, unit: "mocha test/unit", lint: "eslint ." }]]));
    expect(read("npm run build-x && mocha test")?.args).toEqual(["test", "test/h.test.js"]);
    expect(read("npm run lint && mocha test")?.args).toEqual(["test", "test/h.test.js"]);
    // The exit code the oracle holds the report to is not the runner's: a correct fix would FAIL.
    for (const script of [
      "mocha test | tee out.log",
      "mocha test || true",
      "mocha test; echo done",
      "mocha test &",
    ])
      expect(read(script), script).toBeNull();
    // Two runners, or the runner before another command: the passed arguments reach the last one.
    expect(read("mocha test/unit && mocha test/integration")).toBeNull();
    expect(read("mocha test/a && npm run lint")).toBeNull();
    expect(read("npm run unit && eslint .")).toBeNull();
    // A folder changed inside the script: its package.json was never read.
    expect(read("cd core && npm run unit")).toBeNull();
    // A redirection; a comment, which swallows the appended arguments as sh does.
    expect(read("mocha test > out.txt")).toBeNull();
    expect(read("mocha test # the unit tests")).toEqual({ framework: "mocha", args: ["test"], cwd: "" });
    // A nested `npm run` given `-t` without `--`: npm takes it for its own option.
    expect(read("npm run unit", "npm test -- --grep x")).toBeNull();
    expect(read("npm run unit --", "npm test -- --grep x")?.args).toEqual(["test/unit", "--grep", "x"]);
  });

  it("stops at the nearest package.json even when the oracle cannot read it, and at yarn's and pnpm's `--`", () => {
    const unreadable: PackageScripts = new Map([
      ["", { test: "mocha test" }],
      ["sub", null],
    ]);
    expect(findRunner("cd sub && npm test", unreadable)).toBeNull();
    expect(findRunner("cd other && npm test", unreadable)?.framework).toBe("mocha");
    // pnpm 10 passes the `--` on ("vitest run -- -t x" ignores the filter); yarn 1 drops it.
    expect(findRunner("pnpm test -- -t x", scripts)).toBeNull();
    expect(findRunner("pnpm test -t x", scripts)?.args).toEqual(["test/*.test.js", "-t", "x"]);
  });

  it("names the package.json files a command's scripts are read from", () => {
    expect(packageJsonPaths("npm test")).toEqual(["package.json"]);
    expect(packageJsonPaths("cd web/src && yarn test")).toEqual([
      "web/src/package.json",
      "web/package.json",
      "package.json",
    ]);
    expect(packageJsonPaths("mocha test")).toEqual([]);
    expect(packageJsonPaths("cd .. && npm test")).toEqual([]);
  });
});
