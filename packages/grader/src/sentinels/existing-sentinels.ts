import { execFile } from "node:child_process";
import type { LoadedTask, SentinelResult } from "@oracle/spec";
import { setupModuleText } from "@oracle/test-set";
import picomatch from "picomatch";
import type { RunLog } from "../log/oracle-log.js";
import type { SentinelNotes as RunState } from "../run/run-scope.js";
import { proveCommand, removedBy } from "./command-proof.js";
import {
  findRunner,
  type PackageScripts,
  packageJsonPaths,
  type RunnerCall,
  scriptCall,
} from "./runner-command.js";
import { CONFIG_NAMES, configDoubts, namedConfig, type RunnerConfigs } from "./runner-config.js";
import {
  type HiddenText,
  MAX_TEST_FILE_BYTES,
  noSentinelNote,
  planSentinels,
  type Sentinel,
  sentinelRunner,
  TEST_SOURCE,
} from "./sentinels.js";
import { type CommandConfig, commandConfig, packagesImported, setupModules } from "./setup-modules.js";

/**
 * The existing suite's sentinels. Its test files are the base commit's (the prep resets those the
 * diff touched), so the grader reads them on the host from the base-only repository, plans pairs as
 * for the hidden suite, and the existing suite's prep appends them after the reset (the text rides
 * in the driver's script, on its stdin). Without them a diff that breaks existing behaviour and
 * forges only the existing suite's output (or patches its runner for those files) would PASS.
 */

/** At most this many base files are read; a larger existing suite gets pairs in these (noted). */
const MAX_FILES = 2000;

function gitBuffer(repo: string, args: string[], input?: string, nothingFound = false): Promise<Buffer> {
  return new Promise((done, fail) => {
    const child = execFile(
      "git",
      ["--git-dir", repo, "-c", "core.hooksPath=/dev/null", ...args],
      {
        encoding: "buffer",
        maxBuffer: 512 * 1024 * 1024,
        env: { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      },
      (error, stdout, stderr) => {
        // `git grep` exits 1 when nothing matches.
        if (error && nothingFound && error.code === 1 && stderr.length === 0) done(stdout);
        else if (error)
          fail(new Error(`git ${args[0]} failed: ${stderr.toString().trim() || error.message}`));
        else done(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/**
 * The base commit's versions of the hidden test files (`paths`, relative to the repository's root),
 * for the twins: a file absent at base is absent from the map. Larger files than a test module
 * are left out, which the caller must treat as unknown.
 */
export function baseHiddenTexts(
  repo: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, string | null>> {
  return baseTexts(
    repo,
    commit,
    paths.filter((p) => TEST_SOURCE.test(p)),
  );
}

/**
 * The base commit's package.json `scripts` that the suites' commands could run (`npm test`,
 * `yarn <script>`: the folders they run in, upwards), for reading the runner behind them. A
 * package.json without `scripts` has none; one that is not JSON (a byte-order mark is allowed, as
 * npm allows it) or larger than a test module is recorded as unreadable (null), which stops the
 * reading there: npm would use it.
 */
export async function basePackageScripts(
  repo: string,
  commit: string,
  commands: readonly string[],
): Promise<PackageScripts> {
  const paths = [...new Set(commands.flatMap((c) => packageJsonPaths(c)))];
  const scripts = new Map<string, Record<string, string> | null>();
  for (const [path, text] of await baseTexts(repo, commit, paths)) {
    const dir = path === "package.json" ? "" : path.slice(0, -"/package.json".length);
    scripts.set(dir, text === null ? null : scriptsOf(text));
  }
  return scripts;
}

/** A package.json's string-valued `scripts` ({} without any); null when it is not a JSON object. */
function scriptsOf(text: string): Record<string, string> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const found = (parsed as { scripts?: unknown }).scripts;
  if (typeof found !== "object" || found === null || Array.isArray(found)) return {};
  return Object.fromEntries(
    Object.entries(found).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/** The base commit's versions of `paths` (text up to a test module's size; null: not a small file; absent: missing). */
async function baseTexts(
  repo: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, string | null>> {
  const texts = new Map<string, string | null>();
  const wanted = paths.filter((p) => !/[\n\r]/.test(p)).slice(0, MAX_FILES);
  if (wanted.length === 0) return texts;
  const out = await gitBuffer(
    repo,
    ["cat-file", "--batch"],
    `${wanted.map((p) => `${commit}:${p}`).join("\n")}\n`,
  );
  let at = 0;
  for (const path of wanted) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) break;
    const head = out.subarray(at, eol).toString("utf8");
    const object = /^[0-9a-f]+ (\w+) (\d+)$/.exec(head);
    if (!object) {
      // `<name> missing`: new at the fix. Anything else is not known.
      at = eol + 1;
      if (!head.endsWith(" missing")) texts.set(path, null);
      continue;
    }
    const size = Number(object[2]);
    const isText = object[1] === "blob" && size <= MAX_TEST_FILE_BYTES;
    texts.set(path, isText ? out.subarray(eol + 1, eol + 1 + size).toString("utf8") : null);
    at = eol + 1 + size + 1;
  }
  return texts;
}

/** At most this many configuration files are read (runner-config.ts). */
const MAX_CONFIGS = 200;

/**
 * What the plans read of the base commit, from `repo` (the base-only mirror, or the task's host
 * mirror: the same commit's tree): the package scripts behind the suites' commands and the existing
 * suite's test files (with the setup files the seal plan reads); both null without a host mirror.
 * The two reads are independent: one git process each, at once.
 */
export async function baseInputs(
  task: LoadedTask["task"],
  repo: string | null,
): Promise<{ scripts: PackageScripts | null; base: BaseTests | null }> {
  if (repo === null) return { scripts: null, base: null };
  const commit = task.repo.baseCommit;
  const commands = [task.suites.existing.command, task.suites.hidden.command];
  const reading = basePackageScripts(repo, commit, commands);
  // The configs the commands name by --config (in a package script too) are read once the scripts are.
  const calls = reading.then((scripts) => commandConfigs(commands, scripts)).catch(() => []);
  // Any runner's --config file (mocha's too), which runner-config.ts reads instead of the default names.
  const named = reading.then((scripts) => namedConfigPaths(commands, scripts)).catch(() => []);
  const [scripts, base] = await Promise.all([
    reading,
    baseTestTexts(repo, commit, task.suites.existing.files, calls, named),
  ]);
  return { scripts, base };
}

/** The jest/vitest configs and setup flags the suites' commands name (setup-modules.ts commandConfig). */
export function commandConfigs(commands: readonly string[], scripts: PackageScripts | null): CommandConfig[] {
  return commands.flatMap((command) => {
    const call = findRunner(command, scripts);
    const named = call === null ? null : commandConfig(call);
    return named === null ? [] : [named];
  });
}

/** The configuration files the suites' commands name by --config (runner-config.ts namedConfig). */
export function namedConfigPaths(commands: readonly string[], scripts: PackageScripts | null): string[] {
  return commands.flatMap((command) => {
    const call = findRunner(command, scripts);
    const named = call === null ? null : namedConfig(call.framework, call.args, call.cwd);
    return named !== null && "path" in named ? [named.path] : [];
  });
}

/**
 * The text of the base commit's files that match the existing suite's globs and look like test
 * sources, and of the runner configuration files anywhere in it (runner-config.ts: CONFIG_NAMES),
 * with those the suites' commands name by `--config` (`commands`, `namedPaths`).
 */
export async function baseTestTexts(
  repo: string,
  commit: string,
  globs: readonly string[],
  commands: readonly CommandConfig[] | Promise<readonly CommandConfig[]> = [],
  /** Other configuration files the commands name (mocha's --config). */
  namedPaths: readonly string[] | Promise<readonly string[]> = [],
): Promise<BaseTests> {
  const matches = picomatch([...globs], { dot: true });
  const [tree, commandsNamed, otherNamed] = await Promise.all([
    gitBuffer(repo, ["ls-tree", "-r", "-z", "-l", commit]),
    commands,
    namedPaths,
  ]);
  const listing = tree.toString("utf8");
  const namedConfigs = new Set([
    ...commandsNamed.flatMap((c) => (c.config === null ? [] : [c.config])),
    ...otherNamed,
  ]);
  const wanted: Array<{ oid: string; path: string }> = [];
  const configs: Array<{ oid: string; path: string; size: number }> = [];
  const configsPast: string[] = [];
  const blobsByPath = new Map<string, { oid: string; size: number }>();
  for (const entry of listing.split("\0")) {
    const m = /^(100644|100755) blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(entry);
    if (!m) continue;
    const [oid, size, path] = [m[2]!, Number(m[3]), m[4]!];
    blobsByPath.set(path, { oid, size });
    if (CONFIG_NAMES.has(path.slice(path.lastIndexOf("/") + 1)) || namedConfigs.has(path))
      if (configs.length < MAX_CONFIGS) configs.push({ oid, path, size });
      else configsPast.push(path);
    if (size > MAX_TEST_FILE_BYTES || !TEST_SOURCE.test(path) || !matches(path)) continue;
    wanted.push({ oid, path });
  }
  const picked = wanted.slice(0, MAX_FILES);
  const readable = configs.filter((c) => c.size <= MAX_TEST_FILE_BYTES);
  const inSuite = new Set(picked.map((p) => p.path));
  const [grepped, blobs] = await Promise.all([
    extensionFiles(repo, commit),
    readBlobs(repo, [...picked, ...readable]),
  ]);
  const texts = picked.map(({ path }, i) => ({ path, text: blobs[i]! }));
  const configTexts = new Map<string, string | null>(configs.map((c) => [c.path, null]));
  readable.forEach((c, i) => {
    configTexts.set(c.path, blobs[picked.length + i]!);
  });
  // The setup modules the runners' configs name: a repository file is read (its text, and the
  // packages it imports, decide), anything else stands as a module the planner cannot read.
  const listed = new Set(blobsByPath.keys());
  let modules = setupModules(configTexts, listed, new Map(), commandsNamed);
  // A jest preset that is a repository file (`preset: "./jest-preset.js"`) is a config too: read, then resolved again.
  if (modules.presetsWanted.length > 0) {
    const presetFiles = modules.presetsWanted.map((path) => ({ path, ...blobsByPath.get(path)! }));
    const presetReadable = presetFiles.filter((f) => f.size <= MAX_TEST_FILE_BYTES);
    const presetBlobs = await readBlobs(repo, presetReadable);
    const presets = new Map<string, string | null>(presetFiles.map((f) => [f.path, null]));
    presetReadable.forEach((f, i) => {
      presets.set(f.path, presetBlobs[i]!);
    });
    modules = setupModules(configTexts, listed, presets, commandsNamed);
  }
  const named = new Map(modules.files.map((f) => [f.path, f.runner] as const));
  const found = [...new Set([...named.keys(), ...grepped.filter((path) => !inSuite.has(path))])]
    .filter((path) => blobsByPath.has(path))
    .map((path) => ({ path, ...blobsByPath.get(path)! }));
  // At most MAX_CONFIGS are read; a file past them, or too large to read, may register anything:
  // read as one that does (brief s26 sealjs3, item 4: the seals that depend on it are unsealed).
  const setupReadable = found.slice(0, MAX_CONFIGS).filter((f) => f.size <= MAX_TEST_FILE_BYTES);
  const setupBlobs = await readBlobs(repo, setupReadable);
  const setupTexts = new Map(setupReadable.map((f, i) => [f.path, setupBlobs[i]!] as const));
  const setupFiles = found.map(({ path }) => ({
    path,
    text: setupTexts.get(path) ?? (path.endsWith(".py") ? UNREAD_PYTHON : UNREAD_EXTENSION),
  }));
  // A runner config past MAX_CONFIGS may name setup modules: one the planner cannot read, per runner it may configure.
  const configsUnread = [
    ...new Set(
      configsPast.flatMap((path) => {
        const name = path.slice(path.lastIndexOf("/") + 1);
        return name === "package.json" || name.startsWith("jest.config")
          ? ["jest"]
          : /^vite(st)?\.(config|workspace)\./.test(name)
            ? ["vitest"]
            : [];
      }),
    ),
  ].map((runner) => ({
    path: `${configsPast.length} runner configs past the first ${MAX_CONFIGS}`,
    text: setupModuleText(runner, `a config past the first ${MAX_CONFIGS}`),
  }));
  return {
    texts,
    capped: wanted.length > picked.length,
    configs: configTexts,
    setup: [
      ...setupFiles,
      ...modules.unread,
      ...configsUnread,
      ...setupFiles.flatMap(({ path, text }) =>
        named.has(path) ? packagesImported(named.get(path)!, path, text) : [],
      ),
    ],
  };
}

const UNREAD_EXTENSION =
  "expect.extend(unread);\nexpect.addEqualityTesters(unread);\nchai.use(unread);\nglobalThis.expect = unread;\nassert.unread = unread;\n";
/** A Python file too large to read that git grep found swapping unittest's asserts: read as one that does. */
const UNREAD_PYTHON = "unread.addTypeEqualityFunc(unread, unread)\n";

/** A reader of test-set's seal plan that a shape of SETUP_SHAPES feeds (each says whether a text does what the rule names). */
export type SetupReader =
  | "extendedMatchers"
  | "equalityTestersIn"
  | "chaiPluginIn"
  | "assertPatchedIn"
  | "expectRebound"
  | "ASSERTS_SWAPPED";

/**
 * What git grep looks for in the base commit's files to find setup files outside the existing
 * suite's globs (a setup file the runner's configuration names is rarely one of its test files,
 * and it changes what the hidden tests' matchers mean): one row per shape, each naming the reader
 * of test-set's seal plan that decides on the text (js/seal.ts, python/seal.ts). git grep reads
 * line by line, so a shape the reader sees across lines is two patterns a file must both hold
 * (`--all-match`). More files match than the readers accept: they read the texts again. The
 * existing-sentinels test greps each row's example and has its reader accept it, so the two
 * cannot drift apart. Extended regular expressions (git grep -E).
 */
export const SETUP_SHAPES: ReadonlyArray<{
  patterns: readonly string[];
  sources: "js" | "python";
  reader: SetupReader;
  why: string;
  example: string;
}> = [
  {
    patterns: ["[Ee]xpect[[:space:]]*(\\.[[:space:]]*extend|\\[[[:space:]]*[\"'`]extend)"],
    sources: "js",
    reader: "extendedMatchers",
    why: "expect.extend on expect or a name ending in it (`jestExpect.extend`), as a member or by a string key",
    example: 'jestExpect["extend"]({ toBe() {} });\n',
  },
  {
    // An alias's `e.extend(…)`, `globalThis.check = expect` then `check.extend(…)`, `const { extend } = expect`.
    patterns: ["(^|[^[:alnum:]_$])expect([^[:alnum:]_$]|$)", "extend"],
    sources: "js",
    reader: "extendedMatchers",
    why: "expect.extend through another name",
    example: "globalThis.check = expect;\ncheck\n  .extend({ toBe() {} });\n",
  },
  {
    patterns: ["addEqualityTesters"],
    sources: "js",
    reader: "equalityTestersIn",
    why: "an equality tester changes toEqual and toStrictEqual",
    example: "expect.addEqualityTesters([near]);\n",
  },
  {
    patterns: ["config[[:space:]]*(\\.[[:space:]]*deepEqual|\\[[[:space:]]*[\"'`]deepEqual)"],
    sources: "js",
    reader: "chaiPluginIn",
    why: "chai 5's comparator behind eql",
    example: "chai.config.deepEqual = cents;\n",
  },
  {
    patterns: ["chai[[:space:]]*\\.[[:space:]]*use|(overwrite|add)(Method|Property|ChainableMethod)"],
    sources: "js",
    reader: "chaiPluginIn",
    why: "a chai plugin loaded, or chai's methods redefined",
    example: "Assertion.overwriteMethod('equal', near);\n",
  },
  {
    patterns: ["Assertion[[:space:]]*\\.[[:space:]]*prototype"],
    sources: "js",
    reader: "chaiPluginIn",
    why: "chai's Assertion patched directly",
    example: "Assertion.prototype.equal = near;\n",
  },
  {
    patterns: ["^[[:space:]]*\\.[[:space:]]*use[[:space:]]*\\("],
    sources: "js",
    reader: "chaiPluginIn",
    why: "`chai` on one line and `.use(plugin)` on the next",
    example: 'require("chai")\n  .use(near);\n',
  },
  {
    // `import { use } from "chai"`, `use as plug`, a re-export.
    patterns: ["[\"'`]chai[\"'`]", "(^|[^[:alnum:]_$.])use([^[:alnum:]_$]|$)"],
    sources: "js",
    reader: "chaiPluginIn",
    why: "chai's use taken by name",
    example: 'import { use as plug } from "chai";\nplug(near);\n',
  },
  {
    patterns: ["[Aa]ssert[[:space:]]*(\\.[[:space:]]*[[:alnum:]_$]+|\\[[^]]*\\])[[:space:]]*=([^=>]|$)"],
    sources: "js",
    reader: "assertPatchedIn",
    why: "an assignment to a member of node's or chai's assert",
    example: "chai.assert.equal = chai.assert.strictEqual;\n",
  },
  {
    patterns: [
      "Object[[:space:]]*\\.[[:space:]]*(assign|definePropert(y|ies)|setPrototypeOf)[[:space:]]*\\([[:space:]]*[[:alnum:]_$.]*[Aa]ssert",
    ],
    sources: "js",
    reader: "assertPatchedIn",
    why: "an assert's members replaced at once",
    example: "Object.assign(nodeAssert, { equal: strict });\n",
  },
  {
    patterns: [
      "require[[:space:]]*\\([[:space:]]*[\"'`](node:)?assert(/strict)?[\"'`][[:space:]]*\\)[[:space:]]*(\\.[[:space:]]*strict)?[[:space:]]*(\\.[[:space:]]*[[:alnum:]_$]+|\\[[^]]*\\])[[:space:]]*=([^=>]|$)",
    ],
    sources: "js",
    reader: "assertPatchedIn",
    why: "a member of the assert module assigned without a name",
    example: 'require("node:assert").deepEqual = require("node:assert").deepStrictEqual;\n',
  },
  {
    // Reflect, sinon's replace/stub, jest's and vitest's spyOn/replaceProperty, node:test's mock.method on
    // an assert (attack review s26, finding 2).
    patterns: [
      "(Reflect[[:space:]]*\\.[[:space:]]*(set|defineProperty|setPrototypeOf)|(replace|stub|spyOn|replaceProperty)|\\.[[:space:]]*method)[[:space:]]*\\([[:space:]]*([[:alnum:]_$.]*[Aa]ssert([[:space:]]*\\.[[:space:]]*strict)?|require[[:space:]]*\\([[:space:]]*[\"'`](node:)?assert(/strict)?[\"'`][[:space:]]*\\))[[:space:]]*,",
    ],
    sources: "js",
    reader: "assertPatchedIn",
    why: "an assert patched through Reflect, a stub or a spy",
    example: 'Reflect.set(assert, "equal", assert.strictEqual);\n',
  },
  {
    // `global.t = assert`, `const verify = require("assert")`, then `t.equal = …` (brief s26 sealjs3, item 3).
    patterns: [
      "(^|[^[:alnum:]_$])assert([^[:alnum:]_$]|$)",
      "[[:alnum:]_$][[:space:]]*(\\.[[:space:]]*[[:alnum:]_$]+|\\[[^]]*\\])[[:space:]]*=([^=>]|$)",
    ],
    sources: "js",
    reader: "assertPatchedIn",
    why: "an assert patched through another name",
    example: 'global.verify = require("assert");\nverify.equal = verify.strictEqual;\n',
  },
  {
    patterns: ["(globalThis|global|window|self)[[:space:]]*(\\.[[:space:]]*expect|\\[[[:space:]]*.expect)"],
    sources: "js",
    reader: "expectRebound",
    why: "the global expect rebound (`globalThis.expect = wrap(expect)`)",
    example: "globalThis.expect = wrap(expect);\n",
  },
  {
    patterns: [
      "(defineProperty|assign)[[:space:]]*\\([[:space:]]*(globalThis|global|window|self)[[:space:]]*,",
    ],
    sources: "js",
    reader: "expectRebound",
    why: "the global expect defined or assigned (`Object.assign(globalThis, { expect: wrapped })`)",
    example: "Object.assign(globalThis, { expect: wrapped });\n",
  },
  {
    // Through Reflect or defineProperties (attack review s26, finding 3).
    patterns: [
      "(Reflect[[:space:]]*\\.[[:space:]]*(set|defineProperty)|defineProperties)[[:space:]]*\\([[:space:]]*(globalThis|global|window|self)[[:space:]]*,",
    ],
    sources: "js",
    reader: "expectRebound",
    why: "the global expect set through Reflect or defineProperties",
    example: 'Reflect.set(globalThis, "expect", wrapped);\n',
  },
  {
    // Through an alias of the global (`const g = globalThis; g.expect = …`, `Object.assign(g, { expect: … })`).
    patterns: [
      "(^|[^[:alnum:]_$.])(globalThis|global|window|self)([^[:alnum:]_$]|$)",
      "[\"'`]expect[\"'`]|\\.[[:space:]]*expect[[:space:]]*=([^=>]|$)|(assign|defineProperties|merge|defaults)[[:space:]]*\\([^;()]*\\{[^{}]*expect[[:space:]]*[:,}]",
    ],
    sources: "js",
    reader: "expectRebound",
    why: "a global object and expect set as a key or a member, through an alias",
    example: "const g = globalThis;\ng.expect = wrapped;\n",
  },
  {
    patterns: ["(^|;)[[:space:]]*expect[[:space:]]*=[^=>]"],
    sources: "js",
    reader: "expectRebound",
    why: "a statement `expect = …`",
    example: "expect = wrap(expect);\n",
  },
  {
    // A helper module the hidden tests import (`tests/helpers.py` calling `addTypeEqualityFunc`), a
    // `tests/__init__.py` or a pytest plugin is neither a test file by name nor a conftest (attack
    // review s25, finding 1a).
    patterns: [
      [
        "addTypeEqualityFunc|_type_equality_funcs|_baseAssertEqual|_getAssertEqualityFunc",
        "setattr[[:space:]]*\\(.*[\"'](assert|fail)",
        "\\.[[:space:]]*(assert[A-Z_][[:alnum:]_]*|fail([A-Z_][[:alnum:]_]*)?)[[:space:]]*(:[^=]*)?=([^=]|$)",
        // test-set's PATCHES_ASSERT: a string naming an assert (alone or at the end of a dotted path), a
        // setattr/__setattr__/patch.object of `fail` or on a …TestCase, a string naming TestCase, `TestCase =` (attack review s26, findings 1 and 1b).
        "[\"']([[:alnum:]_.]*\\.)?(assert[A-Z][[:alnum:]_]*|assert_|fail[A-Z][[:alnum:]_]*)[\"']",
        "[\"'][[:alnum:]_.]*TestCase\\.fail[\"']",
        "(setattr(__)?|(^|[^[:alnum:]_])object)[[:space:]]*\\([^)]*,[[:space:]]*[\"']fail[\"']",
        "(setattr(__)?|(^|[^[:alnum:]_])(object|multiple))[[:space:]]*\\([^,]*TestCase([^[:alnum:]_]|$)",
        "[\"'][[:alnum:]_.]*\\.TestCase[\"']",
        "[\"']TestCase[\"'][[:space:]]*\\]",
        "(setattr(__)?|(^|[^[:alnum:]_])object)[[:space:]]*\\([^)]*,[[:space:]]*[\"']TestCase[\"']",
        "(^|[^[:alnum:]_])TestCase[[:space:]]*=([^=]|$)",
        // `getattr(unittest, "TestCase")` assigned to or patched on the spot (brief s27 pyfix, item 1).
        "[\"'](IsolatedAsyncio)?TestCase[\"'][[:space:]]*\\)",
      ].join("|"),
    ],
    sources: "python",
    reader: "ASSERTS_SWAPPED",
    why: "unittest's assertEqual given a type's comparison, an assert…/fail… method assigned through any object, or patched by name in a string",
    example: "def in_order(case):\n    case.addTypeEqualityFunc(dict, f)\n",
  },
  {
    // test-set's aliasPatchesTestCase: TestCase bound to another name, then patched through it with no
    // assert spelled (`from unittest import TestCase as Case` … `mock.patch.multiple(Case, assertDictEqual=f)`;
    // brief s27 pyfix, item 1).
    patterns: [
      "(^|[^[:alnum:]_])(IsolatedAsyncio)?TestCase([[:space:]]+as[[:space:]]|[[:space:]]*(#.*)?$)",
      "(setattr(__)?|(^|[^[:alnum:]_])(object|multiple))[[:space:]]*\\(",
    ],
    sources: "python",
    reader: "ASSERTS_SWAPPED",
    why: "unittest's TestCase patched through another name it is bound to",
    example:
      "from unittest import TestCase as Case\nfrom unittest import mock\n\nmock.patch.multiple(Case, assertDictEqual=in_order).start()\n",
  },
];

/**
 * The base commit's JS/TS files, anywhere outside node_modules, and Python files outside installed
 * packages, that hold a shape of SETUP_SHAPES.
 */
async function extensionFiles(repo: string, commit: string): Promise<string[]> {
  const grep = (patterns: string[], paths: readonly string[]) =>
    gitBuffer(
      repo,
      [
        "grep",
        "-l",
        "-z",
        "-I",
        "-E",
        ...(patterns.length > 1 ? ["--all-match"] : []),
        ...patterns.flatMap((p) => ["-e", p]),
        commit,
        "--",
        ...paths,
      ],
      undefined,
      true,
    );
  const sources = {
    js: [...JS_SOURCES, ":(exclude)node_modules", ":(exclude)*/node_modules/*"],
    python: PY_SOURCES,
  };
  const single = (language: "js" | "python") =>
    SETUP_SHAPES.filter((s) => s.sources === language && s.patterns.length === 1).map((s) => s.patterns[0]!);
  const outs = await Promise.all([
    // The one-pattern shapes of a language in one grep; each pair in one of its own.
    ...(["js", "python"] as const).map((language) => grep([single(language).join("|")], sources[language])),
    ...SETUP_SHAPES.filter((s) => s.patterns.length > 1).map((s) =>
      grep([...s.patterns], sources[s.sources]),
    ),
  ]);
  const prefix = `${commit}:`;
  return [
    ...new Set(
      outs.flatMap((out) =>
        out
          .toString("utf8")
          .split("\0")
          .filter((p) => p.startsWith(prefix))
          .map((p) => p.slice(prefix.length)),
      ),
    ),
  ];
}
const JS_SOURCES = ["js", "cjs", "mjs", "jsx", "ts", "cts", "mts", "tsx"].map((ext) => `*.${ext}`);

/** Python files outside installed packages and virtual environments. */
const PY_SOURCES = [
  "*.py",
  ":(exclude)*site-packages/*",
  ":(exclude)*dist-packages/*",
  ":(exclude).venv/*",
  ":(exclude)*/.venv/*",
  ":(exclude)venv/*",
  ":(exclude)*/venv/*",
  ":(exclude).tox/*",
  ":(exclude)*/.tox/*",
];

/** The texts of blobs by id, in order. */
async function readBlobs(repo: string, blobs: ReadonlyArray<{ oid: string }>): Promise<string[]> {
  if (blobs.length === 0) return [];
  const out = await gitBuffer(repo, ["cat-file", "--batch"], `${blobs.map((w) => w.oid).join("\n")}\n`);
  const texts: string[] = [];
  let at = 0;
  for (const _ of blobs) {
    const eol = out.indexOf(0x0a, at);
    const size = Number(/ blob (\d+)$/.exec(out.subarray(at, eol).toString("latin1"))?.[1]);
    texts.push(out.subarray(eol + 1, eol + 1 + size).toString("utf8"));
    at = eol + 1 + size + 1;
  }
  return texts;
}

/** The existing command's runner: read from it; task.json's `framework` names the hidden runner, and `other` turns sentinels off. */
export function existingRunner(
  task: LoadedTask["task"],
  scripts: PackageScripts | null = null,
): ReturnType<typeof sentinelRunner> {
  if (task.framework === "other") return null;
  const command = task.suites.existing.command;
  return (
    findRunner(command, scripts) ??
    sentinelRunner({ framework: task.framework, suites: { hidden: { command } } }, scripts)
  );
}

/** The base commit's test files of the existing suite, and its runner configuration files. */
export interface BaseTests {
  texts: HiddenText[];
  capped: boolean;
  /** The runner's configuration files at the base commit (runner-config.ts), by path. */
  configs?: RunnerConfigs;
  /** Other JS/TS files that register matchers or equality testers (setup files), for the seal plan. */
  setup?: HiddenText[];
}

/**
 * The existing suite's plan, and its `none` record with the reason when it has none. The pair goes
 * only into files the existing command provably runs (docs/security.md, "Plant only what can be
 * proven"): never into a file the hidden suite brings (the fix changed it: a well-made existing
 * command leaves it out), one the command removes first, or one its selection's ignores leave out;
 * and nowhere when the command or the runner's configuration can change the selection in a way the
 * oracle does not read.
 */
export function planExisting(
  task: LoadedTask["task"],
  base: BaseTests | null,
  scripts: PackageScripts | null = null,
  /** The hidden test files' paths (those the base commit also has are the fix's, not the existing suite's). */
  hiddenPaths: readonly string[] = [],
): { sentinel: Sentinel | null; none?: SentinelResult } {
  const runner = existingRunner(task, scripts);
  const none = (note: string) => ({
    sentinel: null,
    none: { state: "none" as const, framework: runner?.framework ?? null, required: false, files: [], note },
  });
  if (base === null)
    return none("the mirror is in the image: the base commit's test files are not read on the host");
  const command = task.suites.existing.command;
  const proof = proveCommand(
    command,
    (words) => findRunner(words.join(" ")) !== null || scriptCall(words) !== null,
  );
  const call = runner && "cwd" in runner ? (runner as RunnerCall) : null;
  const doubts = [
    ...proof.unreadable,
    ...(runner && call
      ? configDoubts(runner.framework, base.configs ?? new Map(), call.cwd, namesPaths(call), call.args)
      : []),
  ];
  if (doubts.length > 0)
    return none(`cannot prove which test files the existing command runs: ${doubts.join("; ")}`);
  const hidden = new Set(hiddenPaths);
  const texts = base.texts.filter((t) => !hidden.has(t.path) && !removedBy(proof, t.path));
  const sentinel = planSentinels(runner, texts, base.texts);
  if (!sentinel) return none(noSentinelNote(runner, texts).replace("hidden", "existing"));
  // Only the files the selection surely runs: a pair in any other would be read as missing.
  const appends = sentinel.appends.filter((a) => sentinel.required.includes(a.path));
  if (appends.length === 0)
    return none(
      `cannot prove the existing command runs any of its test files${sentinel.note ? ` (${sentinel.note})` : ""}`,
    );
  const proven = { ...sentinel, appends, required: appends.map((a) => a.path) };
  if (!base.capped) return { sentinel: proven };
  const note = `only the first ${MAX_FILES} of the existing suite's test files were read`;
  return {
    sentinel: { ...proven, required: [], note: proven.note ? `${proven.note}; ${note}` : note },
  };
}

/** Whether a runner call names the paths it runs (else pytest falls back to its `testpaths`). */
function namesPaths(call: RunnerCall): boolean {
  return call.args.some((a, i) => !a.startsWith("-") && !(i > 0 && /^-[a-zA-Z]$/.test(call.args[i - 1]!)));
}

/** Plans the existing suite's sentinels and logs them, or records (and warns) why it has none. */
export function existingSentinels(
  task: LoadedTask["task"],
  base: BaseTests | null,
  log: RunLog,
  state: RunState,
  scripts: PackageScripts | null = null,
  hiddenPaths: readonly string[] = [],
): Sentinel | null {
  const { sentinel, none } = planExisting(task, base, scripts, hiddenPaths);
  if (!sentinel) {
    if (none) state.existingSentinel = none;
    log.event("sentinel", { suite: "existing", none: true, note: none?.note });
    log.warn(`existing suite unprotected: no sentinel (${none?.note})`);
    return null;
  }
  log.event("sentinel", {
    suite: "existing",
    framework: sentinel.framework,
    files: sentinel.appends.map((a) => a.path),
    required: sentinel.required,
    ...(sentinel.note ? { note: sentinel.note } : {}),
    ...(sentinel.command ? { command: sentinel.command } : {}),
  });
  if (sentinel.command)
    log.info(`existing: the command's selection widened to the oracle's tests: ${sentinel.command}`);
  return sentinel;
}
