import { posix } from "node:path";
import { shellSegments } from "@oracle/grader";
import { OracleError, RESERVED_ENV } from "@oracle/spec";
import { jestDefaultTests, type RepoTests } from "./jest-config.js";

/** The runners new-task writes suite commands for. */
export const FRAMEWORKS = ["pytest", "unittest", "jest", "mocha", "vitest", "go"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** The image each framework's tasks use unless --image names another. */
export const DEFAULT_IMAGE: Record<Framework, string> = {
  pytest: "python-pytest",
  unittest: "python-pytest",
  jest: "node-jest",
  mocha: "node-mocha",
  vitest: "node-vitest",
  go: "go-gotestsum",
};

const JS = /\.[cm]?[jt]sx?$/;
const JS_TEST_NAME = /\.(test|spec)\.[cm]?[jt]sx?$/;
const HELPER_DIR = /(^|\/)(fixtures?|helpers?|support|testdata|__fixtures__|__mocks__|node_modules)\//;

/** Whether the runner of `framework` runs `path` as a test file (helpers and fixtures are not). */
export function runsAsTest(framework: Framework, path: string, repoTests?: RepoTests | null): boolean {
  const base = posix.basename(path);
  // jest: the repository's testMatch or testRegex, else jest's default testMatch (a bare test.js too).
  if (framework === "jest") return !HELPER_DIR.test(path) && (repoTests?.match ?? jestDefaultTests)(path);
  switch (framework) {
    case "pytest":
    case "unittest":
      return /^test_.*\.py$|_test\.py$/.test(base) || /^tests?\.py$/.test(path);
    case "go":
      return base.endsWith("_test.go") && !path.split("/").includes("testdata");
    case "vitest":
      // The repository's test.include (less its exclude), else the path rule.
      if (repoTests) return !HELPER_DIR.test(path) && repoTests.match(path);
      return (
        !HELPER_DIR.test(path) &&
        (JS_TEST_NAME.test(base) || (/(^|\/)__tests__\//.test(path) && JS.test(base)))
      );
    case "mocha":
      return (
        !HELPER_DIR.test(path) &&
        /\.[cm]?js$/.test(base) &&
        (JS_TEST_NAME.test(base) || /(^|\/)tests?\//.test(path) || /^test\.[cm]?js$/.test(path))
      );
  }
}

/**
 * Whether `framework`'s runner runs `path` when it is named on its command line, whatever its name:
 * pytest collects any Python file it is given, mocha loads any script it is given. jest and vitest
 * keep only the files their own testMatch or include names, and Go runs packages.
 */
export function runsByName(framework: Framework, path: string): boolean {
  // Fixtures and helpers under a glob like `test/**` are not tests (conftest.py and __init__.py are pytest's own).
  if (HELPER_DIR.test(path)) return false;
  if (framework === "pytest" || framework === "unittest")
    return path.endsWith(".py") && !/^(conftest|__init__)\.py$/.test(posix.basename(path));
  if (framework === "mocha") return /\.[cm]?js$/.test(path);
  return false;
}

/** The framework of a fix's hidden tests, from their names and the repository's package.json. */
export function detectFramework(hidden: readonly string[], packageJson: string | null): Framework {
  if (hidden.some((p) => p.endsWith("_test.go"))) return "go";
  if (hidden.some((p) => p.endsWith(".py"))) return "pytest";
  if (hidden.some((p) => JS.test(p))) {
    const deps = packageDeps(packageJson);
    for (const name of ["vitest", "jest", "mocha"] as const) if (name in deps) return name;
    throw new OracleError(
      "USAGE",
      "the hidden tests are JavaScript, but package.json names no vitest, jest or mocha",
      {
        hint: "say which runner with --framework jest|mocha|vitest",
      },
    );
  }
  throw new OracleError("USAGE", `cannot tell the test runner from the hidden tests (${hidden.join(", ")})`, {
    hint: `say which with --framework ${FRAMEWORKS.join("|")}`,
  });
}

/**
 * Which changed files a fix's split takes as tests for jest (besides the path rule): the repository's
 * testMatch or testRegex (`rule`), else jest's default testMatch when jest is the repository's runner
 * (`--framework jest`, or package.json names jest and not vitest, as detectFramework reads it), which
 * takes a bare `src/test.js` the path rule does not. Undefined for another runner.
 */
export function jestSplitRule(
  rule: RepoTests | null,
  packageJson: string | null,
  framework: Framework | undefined,
): ((path: string) => boolean) | undefined {
  if (framework !== undefined && framework !== "jest") return undefined;
  if (rule) return rule.match;
  const deps = packageDeps(packageJson);
  return framework === "jest" || ("jest" in deps && !("vitest" in deps)) ? jestDefaultTests : undefined;
}

/**
 * Which changed files a fix's split takes as tests for vitest (besides the path rule): the
 * repository's test.include (`rule`, vitest-config.ts) when vitest is the runner (`--framework
 * vitest`, or package.json names vitest, as detectFramework reads it). Undefined otherwise.
 */
export function vitestSplitRule(
  rule: RepoTests | null,
  packageJson: string | null,
  framework: Framework | undefined,
): ((path: string) => boolean) | undefined {
  if (rule === null || (framework !== undefined && framework !== "vitest")) return undefined;
  return framework === "vitest" || "vitest" in packageDeps(packageJson) ? rule.match : undefined;
}

/** dependencies + devDependencies of a package.json text (empty when there is none). */
export function packageDeps(packageJson: string | null): Record<string, string> {
  if (!packageJson) return {};
  try {
    const parsed = JSON.parse(packageJson) as Record<string, unknown>;
    const pick = (key: string) =>
      parsed[key] && typeof parsed[key] === "object" ? (parsed[key] as Record<string, string>) : {};
    return { ...pick("dependencies"), ...pick("devDependencies") };
  } catch {
    return {};
  }
}

/** A word the shell passes through unchanged. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

export const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The folders (`./pkg`) of Go test files, sorted. */
function goPackages(files: readonly string[]): string[] {
  const dirs = new Set(files.map((f) => posix.dirname(f)));
  return [...dirs].sort().map((d) => (d === "." ? "." : `./${d}`));
}

/** One suite's command for `framework`, running exactly `files` (test files, as in the checkout). */
/** mocha flags that change how its test files are read: the interface, modules loaded first, the timeout. */
const MOCHA_FLAGS: Record<string, string> = {
  "--ui": "--ui",
  "-u": "--ui",
  "--require": "--require",
  "-r": "--require",
  "--timeout": "--timeout",
  "-t": "--timeout",
};

/**
 * The flags the repository's own package.json scripts give its runner that the template's command
 * must carry for the test files to load as upstream loads them: for mocha, `--ui` (qunit's
 * `suite()`/`test()`, tdd), `--require` and `--timeout`, read from the first script (`test` first) that
 * starts mocha. mocha reads its `.mocharc.*` itself. Words that the shell would expand are left out.
 */
export function repoRunnerFlags(framework: Framework, packageJson: string | null): string[] {
  // The grader's own reading of a shell command: its quoting, and which words expand.
  const segment = framework === "mocha" ? runnerSegment(framework, packageJson) : null;
  if (segment === null) return [];
  const { words, expands, at } = segment;
  const flags: string[] = [];
  for (let i = at + 1; i < words.length; i++) {
    const [flag = "", joined] = words[i]!.split(/=(.*)/s);
    const canonical = MOCHA_FLAGS[flag];
    if (canonical === undefined) continue;
    const valueAt = joined === undefined ? ++i : i;
    const value = joined ?? words[valueAt];
    if (value !== undefined && expands[valueAt] !== true) flags.push(canonical, value);
  }
  return flags;
}

const RUNNER_WORD: Partial<Record<Framework, RegExp>> = {
  jest: /(^|\/)jest(\.js)?$/,
  mocha: /(^|\/)_?mocha(\.js)?$/,
  vitest: /(^|\/)vitest(\.m?js)?$/,
};

/**
 * The words of the first script (`test` first) that starts the framework's runner, and the runner's
 * index among them; null when none does (or the package.json does not parse).
 */
function runnerSegment(
  framework: Framework,
  packageJson: string | null,
): { words: string[]; expands: readonly (boolean | undefined)[]; at: number } | null {
  const runner = RUNNER_WORD[framework];
  if (runner === undefined || !packageJson) return null;
  let scripts: Record<string, unknown>;
  try {
    scripts = ((JSON.parse(packageJson) as { scripts?: unknown }).scripts ?? {}) as Record<string, unknown>;
  } catch {
    return null;
  }
  const names = ["test", ...Object.keys(scripts).filter((n) => n !== "test")];
  for (const name of names) {
    const script = scripts[name];
    if (typeof script !== "string") continue;
    for (const { words, expands } of shellSegments(script)) {
      const at = words.findIndex((w) => runner.test(w));
      if (at >= 0) return { words, expands, at };
    }
  }
  return null;
}

/**
 * The variables the repository's own script sets for its runner, which the suites set too: the
 * first script (`test` first) that starts the runner, its assignments before it (`BABEL_ENV=commonjs
 * node … jest`, `cross-env NODE_ENV=test mocha`). uuidjs/uuid fcd7388's babel config has presets only
 * under `env.commonjs`: without BABEL_ENV every test file failed on its `import`. Values the shell
 * would expand, and names the oracle sets itself, are left out.
 */
export function scriptEnv(framework: Framework, packageJson: string | null): Record<string, string> {
  const segment = runnerSegment(framework, packageJson);
  const env: Record<string, string> = {};
  if (segment === null) return env;
  const { words, expands, at } = segment;
  for (let i = 0; i < at; i++) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(words[i]!);
    if (m === null || expands[i] === true) continue;
    const key = m[1]!;
    if ((RESERVED_ENV as readonly string[]).includes(key) || key.startsWith("ORACLE_")) continue;
    env[key] = m[2]!;
  }
  return env;
}

/**
 * The folders and test files the repository's own script gives its runner (uuidjs/uuid fcd7388:
 * `BABEL_ENV=commonjs node … jest test/unit/`; its test/browser/ files are wdio's, and failed under
 * jest): words after the runner in the first script (`test` first) that starts it, each naming a
 * folder of the base commit or one of its files, without a leading `./` or a trailing `/`. Empty
 * when the script names none (the runner's own defaults).
 */
export function scriptTestPaths(
  framework: Framework,
  packageJson: string | null,
  baseFiles: readonly string[],
): string[] {
  const segment = runnerSegment(framework, packageJson);
  if (segment === null) return [];
  const { words, expands, at } = segment;
  const files = new Set(baseFiles);
  const paths: string[] = [];
  for (let i = at + 1; i < words.length; i++) {
    if (expands[i] === true || words[i]!.startsWith("-")) continue;
    const path = words[i]!.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
    if (path === "" || path.split("/").includes("..")) continue;
    if (files.has(path) || baseFiles.some((f) => f.startsWith(`${path}/`))) paths.push(path);
  }
  return paths;
}

/** jest flags of the repository's scripts the command keeps: how long a test may take, and how it runs. */
const JEST_FLAGS = new Set(["--testTimeout", "--maxWorkers", "-w", "--runInBand", "-i"]);
const JEST_SWITCHES = new Set(["--runInBand", "-i"]);

/**
 * The flags a jest command carries for a repository (commander.js 2e96cd3): those its own scripts give
 * jest (`--testTimeout`, `--maxWorkers`, `--runInBand`), and, where neither its scripts nor its jest
 * configuration (package.json's `jest` key, a jest.config file's text) set them:
 * - `--maxWorkers=2`: on two cores jest runs the tests in its own process, whose `process.argv` then
 *   holds the oracle's flags (`--ci`, the test files), and a test that parses `process.argv` (commander's
 *   `program.parse()`) fails on them; in workers, as upstream's CI runs a large suite, it is clean;
 * - `--testTimeout=30000`: jest's 5 s per test is upstream's fast machine; the oracle's run has its
 *   own wall-clock limit.
 */
export function jestRunFlags(packageJson: string | null, configTexts: readonly string[] = []): string[] {
  let scripts: Record<string, unknown> = {};
  let jestKey = "";
  try {
    const parsed = JSON.parse(packageJson ?? "{}") as { scripts?: unknown; jest?: unknown };
    scripts = (parsed.scripts ?? {}) as Record<string, unknown>;
    jestKey = JSON.stringify(parsed.jest ?? "");
  } catch {
    // an unreadable package.json gives only the defaults
  }
  const flags: string[] = [];
  const names = ["test", ...Object.keys(scripts).filter((n) => n !== "test")];
  found: for (const name of names) {
    const script = scripts[name];
    if (typeof script !== "string") continue;
    for (const { words, expands } of shellSegments(script)) {
      const at = words.findIndex((w) => /(^|\/)jest(\.js)?$/.test(w));
      if (at < 0) continue;
      for (let i = at + 1; i < words.length; i++) {
        const [flag = "", joined] = words[i]!.split(/=(.*)/s);
        if (!JEST_FLAGS.has(flag) || expands[i] === true) continue;
        if (JEST_SWITCHES.has(flag)) flags.push(flag);
        else {
          const valueAt = joined === undefined ? ++i : i;
          const value = joined ?? words[valueAt];
          if (value !== undefined && expands[valueAt] !== true) flags.push(`${flag}=${value}`);
        }
      }
      break found;
    }
  }
  const config = [jestKey, ...configTexts].join("\n");
  const has = (re: RegExp) => flags.some((f) => re.test(f)) || re.test(config);
  if (!has(/^(--maxWorkers|-w|--runInBand|-i)\b|\bmaxWorkers\b/)) flags.push("--maxWorkers=2");
  if (!has(/^--testTimeout\b|\btestTimeout\b/)) flags.push("--testTimeout=30000");
  return flags;
}

export function suiteCommand(
  framework: Framework,
  files: readonly string[],
  remove: readonly string[] = [],
  runnerFlags: readonly string[] = [],
  /** Go: an anchored `-run` or `-skip` flag, quoted, choosing the tests to run (make.ts `goRunSelection`). */
  goRun?: string,
  /** Shell words, quoted, that leave tests out (broken.ts `leaveOut`): pytest, Go, mocha, jest and vitest. */
  leave: readonly string[] = [],
): string {
  const args = (list: readonly string[]) => list.map(shellQuote).join(" ");
  const out = leave.length > 0 ? `${leave.join(" ")} ` : "";
  const node = "ln -sfn /opt/deps/node_modules node_modules && ";
  const rm = remove.length > 0 ? `rm -f -- ${args(remove)} && ` : "";
  switch (framework) {
    case "pytest":
    case "unittest":
      // unittest-style files run under pytest too: it collects TestCase classes, writes JUnit, and
      // gets the oracle's sentinels (python -m unittest gets none).
      return `${rm}python3 -m pytest -p no:cacheprovider -q --junitxml="$ORACLE_JUNIT" ${out}${args(files)}`;
    case "go":
      return `${rm}gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1 ${goRun === undefined ? "" : `${goRun} `}${out}${args(goPackages(files))}`;
    case "jest":
      // jest's positional arguments are regular expressions over paths; they come before
      // --reporters, an array option that would take them as reporters. --coverage=false: a
      // repository's collectCoverage with a coverageThreshold fails a run of part of its suite
      // (exit 1 with every test passed), and coverage is no part of a verdict.
      return `${node}${rm}JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false --coverage=false ${runnerFlags.length > 0 ? `${args(runnerFlags)} ` : ""}${out}${args(files.map((f) => `/${escapeRegex(f)}$`))} --reporters=default --reporters=jest-junit`;
    case "mocha":
      return `${node}${rm}node_modules/.bin/mocha ${runnerFlags.length > 0 ? `${args(runnerFlags)} ` : ""}${out}--reporter mocha-junit-reporter --reporter-options mochaFile="$ORACLE_JUNIT" ${args(files)}`;
    case "vitest":
      return `${node}${rm}node_modules/.bin/vitest run --no-cache ${out}--reporter=default --reporter=junit --outputFile.junit="$ORACLE_JUNIT" ${args(files)}`;
  }
}

/**
 * The vitest suite commands for the vitest an image holds (`version` from its package-lock.json;
 * null: unknown, the template's 2.x). `--no-cache` keeps vitest 2+ from writing its results cache
 * into the image's read-only node_modules; vitest 1 has no such flag and stops with "Unknown option
 * `--cache`" (blakeembrey/change-case 976fa36, whose own vitest 1.0.1 the image took), and runs
 * without it.
 */
export function forVitestVersion(command: string, version: string | null): string {
  const major = version === null ? null : Number(/^(\d+)\./.exec(version)?.[1]);
  return major !== null && Number.isInteger(major) && major < 2
    ? command.replace(" --no-cache ", " ")
    : command;
}

/**
 * The jest suite commands for the jest an image holds (`version` from its package-lock.json; null:
 * unknown, the template's 30). `--testTimeout` came in jest 24.9: an older jest stops with
 * 'Unrecognized option "testTimeout"' before any test (dayjs 99691c5, whose own jest 22.4.4 the
 * image took), so the flag new-task adds is dropped there, and the test timeout stays jest's 5 s.
 */
export function forJestVersion(command: string, version: string | null): string {
  const m = version === null ? null : /^(\d+)\.(\d+)\./.exec(version);
  const old = m !== null && (Number(m[1]) < 24 || (Number(m[1]) === 24 && Number(m[2]) < 9));
  return old ? command.replace(/ --testTimeout=\d+(?= )/g, "") : command;
}

/** task.json's `framework` for a template (unittest-style files run under pytest). */
export function taskFramework(framework: Framework): "pytest" | "jest" | "mocha" | "vitest" | "go" {
  return framework === "unittest" ? "pytest" : framework;
}

/** Files besides the test sources that the existing suite depends on and the diff may not change. */
export function configGlobs(framework: Framework): string[] {
  switch (framework) {
    case "pytest":
    case "unittest":
      return ["**/conftest.py", "pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini"];
    case "go":
      return ["go.mod", "go.sum", "**/testdata/**"];
    case "jest":
      return ["jest.config.*", "package.json", "package-lock.json"];
    case "mocha":
      return [".mocharc*", "package.json", "package-lock.json"];
    case "vitest":
      return ["vitest.config.*", "vite.config.*", "vitest.workspace.*", "package.json", "package-lock.json"];
  }
}

/**
 * Whether a Python repository keeps its packages under `src/` (`src/pkg/__init__.py`, `src/mod.py`)
 * and not at its top: its tests import them by name, which works upstream only once the package is
 * installed (`pip install -e .`). The image installs nothing of the repository, so its suites run
 * with `PYTHONPATH=src`.
 */
export function pythonSrcLayout(baseFiles: readonly string[]): boolean {
  const top = new Set(baseFiles.filter((p) => /^[^/]+\/__init__\.py$/.test(p)).map((p) => p.split("/")[0]));
  return baseFiles.some((p) => {
    const inSrc = /^src\/([^/]+)\/__init__\.py$/.exec(p) ?? /^src\/([^/]+)\.py$/.exec(p);
    return inSrc !== null && inSrc[1] !== "__init__" && !top.has(inSrc[1]);
  });
}

/** The environment a framework's suites run with. */
export function suiteEnv(
  framework: Framework,
  hasVendor: boolean,
  srcLayout = false,
  /** What the repository's own script sets for its runner ({@link scriptEnv}). */
  script: Record<string, string> = {},
  /** Go: whether the base commit has a go.mod ({@link goModule}); without one the suites run in GOPATH mode. */
  goModuleAtBase = true,
): Record<string, string> {
  if (framework === "pytest" || framework === "unittest")
    return { PYTHONDONTWRITEBYTECODE: "1", ...(srcLayout ? { PYTHONPATH: "src" } : {}) };
  // A repository from before Go modules (no go.mod: go-humanize bb3d318, 2017) made every suite say
  // "go: cannot find main module" and run no test; in GOPATH mode its package's own tests run
  // (-mod is refused there, and nothing is fetched either way).
  if (framework === "go" && !goModuleAtBase)
    return { GOPROXY: "off", GO111MODULE: "off", GOFLAGS: "", CGO_ENABLED: "0" };
  if (framework === "go")
    return { GOPROXY: "off", GOFLAGS: hasVendor ? "-mod=vendor" : "-mod=readonly", CGO_ENABLED: "0" };
  return { ...script };
}

/** Whether the base commit's files hold a go.mod anywhere (a module at the root or in a folder). */
export const goModule = (baseFiles: readonly string[]): boolean =>
  baseFiles.some((p) => p === "go.mod" || p.endsWith("/go.mod"));

/**
 * The version file a Python repository's build writes and its package imports (python-humanize:
 * `build.hooks.vcs.version-file = "src/humanize/_version.py"` for hatch-vcs; setuptools-scm's
 * `write_to` or `version_file`), read from pyproject.toml; null when it names none. It is not in git,
 * and the image installs nothing of the repository, so the suites write a stand-in first.
 */
export function pythonVersionFile(pyproject: string | null): string | null {
  if (!pyproject) return null;
  const m =
    /^[ \t]*(?:build\.hooks\.vcs\.)?version-file[ \t]*=[ \t]*["']([^"'\n]+\.py)["']/m.exec(pyproject) ??
    /^[ \t]*(?:write_to|version_file)[ \t]*=[ \t]*["']([^"'\n]+\.py)["']/m.exec(pyproject);
  const path = m?.[1];
  return path && !path.startsWith("/") && !path.split("/").includes("..") ? path : null;
}

/** The shell words a suite command starts with to write a stand-in version file (`pythonVersionFile`). */
export function versionFilePrelude(path: string): string {
  const lines = ["__version__ = version = '0.0.0'", "__version_tuple__ = version_tuple = (0, 0, 0)"];
  return `printf '%s\\n' ${lines.map(shellQuote).join(" ")} > ${shellQuote(path)} && `;
}
