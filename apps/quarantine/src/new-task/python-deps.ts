import { showFiles } from "./git.js";
import { isTestPath } from "./split.js";
import { runsAsTest } from "./templates.js";

/**
 * What a Python repository's tests need beyond python-pytest's image (Python 3.11, pytest 7 and its
 * own dependencies, all from Debian bookworm): read from its pytest configuration and its test files'
 * imports. PyPI is not reachable, so only Debian's python3-* packages can be added; each row names a
 * distribution at the version bookworm ships (the image build checks every pin and fails otherwise).
 */

/** A pin to add to a task's image (`name==version`, as images/python-pytest/requirements.txt writes them), and why. */
export interface PythonNeed {
  pin: string;
  why: string;
}

/** pytest-cov and coverage (Debian python3-pytest-cov 4.0.0, python3-coverage 6.5.0). */
const PYTEST_COV = ["pytest-cov==4.0.0", "coverage==6.5.0"];

/**
 * Modules a test imports that Debian bookworm packages, by top-level name: the pins that bring them
 * (each version is the one bookworm installs, checked with importlib.metadata in python-pytest).
 */
const MODULES: Record<string, readonly string[]> = {
  yaml: ["PyYAML==6.0"],
  dateutil: ["python-dateutil==2.8.2"],
  pytz: ["pytz==2022.7.1"],
  six: ["six==1.16.0"],
  attr: ["attrs==22.2.0"],
  attrs: ["attrs==22.2.0"],
  toml: ["toml==0.10.2"],
  mock: ["mock==4.0.3"],
  hypothesis: ["hypothesis==6.67.1"],
  simplejson: ["simplejson==3.18.3"],
  nose: ["nose==1.3.7"],
  typing_extensions: ["typing_extensions==4.4.0"],
};

/** The files pytest reads its configuration from (`.pytest.ini` too), at the repository's top. */
export const PYTEST_CONFIGS = ["pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"];

/** A pytest-cov option in a configuration's addopts (`--cov`, `--cov=x`, `--cov-report`, `--no-cov…`). */
const COV_OPTION = /(^|\s)--(no-)?cov(\b|[-=])/m;

/**
 * An import statement, at any indentation (an import inside a test function counts too): `from X`
 * names one module, `import a, b.c as d` a list.
 */
const IMPORT = /^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)|import[ \t]+([^\n#;]+))/gm;

/** The top-level modules an import statement's match names. */
function importedModules(m: RegExpMatchArray): string[] {
  if (m[1] !== undefined) return [m[1]];
  return m[2]!
    .replace(/[()\\]/g, " ")
    .split(",")
    .map((part) => /^\s*([A-Za-z_]\w*)/.exec(part)?.[1])
    .filter((name): name is string => name !== undefined);
}

/**
 * The pins a repository's tests need: pytest-cov when a pytest configuration's `addopts` names its
 * options (pytest 7 stops with a usage error otherwise: no test runs), and the packages of modules
 * the test files import. Each pin once, with the first reason found.
 */
export function pythonNeeds(
  configs: ReadonlyArray<{ path: string; text: string }>,
  tests: ReadonlyArray<{ path: string; text: string }>,
  own: ReadonlySet<string> = new Set(),
): PythonNeed[] {
  const needs = new Map<string, string>();
  const add = (pins: readonly string[], why: string) => {
    for (const pin of pins) if (!needs.has(pin)) needs.set(pin, why);
  };
  for (const { path, text } of configs) {
    const addopts = addoptsOf(text);
    if (addopts !== null && COV_OPTION.test(addopts))
      add(PYTEST_COV, `${path}: addopts names pytest-cov's --cov`);
  }
  for (const { path, text } of tests)
    for (const m of text.matchAll(IMPORT))
      for (const module of importedModules(m)) {
        // The repository's own module (six's six.py) is never an outside package: a Debian copy in the
        // image would stand in for it, and a diff deleting the module would PASS on that copy.
        const pins = own.has(module) ? undefined : MODULES[module];
        if (pins) add(pins, `${path} imports ${module}`);
      }
  return [...needs].map(([pin, why]) => ({ pin, why }));
}

/**
 * The `addopts` value of an ini-style section or a TOML table (with its continuation lines), or null.
 * Both styles are read the same loose way: `addopts` at a line's start, then `=`, then the value up
 * to the next line that starts a key, a section or a table.
 */
export function addoptsOf(text: string): string | null {
  const m = /^addopts[ \t]*=([^\n]*(?:\n(?![ \t]*(?:[A-Za-z_][\w.-]*[ \t]*=|\[))[^\n]*)*)/m.exec(text);
  return m ? m[1]! : null;
}

/**
 * The top-level modules a repository provides itself: `X.py` and the packages `X/…/*.py` at its top or
 * under `src/` (a src layout).
 */
export function ownModules(files: readonly string[]): Set<string> {
  const own = new Set<string>();
  for (const path of files) {
    if (!path.endsWith(".py")) continue;
    const parts = path.split("/");
    const rest = parts[0] === "src" && parts.length > 1 ? parts.slice(1) : parts;
    own.add(rest.length === 1 ? rest[0]!.slice(0, -3) : rest[0]!);
  }
  return own;
}

/** What the repository's Python tests need beyond the image template: its pytest configuration at the base, the base's test files and the hidden ones. */
export async function repoPythonNeeds(
  repo: string,
  base: string,
  baseFiles: readonly string[],
  hidden: ReadonlyArray<{ path: string; bytes: Buffer }>,
): Promise<PythonNeed[]> {
  const present = new Set(baseFiles);
  const configPaths = PYTEST_CONFIGS.filter((p) => present.has(p));
  // The test files and what sits beside them in test folders (helpers the tests import, conftest.py):
  // a bounded number, read in one git call with the configurations.
  const testPaths = baseFiles
    .filter((p) => p.endsWith(".py") && (runsAsTest("pytest", p) || isTestPath(p)))
    .slice(0, 2000);
  const files = await showFiles(repo, base, [...configPaths, ...testPaths]);
  const texts = (paths: readonly string[]) =>
    paths.flatMap((path) => {
      const bytes = files.get(path);
      return bytes === undefined ? [] : [{ path, text: bytes.toString("utf8") }];
    });
  const configs = texts(configPaths);
  const tests = texts(testPaths);
  return pythonNeeds(
    configs,
    [...tests, ...hidden.map((h) => ({ path: h.path, text: h.bytes.toString("utf8") }))],
    ownModules(baseFiles),
  );
}
