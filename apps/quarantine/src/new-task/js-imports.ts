import { posix } from "node:path";
import { showFiles } from "./git.js";

/** The package a bare module specifier names (`@scope/name/sub` → `@scope/name`), or null (relative, absolute, `node:`, a URL). */
export function packageOf(specifier: string): string | null {
  if (/^[./]|^[a-z][a-z0-9+.-]*:/i.test(specifier) || specifier === "") return null;
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
  return /^(?:@[\w.~-]+\/)?[\w.~-]+$/.test(name) ? name : null;
}

/** The module specifiers in JS or TS source: `import … from "x"`, `import "x"`, `import("x")`, `require("x")`, `export … from "x"`. */
export function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^;'"`]*?\bfrom\s*(["'])([^"'\n]+)\1/g,
    /\bimport\s*(["'])([^"'\n]+)\1/g,
    /\b(?:import|require|require\.resolve)\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.push(m[2]!);
  return found;
}

/**
 * The runner configs whose imports (and the packages they name, such as a preset) a suite needs.
 * babel.config.json too: uuidjs/uuid fcd7388's names @babel/preset-env, which jest's babel-jest loads.
 */
const RUNNER_CONFIG =
  /^(?:(?:vitest|vite|jest|babel)\.config(?:\.[\w-]+)?\.[cm]?[jt]s|babel\.config\.json|\.mocharc\.(?:[cm]?js|json|ya?ml)|\.babelrc(?:\.json)?)$/;

const JS_SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

/** The file a relative specifier from `from` names, among `files`, or null. */
function resolveRelative(from: string, specifier: string, files: ReadonlySet<string>): string | null {
  const target = posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\/$/, "");
  const stems = [target, target.replace(/\.[cm]?js$/, "").replace(/\.jsx$/, "")];
  for (const stem of stems) {
    if (files.has(stem) && JS_SOURCE.test(stem)) return stem;
    for (const ext of EXTENSIONS) {
      if (files.has(stem + ext)) return stem + ext;
      if (files.has(`${stem}/index${ext}`)) return `${stem}/index${ext}`;
    }
  }
  return null;
}

/**
 * The packages a task's suites import at `commit`: those the test files, the runner's config files
 * (at the top of the repository), and every file they import by relative path (the code under test,
 * helpers, fixtures) import, or name in quotes in a runner config (`preset: "ts-jest"`). Sorted.
 * Path aliases (`~/x`) are not followed; at most `limit` files are read.
 */
export async function suiteImports(
  repo: string,
  commit: string,
  files: readonly string[],
  tests: readonly string[],
  limit = 2000,
): Promise<string[]> {
  const all = new Set(files);
  const configs = files.filter((p) => RUNNER_CONFIG.test(p));
  const packages = new Set<string>();
  const seen = new Set<string>();
  let next = [...new Set([...tests, ...configs])].filter((p) => all.has(p));
  while (next.length > 0 && seen.size < limit) {
    const batch = next.filter((p) => !seen.has(p)).slice(0, limit - seen.size);
    for (const p of batch) seen.add(p);
    const texts = await showFiles(repo, commit, batch);
    next = [];
    for (const [path, bytes] of texts) {
      const text = bytes.toString("utf8");
      const named = configs.includes(path)
        ? [...specifiers(text), ...[...text.matchAll(/["']([^"'\s]+)["']/g)].map((m) => m[1]!)]
        : specifiers(text);
      for (const spec of named) {
        const pkg = packageOf(spec);
        if (pkg !== null) packages.add(pkg);
        else if (spec.startsWith(".")) {
          const file = resolveRelative(path, spec, all);
          if (file !== null && !seen.has(file)) next.push(file);
        }
      }
    }
  }
  return [...packages].sort();
}
