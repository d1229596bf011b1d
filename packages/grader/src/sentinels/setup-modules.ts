import { builtinModules } from "node:module";
import { posix } from "node:path";
import { setupModuleText } from "@oracle/test-set";
import type { RunnerCall } from "./runner-command.js";
import type { RunnerConfigs } from "./runner-config.js";
import type { HiddenText } from "./sentinels.js";

/**
 * The setup modules the runners' configurations at the base commit name (jest's `setupFiles`,
 * `setupFilesAfterEnv`, `testEnvironment`; vitest's `setupFiles`, `environment`): they run beside
 * every test file and may redefine its matchers (docs/security.md, "Sealed expectations"; rules.ts
 * `unsealed.setup-module`). A repository file is read for the seal plan like any setup file; a
 * package (`jest-extended/all`, `@testing-library/jest-dom`), an entry the config computes, and a
 * package a named setup file imports are not read: each stands in the plan as a setup module the
 * planner cannot read (test-set's setupModuleText), for the runner whose configuration names it.
 * `globalSetup` runs outside the test files' context, and `snapshotSerializers` change how a
 * snapshot prints, not what a matcher compares: neither is read.
 */

const JS_EXTENSIONS = ["", ".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx"];

/** Environments the runners bring themselves. */
const OWN_ENVIRONMENTS: Record<"jest" | "vitest", ReadonlySet<string>> = {
  jest: new Set(["node", "jsdom", "jest-environment-node", "jest-environment-jsdom"]),
  vitest: new Set(["node", "jsdom", "happy-dom", "edge-runtime"]),
};

/** Modules a setup file may import that change no matcher the planner does not see (chai's `use` is read by chaiPluginIn). */
const PLAIN_MODULES = new Set(["vitest", "@jest/globals", "expect", "chai", ...builtinModules]);

/** An entry of a config: its key and value; null when the config computes it (not a literal). */
interface Entry {
  key: string;
  value: string | null;
}

/** The string literals of a JS/TS config's `key: [ … ]` or `key: "…"`; one null entry for what is not a literal. */
function entriesInScript(text: string, key: string): Entry[] {
  const out: Entry[] = [];
  for (const m of text.matchAll(new RegExp(`\\b${key}\\b["'\`]?\\s*(:|[,}])?`, "g"))) {
    const start = m.index + m[0].length;
    // `{ setupFiles }`: a variable's value. A mention followed by neither (a comment's) is none.
    if (m[1] !== ":") {
      if (m[1] !== undefined) out.push({ key, value: null });
      continue;
    }
    const rest = text.slice(start).trimStart();
    // `rootDir: __dirname`: the config's own folder.
    if (/^__dirname(?![\w$])\s*[,}\n]/.test(rest)) {
      out.push({ key, value: "." });
      continue;
    }
    const quoted = /^(["'`])((?:(?!\1)[^\\\n$])*)\1/.exec(rest);
    if (quoted) {
      out.push({ key, value: quoted[2]! });
      continue;
    }
    if (!rest.startsWith("[")) {
      out.push({ key, value: null });
      continue;
    }
    const end = rest.indexOf("]");
    const inside = end < 0 ? rest : rest.slice(1, end);
    const strings = [...inside.matchAll(/(["'`])((?:(?!\1)[^\\\n$])*)\1/g)];
    for (const s of strings) out.push({ key, value: s[2]! });
    const left = inside
      .replace(/(["'`])((?:(?!\1)[^\\\n$])*)\1/g, "")
      .replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, "")
      .replace(/[\s,]/g, "");
    if (end < 0 || left !== "") out.push({ key, value: null });
  }
  return out;
}

/** The entries of a JSON config object (package.json's `jest`, jest.config.json). */
function entriesInJson(config: unknown, keys: readonly string[]): Entry[] {
  if (typeof config !== "object" || config === null) return [];
  const out: Entry[] = [];
  for (const key of keys) {
    const value = (config as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) out.push({ key, value: typeof v === "string" ? v : null });
  }
  // jest's inline projects, each a config of its own (`projects: [{ setupFilesAfterEnv: […] }]`);
  // a path is kept (setupModules reads a config file it names).
  const projects = (config as Record<string, unknown>).projects;
  if (Array.isArray(projects))
    for (const project of projects)
      if (typeof project === "string") out.push({ key: "projects", value: project });
      else if (typeof project === "object") out.push(...entriesInJson(project, keys));
  return out;
}

const JEST_KEYS = ["setupFiles", "setupFilesAfterEnv", "testEnvironment", "preset", "rootDir"];
const VITEST_KEYS = ["setupFiles", "environment", "root"];
/** The key naming the folder setup entries are resolved from (jest's `<rootDir>`; vitest's `root`). */
const ROOT_KEYS = new Set(["rootDir", "root"]);

/**
 * jest presets known to name no setup module and no environment (ts-jest's: a transform only).
 * Any other package's `jest-preset` may name setup files: a module the planner cannot read.
 */
const PLAIN_PRESET = /^ts-jest(\/presets\/[\w-]+)?$/;

/** Whether an entry names a file by path (from the root folder) rather than a package. */
const isPath = (entry: string) => /^(\.\.?(\/|$)|<rootDir>|\/)/.test(entry);

/** The repository file an entry names from `root` (the config's root folder), or null (a package, or not there). */
function repositoryFile(
  root: string,
  entry: string,
  files: ReadonlySet<string>,
  extensions: readonly string[] = JS_EXTENSIONS,
): string | null {
  const rooted = entry.replace(/^<rootDir>\/?/, "./");
  if (posix.isAbsolute(rooted)) return null;
  const base = posix.normalize(posix.join(root, rooted));
  if (base.startsWith("../")) return null;
  for (const stem of [base, posix.join(base, "index")])
    for (const ext of extensions) if (files.has(`${stem}${ext}`)) return `${stem}${ext}`;
  return null;
}

type Runner = "jest" | "vitest";

/**
 * What a suite's command tells its runner of setup modules besides the config files it finds by name:
 * a config named by `--config FILE` (`-c FILE`, `--config=FILE`; jest's inline JSON too), which may be
 * named anything (`jest --config jest.ci.js`, in the task's command or in the package script it runs),
 * and the setup entries the command passes as flags. `config` is the file's path from the checkout's
 * root (null: none, or one outside the checkout: `outside`), `entries` the flags' entries, resolved
 * from `cwd` as the runner resolves them.
 */
export interface CommandConfig {
  runner: Runner;
  cwd: string;
  /** How the setup module list names it: the runner and the flag. */
  label: string;
  config: string | null;
  /** A config named by a path the oracle cannot resolve in the checkout (absolute, `..`, a variable). */
  outside: string | null;
  /** jest's `--config '{…}'`: the config itself. */
  inline: string | null;
  entries: Entry[];
}

/** The setup flags of each runner's command line, by the key of the config they stand for; `-c` is both runners' `--config`. */
const COMMAND_FLAGS: Record<Runner, Record<string, { key: string; many?: true }>> = {
  jest: {
    "--config": { key: "config" },
    "-c": { key: "config" },
    "--rootDir": { key: "rootDir" },
    "--preset": { key: "preset" },
    "--setupFiles": { key: "setupFiles", many: true },
    "--setupFilesAfterEnv": { key: "setupFilesAfterEnv", many: true },
    "--testEnvironment": { key: "testEnvironment" },
    "--env": { key: "testEnvironment" },
  },
  vitest: {
    "--config": { key: "config" },
    "-c": { key: "config" },
    "--root": { key: "root" },
    "-r": { key: "root" },
    "--environment": { key: "environment" },
  },
};

/**
 * The configs and setup entries a runner call names on its command line (setupModules reads them).
 * An array flag of jest's (`--setupFilesAfterEnv a.js b.js`) takes the words after it that are no
 * flags, as jest's argument parser does; a value the shell would expand is computed.
 */
export function commandConfig(call: RunnerCall): CommandConfig | null {
  if (call.framework !== "jest" && call.framework !== "vitest") return null;
  const runner: Runner = call.framework;
  const flags = COMMAND_FLAGS[runner];
  const out: CommandConfig = {
    runner,
    cwd: call.cwd,
    label: `${runner} command line`,
    config: null,
    outside: null,
    inline: null,
    entries: [],
  };
  const take = (key: string, value: string) => {
    const computed = /[$`]/.test(value);
    if (key !== "config") {
      out.entries.push({ key, value: computed ? null : value });
      return;
    }
    if (runner === "jest" && value.trimStart().startsWith("{")) out.inline = value;
    else if (computed || posix.isAbsolute(value)) out.outside = value;
    else {
      const path = posix.normalize(posix.join(call.cwd, value));
      if (path.startsWith("../")) out.outside = value;
      else out.config = path;
    }
  };
  const args = call.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const flag = flags[name];
    if (flag === undefined) continue;
    if (name !== arg) {
      take(flag.key, arg.slice(eq + 1));
      continue;
    }
    if (args[i + 1] === undefined || args[i + 1]!.startsWith("-")) continue;
    take(flag.key, args[++i]!);
    while (flag.many && args[i + 1] !== undefined && !args[i + 1]!.startsWith("-"))
      take(flag.key, args[++i]!);
  }
  const named = out.config ?? out.outside ?? (out.inline === null ? null : "(inline)");
  if (named !== null) out.label = `${runner} --config ${named}`;
  return out.config === null && out.outside === null && out.inline === null && out.entries.length === 0
    ? null
    : out;
}

/**
 * The setup modules the base commit's runner configurations name: `files`, the repository files
 * among them (read as context), and `unread`, a setup module the planner cannot read for each
 * entry that is not one (a package, a computed entry, a config too large to read, an environment
 * that is not the runner's own). Setup entries resolve from the config's root folder (jest's
 * `rootDir`, vitest's `root`; each one a config names, its inline projects' too). A jest `preset`
 * that is a repository file is read as a config of the same root, and a project given as a config
 * file (`projects: ["<rootDir>/jest.unit.js"]`) as a config of its own folder: their texts come in
 * `presets`, and `presetsWanted` names the files whose text the caller has not given yet.
 */
export function setupModules(
  configs: RunnerConfigs,
  repositoryFiles: ReadonlySet<string>,
  presets: ReadonlyMap<string, string | null> = new Map(),
  /** The configs and setup flags the suites' commands name (commandConfig): read as the runner reads them. */
  commands: readonly CommandConfig[] = [],
): { files: Array<{ runner: Runner; path: string }>; unread: HiddenText[]; presetsWanted: string[] } {
  const files: Array<{ runner: Runner; path: string }> = [];
  const unread: HiddenText[] = [];
  const presetsWanted: string[] = [];
  const cannotRead = (runner: Runner, path: string, key: string, value: string | null) =>
    unread.push({
      path: `${path}: ${key} ${value ?? "(computed)"}`,
      text: setupModuleText(runner, value ?? `${key} in ${path}`),
    });
  /** Reads a preset or a project's config file given by the caller, or asks for it; `from`: the folder its entries resolve from. */
  const readConfig = (runner: Runner, file: string, from: string, roots: Entry[]) => {
    if (!presets.has(file)) {
      presetsWanted.push(file);
      return;
    }
    const text = presets.get(file) ?? null;
    const inner = text === null ? null : configEntries(file, text, JEST_KEYS);
    if (inner === null) cannotRead(runner, file, "config", file);
    else
      resolve(
        runner,
        file,
        from,
        [...roots, ...inner.filter((e) => !ROOT_KEYS.has(e.key) || roots.length === 0)],
        true,
      );
  };
  const resolve = (runner: Runner, path: string, dir: string, entries: Entry[], nested: boolean) => {
    const roots = entries
      .filter((e) => ROOT_KEYS.has(e.key))
      .map((e) =>
        e.value === null ? null : posix.normalize(posix.join(dir, e.value.replace(/^<rootDir>\/?/, "./"))),
      );
    if (roots.length === 0) roots.push(dir);
    for (const { key, value } of entries) {
      if (ROOT_KEYS.has(key)) continue;
      if (value === null) {
        cannotRead(runner, path, key, value);
        continue;
      }
      if (key === "projects") {
        // A project given as a config file (`projects: ["<rootDir>/jest.unit.config.js"]`) is read as
        // a config of its own folder; a folder or a glob names projects whose own configs are read where they are.
        if (nested || /[*?{[]/.test(value)) continue;
        for (const root of roots) {
          const file =
            root === null ? null : posix.normalize(posix.join(root, value.replace(/^<rootDir>\/?/, "./")));
          if (file !== null && /\.([cm]?[jt]s|json)$/.test(file) && repositoryFiles.has(file))
            readConfig(runner, file, posix.dirname(file) === "." ? "" : posix.dirname(file), []);
        }
        continue;
      }
      const environment = key === "testEnvironment" || key === "environment";
      if (environment) {
        // An environment builds the test files' global object: a repository one may patch what the
        // matchers use (`this.global.Object.is`, which jest's toBe calls), which no reader of a setup
        // file sees (brief s26 sealjs3, item 2). Only the runners' own are known.
        if (!OWN_ENVIRONMENTS[runner].has(value)) cannotRead(runner, path, key, value);
        continue;
      }
      if (key === "preset" && PLAIN_PRESET.test(value)) continue;
      // A computed root: an entry resolved from it is not known.
      // jest reads a preset that is not a relative path from its folder's jest-preset file.
      const [entry, extensions] =
        key !== "preset"
          ? [value, JS_EXTENSIONS]
          : [value.startsWith(".") ? value : `${value}/jest-preset`, [...JS_EXTENSIONS, ".json"]];
      const found = roots.map((root) =>
        root === null ? null : repositoryFile(root, entry, repositoryFiles, extensions),
      );
      const named = [...new Set(found.filter((f): f is string => f !== null))];
      if (named.length === 0 || (isPath(value) && roots.includes(null))) cannotRead(runner, path, key, value);
      if (key !== "preset") {
        for (const file of named) files.push({ runner, path: file });
        continue;
      }
      if (nested) {
        // A preset's preset: not followed.
        cannotRead(runner, path, key, value);
        continue;
      }
      // The preset's entries resolve from the config's root (jest merges it into the config).
      for (const file of named)
        readConfig(
          runner,
          file,
          dir,
          entries.filter((e) => ROOT_KEYS.has(e.key)),
        );
    }
  };
  const byName = new Set<string>();
  for (const [path, text] of configs) {
    const name = posix.basename(path);
    const dir = posix.dirname(path) === "." ? "" : posix.dirname(path);
    let runner: Runner | null = null;
    let entries: Entry[] = [];
    if (name === "package.json") {
      if (text === null) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
      } catch {
        continue;
      }
      const jest = (parsed as { jest?: unknown } | null)?.jest;
      if (jest === undefined) continue;
      runner = "jest";
      entries = typeof jest === "object" ? entriesInJson(jest, JEST_KEYS) : [{ key: "jest", value: null }];
    } else if (name.startsWith("jest.config")) {
      runner = "jest";
      entries = (text === null ? null : configEntries(name, text, JEST_KEYS)) ?? [{ key: name, value: null }];
      // The projects given by path (their inline configs' keys are read above, wherever they are).
      if (text !== null && !name.endsWith(".json"))
        entries.push(...entriesInScript(text, "projects").filter((e) => e.value !== null));
    } else if (/^vite(st)?\.(config|workspace)\./.test(name)) {
      runner = "vitest";
      entries =
        text === null
          ? [{ key: name, value: null }]
          : VITEST_KEYS.flatMap((key) => entriesInScript(text, key));
    }
    if (runner !== null) {
      resolve(runner, path, dir, entries, false);
      byName.add(`${runner}:${path}`);
    }
  }
  // A config a command names (jest reads only it then; read besides the others: the conservative side).
  for (const command of commands) {
    const { runner, cwd, label } = command;
    if (command.outside !== null) cannotRead(runner, label, "config", command.outside);
    if (command.inline !== null) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(command.inline);
      } catch {
        parsed = undefined;
      }
      if (typeof parsed === "object" && parsed !== null)
        resolve(runner, label, cwd, entriesInJson(parsed, JEST_KEYS), false);
      else cannotRead(runner, label, "config", command.inline);
    }
    const file = command.config;
    if (file !== null && !byName.has(`${runner}:${file}`)) {
      byName.add(`${runner}:${file}`);
      const text = configs.get(file);
      const keys = runner === "jest" ? JEST_KEYS : VITEST_KEYS;
      const entries =
        text === undefined || text === null
          ? null
          : posix.basename(file) === "package.json"
            ? jsonConfig(text, runner)
            : configEntries(file, text, keys);
      // Not a file of the checkout (or too large, or JSON that does not parse): it may name anything.
      if (entries === null) cannotRead(runner, label, "config", file);
      else {
        if (runner === "jest" && text && !file.endsWith(".json"))
          entries.push(...entriesInScript(text, "projects").filter((e) => e.value !== null));
        resolve(runner, file, posix.dirname(file) === "." ? "" : posix.dirname(file), entries, false);
      }
    }
    if (command.entries.length > 0) resolve(runner, label, cwd, command.entries, false);
  }
  return { files, unread, presetsWanted: [...new Set(presetsWanted)] };
}

/** The entries of package.json's `jest` key (jest `--config package.json`); null when it does not parse. */
function jsonConfig(text: string, runner: Runner): Entry[] | null {
  try {
    const parsed = JSON.parse(text.replace(/^\uFEFF/, "")) as { jest?: unknown } | null;
    return runner === "jest" ? entriesInJson(parsed?.jest, JEST_KEYS) : null;
  } catch {
    return null;
  }
}

/** The entries of a JSON or script config file; null for JSON that does not parse. */
function configEntries(name: string, text: string, keys: readonly string[]): Entry[] | null {
  if (!name.endsWith(".json")) return keys.flatMap((key) => entriesInScript(text, key));
  try {
    return entriesInJson(JSON.parse(text.replace(/^\uFEFF/, "")), keys);
  } catch {
    return null;
  }
}

/**
 * The packages a setup file imports that may redefine matchers (`import "@testing-library/jest-dom"`,
 * `require("jest-extended/all")`): each a setup module the planner cannot read. Relative imports,
 * node's modules and the runners' own are not.
 */
export function packagesImported(runner: "jest" | "vitest", path: string, text: string): HiddenText[] {
  const out: HiddenText[] = [];
  for (const m of text.matchAll(
    /(?:\bimport\s*(?:[\w$*{},\s]+\bfrom\s*)?|\brequire\s*\(\s*|\bimport\s*\(\s*)(["'`])([^"'`\n]+)\1/g,
  )) {
    const specifier = m[2]!;
    if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) continue;
    const bare = specifier.startsWith("@")
      ? specifier.split("/").slice(0, 2).join("/")
      : specifier.split("/")[0]!;
    if (PLAIN_MODULES.has(bare)) continue;
    out.push({ path: `${path}: imports ${specifier}`, text: setupModuleText(runner, specifier) });
  }
  return out;
}
