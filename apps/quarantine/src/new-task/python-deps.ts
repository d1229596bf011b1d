import { showFiles } from "./git.js";
import { isTestPath } from "./split.js";
import { runsAsTest, shellQuote } from "./templates.js";

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

/**
 * The top-level modules python-pytest's image has besides the standard library: Debian bookworm's
 * python3-pytest and what it brings (listed with pkgutil.iter_modules in the image).
 */
export const IMAGE_PYTHON_MODULES: ReadonlySet<string> = new Set([
  "_pytest",
  "attr",
  "attrs",
  "iniconfig",
  "more_itertools",
  "packaging",
  "pkg_resources",
  "pluggy",
  "py",
  "pytest",
]);

/**
 * The repository's own modules that its tests import and that the image has a copy of too
 * (more-itertools' `more_itertools`, pytest-dev/iniconfig's `iniconfig`): a diff that deletes the
 * repository's copy would make the tests import the image's, which may hold the fix already (as
 * Debian's six did for six a611f60 before db91c1f stopped pinning it). Sorted.
 */
export function shadowedOwnModules(
  tests: ReadonlyArray<{ text: string }>,
  own: ReadonlySet<string>,
  image: ReadonlySet<string> = IMAGE_PYTHON_MODULES,
): string[] {
  const found = new Set<string>();
  for (const { text } of tests)
    for (const m of text.matchAll(IMPORT))
      for (const module of importedModules(m)) if (own.has(module) && image.has(module)) found.add(module);
  return [...found].sort();
}

/**
 * The shell words a Python suite command starts with to check that each of `modules` is found in
 * the checkout (the suite's working folder) before anywhere else on sys.path, without importing it:
 * when a diff deleted the repository's copy, the suite stops before its tests (no report: FAIL)
 * instead of running them on the image's.
 */
export function ownModulesCheck(modules: readonly string[]): string {
  const script = [
    "import importlib.util as u,os,sys",
    "c=os.path.realpath(os.getcwd())+os.sep",
    "s=[(m,u.find_spec(m)) for m in sys.argv[1:]]",
    'b=[m for m,p in s if not os.path.realpath((p and (p.origin or next(iter(p.submodule_search_locations or []),None))) or "/").startswith(c)]',
    'sys.exit("oracle: the tests would import %s from outside the checkout, not the repository copy" % ", ".join(b) if b else 0)',
  ].join("; ");
  return `python3 -c ${shellQuote(script)} ${modules.map(shellQuote).join(" ")} && `;
}

/** The base's test files with the hidden ones, and its pytest configurations, as the image's needs are read from. */
async function pythonTexts(
  repo: string,
  base: string,
  baseFiles: readonly string[],
  hidden: ReadonlyArray<{ path: string; bytes: Buffer }>,
) {
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
  return {
    configs: texts(configPaths),
    tests: [...texts(testPaths), ...hidden.map((h) => ({ path: h.path, text: h.bytes.toString("utf8") }))],
  };
}

/** The repository's own modules its tests (the base's and the hidden ones) import that the image has too. */
export async function repoShadowedModules(
  repo: string,
  base: string,
  baseFiles: readonly string[],
  hidden: ReadonlyArray<{ path: string; bytes: Buffer }>,
): Promise<string[]> {
  const { tests } = await pythonTexts(repo, base, baseFiles, hidden);
  return shadowedOwnModules(tests, ownModules(baseFiles));
}

/** What the repository's Python tests need beyond the image template: its pytest configuration at the base, the base's test files and the hidden ones. */
export async function repoPythonNeeds(
  repo: string,
  base: string,
  baseFiles: readonly string[],
  hidden: ReadonlyArray<{ path: string; bytes: Buffer }>,
): Promise<PythonNeed[]> {
  const { configs, tests } = await pythonTexts(repo, base, baseFiles, hidden);
  return pythonNeeds(configs, tests, ownModules(baseFiles));
}
