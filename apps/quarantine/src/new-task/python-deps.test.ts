import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chooseImage } from "./image.js";
import {
  addoptsOf,
  ownModules,
  ownModulesCheck,
  pythonNeeds,
  repoPythonNeeds,
  shadowedOwnModules,
} from "./python-deps.js";

// python-semver's .pytest.ini at bc41390f^ (its addopts stopped pytest 7 with a usage error: exit 4).
const SEMVER_INI = `[pytest]
norecursedirs = .git build .env/ env/ .pyenv/ .tmp/ .eggs/ venv/
testpaths = tests docs
pythonpath = src tests
filterwarnings =
    ignore:Function 'semver.*:DeprecationWarning
addopts =
    --import-mode=importlib
    --no-cov-on-fail
    --cov=semver
    --cov-report=term-missing
    --doctest-modules
`;

describe("addoptsOf", () => {
  it("reads an ini section's addopts with its continuation lines, up to the next key", () => {
    expect(addoptsOf(SEMVER_INI)).toMatch(/--import-mode=importlib[\s\S]*--doctest-modules/);
    expect(addoptsOf("[pytest]\naddopts = -ra --cov=x\ntestpaths = tests\n")).toBe(" -ra --cov=x");
  });

  it("reads a TOML table's addopts up to the next table, and says null when there is none", () => {
    const toml =
      '[tool.pytest.ini_options]\naddopts = "--cov=pkg -q"\n\n[tool.coverage.run]\nbranch = true\n';
    expect(addoptsOf(toml)).toBe(' "--cov=pkg -q"\n');
    expect(addoptsOf("[tool:pytest]\ntestpaths = tests\n")).toBeNull();
  });
});

describe("pythonNeeds", () => {
  it("adds pytest-cov and coverage when addopts names --cov or --no-cov", () => {
    expect(pythonNeeds([{ path: ".pytest.ini", text: SEMVER_INI }], [])).toEqual([
      { pin: "pytest-cov==4.0.0", why: ".pytest.ini: addopts names pytest-cov's --cov" },
      { pin: "coverage==6.5.0", why: ".pytest.ini: addopts names pytest-cov's --cov" },
    ]);
    // A --cov outside addopts (a comment, another tool's key) is not a need.
    expect(pythonNeeds([{ path: "setup.cfg", text: "[coverage:run]\nsource = --cov\n" }], [])).toEqual([]);
    expect(pythonNeeds([{ path: "tox.ini", text: "[pytest]\naddopts = --covering\n" }], [])).toEqual([]);
  });

  it("adds the package of a module the tests import, once, with the first file that imports it", () => {
    const tests = [
      {
        path: "tests/test_apis.py",
        text: "import unittest\n\n\nclass T(unittest.TestCase):\n    def test(self):\n        import yaml\n",
      },
      { path: "tests/test_b.py", text: "from yaml import safe_load\n" },
    ];
    expect(pythonNeeds([], tests)).toEqual([{ pin: "PyYAML==6.0", why: "tests/test_apis.py imports yaml" }]);
    expect(pythonNeeds([], [{ path: "t.py", text: "import yamlish\n# import yaml\n" }])).toEqual([]);
    // nose's yield tests (jmespath.py): bookworm's python3-nose 1.3.7.
    expect(pythonNeeds([], [{ path: "t.py", text: "from nose.tools import assert_equal\n" }])).toEqual([
      { pin: "nose==1.3.7", why: "t.py imports nose" },
    ]);
  });

  it("reads every module of an import list, with dotted names and aliases", () => {
    for (const text of [
      "import os, yaml\n",
      "import json as j, yaml.loader as l  # config\n",
      "import sys,yaml;import os\n",
    ])
      expect(pythonNeeds([], [{ path: "t.py", text }]), text).toEqual([
        { pin: "PyYAML==6.0", why: "t.py imports yaml" },
      ]);
    expect(pythonNeeds([], [{ path: "t.py", text: "import os  # , yaml\n" }])).toEqual([]);
    // tomli's tests/burntsushi.py: dateutil is Debian's python3-dateutil.
    expect(
      pythonNeeds([], [{ path: "tests/burntsushi.py", text: "import dateutil.parser\nimport pytz, six\n" }]),
    ).toEqual([
      { pin: "python-dateutil==2.8.2", why: "tests/burntsushi.py imports dateutil" },
      { pin: "pytz==2022.7.1", why: "tests/burntsushi.py imports pytz" },
      { pin: "six==1.16.0", why: "tests/burntsushi.py imports six" },
    ]);
  });
});

describe("the repository's own modules are never pinned", () => {
  it("six's six.py, a package at the top or under src/: no Debian copy stands in for them (a new user's round, s25: deleting six.py PASSed on Debian's six)", () => {
    const own = ownModules(["six.py", "test_six.py", "src/yaml/__init__.py", "docs/conf.py", "README.md"]);
    expect([...own].sort()).toEqual(["docs", "six", "test_six", "yaml"]);
    expect(
      pythonNeeds([], [{ path: "test_six.py", text: "import six\nimport yaml\nimport pytz\n" }], own),
    ).toEqual([{ pin: "pytz==2022.7.1", why: "test_six.py imports pytz" }]);
  });
});

describe("repoPythonNeeds: the base commit's files, read in one git call", () => {
  it("reads the configurations and test files the base has, and the hidden ones", async () => {
    const repo = await mkdtemp(join(tmpdir(), "oracle-pydeps-"));
    try {
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
          cwd: repo,
          encoding: "utf8",
        }).trim();
      git("init", "-q");
      await mkdir(join(repo, "tests"));
      await writeFile(join(repo, "pytest.ini"), "[pytest]\naddopts = --cov=pkg\n");
      await writeFile(join(repo, "tests", "test_a.py"), "import os, yaml\n");
      await writeFile(join(repo, "tests", "conftest.py"), "import pytest\n");
      git("add", "-A");
      git("commit", "-qm", "base");
      const base = git("rev-parse", "HEAD");
      const needs = await repoPythonNeeds(
        repo,
        base,
        ["pytest.ini", "tests/test_a.py", "tests/conftest.py", "tests/test_gone.py"],
        [],
      );
      expect(needs.map((n) => n.why)).toEqual([
        "pytest.ini: addopts names pytest-cov's --cov",
        "pytest.ini: addopts names pytest-cov's --cov",
        "tests/test_a.py imports yaml",
      ]);
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });
});

describe("chooseImage: a Python repository's needs", () => {
  it("makes the task's own image from python-pytest with the needs pinned; none: the template", async () => {
    const root = await mkdtemp(join(tmpdir(), "oracle-python-image-"));
    try {
      const needs = pythonNeeds([{ path: ".pytest.ini", text: SEMVER_INI }], []);
      const choice = await chooseImage({
        root,
        framework: "pytest",
        taskId: "Semver-1",
        repoPackageJson: null,
        pythonNeeds: needs,
      });
      expect(choice).toMatchObject({ name: "semver-1", made: "images/semver-1/" });
      expect(choice.notes.join("\n")).toMatch(
        /lacks what the repository's tests need \(pytest-cov==4\.0\.0: \.pytest\.ini/,
      );
      const requirements = await readFile(join(root, "images", "semver-1", "requirements.txt"), "utf8");
      const template = await readFile(join(root, "images", "python-pytest", "requirements.txt"), "utf8");
      expect(requirements.startsWith(template)).toBe(true);
      expect(requirements.slice(template.length)).toBe(
        "# Added by new-task for semver-1: what the repository's tests need (from Debian bookworm).\n" +
          "pytest-cov==4.0.0  # .pytest.ini: addopts names pytest-cov's --cov\n" +
          "coverage==6.5.0  # .pytest.ini: addopts names pytest-cov's --cov\n",
      );
      const plain = await chooseImage({
        root,
        framework: "pytest",
        taskId: "other",
        repoPackageJson: null,
        pythonNeeds: [],
      });
      expect(plain.name).toBe("python-pytest");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("a module of the repository's own that the image has too", () => {
  it("is checked before the tests: found in the checkout it runs them, deleted it stops the suite (no run on the image's copy)", async () => {
    const own = ownModules([
      "src/packaging/__init__.py",
      "src/packaging/version.py",
      "tests/test_version.py",
    ]);
    const tests = [{ text: "import pytest\nfrom packaging.version import Version\nimport tests.helpers\n" }];
    // pytest is the image's, not the repository's: only packaging is checked.
    expect(shadowedOwnModules(tests, own)).toEqual(["packaging"]);
    expect(shadowedOwnModules(tests, ownModules(["six.py"]))).toEqual([]);
    // The host's Python has packaging in its site-packages, as the image has Debian's.
    const checkout = await mkdtemp(join(tmpdir(), "nt-shadow-"));
    await mkdir(join(checkout, "src", "packaging"), { recursive: true });
    await writeFile(join(checkout, "src", "packaging", "__init__.py"), "");
    const run = (env: Record<string, string>) =>
      spawnSync("sh", ["-c", `${ownModulesCheck(["packaging"])}echo tests ran`], {
        cwd: checkout,
        env: { ...process.env, ...env },
        encoding: "utf8",
      });
    const found = run({ PYTHONPATH: "src" });
    expect([found.status, found.stdout]).toEqual([0, "tests ran\n"]);
    await rm(join(checkout, "src", "packaging"), { recursive: true });
    const deleted = run({ PYTHONPATH: "src" });
    expect(deleted.status).toBe(1);
    expect(deleted.stdout).toBe("");
    expect(deleted.stderr).toContain("the tests would import packaging from outside the checkout");
    await rm(checkout, { recursive: true, force: true });
  });
});
