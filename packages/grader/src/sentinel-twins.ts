import { createHash, randomInt } from "node:crypto";
import { type NameFilter, pythonPlainTests } from "./sentinel-text.js";

/**
 * Twins (docs/security.md, "Twins"): a hidden test run twice in the same module, once as written and
 * once with one expected value changed (`assert f(2, 3) == 5` and `... == 6`). Honest code cannot
 * pass both: a report where both passed was forged in-process, or the code read the answers from
 * the test's source. Both get fresh names in the run (the original's is restored in the report) and
 * the copy lands just before or just after the original, so nothing but the changed value tells
 * them apart, and which value is right is what the task asks the code to compute.
 */
export interface SentinelTwin {
  /** The test's name in the hidden file, as the report must show it. */
  original: string;
  /** The name the test runs under in this run. */
  renamed: string;
  /** The copy's name; the copy is left out of the report. */
  copy: string;
}

/** A hidden file's text with its twins in place. */
export interface TwinPlan {
  text: string;
  twins: SentinelTwin[];
}

/** At most this many tests of a file get a twin (each one more run of a test body). */
export const MAX_TWINS = 6;

/** An expected value the oracle knows how to change: an integer, a decimal, a short string. */
/** A list (or nested lists) of numbers: `[1, 5]`, `[[1, 3], [4, 5]]`, `(2, -1)`; one number is changed. */
const NUMBERS = String.raw`\[[\d\s.,\[\]-]*\d[\d\s.,\[\]-]*\]|\([\d\s.,-]*\d[\d\s.,-]*,[\d\s.,-]*\)`;
const LITERAL = String.raw`-?(?:0|[1-9]\d{0,14})(?:\.\d{1,12})?|"[^"\\\n]{1,200}"|'[^'\\\n]{1,200}'|True|False|${NUMBERS}`;
/** `assert <expression> == <literal>[, message]`, the statement on one line. */
const ASSERT_EQ = new RegExp(String.raw`^(assert\s+(.+?)\s*==\s*)(${LITERAL})(\s*(?:,.*)?)$`);
/** unittest's `self.assertEqual(<expression>, <literal>)`, the statement on one line. */
const ASSERT_EQUAL = new RegExp(String.raw`^(self\.assertEqual\(\s*)(.+?)(\s*,\s*)(${LITERAL})(\s*\))$`);
/** Values that may equal more than one thing, which would let a correct diff pass both twins. */
const LOOSE =
  /\b(?:approx|any|mock|isclose|allclose|unordered|dirty_equals|nan|inf)\b|pytest\.|float\(|Mock|ANY/i;

/** Single- or double-quoted string literals (Python, JS). */
const QUOTED = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g;

/** What an expression holds outside brackets, its `strings` replaced by empty ones: the operators that bind loosest. */
function topLevel(expression: string, strings: RegExp): string {
  let top = "";
  let depth = 0;
  for (const ch of expression.replace(strings, (m) => `${m[0]}${m[0]}`)) {
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    else if (depth === 0) top += ch;
  }
  return top;
}

/**
 * Whether `==` (or assertEqual's first argument) compares exactly this expression: no comma, no
 * `and`/`or`/`not`/`if`/`lambda`, no other comparison outside brackets and strings. `assert f() or
 * x == 5`, `assert x, y == 5` (a message) or `assertEqual(a, 5, "msg")` would let the copy pass too.
 */
export function plainOperand(expression: string): boolean {
  if (!balanced(expression)) return false;
  const top = topLevel(expression, QUOTED);
  return !/[,:<>=!;]/.test(top) && !/\b(?:and|or|not|if|else|lambda|in|is|await|yield)\b/.test(top);
}

const balanced = (code: string): boolean => {
  let depth = 0;
  for (const ch of code) {
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch) && --depth < 0) return false;
  }
  return depth === 0;
};

/**
 * One expected value changed: an integer or decimal by 1 to 3 either way (in a list of numbers, one
 * of them), a string at one letter or digit, a boolean to the other.
 */
export function changedLiteral(literal: string): string | null {
  const flips: Record<string, string> = { true: "false", false: "true", True: "False", False: "True" };
  if (flips[literal]) return flips[literal]!;
  if (/^[[(]/.test(literal)) {
    if (!balanced(literal)) return null;
    const numbers = [...literal.matchAll(/-?\d+(?:\.\d+)?/g)];
    const pick = numbers[randomInt(0, numbers.length)];
    if (!pick) return null;
    const changed = changedLiteral(pick[0]);
    if (changed === null) return null;
    return `${literal.slice(0, pick.index)}${changed}${literal.slice(pick.index + pick[0].length)}`;
  }
  if (/^["']/.test(literal)) {
    const inner = literal.slice(1, -1);
    const spots = [...inner].flatMap((c, i) => (/[A-Za-z0-9]/.test(c) ? [i] : []));
    if (spots.length === 0) return null;
    const at = spots[randomInt(0, spots.length)]!;
    const c = inner[at]!;
    const pool = /[a-z]/.test(c)
      ? "abcdefghijklmnopqrstuvwxyz"
      : /[A-Z]/.test(c)
        ? "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        : "0123456789";
    const others = pool.replace(c, "");
    const next = others[randomInt(0, others.length)]!;
    return `${literal[0]}${inner.slice(0, at)}${next}${inner.slice(at + 1)}${literal[0]}`;
  }
  const decimals = literal.split(".")[1]?.length ?? 0;
  const step = randomInt(1, 4) * (randomInt(0, 2) === 0 ? -1 : 1);
  const value = Number(literal) + step;
  const text = decimals > 0 ? value.toFixed(decimals) : String(value);
  return text === literal ? null : text;
}

/** The body lines (indices) whose `assert ... == <literal>` can be changed, with their parts. */
function changeable(
  body: string[],
  indent: string,
  base: ReadonlySet<string>,
): Array<{ line: number; head: string; literal: string; tail: string }> {
  const found: Array<{ line: number; head: string; literal: string; tail: string }> = [];
  for (const [i, line] of body.entries()) {
    if (!line.startsWith(indent) || /^\s/.test(line.slice(indent.length))) continue;
    const statement = line.slice(indent.length).trimEnd();
    // A line the base commit holds would tell the original from its copy (the one that matches it).
    if (statement.includes("#") || base.has(statement.trim())) continue;
    const plain = ASSERT_EQ.exec(statement);
    const unit = plain ? null : ASSERT_EQUAL.exec(statement);
    const expression = plain?.[2] ?? unit?.[2];
    if (!expression || !plainOperand(expression) || LOOSE.test(expression) || /^["'\d-]/.test(expression))
      continue;
    if (plain && balanced(plain[4]!))
      found.push({ line: i, head: plain[1]!, literal: plain[3]!, tail: plain[4]! });
    if (unit)
      found.push({ line: i, head: `${unit[1]}${unit[2]}${unit[3]}`, literal: unit[4]!, tail: unit[5]! });
  }
  return found;
}

const rank = (text: string, name: string) =>
  createHash("sha256").update(text).update("\0").update(name).digest().readUInt32BE(0);

/**
 * Twins for up to `MAX_TWINS` plain tests of a pytest module (module-level or a method of a top-level
 * class, no fixture, no decorator, a body that looks free of side effects, a name used nowhere else
 * in the file, an `assert ... == <literal>` or `self.assertEqual(..., <literal>)` on one line that the
 * base commit's version of the file does not hold).
 * Which tests are twinned depends on the file's text only (the sweep's gold runs see what every grade
 * sees); the names, the changed value and the copy's side are drawn for each run. With `accepts`
 * (a `-k` expression) a test is twinned only when the expression provably keeps its name and both
 * new ones; with `className` (a `file::Class` selection) only that class's methods are. `taken`:
 * names the run must not use. Null when no test qualifies.
 */
export function pythonTwins(
  text: string,
  options: { base?: string; accepts?: NameFilter; taken?: readonly string[]; className?: string } = {},
): TwinPlan | null {
  const base = new Set((options.base ?? "").split("\n").map((l) => l.trim()));
  const accepts = options.accepts ?? (() => true);
  const used = new Set(options.taken ?? []);
  const lines = text.split("\n");
  const once = (name: string) => (text.match(new RegExp(`\\b${name}\\b`, "g")) ?? []).length === 1;
  const eligible = pythonPlainTests(text)
    .filter((t) => options.className === undefined || t.className === options.className)
    .filter((t) => once(t.name) && accepts(t.name) === true)
    .map((t) => ({ test: t, spots: changeable(t.body, t.indent, base) }))
    .filter((c) => c.spots.length > 0)
    .sort((a, b) => rank(text, a.test.name) - rank(text, b.test.name))
    .slice(0, MAX_TWINS);
  const fresh = (name: string): string | null => {
    for (let tries = 0; tries < 200; tries++) {
      const candidate = `${name}_${randomInt(2, 100)}`;
      if (used.has(candidate) || new RegExp(`\\b${candidate}\\b`).test(text)) continue;
      if (accepts(candidate) !== true) continue;
      used.add(candidate);
      return candidate;
    }
    return null;
  };
  const planned: Array<{ def: number; end: number; renamed: string; copy: string[]; before: boolean }> = [];
  const twins: SentinelTwin[] = [];
  for (const { test, spots } of eligible) {
    const spot = spots[randomInt(0, spots.length)]!;
    const literal = changedLiteral(spot.literal);
    const renamed = literal ? fresh(test.name) : null;
    const copyName = renamed ? fresh(test.name) : null;
    if (!literal || !renamed || !copyName) continue;
    const body = test.body.map((l, i) =>
      i === spot.line ? `${test.indent}${spot.head}${literal}${spot.tail}` : l,
    );
    const copy = [lines[test.def]!.replace(/^(\s*)def[ \t]+\w+/, `$1def ${copyName}`), ...body];
    planned.push({
      def: test.def,
      end: test.def + 1 + test.body.length,
      renamed,
      copy,
      before: randomInt(0, 2) === 0,
    });
    twins.push({ original: test.name, renamed, copy: copyName });
  }
  if (twins.length === 0) return null;
  // From the bottom up, so that the earlier tests' line numbers still hold.
  for (const p of planned.sort((a, b) => b.def - a.def)) {
    lines[p.def] = lines[p.def]!.replace(/^(\s*)def[ \t]+\w+/, `$1def ${p.renamed}`);
    if (p.before) lines.splice(p.def, 0, ...p.copy, "", "");
    else lines.splice(p.end, 0, "", "", ...p.copy);
  }
  return { text: lines.join("\n"), twins };
}

/** A JS `it("title", () => {` / `test('title', function () {` line: indent, function, quote, title. */
const JS_TEST =
  /^(\s*)(it|test)\(\s*(["'])((?:(?!\3)[^\\\n])+)\3\s*,\s*(?:async\s*)?(?:\(\s*\)\s*=>|function\s*\(\s*\))\s*\{\s*$/;
const JS_DESCRIBE =
  /^(\s*)describe\(\s*(["'])((?:(?!\2)[^\\\n])+)\2\s*,\s*(?:\(\s*\)\s*=>|function\s*\(\s*\))\s*\{\s*$/;
const JS_LITERAL = String.raw`-?(?:0|[1-9]\d{0,14})(?:\.\d{1,12})?|"[^"\\\n]{1,200}"|'[^'\\\n]{1,200}'|true|false|\[[\d\s.,\[\]-]*\d[\d\s.,\[\]-]*\]`;
/** The one-line assertions whose expected value the copy changes: `assert.equal(x, L)`, `expect(x).toBe(L)`… */
const JS_ASSERTS = [
  new RegExp(
    String.raw`^((?:assert\.)?(?:strictEqual|equal|deepStrictEqual|deepEqual)\(\s*)(.+?)(\s*,\s*)(${JS_LITERAL})(\s*\);?)$`,
  ),
  new RegExp(
    String.raw`^(expect\(\s*)(.+?)(\s*\)\s*\.\s*(?:toBe|toEqual|toStrictEqual|to\.equal|to\.eql|to\.be\.equal|to\.deep\.equal)\(\s*)(${JS_LITERAL})(\s*\);?)$`,
  ),
];
const JS_LOOSE =
  /\b(?:expect\.any|expect\.anything|closeTo|mock|spy|sinon|jest\.fn|vi\.fn|any|anything)\b|NaN|Infinity/i;

/** A JS expression compared whole: no comma, `?`, `:`, `||`, `&&`, comparison or template outside brackets and strings. */
export function plainJsOperand(expression: string): boolean {
  if (!balanced(expression) || expression.includes("`")) return false;
  const top = topLevel(expression, QUOTED);
  return !/[,?:<>=!|&;]/.test(top) && !/\b(?:in|instanceof|typeof|await|yield|new)\b/.test(top);
}

/** A JS test body's statements: assertions, `const`/`let` declarations and comments; nothing else. */
function jsLooksPure(body: string[]): boolean {
  let open = 0;
  for (const line of body) {
    const code = line.replace(/\/\/.*$/, "").trim();
    if (code === "") continue;
    if (open === 0) {
      const statement =
        /^(?:assert(?:\.\w+)?|strictEqual|equal|deepStrictEqual|deepEqual|ok|expect)\(/.test(code) ||
        /^(?:const|let)\s+(?:[A-Za-z_$][\w$]*|\{[\w$\s,]*\}|\[[\w$\s,]*\])\s*=(?!=)/.test(code);
      if (!statement) return false;
    }
    for (const ch of code) {
      if ("([{".includes(ch)) open++;
      else if (")]}".includes(ch)) open = Math.max(0, open - 1);
    }
  }
  return open === 0;
}

interface JsTest {
  title: string;
  /** The describe titles around it, outermost first. */
  parents: string[];
  def: number;
  /** Index of its closing `});` line. */
  close: number;
  indent: string;
}

/** The file's `it`/`test` calls with a block body, the describes around them, and where each ends. */
function jsTests(lines: string[]): JsTest[] {
  const tests: JsTest[] = [];
  const describes: Array<{ indent: string; title: string }> = [];
  for (const [i, line] of lines.entries()) {
    while (describes.length > 0 && new RegExp(`^${describes.at(-1)!.indent}\\}\\);?\\s*$`).test(line))
      describes.pop();
    const d = JS_DESCRIBE.exec(line);
    if (d) {
      describes.push({ indent: d[1]!, title: d[3]! });
      continue;
    }
    const t = JS_TEST.exec(line);
    if (!t) continue;
    const end = new RegExp(`^${t[1]}\\}\\);?\\s*$`);
    const close = lines.findIndex((l, j) => j > i && end.test(l));
    if (close < 0) continue;
    const inner = describes.filter((x) => x.indent.length < t[1]!.length);
    tests.push({ title: t[4]!, parents: inner.map((x) => x.title), def: i, close, indent: t[1]! });
  }
  return tests;
}

/**
 * Twins for up to `MAX_TWINS` tests of a JS test file (mocha, jest, vitest): an `it`/`test` with a
 * block body of assertions and `const`/`let` declarations only, a title used once, and a one-line
 * `assert.equal(x, L)` / `strictEqual(x, L)` / `expect(x).toBe(L)` (and kin) that the base commit's
 * version of the file does not hold. Both get new titles (`<title> <n>`); the report's entry of the
 * original gets its title back. With `accepts` (the runner's name filter, on full titles) a test is
 * twinned only when the filter keeps its title and both new ones.
 */
export function jsTwins(
  text: string,
  options: { base?: string; accepts?: (fullTitle: string) => boolean; taken?: readonly string[] } = {},
): TwinPlan | null {
  const base = new Set((options.base ?? "").split("\n").map((l) => l.trim()));
  const accepts = options.accepts ?? (() => true);
  const lines = text.split("\n");
  const used = new Set(options.taken ?? []);
  const full = (t: JsTest, title: string) => [...t.parents, title].join(" ");
  const eligible = jsTests(lines)
    .filter((t) => text.split(t.title).length === 2 && accepts(full(t, t.title)))
    .map((t) => {
      const body = lines.slice(t.def + 1, t.close);
      const spots: Array<{ line: number; head: string; literal: string; tail: string; pad: string }> = [];
      if (jsLooksPure(body))
        for (const [j, line] of body.entries()) {
          const code = line.trim();
          if (code.includes("//") || base.has(code)) continue;
          for (const pattern of JS_ASSERTS) {
            const m = pattern.exec(code);
            if (!m || !plainJsOperand(m[2]!) || JS_LOOSE.test(m[2]!) || /^["'\d-]/.test(m[2]!)) continue;
            const pad = /^\s*/.exec(line)![0];
            spots.push({ line: j, head: `${m[1]}${m[2]}${m[3]}`, literal: m[4]!, tail: m[5]!, pad });
          }
        }
      return { test: t, body, spots };
    })
    .filter((c) => c.spots.length > 0)
    .sort((a, b) => rank(text, a.test.title) - rank(text, b.test.title))
    .slice(0, MAX_TWINS);
  const fresh = (t: JsTest): string | null => {
    for (let tries = 0; tries < 200; tries++) {
      const candidate = `${t.title} ${randomInt(2, 100)}`;
      if (used.has(candidate) || text.includes(candidate) || !accepts(full(t, candidate))) continue;
      used.add(candidate);
      return candidate;
    }
    return null;
  };
  const quote = (line: string, from: string, to: string) => line.replace(from, () => to);
  const planned: Array<{
    def: number;
    close: number;
    renamed: string;
    copy: string[];
    before: boolean;
    title: string;
  }> = [];
  const twins: SentinelTwin[] = [];
  for (const { test, body, spots } of eligible) {
    const spot = spots[randomInt(0, spots.length)]!;
    const literal = changedLiteral(spot.literal);
    const renamed = literal ? fresh(test) : null;
    const copyTitle = renamed ? fresh(test) : null;
    if (!literal || !renamed || !copyTitle) continue;
    const changed = body.map((l, j) =>
      j === spot.line ? `${spot.pad}${spot.head}${literal}${spot.tail}` : l,
    );
    const copy = [quote(lines[test.def]!, test.title, copyTitle), ...changed, lines[test.close]!];
    planned.push({
      def: test.def,
      close: test.close,
      renamed,
      copy,
      before: randomInt(0, 2) === 0,
      title: test.title,
    });
    twins.push({ original: test.title, renamed, copy: copyTitle });
  }
  if (twins.length === 0) return null;
  for (const p of planned.sort((a, b) => b.def - a.def)) {
    lines[p.def] = quote(lines[p.def]!, p.title, p.renamed);
    if (p.before) lines.splice(p.def, 0, ...p.copy, "");
    else lines.splice(p.close + 1, 0, "", ...p.copy);
  }
  return { text: lines.join("\n"), twins };
}

const GO_LITERAL = String.raw`-?(?:0|[1-9]\d{0,14})(?:\.\d{1,12})?|"[^"\\\n]{1,200}"`;
/** `if [init;] <expression> != <literal> {` whose block reports a failure, and testify's `Equal(t, <literal>, <expression>)`. */
const GO_IF = new RegExp(String.raw`^(\s*if\s+(?:[^;{}"]+;\s*)?)(.+?)(\s*!=\s*)(${GO_LITERAL})(\s*\{)$`);
/** `if [init;] [!]<expression> {`: a boolean condition whose block reports a failure. */
const GO_IF_BOOL = /^(\s*if\s+(?:[^;{}"]+;\s*)?)(!?)(.+?)(\s*\{)$/;
/** A line of a Go test the copy changes; `original`: what the original's line becomes (booleans). */
interface GoSpot {
  line: number;
  head: string;
  literal: string;
  tail: string;
  original?: string;
}
const GO_EQUAL = new RegExp(
  String.raw`^(\s*(?:assert|require)\.Equal\(\s*\w+\s*,\s*)(${GO_LITERAL})(\s*,\s*)(.+?)(\s*\)\s*)$`,
);
/** What a Go test body must not do for a second run of it to be harmless or to keep its report id. */
const GO_STATEFUL =
  /\bt\.(?:Run|Parallel|Setenv|Chdir)\(|\bos\.(?:Setenv|Unsetenv|Chdir|Remove\w*|WriteFile|Create|Mkdir\w*)\(|\bflag\.|^\s*(?:[A-Za-z_]\w*\.)?[A-Z]\w*\s*(?:=|\+=|-=)[^=]/m;

/** A Go expression compared whole: no `&&`, `||`, comma or other comparison outside brackets and strings. */
function plainGoOperand(expression: string): boolean {
  if (!balanced(expression) || expression.includes("`")) return false;
  return !/[,<>=!|&;:]/.test(topLevel(expression, /"(?:[^"\\]|\\.)*"/g));
}

/**
 * Twins for up to `MAX_TWINS` tests of a Go test file: a `func TestX(t *testing.T)` used nowhere else,
 * without subtests or `t.Parallel`, that changes no environment, files or package variables, with an
 * `if <expression> != <literal> {` or `if [!]<expression> {` whose block calls `t.Error…`/`t.Fatal…`
 * (or testify's `assert.Equal(t, <literal>, <expression>)`) on a line the base commit's version does
 * not hold; a boolean condition runs as `<expression> == false|true` in the original, the other in the copy. Both
 * run as `TestX<n>`; `run` (the top level of `-run`) must match the three names.
 */
export function goTwins(
  text: string,
  options: { base?: string; run?: RegExp | null; taken?: string } = {},
): TwinPlan | null {
  const base = new Set((options.base ?? "").split("\n").map((l) => l.trim()));
  const run = options.run ?? null;
  const lines = text.split("\n");
  const exists = (name: string) =>
    new RegExp(`\\b${name}\\b`).test(text) || new RegExp(`\\b${name}\\b`).test(options.taken ?? "");
  const once = (name: string) => (text.match(new RegExp(`\\b${name}\\b`, "g")) ?? []).length === 1;
  const tests: Array<{
    name: string;
    def: number;
    close: number;
    spots: GoSpot[];
  }> = [];
  for (const [i, line] of lines.entries()) {
    const m = /^func\s+(Test\w*)\s*\(\s*(\w+)\s+\*\s*\w+\.T\s*\)\s*\{\s*$/.exec(line);
    if (!m || !once(m[1]!) || (run && !run.test(m[1]!))) continue;
    const close = lines.findIndex((l, j) => j > i && l === "}");
    if (close < 0) continue;
    const body = lines.slice(i + 1, close);
    if (GO_STATEFUL.test(body.join("\n"))) continue;
    const t = m[2]!;
    const spots: GoSpot[] = [];
    const fails = (j: number, l: string) => {
      const indent = /^\s*/.exec(l)![0];
      const end = body.findIndex((b, k) => k > j && b === `${indent}}`);
      const block = end < 0 ? [] : body.slice(j + 1, end);
      return block.some((b) => new RegExp(`\\b${t}\\.(?:Error|Errorf|Fatal|Fatalf)\\(`).test(b));
    };
    for (const [j, l] of body.entries()) {
      if (l.includes("//") || base.has(l.trim())) continue;
      const cond = GO_IF.exec(l);
      const bool = cond ? null : GO_IF_BOOL.exec(l);
      if (cond && plainGoOperand(cond[2]!) && !/^["\d-]/.test(cond[2]!) && fails(j, l))
        spots.push({ line: j, head: `${cond[1]}${cond[2]}${cond[3]}`, literal: cond[4]!, tail: cond[5]! });
      else if (bool && plainGoOperand(bool[3]!) && !/^[!"\d-]/.test(bool[3]!) && fails(j, l)) {
        // `if !ok(x) {` runs as `if ok(x) == false {`, its copy as `== true`: the two read alike.
        const head = `${bool[1]}${bool[3]} == `;
        const literal = bool[2] === "!" ? "false" : "true";
        spots.push({ line: j, head, literal, tail: bool[4]!, original: `${head}${literal}${bool[4]}` });
      }
      const eq = GO_EQUAL.exec(l);
      if (eq && plainGoOperand(eq[4]!))
        spots.push({ line: j, head: eq[1]!, literal: eq[2]!, tail: `${eq[3]}${eq[4]}${eq[5]}` });
    }
    if (spots.length > 0) tests.push({ name: m[1]!, def: i, close, spots });
  }
  const chosen = tests.sort((a, b) => rank(text, a.name) - rank(text, b.name)).slice(0, MAX_TWINS);
  const used = new Set<string>();
  const fresh = (name: string): string | null => {
    for (let tries = 0; tries < 200; tries++) {
      const candidate = `${name}${randomInt(2, 100)}`;
      if (used.has(candidate) || exists(candidate) || (run && !run.test(candidate))) continue;
      used.add(candidate);
      return candidate;
    }
    return null;
  };
  const planned: Array<{ def: number; close: number; renamed: string; copy: string[]; before: boolean }> = [];
  const twins: SentinelTwin[] = [];
  for (const test of chosen) {
    const spot = test.spots[randomInt(0, test.spots.length)]!;
    const literal = changedLiteral(spot.literal);
    const renamed = literal ? fresh(test.name) : null;
    const copyName = renamed ? fresh(test.name) : null;
    if (!literal || !renamed || !copyName) continue;
    if (spot.original !== undefined) lines[test.def + 1 + spot.line] = spot.original;
    const body = lines
      .slice(test.def + 1, test.close)
      .map((l, j) => (j === spot.line ? `${spot.head}${literal}${spot.tail}` : l));
    const copy = [lines[test.def]!.replace(test.name, copyName), ...body, "}"];
    planned.push({ def: test.def, close: test.close, renamed, copy, before: randomInt(0, 2) === 0 });
    twins.push({ original: test.name, renamed, copy: copyName });
  }
  if (twins.length === 0) return null;
  for (const p of planned.sort((a, b) => b.def - a.def)) {
    lines[p.def] = lines[p.def]!.replace(/^func\s+Test\w*/, `func ${p.renamed}`);
    if (p.before) lines.splice(p.def, 0, ...p.copy, "");
    else lines.splice(p.close + 1, 0, "", ...p.copy);
  }
  return { text: lines.join("\n"), twins };
}
