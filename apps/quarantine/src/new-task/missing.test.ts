import { describe, expect, it } from "vitest";
import { missingLine, missingModules, ownPythonModules } from "./missing.js";

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
    expect(missingModules("pytest", output)).toEqual([
      { module: "nose", file: "extra/test_hypothesis.py" },
      { module: "nose.tools", file: "tests/test_compliance.py" },
    ]);
  });
  it("pytest in colour (python-humanize): the file is the frame before the error, and the repository's own module is told apart", () => {
    const output =
      "\x1b[1m\x1b[31mtests/test_lists.py\x1b[0m:5: in <module>\n    import humanize\n\x1b[1m\x1b[31msrc/humanize/__init__.py\x1b[0m:26: in <module>\n    from ._version import __version__\n\x1b[1m\x1b[31mE   ModuleNotFoundError: No module named 'humanize._version'\x1b[0m\n\x1b[1m\x1b[31mtests/test_i18n.py\x1b[0m:9: in <module>\n    from freezegun import freeze_time\n\x1b[1m\x1b[31mE   ModuleNotFoundError: No module named 'freezegun'\x1b[0m\n";
    const found = missingModules("pytest", output);
    expect(found).toEqual([
      { module: "humanize._version", file: "src/humanize/__init__.py" },
      { module: "freezegun", file: "tests/test_i18n.py" },
    ]);
    const own = ownPythonModules(["src/humanize/__init__.py", "tests/test_lists.py"]);
    expect(missingLine("pytest", found[0]!, "python-pytest", "pnpm new-task", own)).toMatch(
      /imports humanize\._version, the repository's own module, which is not in git/,
    );
    expect(missingLine("pytest", found[1]!, "python-pytest", "pnpm new-task", own)).toMatch(
      /apt-cache search python3-freezegun/,
    );
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

describe("a pytest fixture no plugin in the image defines (pytest-benchmark's benchmark)", () => {
  // python-humanize 823ad60's existing suite, in colour, as the validation's log has it.
  const output =
    "\x1b[31mF\x1b[0m\n==================================== ERRORS ====================================\n\x1b[31m\x1b[1m_______________________ ERROR at setup of test_apnumber ________________________\x1b[0m\nfile /work/repo/tests/test_benchmarks.py, line 24\n  def test_apnumber(benchmark: BenchmarkFixture) -> None:\n\x1b[31mE       fixture 'benchmark' not found\x1b[0m\n\x1b[31m>       available fixtures: capfd, capfdbinary, caplog\x1b[0m\n";
  it("is named with the file that asks for it and the plugin, with its Debian pin, that brings it", () => {
    const found = missingModules("pytest", output);
    expect(found).toEqual([{ module: "benchmark", file: "tests/test_benchmarks.py", fixture: true }]);
    const again = "pnpm new-task --repo r --fix c";
    expect(missingLine("pytest", found[0]!, "python-pytest", again)).toBe(
      `tests/test_benchmarks.py asks for the pytest fixture 'benchmark' ("fixture 'benchmark' not found"), which the pytest plugin pytest-benchmark defines and images/python-pytest lacks: cp -r images/python-pytest images/NAME, then add pytest-benchmark==3.2.2 (Debian bookworm's python3-pytest-benchmark) to images/NAME/requirements.txt and run ${again} --image NAME --force`,
    );
    // A task's own image is changed in place; a fixture new-task does not know is named all the same.
    const unknown = missingLine("pytest", { module: "snapshot", file: null, fixture: true }, "t-1", again);
    expect(unknown).toMatch(
      /^a test asks for the pytest fixture 'snapshot' .*images\/t-1\/requirements\.txt and run .* --image t-1 --force$/,
    );
  });
});
