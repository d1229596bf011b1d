import { posix } from "node:path";
import type { SentinelFramework } from "./runner-command.js";

/**
 * The runner's own configuration at the base commit can leave test files out that the command
 * seems to select (pytest's `addopts = --ignore=…`, `python_files`, a conftest's `collect_ignore`;
 * mocha's `ignore`; jest's `testPathIgnorePatterns`, `testMatch`; vitest's `exclude`). The oracle
 * reads these files as text and, where one may change the selection, plants nothing it would then
 * require (docs/security.md, "Plant only what can be proven").
 */

/** Base names of the configuration files read at the base commit, any folder. */
export const CONFIG_NAMES: ReadonlySet<string> = new Set([
  "pytest.ini",
  "pyproject.toml",
  "tox.ini",
  "setup.cfg",
  "conftest.py",
  ".mocharc.js",
  ".mocharc.cjs",
  ".mocharc.mjs",
  ".mocharc.json",
  ".mocharc.jsonc",
  ".mocharc.yml",
  ".mocharc.yaml",
  "package.json",
  "jest.config.js",
  "jest.config.ts",
  "jest.config.mjs",
  "jest.config.cjs",
  "jest.config.json",
  "vitest.config.js",
  "vitest.config.ts",
  "vitest.config.mjs",
  "vitest.config.cjs",
  "vitest.config.mts",
  "vitest.config.cts",
  "vite.config.js",
  "vite.config.ts",
  "vite.config.mjs",
  "vite.config.cjs",
  "vite.config.mts",
  "vitest.workspace.js",
  "vitest.workspace.ts",
  "vitest.workspace.json",
]);

/** The base commit's configuration files by path; null: there but not read (too large). */
export type RunnerConfigs = ReadonlyMap<string, string | null>;

/** The folder and those above it, up to the checkout's root (""). */
function upwards(cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = cwd; dir !== "" && dir !== "."; dir = posix.dirname(dir)) dirs.push(dir);
  return [...dirs, ""];
}

const at = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);

/** pytest's ini sections and the keys in them that change which files or tests are collected. */
const PYTEST_SECTIONS: Record<string, RegExp> = {
  "pytest.ini": /^\s*\[(?:pytest|tool:pytest)\]/m,
  "tox.ini": /^\s*\[pytest\]/m,
  "setup.cfg": /^\s*\[tool:pytest\]/m,
  "pyproject.toml": /^\s*\[tool\.pytest\.ini_options\]/m,
};
const PYTEST_KEYS =
  /^\s*(python_files|norecursedirs|collect_ignore\w*|confcutdir|rootdir)\s*=|(?:--ignore|--deselect|--ignore-glob|(?<![\w-])-k|(?<![\w-])-m|--pyargs|--lf|--last-failed)\b/m;
/** conftest.py code that drops files or tests from the collection. */
const CONFTEST_HOOKS =
  /\b(collect_ignore(?:_glob)?|pytest_ignore_collect|pytest_collection_modifyitems|pytest_collect_file|pytest_pycollect_makemodule|pytest_deselected)\b/;

const MOCHA_KEYS = /\b(ignore|exclude|grep|fgrep|invert|spec|recursive|extension|file)\b/;
const JEST_KEYS =
  /\b(testMatch|testRegex|testPathIgnorePatterns|roots|rootDir|projects|modulePathIgnorePatterns|testPathPattern)\b/;
const VITEST_KEYS = /\b(include|exclude|dir|root|workspace|projects|includeSource)\b/;

/** The package.json key a runner reads its configuration from, when it has one there. */
function packageKey(text: string, key: string): unknown {
  try {
    return (JSON.parse(text.replace(/^\uFEFF/, "")) as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * The configuration file a JS runner's command names (`--config FILE`, `--config=FILE`; jest's and
 * vitest's `-c` too, which is mocha's `--colors`): the runner then reads that file instead of finding
 * one by its default names. `path` is from the checkout's root; `outside` a file the oracle cannot
 * read (absolute, above the checkout, computed by the shell, given twice); `inline` jest's JSON.
 */
export type NamedConfig = { path: string } | { outside: string } | { inline: string };

export function namedConfig(
  framework: SentinelFramework,
  args: readonly string[],
  cwd: string,
): NamedConfig | null {
  if (framework !== "jest" && framework !== "vitest" && framework !== "mocha") return null;
  const names = framework === "mocha" ? ["--config"] : ["--config", "-c"];
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    if (eq > 0 && names.includes(arg.slice(0, eq))) values.push(arg.slice(eq + 1));
    else if (names.includes(arg) && args[i + 1] !== undefined) values.push(args[++i]!);
  }
  if (values.length === 0) return null;
  const value = values[0]!;
  if (values.length > 1) return { outside: values.join(" and ") };
  if (framework === "jest" && value.trimStart().startsWith("{")) return { inline: value };
  if (/[$`*?]/.test(value) || posix.isAbsolute(value)) return { outside: value };
  const path = posix.normalize(posix.join(cwd, value));
  return path.startsWith("../") ? { outside: value } : { path };
}

/** What a runner's named config file may change, by the keys the oracle looks for. */
function namedDoubts(
  framework: SentinelFramework,
  named: NamedConfig,
  configs: RunnerConfigs,
  cwd: string,
): string[] {
  if ("outside" in named) return [`--config ${named.outside} names a file the oracle cannot read`];
  if ("inline" in named)
    return JEST_KEYS.test(named.inline) ? ["the --config given inline may change which files jest runs"] : [];
  const body = configs.get(named.path);
  if (body === undefined) return [`--config ${named.path} is not a file of the base commit the oracle read`];
  if (body === null) return [`--config ${named.path} is too large to read`];
  // jest's rootDir is the config file's folder unless the config says otherwise: one in another folder
  // than the runner's looks for tests there.
  if (framework === "jest" && posix.dirname(named.path) !== (cwd === "" ? "." : cwd))
    return [`${named.path} (its --config) makes its own folder jest's rootDir, where jest looks for tests`];
  const keys = framework === "jest" ? JEST_KEYS : framework === "vitest" ? VITEST_KEYS : MOCHA_KEYS;
  // jest reads a package.json given as its config by its `jest` key.
  const read =
    framework === "jest" && posix.basename(named.path) === "package.json"
      ? JSON.stringify(packageKey(body, "jest") ?? {})
      : body;
  return keys.test(read) ? [`${named.path} (its --config) may change which files ${framework} runs`] : [];
}

/**
 * Why the runner's configuration at the base commit may leave a file out that the command seems to
 * select; empty when nothing the oracle reads does. `cwd` is the folder the runner starts in; `args`
 * the runner's arguments, whose `--config FILE` replaces the files found by their default names.
 */
export function configDoubts(
  framework: SentinelFramework,
  configs: RunnerConfigs,
  cwd: string,
  /** The command names the paths to run (pytest's `testpaths` then does not apply). */
  namesPaths = true,
  args: readonly string[] = [],
): string[] {
  const doubts: string[] = [];
  const seen = (path: string, why: string) => doubts.push(`${path} ${why}`);
  const dirs = upwards(cwd);
  const text = (path: string) => configs.get(path);
  const named = namedConfig(framework, args, cwd);
  if (named !== null) {
    doubts.push(...namedDoubts(framework, named, configs, cwd));
    // jest and vitest read nothing else; mocha still reads package.json's `mocha` key.
    if (framework !== "mocha") return doubts;
    for (const dir of dirs) {
      const pkg = text(at(dir, "package.json"));
      if (pkg && packageKey(pkg, "mocha") !== undefined) seen(at(dir, "package.json"), "configures mocha");
    }
    return doubts;
  }
  if (framework === "pytest") {
    for (const dir of dirs)
      for (const [name, section] of Object.entries(PYTEST_SECTIONS)) {
        const body = text(at(dir, name));
        if (body === undefined) continue;
        if (body === null) seen(at(dir, name), "is too large to read");
        else if (section.test(body)) {
          const options = sectionOf(body, section);
          if (PYTEST_KEYS.test(options) || (!namesPaths && /^\s*testpaths\s*=/m.test(options)))
            seen(at(dir, name), "sets options that change which tests pytest collects");
        }
      }
    for (const [path, body] of configs)
      if (posix.basename(path) === "conftest.py" && (body === null || CONFTEST_HOOKS.test(body)))
        seen(path, "changes which files or tests pytest collects");
  }
  if (framework === "mocha")
    for (const dir of dirs) {
      for (const name of [...CONFIG_NAMES].filter((n) => n.startsWith(".mocharc"))) {
        const body = text(at(dir, name));
        if (body !== undefined && (body === null || MOCHA_KEYS.test(body)))
          seen(at(dir, name), "may change which files mocha runs");
      }
      const pkg = text(at(dir, "package.json"));
      if (pkg && packageKey(pkg, "mocha") !== undefined) seen(at(dir, "package.json"), "configures mocha");
    }
  if (framework === "jest")
    for (const dir of dirs) {
      for (const name of [...CONFIG_NAMES].filter((n) => n.startsWith("jest.config"))) {
        const body = text(at(dir, name));
        if (body !== undefined && (body === null || JEST_KEYS.test(body)))
          seen(at(dir, name), "may change which files jest runs");
      }
      const pkg = text(at(dir, "package.json"));
      const key = pkg ? packageKey(pkg, "jest") : undefined;
      if (key !== undefined && JEST_KEYS.test(JSON.stringify(key)))
        seen(at(dir, "package.json"), "configures which files jest runs");
    }
  if (framework === "vitest")
    for (const dir of dirs)
      for (const name of [...CONFIG_NAMES].filter((n) => n.startsWith("vite"))) {
        const body = text(at(dir, name));
        if (body !== undefined && (body === null || VITEST_KEYS.test(body)))
          seen(at(dir, name), "may change which files vitest runs");
      }
  return doubts;
}

/** The text of one ini/toml section: from its header to the next header. */
function sectionOf(body: string, header: RegExp): string {
  const start = header.exec(body);
  if (!start) return "";
  const rest = body.slice(start.index + start[0].length);
  const next = /^\s*\[/m.exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}
