import { git } from "./git.js";
import { escapeRegex, packageDeps } from "./templates.js";

/**
 * The runner versions a pnpm or yarn repository locks. npm reads only package-lock.json, so a
 * repository that locks with pnpm-lock.yaml or yarn.lock got the newest runner its package.json range
 * allows (change-case's vitest `^1.0.1` would be 1.6.x, its pnpm-lock.yaml says 1.0.1): new-task
 * pins the runner (jest, mocha, vitest) at the version the lockfile names, read without a YAML parser
 * from the root project's entries.
 */

/** A pnpm version `1.0.1(@types/node@20.0.0)` or `1.0.1_abc` without its peer suffix; null for `link:` and the like. */
function pnpmVersion(raw: string): string | null {
  const version = raw.replace(/^['"]|['"]$/g, "").split(/[(_]/)[0]!;
  return /^\d+\.\d+\.\d+\S*$/.test(version) ? version : null;
}

/** The root project's part of a pnpm-lock.yaml: `importers: .:` (workspaces, lockfile 6 with them, 9), else the top level. */
function pnpmRoot(text: string): { body: string; indent: string } {
  const at = /^importers:\n(?:[ \t]*\n)* {2}(?:\.|'\.'|"\."):\n/m.exec(text);
  if (!at) return { body: text, indent: "" };
  const rest = text.slice(at.index + at[0].length);
  const end = /^ {0,2}\S/m.exec(rest);
  return { body: end ? rest.slice(0, end.index) : rest, indent: "    " };
}

/** The versions pnpm-lock.yaml (lockfile 5.x, 6, 9) pins for `names` in the root project. */
export function pnpmLockedVersions(text: string, names: readonly string[]): Record<string, string> {
  const { body, indent } = pnpmRoot(text.replace(/\r\n/g, "\n"));
  const found: Record<string, string> = {};
  for (const name of names) {
    const key = `(?:${escapeRegex(name)}|'${escapeRegex(name)}'|"${escapeRegex(name)}")`;
    // lockfile 6 and 9: `  vitest:\n    specifier: ^1.0.1\n    version: 1.0.1(...)`
    const block = new RegExp(
      `^${indent}(?:dependencies|devDependencies|optionalDependencies):\\n(?:${indent} .*\\n)*?${indent}  ${key}:\\n${indent}    specifier: .*\\n${indent}    version: (\\S+)`,
      "m",
    ).exec(body);
    // lockfile 5.x: `  vitest: 1.0.1_abc`
    const inline = new RegExp(
      `^${indent}(?:dependencies|devDependencies|optionalDependencies):\\n(?:${indent} .*\\n)*?${indent}  ${key}: (\\S+)$`,
      "m",
    ).exec(body);
    const version = pnpmVersion(block?.[1] ?? inline?.[1] ?? "");
    if (version) found[name] = version;
  }
  return found;
}

/**
 * The versions yarn.lock (yarn 1, and berry's `name@npm:range`) resolves for `names` at the ranges
 * the package.json gives (`ranges`); a name locked once is taken whatever its range.
 */
export function yarnLockedVersions(
  text: string,
  ranges: Readonly<Record<string, string>>,
  names: readonly string[],
): Record<string, string> {
  const entries: Array<{ selectors: string[]; version: string }> = [];
  for (const chunk of text.replace(/\r\n/g, "\n").split(/\n(?=\S)/)) {
    const [head = "", ...lines] = chunk.split("\n");
    if (!head.endsWith(":") || head.startsWith("#")) continue;
    const version = lines
      .map((l) => /^\s+version:? "?([^"\s]+)"?\s*$/.exec(l)?.[1])
      .find((v) => v !== undefined);
    if (!version) continue;
    const selectors = head
      .slice(0, -1)
      .split(/,\s*/)
      .map((s) => s.replace(/^"|"$/g, ""));
    entries.push({ selectors, version });
  }
  const found: Record<string, string> = {};
  for (const name of names) {
    const own = entries.filter((e) => e.selectors.some((s) => s.startsWith(`${name}@`)));
    const range = ranges[name];
    const exact = own.find((e) =>
      e.selectors.some(
        (s) => range !== undefined && (s === `${name}@${range}` || s === `${name}@npm:${range}`),
      ),
    );
    const entry = exact ?? (own.length === 1 ? own[0] : undefined);
    if (entry && /^\d+\.\d+\.\d+/.test(entry.version)) found[name] = entry.version;
  }
  return found;
}

/** The test runners a repository may pin itself (image.ts takes the repository's own). */
const RUNNERS = ["jest", "mocha", "vitest"];

/**
 * The runner versions the repository's pnpm-lock.yaml (else yarn.lock) at `commit` pins, for the
 * runners its package.json names; null when it has neither or they pin none.
 */
export async function otherLockRunners(
  repo: string,
  commit: string,
  packageJson: string | null,
): Promise<{ file: string; versions: Record<string, string> } | null> {
  const ranges = packageDeps(packageJson);
  const names = RUNNERS.filter((r) => r in ranges);
  if (names.length === 0) return null;
  for (const file of ["pnpm-lock.yaml", "yarn.lock"]) {
    const text = await git(repo, ["cat-file", "blob", `${commit}:${file}`]).catch(() => null);
    if (text === null) continue;
    const versions =
      file === "yarn.lock" ? yarnLockedVersions(text, ranges, names) : pnpmLockedVersions(text, names);
    return Object.keys(versions).length > 0 ? { file, versions } : null;
  }
  return null;
}
