import { createHash } from "node:crypto";
import type { DroppedEntry } from "@oracle/spec";
import picomatch from "picomatch";
import { displayPath, forbiddenPathReason } from "./paths.js";
import { type DiffFile, DiffParseError, splitDiff } from "./split.js";

/**
 * The task's allow/deny globs (picomatch, dotfiles included). Deny wins, and deny globs (the task's
 * and the defaults) ignore letter case: Python's importlib.metadata finds `X.DIST-INFO/` as it finds
 * `x.dist-info/`, and a deny glob that drops too much costs only a diff that touches such a path.
 */
export interface DiffRules {
  allow: readonly string[];
  deny: readonly string[];
  /** The oracle's default deny list (spec DEFAULT_DENY) when the task keeps `diff.denyDefaults`. */
  defaultDeny?: readonly string[];
}

/** What survives the filter and why the rest did not. */
export interface FilteredDiff {
  /** SHA-256 of the diff as given. */
  sha256: string;
  /** The kept file sections, byte for byte; empty when nothing is left. */
  filtered: Buffer;
  filteredSha256: string;
  dropped: DroppedEntry[];
  /** The kept sections, in order. */
  kept: DiffFile[];
  /** Paths (binary strings) git must report as changed after applying `filtered`. */
  expectedChanged: string[];
}

const sha256 = (data: Buffer): string => createHash("sha256").update(data).digest("hex");
const FORBIDDEN_MODES: Record<string, string> = { "120000": "symlink", "160000": "gitlink (submodule)" };

function globMatcher(
  globs: readonly string[],
  options: { nocase?: boolean } = {},
): (path: string) => string | undefined {
  const nocase = options.nocase ?? false;
  const matchers = globs.map((glob) => ({ glob, test: picomatch(glob, { dot: true, nocase }) }));
  return (path) => matchers.find((m) => m.test(path))?.glob;
}

/** Why a whole file section must go, or null when it stays. */
export function dropReason(
  file: DiffFile,
  isAllowed: (p: string) => unknown,
  denyGlob: (p: string) => string | undefined,
  defaultDenyGlob: (p: string) => string | undefined = () => undefined,
): string | null {
  for (const path of file.mentioned) {
    const forbidden = forbiddenPathReason(path);
    if (forbidden) return forbidden;
  }
  for (const mode of file.modes) {
    const kind = FORBIDDEN_MODES[mode];
    if (kind) return `${kind} mode ${mode}`;
  }
  for (const path of file.mentioned) {
    const glob = denyGlob(displayPath(path));
    if (glob) return `matches diff.deny '${glob}'`;
  }
  for (const path of file.mentioned) {
    const glob = defaultDenyGlob(displayPath(path));
    if (glob) return `matches the default deny list '${glob}' (diff.denyDefaults)`;
  }
  for (const path of file.mentioned) {
    if (!isAllowed(displayPath(path))) return "not matched by diff.allow";
  }
  return null;
}

function droppedEntries(file: DiffFile, why: string): DroppedEntry[] {
  const path = displayPath(file.newPath ?? file.oldPath ?? file.mentioned[0] ?? "");
  if (file.hunks.length === 0) return [{ path, why }];
  return file.hunks.map((hunk) => ({ path, hunk: displayPath(hunk.header), why }));
}

/** The paths `git diff --name-only --no-renames` shows after the section is applied. */
export function changedPaths(file: DiffFile): string[] {
  const paths: string[] = [];
  if (file.newPath !== null) paths.push(file.newPath);
  if (file.oldPath !== null && (file.kind === "rename" || file.kind === "delete")) paths.push(file.oldPath);
  return paths;
}

/**
 * Filters a diff per file with the task's globs. Always drops paths that escape the repository or
 * touch `.git/` (any letter case), symlinks and gitlinks. Throws DiffParseError for what cannot be
 * parsed; text outside file sections is not carried over.
 */
export function filterDiff(diff: Buffer, rules: DiffRules): FilteredDiff {
  const text = diff.toString("latin1");
  const files = splitDiff(text);
  if (files.length === 0 && text.trim().length > 0) {
    throw new DiffParseError("no file section (no 'diff --git' or '---'/'+++' header) found", 1);
  }
  const allow = globMatcher(rules.allow);
  const deny = globMatcher(rules.deny, { nocase: true });
  const defaultDeny = globMatcher(rules.defaultDeny ?? [], { nocase: true });
  const kept: DiffFile[] = [];
  const dropped: DroppedEntry[] = [];
  for (const file of files) {
    const why = dropReason(file, allow, deny, defaultDeny);
    if (why) dropped.push(...droppedEntries(file, why));
    else kept.push(file);
  }
  const filtered = Buffer.from(kept.map((f) => f.lines.join("")).join(""), "latin1");
  const expectedChanged = [...new Set(kept.flatMap(changedPaths))];
  return { sha256: sha256(diff), filtered, filteredSha256: sha256(filtered), dropped, kept, expectedChanged };
}

/** Kept paths (binary strings) that match the existing suite's globs: they are reset to the base commit. */
export function pathsToReset(kept: readonly DiffFile[], existingGlobs: readonly string[]): string[] {
  const matches = globMatcher(existingGlobs);
  const paths = new Set<string>();
  for (const file of kept) {
    for (const path of changedPaths(file)) if (matches(displayPath(path))) paths.add(path);
  }
  return [...paths];
}
