import { builtinModules } from "node:module";
import { posix } from "node:path";
import { setupModuleText } from "@oracle/test-set";
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
  return out;
}

const JEST_KEYS = ["setupFiles", "setupFilesAfterEnv", "testEnvironment"];
const VITEST_KEYS = ["setupFiles", "environment"];

/** The repository file an entry names from the config's folder, or null (a package, or not there). */
function repositoryFile(dir: string, entry: string, files: ReadonlySet<string>): string | null {
  const rooted = entry.replace(/^<rootDir>\/?/, "./");
  if (posix.isAbsolute(rooted)) return null;
  const base = posix.normalize(posix.join(dir, rooted));
  if (base.startsWith("../")) return null;
  for (const stem of [base, posix.join(base, "index")])
    for (const ext of JS_EXTENSIONS) if (files.has(`${stem}${ext}`)) return `${stem}${ext}`;
  return null;
}

/**
 * The setup modules the base commit's runner configurations name: `files`, the repository files
 * among them (read as context), and `unread`, a setup module the planner cannot read for each
 * entry that is not one (a package, a computed entry, a config too large to read).
 */
export function setupModules(
  configs: RunnerConfigs,
  repositoryFiles: ReadonlySet<string>,
): { files: Array<{ runner: "jest" | "vitest"; path: string }>; unread: HiddenText[] } {
  const files: Array<{ runner: "jest" | "vitest"; path: string }> = [];
  const unread: HiddenText[] = [];
  for (const [path, text] of configs) {
    const name = posix.basename(path);
    const dir = posix.dirname(path) === "." ? "" : posix.dirname(path);
    let runner: "jest" | "vitest" | null = null;
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
      if (text === null) entries = [{ key: name, value: null }];
      else if (name.endsWith(".json")) {
        try {
          entries = entriesInJson(JSON.parse(text), JEST_KEYS);
        } catch {
          entries = [{ key: name, value: null }];
        }
      } else entries = JEST_KEYS.flatMap((key) => entriesInScript(text, key));
    } else if (/^vite(st)?\.(config|workspace)\./.test(name)) {
      runner = "vitest";
      entries =
        text === null
          ? [{ key: name, value: null }]
          : VITEST_KEYS.flatMap((key) => entriesInScript(text, key));
    }
    if (runner === null) continue;
    for (const { key, value } of entries) {
      const environment = key === "testEnvironment" || key === "environment";
      if (value !== null && environment && OWN_ENVIRONMENTS[runner].has(value)) continue;
      const file = value === null ? null : repositoryFile(dir, value, repositoryFiles);
      if (file !== null) files.push({ runner, path: file });
      else
        unread.push({
          path: `${path}: ${key} ${value ?? "(computed)"}`,
          text: setupModuleText(runner, value ?? `${key} in ${path}`),
        });
    }
  }
  return { files, unread };
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
