/**
 * The default deny list (picomatch globs, dotfiles included) the grader applies on top of a task's
 * own `diff.deny` unless the task sets `diff.denyDefaults: false`. It holds what lets a diff change
 * how tests are found, loaded, run or reported rather than the code under test: test runner hooks
 * and configuration, interpreter start-up hooks, packaging metadata that registers plugins, lockfiles
 * and dependency folders (the image installs those), git metadata files, and the usual test trees.
 * The grader matches them regardless of letter case (importlib.metadata and pkg_resources find
 * `X.DIST-INFO/`, `X.EGG-INFO/` and `X.egg/` as they find the lower-case names).
 * docs/security.md explains each group.
 */
export const DEFAULT_DENY: readonly string[] = [
  // Python: files the interpreter or pytest load on their own.
  "**/conftest.py",
  "**/sitecustomize.py",
  "**/usercustomize.py",
  "**/*.pth",
  "**/pytest.ini",
  "**/.pytest.ini",
  "**/tox.ini",
  "**/setup.cfg",
  "**/pyproject.toml",
  // coverage's own configuration: its `[run] plugins` are modules coverage imports when pytest-cov
  // starts it, before any test (new-task's images add pytest-cov where a repository's addopts use it).
  "**/.coveragerc",
  "**/*.dist-info",
  "**/*.dist-info/**",
  "**/*.egg-info",
  "**/*.egg-info/**",
  "**/*.egg-link",
  "**/*.egg",
  "**/*.egg/**",
  "**/__pycache__/**",
  "**/*.py[cod]",
  "**/requirements*.txt",
  "**/Pipfile",
  "**/Pipfile.lock",
  "**/poetry.lock",
  "**/uv.lock",
  // Node: package scripts and runner configuration, lockfiles, installed modules.
  "**/package.json",
  // pnpm reads these where a folder has no package.json; yarn 2+ runs the yarn a repository commits.
  "**/package.yaml",
  "**/package.json5",
  "**/.yarn/releases/**",
  "**/.yarn/plugins/**",
  "**/.pnp.*",
  "**/package-lock.json",
  "**/npm-shrinkwrap.json",
  "**/yarn.lock",
  "**/pnpm-lock.yaml",
  "**/pnpm-workspace.yaml",
  "**/.npmrc",
  "**/.yarnrc*",
  "**/.pnpmfile.cjs",
  "**/node_modules/**",
  "**/.mocharc*",
  "**/jest.config.*",
  "**/jest.setup.*",
  "**/vitest.config.*",
  "**/vitest.setup.*",
  "**/vitest.workspace.*",
  "**/vite.config.*",
  "**/babel.config.*",
  "**/.babelrc*",
  // Go and others: module files, vendored code.
  "**/go.mod",
  "**/go.sum",
  "**/go.work",
  "**/go.work.sum",
  "**/vendor/**",
  // git: attributes change how a checkout is normalised, modules what it contains.
  "**/.gitattributes",
  "**/.gitmodules",
  // The usual test trees and test file names (the existing suite is reset anyway).
  "**/test/**",
  "**/tests/**",
  "**/__tests__/**",
  "**/testdata/**",
  "**/test_*.py",
  "**/*_test.py",
  "**/*_test.go",
  "**/*.test.*",
  "**/*.spec.*",
];
