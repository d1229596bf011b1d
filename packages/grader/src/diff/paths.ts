/**
 * Paths in a diff are "binary strings": one char per byte (latin1), so non-UTF-8 names survive
 * parsing and re-emission byte for byte. These helpers decode git's quoting and judge a path.
 */

const C_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  t: "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  '"': '"',
  "\\": "\\",
};

/** Reads a C-quoted string starting at `text[start] === '"'`; returns the decoded bytes and the index after the closing quote. */
export function readQuoted(text: string, start: number): { value: string; end: number } | null {
  let value = "";
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') return { value, end: i + 1 };
    if (ch !== "\\") {
      value += ch;
      i += 1;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) return null;
    if (/[0-7]/.test(next)) {
      const octal = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))![0];
      value += String.fromCharCode(Number.parseInt(octal, 8) & 0xff);
      i += 1 + octal.length;
      continue;
    }
    const decoded = C_ESCAPES[next];
    if (decoded === undefined) return null;
    value += decoded;
    i += 2;
  }
  return null;
}

/** A path field of a header line (`--- a/x`, `rename from x`): quoted or raw, trailing CR/TAB-suffix removed. */
export function parsePathField(field: string): string | null {
  const text = field.replace(/\r$/, "");
  if (text.startsWith('"')) {
    const quoted = readQuoted(text, 0);
    return quoted ? quoted.value : null;
  }
  // `--- a/file\t2024-01-01 ...` (GNU diff timestamps) ends the name at a TAB.
  const tab = text.indexOf("\t");
  const raw = tab >= 0 ? text.slice(0, tab) : text;
  return raw.length > 0 ? raw : null;
}

/** Removes the first path component (git apply's default -p1). `/dev/null` stays as it is. */
export function stripComponent(path: string): string | null {
  if (path === "/dev/null") return path;
  const slash = path.indexOf("/");
  if (slash < 0) return null;
  const rest = path.slice(slash + 1).replace(/^\/+/, "");
  return rest.length > 0 ? rest : null;
}

/** The names `a/X b/Y` of a `diff --git` line when they cannot be taken from other header lines. */
export function parseGitHeaderNames(rest: string): { a: string; b: string } | null {
  const text = rest.replace(/\r$/, "");
  if (text.startsWith('"')) {
    const first = readQuoted(text, 0);
    if (!first) return null;
    const second = parsePathField(text.slice(first.end).replace(/^ /, ""));
    return second === null ? null : { a: first.value, b: second };
  }
  const quoteAt = text.indexOf(' "');
  if (quoteAt >= 0) {
    const second = readQuoted(text, quoteAt + 1);
    return second ? { a: text.slice(0, quoteAt), b: second.value } : null;
  }
  // Unquoted: both names are equal (git's own rule for a header without ---/+++ lines).
  if ((text.length - 1) % 2 !== 0) return null;
  const half = (text.length - 1) / 2;
  const a = text.slice(0, half);
  const b = text.slice(half + 1);
  if (text[half] !== " " || stripComponent(a) !== stripComponent(b)) return null;
  return { a, b };
}

/** Converts a binary string path to readable UTF-8 text (for logs and glob matching). */
export function displayPath(path: string): string {
  return Buffer.from(path, "latin1").toString("utf8");
}

/** Why a (prefix-stripped) path may never be touched, or null when it may. */
export function forbiddenPathReason(path: string): string | null {
  if (path.startsWith("/")) return "absolute path";
  if (path.includes("\0")) return "NUL byte in path";
  const parts = path.split("/");
  for (const part of parts) {
    if (part === "" || part === ".") return "empty or '.' path component";
    if (part === "..") return "path escapes the repository ('..')";
    const bare = part.replace(/[. ]+$/, "").toLowerCase();
    if (bare === ".git" || bare === "git~1") return "path inside .git/";
  }
  return null;
}
