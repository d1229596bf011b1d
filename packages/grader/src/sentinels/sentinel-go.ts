import { posix } from "node:path";
import { cryptoRandom, type Random } from "@oracle/test-set";
import { goCompiles } from "./go-build.js";
import { localName, type SentinelAppend, type SentinelTest } from "./sentinel-text.js";

/**
 * Go's sentinels: a must-fail / must-pass pair appended to one hidden `_test.go` file of each
 * package the command's `go test` selects (a package is one test binary: one pair catches a forgery
 * of its output), in that file's package, named like its tests with a number, asserting the way the
 * file does. A non-test file's `init()` that prints passing `=== RUN` / `--- PASS` lines for every
 * `Test*` it finds and exits 0 then shows the must-fail passing, or leaves the pair out.
 */

/** What a `go test` call (or `gotestsum … -- <go test args>`) selects. */
export interface GoCall {
  /** Package patterns as given (`.`, `./x`, `./...`); empty: the current folder. */
  packages: string[];
  /** The `-run` regular expression, if any. */
  run?: string;
  /** The call stops at its first failure (`-failfast`). */
  failfast: boolean;
  /** Why the oracle cannot be sure what runs (files named, `-list`, `-c`, import paths). */
  unsure: string[];
}

/** `go test` flags that take a value (`-run X` as well as `-run=X`). */
const GO_VALUES = new Set(
  "run skip bench benchtime count cpu parallel timeout p o tags ldflags gcflags asmflags exec coverprofile covermode coverpkg cpuprofile memprofile memprofilerate blockprofile blockprofilerate mutexprofile mutexprofilefraction outputdir trace shuffle vet fuzz fuzztime fuzzminimizetime list mod modfile overlay pkgdir toolexec buildmode compiler gccgoflags installsuffix C".split(
    " ",
  ),
);

/** Reads `go test` arguments (after `test`): packages, `-run`, `-failfast`, and what it passes the binary after `-args`. */
export function goTestArgs(args: string[]): GoCall {
  const call: GoCall = { packages: [], failfast: false, unsure: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-args" || arg === "--args") {
      binaryArgs(args.slice(i + 1), call);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") call.packages.push(arg);
    else i = goFlag(args, i, call);
  }
  if (call.packages.some((p) => p.endsWith(".go"))) call.unsure.push("the command names .go files");
  return call;
}

/** The test binary's own flags after `-args`: -test.run / -test.failfast reach it unchanged. */
function binaryArgs(rest: readonly string[], call: GoCall): void {
  for (const arg of rest) {
    const m = /^--?test\.(run|failfast)(?:=(.*))?$/.exec(arg);
    if (m?.[1] === "run" && m[2] !== undefined) call.run = m[2];
    if (m?.[1] === "failfast" && m[2] !== "false") call.failfast = true;
  }
}

/** Reads the `go test` flag at `args[i]` (with its value, joined or the next word) into `call`; the index of its last word. */
function goFlag(args: readonly string[], i: number, call: GoCall): number {
  const [, name = "", value] = /^--?([^=]+)(?:=(.*))?$/.exec(args[i]!) ?? [];
  const flag = name.replace(/^test\./, "");
  const next = value === undefined && GO_VALUES.has(flag) ? i + 1 : i;
  const val = value ?? (next > i ? args[next] : undefined);
  if (flag === "run" && val !== undefined) call.run = val;
  else if (flag === "failfast" && val !== "false") call.failfast = true;
  else if (flag === "list" || flag === "c") call.unsure.push(`-${flag} runs no test`);
  return next;
}

/** The hidden folders a package pattern names, relative to the checkout, or null for an import path. */
function patternDirs(pattern: string, cwd: string, dirs: string[]): string[] | null {
  if (!(pattern === "." || pattern === ".." || pattern.startsWith("./") || pattern.startsWith("../")))
    return null;
  const recursive = pattern === "..." || pattern.endsWith("/...");
  const base = posix.normalize(posix.join(cwd, recursive ? pattern.slice(0, -4) || "." : pattern));
  const root = base === "." ? "" : base.replace(/\/+$/, "");
  if (!recursive) return dirs.filter((d) => d === root);
  // `./...` leaves out folders whose name starts with `.` or `_`, and testdata.
  const ignored = (d: string) =>
    d
      .slice(root === "" ? 0 : root.length + 1)
      .split("/")
      .some((part) => part.startsWith(".") || part.startsWith("_") || part === "testdata");
  return dirs.filter((d) => (root === "" || d === root || d.startsWith(`${root}/`)) && !ignored(d));
}

/** The folder of a relative path ("" for the top). */
const dirOf = (path: string) => (posix.dirname(path) === "." ? "" : posix.dirname(path));

/**
 * Where a file's tests come in its package's test binary: the package's own test files, then its
 * external ones (`package x_test`), each by file name (`go test`'s test main). The pair goes into the
 * hidden file that runs last, so that it runs after every hidden test in sequence: a test that exits
 * the binary (`os.Exit`) before the end, after printing its own pass line, leaves the pair out.
 */
function runOrder([path, text]: [string, string]): string {
  const external = /^package\s+\w+_test\b/m.test(text) ? "1" : "0";
  return `${external}/${posix.basename(path)}`;
}

/** A `_test.go` file with a test (`func TestX(t *testing.T)`; TestMain is none). */
const isGoTest = (path: string, text: string) =>
  path.endsWith("_test.go") && /^func\s+Test[A-Z_0-9]\w*\s*\(\s*\w+\s+\*\s*\w+\.T\s*\)/m.test(text);

/** Regular expressions RE2 and JavaScript read alike (no flags group, classes, \A, \z, \Q…). */
const PORTABLE = /^(?:[\w|^$.*+?()[\]{}, -]|\\[\\.*+?()[\]{}|^$dDwWsSbB])*$/;

/** Go splits `-run` at unbracketed slashes, one part per level of subtests: the first is the top level's. */
function topLevelRun(run: string): string {
  let depth = 0;
  for (let i = 0; i < run.length; i++) {
    const c = run[i];
    if (c === "\\") i++;
    else if (c === "[" || c === "(") depth++;
    else if (c === "]" || c === ")") depth--;
    else if (c === "/" && depth === 0) return run.slice(0, i);
  }
  return run;
}

/** The plan: the appends (one per selected package) and why some may be left out. */
export interface GoPlan {
  appends: SentinelAppend[];
  /** Set when the oracle cannot be sure the pairs run (the call's own doubt): a missing one is then only noted. */
  unsure?: string;
  /**
   * Selected packages that got no pair (every hidden file constrained, an import path, a `-run`
   * that selects no name like theirs): said, but the other packages' pairs still provably run.
   */
  gaps?: string;
  /** Set when no pair can be planted (a call that stops at its first failure). */
  unprotected?: string;
  /**
   * The `-run` pattern that also selects the planted names, when the command's own selects none
   * named like a file's tests (anchored to exact names: `^(TestA|TestB)$`): the command's pattern,
   * `|`, then the planted names anchored. The command must be rewritten to it (`replaceFlagValue`).
   */
  run?: string;
}

/**
 * Plans Go's sentinels among the hidden `_test.go` files (`texts`) for a call; `others` are more
 * texts of the same packages (the existing tests at the base commit) whose names must not be reused.
 */
export function planGo(
  call: GoCall,
  cwd: string,
  texts: ReadonlyMap<string, string>,
  others: ReadonlyMap<string, string> = new Map(),
  /**
   * `widen`: a `-run` that selects no name like a file's tests may be widened to the pair's
   * (`GoPlan.run`); `random`: the pairs' draws (default: node:crypto).
   */
  options: { widen?: boolean; random?: Random } = {},
): GoPlan {
  if (call.failfast)
    return { appends: [], unprotected: "the hidden command stops at its first failure (-failfast)" };
  const notes = [...call.unsure];
  const gaps: string[] = [];
  const files = [...texts].filter(([path, text]) => isGoTest(path, text));
  const selected = selectedDirs(call, cwd, files, gaps);
  const pattern = runPattern(call, options.widen === true, notes);
  const appends: SentinelAppend[] = [];
  const widened: string[] = [];
  for (const dir of selected) {
    // Every file's names: a report id ends in the test's name, whatever its package.
    const names = [...[...texts, ...others].map(([, text]) => text), ...appends.map((a) => a.text)].join(
      "\n",
    );
    const inDir = files.filter(([p]) => dirOf(p) === dir);
    const pair = packagePair(dir, inDir, names, { ...pattern, text: call.run }, options.random);
    if (typeof pair === "string") {
      gaps.push(pair);
      continue;
    }
    appends.push(pair.append);
    if (pair.widened) widened.push(...pair.append.tests.flatMap((t) => t.names));
  }
  if (selected.length === 0) gaps.push("no hidden test package is selected by the command");
  return {
    appends,
    ...(widened.length > 0 ? { run: `${call.run}|^(${widened.join("|")})$` } : {}),
    ...(notes.length > 0 ? { unsure: notes.join("; ") } : {}),
    ...(gaps.length > 0 ? { gaps: gaps.join("; ") } : {}),
  };
}

/** The top level of a call's `-run` (null: none), and whether it may be widened to the pair's names. */
interface RunPattern {
  run: RegExp | null;
  widen: boolean;
}

/** The hidden test folders the call's package patterns select, sorted; an import path is a gap. */
function selectedDirs(
  call: GoCall,
  cwd: string,
  files: ReadonlyArray<[string, string]>,
  gaps: string[],
): string[] {
  const dirs = [...new Set(files.map(([path]) => dirOf(path)))].sort();
  const selected = new Set<string>();
  for (const pattern of call.packages.length > 0 ? call.packages : ["."]) {
    const named = patternDirs(pattern, cwd, dirs);
    if (named === null) gaps.push(`the package ${pattern} is an import path`);
    for (const d of named ?? []) selected.add(d);
  }
  return [...selected].sort();
}

/**
 * The call's `-run` as the pair's names must match it (its top level), and whether it may be
 * widened to them: a pattern without subtest levels can (`A|^(B)$` selects what A does, and B).
 * A pattern the oracle cannot read is a doubt about the whole call.
 */
function runPattern(call: GoCall, mayWiden: boolean, notes: string[]): RunPattern {
  if (call.run === undefined) return { run: null, widen: false };
  const top = topLevelRun(call.run);
  try {
    if (!PORTABLE.test(top)) throw new Error("not portable");
    return { run: new RegExp(top), widen: mayWiden && top === call.run && top !== "" };
  } catch {
    notes.push(`-run ${JSON.stringify(call.run)} is not a pattern the oracle can read`);
    return { run: null, widen: false };
  }
}

/**
 * One package's pair: in the last file (in run order) with a test named like the ones `-run`
 * selects (a file of TestMain alone, or of tests `-run` leaves out, gets none: the one before it
 * does), else, when `-run` may be widened, in the last file under names `-run` must be widened to.
 * Why there is none (a gap) otherwise.
 */
function packagePair(
  dir: string,
  files: ReadonlyArray<[string, string]>,
  names: string,
  pattern: RunPattern & { text: string | undefined },
  random: Random | undefined,
): { append: SentinelAppend; widened: boolean } | string {
  const candidates = files
    .filter(([path, text]) => goCompiles(path, text) === true)
    .sort((a, b) => (runOrder(a) < runOrder(b) ? 1 : runOrder(a) > runOrder(b) ? -1 : 0));
  if (candidates.length === 0)
    return `every hidden test file in ${dir || "."} has a build constraint the oracle cannot prove Linux meets`;
  for (const [path, text] of candidates) {
    const append = goSentinel(path, text, names, pattern.run, random);
    if (append) return { append, widened: false };
  }
  if (pattern.widen) {
    const [path, text] = candidates[0]!;
    const append = goSentinel(path, text, names, null, random);
    if (append) return { append, widened: true };
  }
  return `-run ${JSON.stringify(pattern.text)} selects no test named like those of ${candidates.map(([path]) => path).join(", ")}`;
}

/** The spellings of `-run` that `go test`, the test binary (`-test.run`) and `-args` take. */
export const GO_RUN_FLAGS = ["-run", "--run", "-test.run", "--test.run"] as const;

/** How a Go test file asserts a total: testify's require / assert when it imports them, else `t.Fatalf` or `t.Errorf`. */
export function goAssertStyle(text: string, t: string): (total: string, want: number) => string[] {
  for (const lib of ["require", "assert"]) {
    const m = new RegExp(`(?:^|\\n|\\()\\s*(?:(\\w+)\\s+)?"github\\.com/stretchr/testify/${lib}"`).exec(text);
    if (m && m[1] !== "_" && m[1] !== ".") {
      const name = m[1] ?? lib;
      return (total, want) => [`${name}.Equal(${t}, ${want}, ${total})`];
    }
  }
  const fatal = (text.match(/\.Fatalf?\(/g) ?? []).length;
  const error = (text.match(/\.Errorf?\(/g) ?? []).length;
  const call = fatal > error ? "Fatalf" : "Errorf";
  return (total, want) => [
    `if ${total} != ${want} {`,
    `\t${t}.${call}("${total} = %d, want %d", ${total}, ${want})`,
    "}",
  ];
}

/**
 * The pair appended to one Go test file: two `func TestX<n>(t *testing.T)` in its package, named
 * like its tests (matching `run`, when given), in random order, with random values. Null when no
 * name like the file's tests matches `run`.
 */
export function goSentinel(
  path: string,
  text: string,
  taken: string,
  run: RegExp | null,
  random: Random = cryptoRandom,
): SentinelAppend | null {
  const sig = /^func\s+(Test\w*)\s*\(\s*(\w+)\s+\*\s*(\w+)\.T\s*\)/gm;
  const own = [...text.matchAll(sig)];
  const first = own[0];
  if (!first) return null;
  const [, , , testing = "testing"] = first;
  // Named like the file's tests' parameter, but never the blank `_` (`func TestX(_ *testing.T)`):
  // `_.Fatalf` does not compile, and the whole package would fail to build (golang-lru d46c1d9).
  const t = own.map((m) => m[2]!).find((name) => name !== "_") ?? "t";
  const exists = (name: string) => new RegExp(`\\b${name}\\b`).test(taken);
  const models = own.map((m) => m[1]!).filter((name) => !run || run.test(`${name}2`));
  if (models.length === 0) return null;
  const used = new Set<string>();
  const pickName = (): string | null => {
    for (let tries = 0; tries < 200; tries++) {
      const name = `${models[random.int(0, models.length)]}${random.int(2, 100)}`;
      if (!exists(name) && !used.has(name) && (!run || run.test(name))) return name;
    }
    return null;
  };
  const assert = goAssertStyle(text, t);
  const roles: Array<"fail" | "pass"> = random.int(0, 2) === 0 ? ["fail", "pass"] : ["pass", "fail"];
  const local = localName(text, random);
  const lines: string[] = [text.endsWith("\n") || text === "" ? "" : "\n"];
  const tests: SentinelTest[] = [];
  for (const role of roles) {
    const name = pickName();
    if (name === null) return null;
    used.add(name);
    const a = random.int(2, 60);
    const b = random.int(2, 60);
    const want = role === "pass" ? a + b : a + b + random.int(1, 9);
    lines.push(
      `func ${name}(${t} *${testing}.T) {`,
      `\t${local} := ${a} + ${b}`,
      ...assert(local, want).map((line) => `\t${line}`),
      "}",
      "",
    );
    tests.push({ names: [name], role });
  }
  return { path, text: lines.join("\n"), tests };
}
