import { describe, expect, it } from "vitest";
import { missingLine, missingModules } from "./missing.js";

describe("missingModules: the modules a suite's output says it could not import", () => {
  it("pytest: the module and the file whose import failed (jmespath.py's nose)", () => {
    const output = [
      "__________________ ERROR collecting extra/test_hypothesis.py ___________________",
      "ImportError while importing test module '/work/repo/extra/test_hypothesis.py'.",
      "Traceback:",
      "/usr/lib/python3.11/importlib/__init__.py:126: in import_module",
      "    return _bootstrap._gcd_import(name[level:], package, level)",
      "extra/test_hypothesis.py:9: in <module>",
      "    from nose.plugins.skip import SkipTest",
      "E   ModuleNotFoundError: No module named 'nose'",
      "tests/test_compliance.py:6: in <module>",
      "E   ModuleNotFoundError: No module named 'nose.tools'",
    ].join("\n");
    expect(missingModules("pytest", output)).toEqual([{ module: "nose", file: "extra/test_hypothesis.py" }]);
  });
  it("jest, mocha and vitest: bare packages only, with the importing file", () => {
    expect(
      missingModules(
        "jest",
        "Cannot find module 'left-pad' from 'tests/a.test.js'\nCannot find module './util' from 'tests/a.test.js'",
      ),
    ).toEqual([{ module: "left-pad", file: "tests/a.test.js" }]);
    expect(
      missingModules(
        "mocha",
        "Error: Cannot find module '@scope/x/sub'\nRequire stack:\n- /work/repo/test/b.js\n- /opt/deps/node_modules/mocha/lib/x.js",
      ),
    ).toEqual([{ module: "@scope/x", file: "test/b.js" }]);
    expect(
      missingModules(
        "vitest",
        'Failed to resolve import "supertest" from "test/app.test.ts". Does the file exist?',
      ),
    ).toEqual([{ module: "supertest", file: "test/app.test.ts" }]);
  });
  it("Go: the package no module provides", () => {
    expect(
      missingModules(
        "go",
        "x_test.go:5:2: no required module provides package github.com/stretchr/testify/assert; to add it:",
      ),
    ).toEqual([{ module: "github.com/stretchr/testify/assert", file: null }]);
  });
});

describe("missingLine: what brings it into the image", () => {
  const again = "pnpm new-task --repo ../r --fix abc123";
  it("a template image is changed in a copy, a task's own image in place", () => {
    expect(
      missingLine("pytest", { module: "parameterized", file: "tests/t.py" }, "python-pytest", again),
    ).toBe(
      "tests/t.py imports parameterized, which images/python-pytest lacks: PyPI is out of reach, so only a Debian bookworm package can bring it (apt-cache search python3-parameterized): cp -r images/python-pytest images/NAME, then add its distribution==version to images/NAME/requirements.txt and run pnpm new-task --repo ../r --fix abc123 --image NAME --force",
    );
    expect(missingLine("mocha", { module: "left-pad", file: null }, "r-abc123", again)).toMatch(
      /^the tests import left-pad, which images\/r-abc123 lacks .*: add it to images\/r-abc123\/package\.json's dependencies, refresh the lockfile \(cd images\/r-abc123 && npm install --package-lock-only --ignore-scripts\) and run pnpm new-task --repo \.\.\/r --fix abc123 --image r-abc123 --force$/,
    );
  });
});
