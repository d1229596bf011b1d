import { posix } from "node:path";

/**
 * What new-task reads of Go test files to write an existing suite that builds: the package-level
 * names a test file declares for other files (helpers), and the tests it runs. Read from the text,
 * with comments and literals blanked, and by the top level of gofmt'd code; where the reading can be
 * wrong it errs towards "used", which keeps a file in place and selects the other tests by name.
 */

/** The text with comments, string and rune literals blanked (newlines kept). */
export function goCode(text: string): string {
  let out = "";
  let i = 0;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  while (i < text.length) {
    const c = text[i]!;
    const two = text.slice(i, i + 2);
    let end = -1;
    if (two === "//") {
      end = text.indexOf("\n", i);
      if (end < 0) end = text.length;
    } else if (two === "/*") {
      end = text.indexOf("*/", i + 2);
      end = end < 0 ? text.length : end + 2;
    } else if (c === "`") {
      end = text.indexOf("`", i + 1);
      end = end < 0 ? text.length : end + 1;
    } else if (c === '"' || c === "'") {
      end = i + 1;
      while (end < text.length && text[end] !== c && text[end] !== "\n") end += text[end] === "\\" ? 2 : 1;
      end = Math.min(end + 1, text.length);
    }
    if (end < 0) {
      out += c;
      i++;
    } else {
      out += blank(text.slice(i, end));
      i = end;
    }
  }
  return out;
}

/** A function `go test` runs or benchmarks by its name (Go's rule: the prefix, then no lowercase letter). */
const TEST_FUNC = /^(Test|Benchmark|Example|Fuzz)($|[^a-z])/;

/** Top-level lines of code with the brace and paren depth each starts at. */
function topLines(code: string): Array<{ line: string; braces: number; parens: number }> {
  const lines: Array<{ line: string; braces: number; parens: number }> = [];
  let braces = 0;
  let parens = 0;
  for (const line of code.split("\n")) {
    lines.push({ line, braces, parens });
    for (const c of line) {
      if (c === "{") braces++;
      else if (c === "}") braces--;
      else if (c === "(") parens++;
      else if (c === ")") parens--;
    }
  }
  return lines;
}

/**
 * The package-level names a Go file declares that other files can use: functions other than tests,
 * benchmarks, examples, fuzz targets and `init`, and every var, const and type (methods go with
 * their type).
 */
export function goHelperNames(text: string): string[] {
  const names = new Set<string>();
  let group = false;
  for (const { line, braces, parens } of topLines(goCode(text))) {
    if (braces !== 0) continue;
    if (parens === 0) {
      group = false;
      const func = /^func\s+([A-Za-z_]\w*)/.exec(line);
      if (func) {
        if (!TEST_FUNC.test(func[1]!) && func[1] !== "init") names.add(func[1]!);
        continue;
      }
      const decl = /^(?:var|const|type)\s+(\(|[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)/.exec(line);
      if (decl?.[1] === "(") group = true;
      else if (decl) for (const n of decl[1]!.split(",")) names.add(n.trim());
    } else if (group && parens === 1) {
      const item = /^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)/.exec(line);
      if (item) for (const n of item[1]!.split(",")) names.add(n.trim());
    }
  }
  names.delete("_");
  return [...names].sort();
}

/** The top-level functions `go test` runs in a file: tests, examples and fuzz targets (TestMain aside). */
export function goRunNames(text: string): string[] {
  const names = new Set<string>();
  for (const { line, braces, parens } of topLines(goCode(text))) {
    const m = braces === 0 && parens === 0 ? /^func\s+((?:Test|Example|Fuzz)\w*)\s*\(/.exec(line) : null;
    if (m && TEST_FUNC.test(m[1]!) && m[1] !== "TestMain") names.add(m[1]!);
  }
  return [...names].sort();
}

/** Whether Go code `text` names any of `names` (as a word, outside comments and literals). */
export function goUses(text: string, names: readonly string[]): boolean {
  if (names.length === 0) return false;
  const code = goCode(text);
  return names.some((n) => new RegExp(`(^|[^\\w])${n}($|[^\\w])`).test(code));
}

/**
 * The changed test files (`removed`, base versions) the existing suite must keep for its packages to
 * build: those declaring a name that another test file of the same folder left in place uses (and,
 * in turn, those a kept file needs). A file whose text is unknown is kept when its folder has others.
 */
export function goFilesToKeep(
  removed: readonly string[],
  staying: readonly string[],
  texts: ReadonlyMap<string, string>,
): string[] {
  const dir = (p: string) => posix.dirname(p);
  const keep = new Set<string>();
  let users = [...staying];
  for (let grew = true; grew; ) {
    grew = false;
    for (const file of removed) {
      if (keep.has(file)) continue;
      const text = texts.get(file);
      const sameDir = users.filter((u) => u !== file && dir(u) === dir(file));
      if (sameDir.length === 0) continue;
      const helpers = text === undefined ? null : goHelperNames(text);
      const used =
        helpers === null || sameDir.some((u) => texts.get(u) === undefined || goUses(texts.get(u)!, helpers));
      if (used) {
        keep.add(file);
        users = [...users, file];
        grew = true;
      }
    }
  }
  return removed.filter((f) => keep.has(f));
}
