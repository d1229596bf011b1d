import { parseGitHeaderNames, parsePathField, stripComponent } from "./paths.js";

/** One hunk of a file section: its `@@` line and where its raw lines are. */
export interface DiffHunk {
  header: string;
  start: number;
  end: number;
}

/** One file section of a diff, with its raw lines (each keeps its own line terminator). */
export interface DiffFile {
  /** Raw lines of the whole section, header lines included. */
  lines: string[];
  /** 1-based line number of the section's first line in the diff. */
  line: number;
  /** Path before the change (prefix stripped), null for a new file. */
  oldPath: string | null;
  /** Path after the change, null for a deleted file. */
  newPath: string | null;
  /** Every path the section names anywhere in its header, prefix stripped. */
  mentioned: string[];
  kind: "modify" | "create" | "delete" | "rename" | "copy";
  /** Every file mode the section names (old/new/index lines). */
  modes: string[];
  binary: boolean;
  hunks: DiffHunk[];
}

/** A diff that cannot be parsed; `line` is 1-based. */
export class DiffParseError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "DiffParseError";
  }
}

const EXTENDED_HEADER =
  /^(old mode|new mode|deleted file mode|new file mode|copy from|copy to|rename from|rename to|similarity index|dissimilarity index|index) /;
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const BINARY_DATA = /^[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]+\r?\n?$/;

/** Splits text into lines that keep their terminators. */
export function splitLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

const bare = (line: string): string => line.replace(/\r?\n$/, "");

/** Splits a unified diff (git or traditional) into file sections; text outside sections is ignored, as git apply does. */
export function splitDiff(text: string): DiffFile[] {
  const lines = splitLines(text);
  const files: DiffFile[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith("diff --git ")) {
      const file = readGitSection(lines, i);
      files.push(file);
      i += file.lines.length;
    } else if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      const file = readTraditionalSection(lines, i);
      files.push(file);
      i += file.lines.length;
    } else {
      i += 1;
    }
  }
  return files;
}

interface HeaderInfo {
  fields: Map<string, string>;
  modes: string[];
}

function readExtendedHeader(lines: string[], start: number): { info: HeaderInfo; next: number } {
  const info: HeaderInfo = { fields: new Map(), modes: [] };
  let i = start;
  for (; i < lines.length; i += 1) {
    const line = bare(lines[i]!);
    const match = EXTENDED_HEADER.exec(line);
    if (!match) break;
    const key = match[1]!;
    const value = line.slice(key.length + 1);
    if (info.fields.has(key)) throw new DiffParseError(`repeated '${key}' header`, i + 1);
    info.fields.set(key, value);
    if (key.endsWith("mode")) info.modes.push(value.trim());
    if (key === "index") {
      const mode = /^\S+ ([0-7]{6})$/.exec(value);
      if (mode) info.modes.push(mode[1]!);
    }
  }
  return { info, next: i };
}

function strippedField(line: string, prefixLength: number, at: number): string {
  const raw = parsePathField(bare(line).slice(prefixLength));
  const path = raw === null ? null : stripComponent(raw);
  if (path === null) throw new DiffParseError("unreadable file name", at + 1);
  return path;
}

function readGitSection(lines: string[], start: number): DiffFile {
  const names = parseGitHeaderNames(bare(lines[start]!).slice("diff --git ".length));
  const { info, next } = readExtendedHeader(lines, start + 1);
  const fromNames = [names?.a, names?.b].map((n) => (n ? stripComponent(n) : null));
  let i = next;
  let [headerOld, headerNew] = fromNames as [string | null, string | null];
  if (lines[i]?.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
    headerOld = strippedField(lines[i]!, 4, i);
    headerNew = strippedField(lines[i + 1]!, 4, i + 1);
    i += 2;
  }
  const { oldPath, newPath, renameFrom, renameTo } = gitPaths(info, headerOld, headerNew, start);
  // Both names of the `diff --git` line, as written (twice when they are the same), then each other path once.
  const mentioned = fromNames.filter((path): path is string => !!path && path !== "/dev/null");
  for (const path of [headerOld, headerNew, renameFrom, renameTo, oldPath, newPath]) {
    if (path && path !== "/dev/null" && !mentioned.includes(path)) mentioned.push(path);
  }
  const body = readBody(lines, i);
  return {
    lines: lines.slice(start, body.end),
    line: start + 1,
    oldPath,
    newPath,
    mentioned,
    kind: gitKind(info.fields, oldPath, newPath),
    modes: info.modes,
    binary: body.binary,
    hunks: body.hunks.map((h) => ({ ...h, start: h.start - start, end: h.end - start })),
  };
}

/** A git section's old and new paths: its rename or copy lines first, then its ---/+++ or header names. */
function gitPaths(
  info: HeaderInfo,
  headerOld: string | null,
  headerNew: string | null,
  start: number,
): { oldPath: string | null; newPath: string | null; renameFrom: string | null; renameTo: string | null } {
  const field = (key: string): string | null => {
    const value = info.fields.get(key);
    if (value === undefined) return null;
    const path = parsePathField(value);
    if (path === null) throw new DiffParseError(`unreadable '${key}' name`, start + 1);
    return path;
  };
  const renameFrom = field("rename from") ?? field("copy from");
  const renameTo = field("rename to") ?? field("copy to");
  const oldPath = info.fields.has("new file mode")
    ? null
    : (renameFrom ?? (headerOld === "/dev/null" ? null : headerOld));
  const newPath = info.fields.has("deleted file mode")
    ? null
    : (renameTo ?? (headerNew === "/dev/null" ? null : headerNew));
  if (oldPath === null && newPath === null) {
    throw new DiffParseError("git diff header lacks file name information", start + 1);
  }
  return { oldPath, newPath, renameFrom, renameTo };
}

/** What a git section does to its file. */
function gitKind(
  fields: Map<string, string>,
  oldPath: string | null,
  newPath: string | null,
): DiffFile["kind"] {
  if (fields.has("rename from")) return "rename";
  if (fields.has("copy from")) return "copy";
  if (oldPath === null) return "create";
  return newPath === null ? "delete" : "modify";
}

function readTraditionalSection(lines: string[], start: number): DiffFile {
  const oldField = strippedField(lines[start]!, 4, start);
  const newField = strippedField(lines[start + 1]!, 4, start + 1);
  const body = readBody(lines, start + 2);
  if (body.hunks.length === 0) throw new DiffParseError("a ---/+++ pair without any hunk", start + 1);
  const oldPath = oldField === "/dev/null" ? null : oldField;
  const newPath = newField === "/dev/null" ? null : newField;
  if (oldPath === null && newPath === null) throw new DiffParseError("both names are /dev/null", start + 1);
  return {
    lines: lines.slice(start, body.end),
    line: start + 1,
    oldPath,
    newPath,
    mentioned: [oldPath, newPath].filter((p): p is string => p !== null),
    kind: oldPath === null ? "create" : newPath === null ? "delete" : "modify",
    modes: [],
    binary: false,
    hunks: body.hunks.map((h) => ({ ...h, start: h.start - start, end: h.end - start })),
  };
}

function readBody(lines: string[], start: number): { end: number; hunks: DiffHunk[]; binary: boolean } {
  let i = start;
  const hunks: DiffHunk[] = [];
  if (lines[i]?.startsWith("Binary files ")) return { end: i + 1, hunks, binary: true };
  if (lines[i] !== undefined && bare(lines[i]!) === "GIT binary patch") {
    return { end: readBinaryPatch(lines, i + 1), hunks, binary: true };
  }
  while (lines[i]?.startsWith("@@ ")) {
    const end = readHunk(lines, i);
    hunks.push({ header: bare(lines[i]!), start: i, end });
    i = end;
  }
  return { end: i, hunks, binary: false };
}

function readHunk(lines: string[], start: number): number {
  const match = HUNK_HEADER.exec(lines[start]!);
  if (!match) throw new DiffParseError("malformed hunk header", start + 1);
  let oldLeft = match[2] === undefined ? 1 : Number(match[2]);
  let newLeft = match[4] === undefined ? 1 : Number(match[4]);
  let i = start + 1;
  while (oldLeft > 0 || newLeft > 0) {
    const line = lines[i];
    if (line === undefined) throw new DiffParseError("the diff ends inside a hunk", start + 1);
    const tag = line[0];
    if (tag === " " || line === "\n" || line === "\r\n") {
      oldLeft -= 1;
      newLeft -= 1;
    } else if (tag === "-") oldLeft -= 1;
    else if (tag === "+") newLeft -= 1;
    else if (tag !== "\\")
      throw new DiffParseError("corrupt hunk: a line that is not context, + or -", i + 1);
    if (oldLeft < 0 || newLeft < 0) throw new DiffParseError("hunk longer than its header says", start + 1);
    i += 1;
  }
  if (lines[i]?.startsWith("\\")) i += 1;
  return i;
}

function readBinaryPatch(lines: string[], start: number): number {
  let i = start;
  for (let block = 0; block < 2; block += 1) {
    const head = lines[i];
    if (head === undefined || !/^(literal|delta) \d+\r?\n?$/.test(head)) {
      if (block === 0) throw new DiffParseError("GIT binary patch without literal/delta block", i + 1);
      break;
    }
    i += 1;
    while (lines[i] !== undefined && bare(lines[i]!) !== "") {
      if (!BINARY_DATA.test(lines[i]!)) throw new DiffParseError("corrupt binary patch data", i + 1);
      i += 1;
    }
    if (lines[i] === undefined)
      throw new DiffParseError("binary patch not terminated by an empty line", i + 1);
    i += 1;
  }
  return i;
}

/**
 * A cheap bound on the number of file sections, without building a string: the larger of the count of
 * `diff --git ` lines and of `+++ ` lines (every section has at least one of them, so the true count
 * is at most twice this).
 */
export function countFileHeaders(diff: Buffer): number {
  const count = (marker: string): number => {
    const needle = Buffer.from(`\n${marker}`, "latin1");
    let n = diff.subarray(0, marker.length).toString("latin1") === marker ? 1 : 0;
    for (let at = diff.indexOf(needle); at >= 0; at = diff.indexOf(needle, at + 1)) n += 1;
    return n;
  };
  return Math.max(count("diff --git "), count("+++ "));
}
