import { execFile } from "node:child_process";
import type { LoadedTask, SentinelResult } from "@oracle/spec";
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
import { CONFIG_NAMES, configDoubts, type RunnerConfigs } from "./runner-config.js";
import {
  type HiddenText,
  MAX_TEST_FILE_BYTES,
  noSentinelNote,
  planSentinels,
  type Sentinel,
  sentinelRunner,
  TEST_SOURCE,
} from "./sentinels.js";
import { packagesImported, setupModules } from "./setup-modules.js";

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
  const [scripts, base] = await Promise.all([
    basePackageScripts(repo, commit, commands),
    baseTestTexts(repo, commit, task.suites.existing.files),
  ]);
  return { scripts, base };
}

/**
 * The text of the base commit's files that match the existing suite's globs and look like test
 * sources, and of the runner configuration files anywhere in it (runner-config.ts: CONFIG_NAMES).
 */
export async function baseTestTexts(
  repo: string,
  commit: string,
  globs: readonly string[],
): Promise<BaseTests> {
  const matches = picomatch([...globs], { dot: true });
  const listing = (await gitBuffer(repo, ["ls-tree", "-r", "-z", "-l", commit])).toString("utf8");
  const wanted: Array<{ oid: string; path: string }> = [];
  const configs: Array<{ oid: string; path: string; size: number }> = [];
  const blobsByPath = new Map<string, { oid: string; size: number }>();
  for (const entry of listing.split("\0")) {
    const m = /^(100644|100755) blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(entry);
    if (!m) continue;
    const [oid, size, path] = [m[2]!, Number(m[3]), m[4]!];
    blobsByPath.set(path, { oid, size });
    if (CONFIG_NAMES.has(path.slice(path.lastIndexOf("/") + 1)) && configs.length < MAX_CONFIGS)
      configs.push({ oid, path, size });
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
  const modules = setupModules(configTexts, new Set(blobsByPath.keys()));
  const named = new Map(modules.files.map((f) => [f.path, f.runner] as const));
  const setup = [...new Set([...named.keys(), ...grepped.filter((path) => !inSuite.has(path))])]
    .filter((path) => blobsByPath.has(path))
    .slice(0, MAX_CONFIGS)
    .map((path) => ({ path, ...blobsByPath.get(path)! }));
  const setupReadable = setup.filter((f) => f.size <= MAX_TEST_FILE_BYTES);
  const setupBlobs = await readBlobs(repo, setupReadable);
  const setupTexts = new Map(setupReadable.map((f, i) => [f.path, setupBlobs[i]!] as const));
  // A file too large to read may register anything: read as one whose argument is unknown.
  // A file too large to read may register anything: read as one whose argument is unknown.
  const setupFiles = setup.map(({ path }) => ({
    path,
    text: setupTexts.get(path) ?? (path.endsWith(".py") ? UNREAD_PYTHON : UNREAD_EXTENSION),
  }));
  return {
    texts,
    capped: wanted.length > picked.length,
    configs: configTexts,
    setup: [
      ...setupFiles,
      ...modules.unread,
      ...setupFiles.flatMap(({ path, text }) =>
        named.has(path) ? packagesImported(named.get(path)!, path, text) : [],
      ),
    ],
  };
}

const UNREAD_EXTENSION =
  "expect.extend(unread);\nexpect.addEqualityTesters(unread);\nchai.use(unread);\nglobalThis.expect = unread;\n";
/** A Python file too large to read that git grep found swapping unittest's asserts: read as one that does. */
const UNREAD_PYTHON = "unread.addTypeEqualityFunc(unread, unread)\n";

/**
 * What registers a jest/vitest matcher or equality tester (js/seal.ts extendedMatchers, seal-run.ts),
 * or loads a chai plugin (js/seal.ts chaiPluginIn: `chai.use`, `overwriteMethod`, `addMethod`…), or
 * patches an assert (assertPatchedIn). An alias of expect or assert under a name that does not end
 * in it is seen in the hidden files and the suite's own, not here.
 */
const EXTENDS_EXPECT = [
  // On expect or a name ending in it (`jestExpect.extend`), as a member or by a string key.
  "[Ee]xpect[[:space:]]*(\\.[[:space:]]*extend|\\[[[:space:]]*[\"'`]extend)|addEqualityTesters",
  // chai 5's comparator behind eql (js/seal.ts chaiPluginIn).
  "config[[:space:]]*(\\.[[:space:]]*deepEqual|\\[[[:space:]]*[\"'`]deepEqual)",
  // An assignment to a member of node's or chai's assert (js/seal.ts assertPatchedIn).
  "[Aa]ssert[[:space:]]*(\\.[[:space:]]*[[:alnum:]_$]+|\\[[^]]*\\])[[:space:]]*=([^=>]|$)",
  "Object[[:space:]]*\\.[[:space:]]*(assign|definePropert(y|ies)|setPrototypeOf)[[:space:]]*\\([[:space:]]*[[:alnum:]_$.]*[Aa]ssert",
  "require[[:space:]]*\\([[:space:]]*[\"'`](node:)?assert(/strict)?[\"'`][[:space:]]*\\)[[:space:]]*(\\.[[:space:]]*strict)?[[:space:]]*(\\.[[:space:]]*[[:alnum:]_$]+|\\[[^]]*\\])[[:space:]]*=([^=>]|$)",
  "chai[[:space:]]*\\.[[:space:]]*use|(overwrite|add)(Method|Property|ChainableMethod)",
  "Assertion[[:space:]]*\\.[[:space:]]*prototype",
  // `chai` on one line and `.use(plugin)` on the next: git grep reads line by line.
  "^[[:space:]]*\\.[[:space:]]*use[[:space:]]*\\(",
  // The global expect rebound (js/seal.ts expectRebound): `globalThis.expect = wrap(expect)`,
  // `Object.defineProperty(global, "expect", …)`, a statement `expect = …`.
  "(globalThis|global|window|self)[[:space:]]*(\\.[[:space:]]*expect|\\[[[:space:]]*.expect)",
  "defineProperty[[:space:]]*\\([[:space:]]*(globalThis|global|window|self)[[:space:]]*,",
  "(^|;)[[:space:]]*expect[[:space:]]*=[^=>]",
].join("|");

/**
 * Files that name both words, read line by line apart: `expect` and `extend` (an alias's
 * `e.extend(…)`, `const { extend } = expect`, `expect["extend"]`: js/seal.ts extendedMatchers), and
 * the chai module and a `use` not after a dot (`import { use } from "chai"`, `use as plug`, a
 * re-export: chaiPluginIn). The texts decide.
 */
const BOTH_WORDS: ReadonlyArray<readonly [string, string]> = [
  ["(^|[^[:alnum:]_$])expect([^[:alnum:]_$]|$)", "extend"],
  ["[\"'`]chai[\"'`]", "(^|[^[:alnum:]_$.])use([^[:alnum:]_$]|$)"],
];

/**
 * The base commit's JS/TS files, anywhere outside node_modules, that register matchers or equality
 * testers or load a chai plugin, and its Python files that may swap unittest's asserts (SWAPS_UNITTEST_ASSERTS): a setup file the runner's configuration names (`setupFilesAfterEnv: ["jest.setup.js"]`)
 * is rarely one of the existing suite's files, and it changes what the hidden tests' matchers mean.
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
  const js = [...JS_SOURCES, ":(exclude)node_modules", ":(exclude)*/node_modules/*"];
  const outs = await Promise.all([
    grep([EXTENDS_EXPECT], js),
    ...BOTH_WORDS.map((pair) => grep([...pair], js)),
    grep([SWAPS_UNITTEST_ASSERTS], PY_SOURCES),
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

/**
 * The words of test-set's ASSERTS_SWAPPED (python/seal.ts), for git grep: what registers a type's
 * comparison for unittest's assertEqual, or assigns an `assert…`/`fail…` method through any object.
 * A helper module the hidden tests import (`tests/helpers.py` calling `addTypeEqualityFunc`), a
 * `tests/__init__.py` or a pytest plugin is neither a test file by name nor a conftest, and the
 * class's dict `assertEqual` was sealed as `==` while the helper made it order-sensitive (attack
 * review s25, finding 1a). More matches than swaps: the seal plan reads the files again.
 */
const SWAPS_UNITTEST_ASSERTS = [
  "addTypeEqualityFunc|_type_equality_funcs|_baseAssertEqual|_getAssertEqualityFunc",
  "setattr[[:space:]]*\\(.*[\"'](assert|fail)",
  "\\.[[:space:]]*(assert[A-Z_][[:alnum:]_]*|fail([A-Z_][[:alnum:]_]*)?)[[:space:]]*(:[^=]*)?=([^=]|$)",
].join("|");
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
      ? configDoubts(runner.framework, base.configs ?? new Map(), call.cwd, namesPaths(call))
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
