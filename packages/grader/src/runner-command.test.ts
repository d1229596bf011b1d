import { describe, expect, it } from "vitest";
import { findRunner, shellWords } from "./runner-command.js";

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
