import { createHash, createHmac, randomInt } from "node:crypto";
import { depthAfter, type Lexicon, openLines, QUOTED, spansLiteral, toldText } from "./sentinel-lex.js";
import { pythonParamTests } from "./sentinel-params.js";
import { decoratedAt, type NameFilter, pythonPlainTests } from "./sentinel-text.js";

/**
 * Twins (docs/security.md, "Twins"): a hidden test run twice in the same module, once as written and
 * once with one expected value changed (`assert f(2, 3) == 5` and `... == 6`). Honest code cannot
 * pass both: a report where both passed was forged in-process, or the code read the answers from
 * the test's source. Both get fresh names in the run (the original's is restored in the report) and
 * the copy lands just before or just after the original, so nothing but the changed value tells
 * them apart, and which value is right is what the task asks the code to compute.
 *
 * Every choice (names, sides, values) is drawn from a `Draw`: keyed by a secret of the task (its
 * gold.diff, which no graded container sees), the sweep's gold runs meet exactly the files every
 * grade meets, so a twin that a correct fix cannot survive (a stateful body, an order it depends on)
 * fails the task's validation, never a grade now and then.
 */
export interface SentinelTwin {
  /** The test's name in the hidden file, as the report must show it. */
  original: string;
  /** The name the test runs under in this run. */
  renamed: string;
  /** The copy's name; the copy is left out of the report. */
  copy: string;
  /** A parametrised test: the report holds one entry per row (`name[params]`), original and copy alike. */
  parametrised?: true;
}

/** A hidden file's text with its twins in place. */
export interface TwinPlan {
  text: string;
  twins: SentinelTwin[];
}

/** At most this many tests of a file get a twin (each one more run of a test body). */
export const MAX_TWINS = 6;

/** An integer in [min, max), like node:crypto's `randomInt`. */
export type Draw = (min: number, max: number) => number;

/** A `Draw` whose numbers follow from `key` alone (HMAC-SHA-256 of a counter): the same key, the same plan. */
export function keyedDraw(key: string): Draw {
  let counter = 0;
  return (min, max) => {
    const n = createHmac("sha256", key).update(String(counter++)).digest().readUIntBE(0, 6);
    return min + (n % (max - min));
  };
}

/** The draw of one file's twins: keyed by the task's secret and the file's path, or fresh (`randomInt`) without one. */
export const twinDraw = (key: string | null, path: string): Draw =>
  key === null ? randomInt : keyedDraw(`${key}\0${path}`);

/**
 * The base commit's text that no twin may change a line of: the file's own (empty when the file is
 * new at the fix) and every other test file of the base the run knows, since a line copied into any
 * of them would show which twin matches; null when the file's own is unknown (no twins).
 */
export function twinBase(
  path: string,
  baseHidden: ReadonlyMap<string, string | null> | null,
  others: Iterable<string>,
): string | null {
  if (baseHidden === null) return null;
  const own = baseHidden.has(path) ? baseHidden.get(path)! : "";
  if (own === null) return null;
  const rest = [...baseHidden].filter(([p, t]) => p !== path && t !== null).map(([, t]) => t!);
  return [own, ...rest, ...others].join("\n");
}

/** What every planner takes: the draw, and the text of every other test file the run holds (names it must not reuse). */
export interface TwinContext {
  /** Default: `randomInt` (a fresh plan each run). */
  draw?: Draw;
  /** The run's other hidden and existing test files, and the pair sentinels: a new name appears in none. */
  elsewhere?: string;
  /**
   * Tests to twin first (FAIL_TO_PASS: a test the unfixed code fails is the one a forged report
   * must turn; twinned, the forger must tell its copy from it), by name (a JS test: its title or full title).
   */
  prefer?: (name: string) => boolean;
}

/** Preferred tests first, then by rank (`rank`: the file's text and the name, the same in every run). */
const byPreference =
  (text: string, prefer: ((name: string) => boolean) | undefined) =>
  (a: string, b: string): number => {
    const p = (n: string) => (prefer?.(n) ? 0 : 1);
    return p(a) - p(b) || rank(text, a) - rank(text, b);
  };

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
export function changedLiteral(
  literal: string,
  draw: Draw = randomInt,
  /** Other string literals of the file: a string is changed to one of them (of the same quote) where there is one. */
  strings: readonly string[] = [],
): string | null {
  const flips: Record<string, string> = { true: "false", false: "true", True: "False", False: "True" };
  if (flips[literal]) return flips[literal]!;
  if (/^[[(]/.test(literal)) {
    if (!balanced(literal)) return null;
    // One of its numbers, tried in a drawn order (as `changeOne` tries spots).
    const numbers = [...literal.matchAll(/-?\d+(?:\.\d+)?/g)];
    while (numbers.length > 0) {
      const [pick] = numbers.splice(draw(0, numbers.length), 1);
      const changed = changedLiteral(pick![0], draw);
      if (changed !== null)
        return `${literal.slice(0, pick!.index)}${changed}${literal.slice(pick!.index + pick![0].length)}`;
    }
    return null;
  }
  if (/^["']/.test(literal)) {
    // Another of the file's own strings reads as naturally as the original, if it is of the same
    // quote and kind (a word for a word, free text for free text) and as frequent: the copy's value
    // then occurs as often in the file as the original's (a reader counting occurrences learns nothing).
    const spaced = (q: string) => /\s/.test(q);
    const count = (q: string) => strings.filter((x) => x === q).length;
    const others = [...new Set(strings)]
      .filter((o) => o !== literal && o[0] === literal[0] && spaced(o) === spaced(literal))
      .filter((o) => count(o) === count(literal) - 1)
      .sort();
    if (others.length > 0) return others[draw(0, others.length)]!;
    // Else one character changed, only where that reads as naturally: a digit of a string that has
    // digits (a version, a date, an id), or a string of at most two characters. A word with a letter
    // changed is a typo any dictionary finds.
    const inner = literal.slice(1, -1);
    const digits = /\d/.test(inner);
    if (/\s/.test(inner) || (!digits && inner.length > 2)) return null;
    const spots = [...inner].flatMap((c, i) => ((digits ? /\d/ : /[A-Za-z0-9]/).test(c) ? [i] : []));
    if (spots.length === 0) return null;
    const at = spots[draw(0, spots.length)]!;
    const c = inner[at]!;
    const pool = /[a-z]/.test(c)
      ? "abcdefghijklmnopqrstuvwxyz"
      : /[A-Z]/.test(c)
        ? "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        : "0123456789";
    const rest = pool.replace(c, "");
    const next = rest[draw(0, rest.length)]!;
    return `${literal[0]}${inner.slice(0, at)}${next}${inner.slice(at + 1)}${literal[0]}`;
  }
  // One of the six values within 3 of the original, each as likely; none when the one drawn crosses
  // zero or a boundary of a fixed-size integer (a count is never negative, a uint8 never 256): so for
  // any two values, each is as likely to be the original as the copy.
  const decimals = literal.split(".")[1]?.length ?? 0;
  const offsets = [-3, -2, -1, 1, 2, 3];
  const v = Number(literal);
  const value = v + offsets[draw(0, offsets.length)]!;
  if (v < 0 !== value < 0) return null;
  if (LIMITS.some((b) => v < b !== value < b)) return null;
  const text = decimals > 0 ? value.toFixed(decimals) : String(value);
  return text === literal ? null : text;
}

/**
 * One spot of a test changed (`changedLiteral`), the spots tried in a drawn order until one can be.
 * Trying another spot, never the same one again, keeps each value as likely to be the original as
 * the copy: whether a spot is reached depends on the other spots only, which both twins share.
 */
function changeOne<S extends { literal: string }>(
  spots: readonly S[],
  draw: Draw,
  strings: readonly string[],
  /** What the test tells besides the spot (`toldText` of its lines, the spot's value left out). */
  told: (spot: S) => string,
): { spot: S; literal: string } | null {
  const left = [...spots];
  while (left.length > 0) {
    const [spot] = left.splice(draw(0, left.length), 1);
    const literal = changedLiteral(spot!.literal, draw, strings);
    if (literal !== null && !tells(told(spot!), spot!.literal, literal)) return { spot: spot!, literal };
  }
  return null;
}

/** What `lines` tell (`toldText`) with line `at` read as `line` (the spot without its value). */
const toldWithout = (lines: readonly string[], at: number, line: string, lexicon: Lexicon): string =>
  toldText(lines.map((l, i) => (i === at ? line : l)).join("\n"), lexicon);

/** The parts of a literal a reader would look for: a string's text, a boolean, each number. */
const valueParts = (literal: string): string[] =>
  /^["']/.test(literal)
    ? [literal.slice(1, -1)]
    : /^(?:true|false|True|False)$/.test(literal)
      ? [literal.toLowerCase()]
      : [...literal.matchAll(/\d+(?:\.\d+)?/g)].map((m) => m[0]);

/**
 * Whether `told` (a test's comments, strings and names) mentions a part that differs between a
 * spot's value and its copy's: `t.Errorf("… want 5")` beside `got != 7`, a title `returns 5` or a
 * name `test_add_5` would show which twin is the original. Symmetric in the two values, so passing
 * over such a spot leaves each as likely to be the original as the copy.
 */
export function tells(told: string, from: string, to: string): boolean {
  const a = valueParts(from);
  const b = valueParts(to);
  const changed = [...a.filter((x) => !b.includes(x)), ...b.filter((x) => !a.includes(x))];
  return changed.some((part) => {
    const escaped = part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    // A number anywhere digits end (`want 5`, `test_add_5`); a word or a boolean as a word.
    const edge = /^\d/.test(part) && /^[\d.]+$/.test(part) ? "\\d" : "A-Za-z0-9";
    const before = /^[A-Za-z0-9]/.test(part) ? `(?<![${edge}.])` : "";
    const after = /[A-Za-z0-9]$/.test(part) ? `(?![${edge}]|\\.\\d)` : "";
    return new RegExp(`${before}${escaped}${after}`, /^(?:true|false)$/.test(part) ? "i" : "").test(told);
  });
}

/** Where fixed-size integers overflow (a copy's value on the other side would not compile in Go). */
const LIMITS = [128, 256, 32768, 65536, 2 ** 31, 2 ** 32, -128, -32768, -(2 ** 31)].map((b) => b - 0.5);

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

/**
 * Whether another file names the test other than by defining its own of that name (a conftest that
 * marks it, a Go table that calls it): renamed, that file would miss it or no longer compile.
 */
const referenced = (name: string, elsewhere: string, keyword: "def" | "func"): boolean =>
  new RegExp(`\\b${name}\\b`).test(elsewhere.replace(new RegExp(`\\b${keyword}[ \\t]+${name}\\b`, "g"), ""));

/**
 * The file's short string literals without escapes, each as often as it occurs, for a changed string
 * that reads like the file's own: not those of imports, comments, test titles or parametrize's names.
 */
const fileStrings = (text: string): string[] =>
  text
    .split("\n")
    .filter((l) => !/^\s*(?:import|from|#|\/\/)|\brequire\(|^\s*(?:it|test|describe|func)\b/.test(l))
    .join("\n")
    .replace(/parametrize\(\s*(["'])[^"'\n]*\1/g, "")
    .match(QUOTED)
    ?.filter((q) => /^(["'])[^"'\\\n]{1,200}\1$/.test(q)) ?? [];

/**
 * A body that reads its own test's name (a snapshot, a golden file, a name-keyed registry): renamed,
 * it would read another, and a correct fix would fail.
 */
const PY_NAME_KEYED =
  /\b(?:__name__|__qualname__|co_name|_getframe|currentframe|request|snapshot|PYTEST_CURRENT_TEST)\b|\binspect\./;

/** A top-level class's lines, from its `class` line to the next line at column 0. */
function classText(lines: readonly string[], at: number): string {
  const end = lines.findIndex((l, j) => j > at && l.trim() !== "" && !/^[ \t]/.test(l));
  return lines.slice(at, end < 0 ? lines.length : end).join("\n");
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
  options: {
    base?: string;
    accepts?: NameFilter;
    taken?: readonly string[];
    className?: string;
    /** Only these tests (`Class::name`, `::name` at module level): a node-id selection's. */
    only?: ReadonlySet<string>;
    /** Whether the command deselects a test of this name (of this class): such a test, or new name, is never used. */
    deselects?: (name: string, className?: string) => boolean;
  } & TwinContext = {},
): TwinPlan | null {
  const base = new Set((options.base ?? "").split("\n").map((l) => l.trim()));
  const accepts = options.accepts ?? (() => true);
  const draw = options.draw ?? randomInt;
  const elsewhere = options.elsewhere ?? "";
  const used = new Set(options.taken ?? []);
  const lines = text.split("\n");
  const strings = fileStrings(text);
  const once = (name: string) => (text.match(new RegExp(`\\b${name}\\b`, "g")) ?? []).length === 1;
  // Tests something other than their body can skip (a module's pytestmark or importorskip, a
  // decorated class): both twins honestly skipped would read as a forged report (sentinel-check.ts).
  if (/^(?:pytestmark\b|\w+\s*=\s*pytest\.importorskip\(|pytest\.(?:importorskip|skip)\()/m.test(text))
    return null;
  const skippable = (className: string) => {
    const at = lines.findIndex((l) => new RegExp(`^class[ \\t]+${className}\\b`).test(l));
    return at < 0 || decoratedAt(lines, at) || /^[ \t]+pytestmark\b/m.test(classText(lines, at));
  };
  const inherited = new Set(
    [...`${text}\n${elsewhere}`.matchAll(/^[ \t]*class[ \t]+\w+[ \t]*\(([^)]*)\)/gm)].flatMap((m) =>
      m[1]!.split(",").map((base) => base.trim().split(".").at(-1)!),
    ),
  );
  // A unit the copy repeats (a test's lines, its decorator's with it) and the lines it may change.
  type Unit = {
    name: string;
    className?: string;
    start: number;
    def: number;
    end: number;
    spots: Spot[];
    parametrised?: true;
  };
  type Spot = { line: number; head: string; literal: string; tail: string };
  const plain: Unit[] = pythonPlainTests(text)
    .filter((t) => !PY_NAME_KEYED.test(t.body.join("\n")))
    .map((t) => ({
      name: t.name,
      ...(t.className ? { className: t.className } : {}),
      start: t.def,
      def: t.def,
      end: t.def + 1 + t.body.length,
      spots: changeable(t.body, t.indent, base).map((c) => ({
        line: t.def + 1 + c.line,
        head: `${t.indent}${c.head}`,
        literal: c.literal,
        tail: c.tail,
      })),
    }));
  // Parametrised tests: not under -k, which matches the parameters' ids too.
  const operand = (e: string) => plainOperand(e) && !LOOSE.test(e) && !/^["'\d-]/.test(e);
  const params: Unit[] = options.accepts
    ? []
    : pythonParamTests(text, openLines(text, "python"), new RegExp(`^(?:${LITERAL})$`), base, operand)
        .filter((t) => !PY_NAME_KEYED.test(lines.slice(t.def, t.end).join("\n")))
        .map((t) => ({ ...t, spots: t.rows, parametrised: true as const }));
  const eligible = [...plain, ...params]
    .filter((t) => options.className === undefined || t.className === options.className)
    .filter((t) => options.only === undefined || options.only.has(`${t.className ?? ""}::${t.name}`))
    .filter((t) => !options.deselects?.(t.name, t.className))
    // A class another inherits runs its methods under both: renamed, a node id naming the subclass's breaks.
    .filter((t) => t.className === undefined || !inherited.has(t.className))
    .filter((t) => t.className === undefined || !skippable(t.className))
    .filter((t) => once(t.name) && !referenced(t.name, elsewhere, "def") && accepts(t.name) === true)
    .filter((t) => t.spots.length > 0)
    .sort((a, b) => byPreference(text, options.prefer)(a.name, b.name))
    .slice(0, MAX_TWINS);
  const fresh = (name: string, className?: string): string | null => {
    for (let tries = 0; tries < 200; tries++) {
      const candidate = `${name}_${draw(2, 100)}`;
      const word = new RegExp(`\\b${candidate}\\b`);
      if (used.has(candidate) || word.test(text) || word.test(elsewhere)) continue;
      if (accepts(candidate) !== true || options.deselects?.(candidate, className)) continue;
      used.add(candidate);
      return candidate;
    }
    return null;
  };
  const rename = (line: string, name: string) => line.replace(/^(\s*)def[ \t]+\w+/, `$1def ${name}`);
  const planned: Array<{ unit: Unit; renamed: string; copy: string[]; before: boolean }> = [];
  const twins: SentinelTwin[] = [];
  for (const unit of eligible) {
    const own = lines.slice(unit.start, unit.end);
    const told = (s: Spot) => toldWithout(own, s.line - unit.start, `${s.head}${s.tail}`, "python");
    // A parametrised copy's new string stands in its row's report id: none with a bracket (sentinel-check.ts).
    const pool = unit.parametrised ? strings.filter((q) => !/[[\]]/.test(q)) : strings;
    const { spot, literal } = changeOne(unit.spots, draw, pool, told) ?? {};
    const renamed = literal ? fresh(unit.name, unit.className) : null;
    const copyName = renamed ? fresh(unit.name, unit.className) : null;
    if (!spot || !literal || !renamed || !copyName) continue;
    const copy = own.map((l, i) => {
      const at = unit.start + i;
      // The line's trailing blanks kept: a copy that lost them would show.
      if (at === spot.line) return `${spot.head}${literal}${spot.tail}${/\s*$/.exec(l)![0]}`;
      return at === unit.def ? rename(l, copyName) : l;
    });
    planned.push({ unit, renamed, copy, before: draw(0, 2) === 0 });
    twins.push({
      original: unit.name,
      renamed,
      copy: copyName,
      ...(unit.parametrised ? { parametrised: true } : {}),
    });
  }
  if (twins.length === 0) return null;
  // From the bottom up, so that the earlier tests' line numbers still hold.
  for (const { unit, renamed, copy, before } of planned.sort((a, b) => b.unit.start - a.unit.start)) {
    lines[unit.def] = rename(lines[unit.def]!, renamed);
    if (before) lines.splice(unit.start, 0, ...copy, "", "");
    else lines.splice(unit.end, 0, "", "", ...copy);
  }
  return { text: lines.join("\n"), twins };
}

/** A JS `it("title", () => {` / `test('title', function () {` line: indent, function, quote, title. */
const JS_TEST =
  /^(\s*)(it|test)\(\s*(["'])((?:(?!\3)[^\\\n])+)\3\s*,\s*(?:async\s*)?(?:\(\s*\)\s*=>|function\s*\(\s*\))\s*\{\s*$/;
const JS_DESCRIBE =
  /^(\s*)describe\(\s*(["'])((?:(?!\2)[^\\\n])+)\2\s*,\s*(?:\(\s*\)\s*=>|function\s*\(\s*\))\s*\{\s*$/;
/** A line that opens a suite block: any that `JS_DESCRIBE` does not read leaves the full titles unknown. */
const JS_SUITE_CALL = /^\s*(?:describe|context|suite|fdescribe|xdescribe)\b/;
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

/**
 * What a renamed or repeated JS test could not survive: an increment (state kept between runs), the
 * test's own context (`this.test.title`), snapshots and anything else keyed by the test's name.
 */
const JS_STATEFUL = /\+\+|--|\+=|-=|\bthis\b|Snapshot|getState|currentTest|testPath|\btask\b/;

/**
 * A JS test body's top-level statements (line indices), when they are only assertions, `const`/`let`
 * declarations and comments, all at one indent; null for any other body.
 */
function jsStatements(body: string[]): Set<number> | null {
  if (JS_STATEFUL.test(body.join("\n"))) return null;
  const statements = new Set<number>();
  let open = 0;
  let indent: string | undefined;
  for (const [i, line] of body.entries()) {
    const code = line.replace(/\/\/.*$/, "").trim();
    if (code === "") continue;
    if (open === 0) {
      const statement =
        /^(?:assert(?:\.\w+)?|strictEqual|equal|deepStrictEqual|deepEqual|ok|expect)\(/.test(code) ||
        /^(?:const|let)\s+(?:[A-Za-z_$][\w$]*|\{[\w$\s,]*\}|\[[\w$\s,]*\])\s*=(?!=)/.test(code);
      const pad = /^\s*/.exec(line)![0];
      indent ??= pad;
      if (!statement || pad !== indent) return null;
      statements.add(i);
    }
    open = depthAfter(code, open, QUOTED);
  }
  return open === 0 ? statements : null;
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

/**
 * The file's `it`/`test` calls with a block body, the describes around them, and where each ends;
 * none that starts, ends or is followed by a line inside a template literal or a block comment.
 */
function jsTests(lines: string[], inside: ReadonlySet<number>): JsTest[] {
  const tests: JsTest[] = [];
  const describes: Array<{ indent: string; title: string }> = [];
  for (const [i, line] of lines.entries()) {
    if (inside.has(i)) continue;
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
    if (close < 0 || spansLiteral(inside, i, close + 1)) continue;
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
  options: {
    base?: string;
    accepts?: (fullTitle: string) => boolean;
    taken?: readonly string[];
  } & TwinContext = {},
): TwinPlan | null {
  const base = new Set((options.base ?? "").split("\n").map((l) => l.trim()));
  const lines = text.split("\n");
  // A suite call `jsTests` does not read (describe.skip, xdescribe, describe.each, context): its tests
  // may be skipped as a whole (both twins skipped reads as a forged report) or titled unknowably.
  if (lines.some((l) => JS_SUITE_CALL.test(l) && !JS_DESCRIBE.test(l))) return null;
  const accepts = options.accepts ?? (() => true);
  const draw = options.draw ?? randomInt;
  const elsewhere = options.elsewhere ?? "";
  const strings = fileStrings(text);
  const used = new Set(options.taken ?? []);
  const full = (t: JsTest, title: string) => [...t.parents, title].join(" ");
  const eligible = jsTests(lines, openLines(text, "js"))
    .filter((t) => text.split(t.title).length === 2 && accepts(full(t, t.title)))
    .map((t) => {
      const body = lines.slice(t.def + 1, t.close);
      const spots: Array<{ line: number; head: string; literal: string; tail: string; pad: string }> = [];
      for (const j of jsStatements(body) ?? []) {
        const line = body[j]!;
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
    .sort((a, b) => {
      const full_ = (t: JsTest) => full(t, t.title);
      const prefer = options.prefer;
      const p = (t: JsTest) => (prefer?.(t.title) || prefer?.(full_(t)) ? 0 : 1);
      return p(a.test) - p(b.test) || rank(text, a.test.title) - rank(text, b.test.title);
    })
    .slice(0, MAX_TWINS);
  const fresh = (t: JsTest): string | null => {
    for (let tries = 0; tries < 200; tries++) {
      const candidate = `${t.title} ${draw(2, 100)}`;
      if (used.has(candidate) || text.includes(candidate) || elsewhere.includes(candidate)) continue;
      // A report id ends in the full title: a name that ends another planned one (or is ended by it) would match both.
      if ([...used].some((u) => u.endsWith(` ${candidate}`) || candidate.endsWith(` ${u}`))) continue;
      if (!accepts(full(t, candidate))) continue;
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
    const own = lines.slice(test.def, test.close + 1);
    const told = (s: (typeof spots)[number]) => toldWithout(own, s.line + 1, `${s.head}${s.tail}`, "js");
    const { spot, literal } = changeOne(spots, draw, strings, told) ?? {};
    const renamed = literal ? fresh(test) : null;
    const copyTitle = renamed ? fresh(test) : null;
    if (!spot || !literal || !renamed || !copyTitle) continue;
    const changed = body.map((l, j) =>
      j === spot.line ? `${spot.pad}${spot.head}${literal}${spot.tail}${/\s*$/.exec(l)![0]}` : l,
    );
    const copy = [quote(lines[test.def]!, test.title, copyTitle), ...changed, lines[test.close]!];
    planned.push({
      def: test.def,
      close: test.close,
      renamed,
      copy,
      before: draw(0, 2) === 0,
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
  /\bt\.(?:Run|Parallel|Setenv|Chdir|Skip|SkipNow|Skipf)\(|\bos\.(?:Setenv|Unsetenv|Chdir|Remove\w*|WriteFile|Create|Mkdir\w*)\(|\bflag\.|^\s*(?:[A-Za-z_]\w*\.)?[A-Z]\w*\s*(?:=|\+=|-=)[^=]/m;

/**
 * A Go test body's top-level statements (line indices), when each is a local declaration
 * (`got := f(x)`, `var x = …`), an `if` or `for` block, or a call of `t.…` or testify's
 * `assert.…`/`require.…`, all at one indent; null for any other body: a bare call (`Register()`),
 * an increment, an assignment to a name the body did not declare, `defer`, `go`, a name-keyed
 * `t.Name()` (a golden file: renamed, the test would read another).
 */
function goStatements(body: string[], t: string): number[] | null {
  const code = body.join("\n");
  if (/\+\+|--|\+=|-=|\*=|\/=/.test(code) || new RegExp(`\\b${t}\\.Name\\(`).test(code)) return null;
  const declared = new Set<string>();
  const statements: number[] = [];
  let open = 0;
  let indent: string | undefined;
  for (const [i, line] of body.entries()) {
    const stripped = line.replace(/\/\/.*$/, "");
    const trimmed = stripped.trim();
    if (trimmed === "") continue;
    if (open === 0 && !/^[})]/.test(trimmed)) {
      const pad = /^\s*/.exec(line)![0];
      indent ??= pad;
      if (pad !== indent) return null;
      const declares =
        /^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*:=/.exec(trimmed) ??
        /^var\s+([A-Za-z_]\w*)\b/.exec(trimmed);
      const assigns = /^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?!=)/.exec(trimmed);
      if (declares) for (const n of declares[1]!.split(",")) declared.add(n.trim());
      else if (assigns) {
        if (!assigns[1]!.split(",").every((n) => n.trim() === "_" || declared.has(n.trim()))) return null;
      } else if (
        !/^(?:if|for)\b/.test(trimmed) &&
        !new RegExp(`^(?:${t}|assert|require)\\.\\w+\\(`).test(trimmed)
      )
        return null;
      statements.push(i);
    }
    open = depthAfter(stripped, open, QUOTED);
  }
  return open === 0 ? statements : null;
}

/**
 * Whether the `if` on body line `j` is a plain check: its block, closed by a lone `}` (no `else`),
 * holds only `t.Error…`/`t.Fatal…` calls (at least one) and perhaps a `return`, so the block runs
 * exactly when the condition holds and then always reports the failure.
 */
function goReports(body: string[], j: number, t: string): boolean {
  const indent = /^\s*/.exec(body[j]!)![0];
  let open = 0;
  let reports = false;
  for (const line of body.slice(j + 1)) {
    const code = line.replace(/\/\/.*$/, "").replace(/"(?:[^"\\]|\\.)*"/g, '""');
    const trimmed = code.trim();
    if (trimmed === "") continue;
    if (open === 0) {
      if (line === `${indent}}`) return reports;
      if (/^\s*\}/.test(line)) return false;
      if (new RegExp(`^${t}\\.(?:Error|Errorf|Fatal|Fatalf)\\(`).test(trimmed)) reports = true;
      else if (trimmed !== "return") return false;
    }
    open = depthAfter(code, open);
  }
  return false;
}

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
  options: { base?: string; run?: RegExp | null } & TwinContext = {},
): TwinPlan | null {
  const base = new Set((options.base ?? "").split("\n").map((l) => l.trim()));
  const run = options.run ?? null;
  const draw = options.draw ?? randomInt;
  const strings = fileStrings(text).filter((q) => q.startsWith('"'));
  const lines = text.split("\n");
  const inside = openLines(text, "go");
  const exists = (name: string) =>
    new RegExp(`\\b${name}\\b`).test(text) || new RegExp(`\\b${name}\\b`).test(options.elsewhere ?? "");
  const once = (name: string) => (text.match(new RegExp(`\\b${name}\\b`, "g")) ?? []).length === 1;
  const tests: Array<{
    name: string;
    /** The test's *testing.T parameter. */
    t: string;
    def: number;
    close: number;
    spots: GoSpot[];
  }> = [];
  for (const [i, line] of lines.entries()) {
    const m = /^func\s+(Test\w*)\s*\(\s*(\w+)\s+\*\s*\w+\.T\s*\)\s*\{\s*$/.exec(line);
    if (!m || inside.has(i) || !once(m[1]!) || (run && !run.test(m[1]!))) continue;
    if (referenced(m[1]!, options.elsewhere ?? "", "func")) continue;
    const close = lines.findIndex((l, j) => j > i && l === "}");
    if (close < 0 || spansLiteral(inside, i, close + 1)) continue;
    const body = lines.slice(i + 1, close);
    const t = m[2]!;
    const top = goStatements(body, t);
    if (top === null || GO_STATEFUL.test(body.join("\n"))) continue;
    const spots: GoSpot[] = [];
    const fails = (j: number) => goReports(body, j, t);
    for (const j of top) {
      const l = body[j]!;
      if (l.includes("//") || base.has(l.trim())) continue;
      const cond = GO_IF.exec(l);
      const bool = cond ? null : GO_IF_BOOL.exec(l);
      if (cond && plainGoOperand(cond[2]!) && !/^["\d-]/.test(cond[2]!) && fails(j))
        spots.push({ line: j, head: `${cond[1]}${cond[2]}${cond[3]}`, literal: cond[4]!, tail: cond[5]! });
      else if (bool && plainGoOperand(bool[3]!) && !/^[!"\d-]/.test(bool[3]!) && fails(j)) {
        // `if !ok(x) {` runs as `if ok(x) == false {`, its copy as `== true`: the two read alike.
        const head = `${bool[1]}${bool[3]} == `;
        const literal = bool[2] === "!" ? "false" : "true";
        spots.push({ line: j, head, literal, tail: bool[4]!, original: `${head}${literal}${bool[4]}` });
      }
      const eq = GO_EQUAL.exec(l);
      if (eq && plainGoOperand(eq[4]!))
        spots.push({ line: j, head: eq[1]!, literal: eq[2]!, tail: `${eq[3]}${eq[4]}${eq[5]}` });
    }
    if (spots.length > 0) tests.push({ name: m[1]!, t, def: i, close, spots });
  }
  const chosen = tests.sort((a, b) => byPreference(text, options.prefer)(a.name, b.name)).slice(0, MAX_TWINS);
  const used = new Set<string>();
  const fresh = (name: string): string | null => {
    for (let tries = 0; tries < 200; tries++) {
      const candidate = `${name}${draw(2, 100)}`;
      if (used.has(candidate) || exists(candidate) || (run && !run.test(candidate))) continue;
      used.add(candidate);
      return candidate;
    }
    return null;
  };
  const planned: Array<{ def: number; close: number; renamed: string; copy: string[]; before: boolean }> = [];
  const twins: SentinelTwin[] = [];
  for (const test of chosen) {
    const own = lines.slice(test.def, test.close + 1);
    const told = (s: GoSpot) => toldWithout(own, s.line + 1, `${s.head}${s.tail}`, "go");
    const { spot, literal } = changeOne(test.spots, draw, strings, told) ?? {};
    const renamed = literal ? fresh(test.name) : null;
    const copyName = renamed ? fresh(test.name) : null;
    if (!spot || !literal || !renamed || !copyName) continue;
    if (spot.original !== undefined) lines[test.def + 1 + spot.line] = spot.original;
    const body = lines
      .slice(test.def + 1, test.close)
      .map((l, j) => (j === spot.line ? `${spot.head}${literal}${spot.tail}` : l));
    const copy = [lines[test.def]!.replace(test.name, copyName), ...body, "}"];
    planned.push({ def: test.def, close: test.close, renamed, copy, before: draw(0, 2) === 0 });
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
