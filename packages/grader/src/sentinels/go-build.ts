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
  "aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos".split(
    " ",
  ),
);
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

/** What a file's name says (`x_linux_test.go`, `x_windows_amd64_test.go`): Go reads the last one or two parts. */
function nameConstraint(path: string): Compiled {
  const parts = (path.split("/").pop() ?? "").replace(/(_test)?\.go$/, "").split("_");
  const last = parts.at(-1) ?? "";
  const before = parts.length > 2 ? parts.at(-2) : undefined;
  if (parts.length < 2) return true;
  if (GOOS.has(last)) return last === "linux";
  if (GOARCH.has(last)) return before !== undefined && GOOS.has(before) && before !== "linux" ? false : null;
  return true;
}

/** Whether Go compiles `path` (with `text`) on the oracle's Linux. */
export function goCompiles(path: string, text: string): Compiled {
  const byName = nameConstraint(path);
  // Constraints stand before the package clause: `//go:build` wins over `// +build` (Go 1.17).
  const header = text.slice(0, text.search(/^package\s/m) === -1 ? text.length : text.search(/^package\s/m));
  const line = /^\/\/go:build[ \t]+(.*)$/m.exec(header);
  if (line) {
    const byLine = buildExpression(line[1]!.trim());
    return and(byName, byLine === undefined ? null : byLine);
  }
  if (/^\/\/\s*\+build\s/m.test(header)) return and(byName, null);
  return byName;
}
