/**
 * Whether Go compiles a file in the oracle's containers (always Linux, any architecture, the image's
 * Go): its name's GOOS/GOARCH suffix and its `//go:build` line, read in three values. `true` only
 * where it holds on every Linux whatever the architecture, the Go version, cgo or `-tags`; `false`
 * only where it cannot hold on Linux; `null` for everything else (an architecture, a Go version, cgo,
 * a custom tag, an old `// +build` line alone, a line the reader cannot parse). The oracle plants a
 * pair only into a file that is `true`: one planted where Go does not compile would be missing from
 * every run, and fail correct fixes.
 */
export type Compiled = boolean | null;

const GOOS = new Set(
  "aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris windows zos".split(
    " ",
  ),
);
/** GOOS names some Go versions know and others do not (wasip1 since Go 1.21): a suffix or tag of one is unknown. */
const GOOS_SINCE = new Set(["wasip1"]);
const GOARCH = new Set(
  "386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm".split(
    " ",
  ),
);
/** Tags Linux satisfies besides its own name. */
const LINUX_TAGS = new Set(["linux", "unix"]);

/** One tag on Linux: true (linux, unix), false (another GOOS), or unknown. */
function tag(name: string): Compiled {
  if (LINUX_TAGS.has(name)) return true;
  if (GOOS.has(name)) return false;
  return null;
}

/** A file name's GOOS suffix on Linux: true (linux), false (another GOOS every version knows), or unknown. */
function osSuffix(name: string): Compiled | undefined {
  if (name === "linux") return true;
  if (GOOS.has(name)) return false;
  if (GOOS_SINCE.has(name)) return null;
  return undefined;
}

const not = (a: Compiled): Compiled => (a === null ? null : !a);
const and = (a: Compiled, b: Compiled): Compiled => (a === false || b === false ? false : a && b);
const or = (a: Compiled, b: Compiled): Compiled =>
  a === true || b === true ? true : a === null || b === null ? null : false;

/** A `//go:build` expression (`||`, `&&`, `!`, parentheses, tags), or null when it does not parse. */
export function buildExpression(expr: string): Compiled | undefined {
  const tokens = expr.match(/\|\||&&|!|\(|\)|[A-Za-z0-9_.]+|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const orExpr = (): Compiled | undefined => {
    let value = andExpr();
    while (value !== undefined && peek() === "||") {
      at++;
      const right = andExpr();
      value = right === undefined ? undefined : or(value, right);
    }
    return value;
  };
  const andExpr = (): Compiled | undefined => {
    let value = unary();
    while (value !== undefined && peek() === "&&") {
      at++;
      const right = unary();
      value = right === undefined ? undefined : and(value, right);
    }
    return value;
  };
  const unary = (): Compiled | undefined => {
    const token = tokens[at++];
    if (token === "!") {
      // Go refuses `!!x` ("double negation not allowed"): the file does not build.
      if (peek() === "!") return undefined;
      const value = unary();
      return value === undefined ? undefined : not(value);
    }
    if (token === "(") {
      const value = orExpr();
      return tokens[at++] === ")" ? value : undefined;
    }
    return token !== undefined && /^[A-Za-z0-9_.]+$/.test(token) ? tag(token) : undefined;
  };
  const value = orExpr();
  return at === tokens.length ? value : undefined;
}

/**
 * What a file's name says, as go/build reads it: a name starting with `_` or `.` is never built; the
 * name is cut at its first `.`, then `_test` is dropped, and the part before the first `_` is the
 * name itself; of the rest, the last one or two parts may be GOOS and GOARCH.
 */
function nameConstraint(path: string): Compiled {
  const base = path.split("/").pop() ?? "";
  if (base.startsWith("_") || base.startsWith(".")) return false;
  const parts = base
    .split(".")[0]!
    .replace(/_test$/, "")
    .split("_");
  if (parts.length < 2) return true;
  const last = parts.at(-1)!;
  const before = parts.length > 2 ? parts.at(-2) : undefined;
  const os = osSuffix(last);
  if (os !== undefined) return os;
  if (!GOARCH.has(last)) return true;
  const beforeOs = before === undefined ? undefined : osSuffix(before);
  return beforeOs === false ? false : null;
}

/**
 * Whether Go compiles `path` (with `text`) on the oracle's Linux. Conservative about the header: a
 * `// +build` line (which vet checks against `//go:build`), more than one `//go:build`, an empty or
 * unparsable one, or one outside the header (vet's "misplaced" error) is unknown.
 */
export function goCompiles(path: string, text: string): Compiled {
  const byName = nameConstraint(path);
  if (byName === false) return false;
  const packageAt = text.search(/^[ \t]*package\s/m);
  const header = packageAt === -1 ? text : text.slice(0, packageAt);
  const lines = [...text.matchAll(/^[ \t]*\/\/go:build(?:[ \t]+(.*))?[ \t]*\r?$/gm)];
  if (/^[ \t]*\/\/\s*\+build\b/m.test(header)) return and(byName, null);
  if (lines.length === 0) return byName;
  // One line, and in the header (before the package clause): anything else is unknown.
  const line = lines[0]!;
  if (lines.length > 1 || (packageAt !== -1 && line.index > packageAt)) return and(byName, null);
  // Inside a block comment it is no constraint to go/build, and vet calls it misplaced.
  const before = header.slice(0, line.index);
  if (before.split("/*").length !== before.split("*/").length) return and(byName, null);
  const expr = (line[1] ?? "").trim();
  const byLine = expr === "" ? undefined : buildExpression(expr);
  return and(byName, byLine === undefined ? null : byLine);
}
