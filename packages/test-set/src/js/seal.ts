import type { Grammar, Parsers, SyntaxNode } from "../parsers.js";
import type { SealRule } from "../rules.js";
import type { Canon } from "../seal/canon.js";
import { applyEdits, type Edit } from "../seal/edits.js";
import type { ComparisonKind } from "../seal/kinds.js";
import type { FileSeals, SealSite, TestRef, Unsealed } from "../seal/plan.js";
import { strengthOf } from "../seal/strength.js";
import { jsLiteral } from "./literal.js";
import { type JsModuleKind, jsRuntime } from "./runtime.js";
import { columnAt, columnUses, type Table, tableOf, tablesOf } from "./table.js";

/**
 * Seals a mocha, jest or vitest test file (docs/security.md, "Sealed expectations"; rules.ts): each
 * assertion that is a statement of an `it`/`test` callback's own body is rewritten to hand its
 * actual value to the runtime (js/runtime.ts, appended to the file), the expected value left out
 * when it is a literal, both sides recorded when the test computes it.
 */

const named = (node: SyntaxNode | null | undefined): SyntaxNode[] =>
  node ? node.namedChildren.filter((c): c is SyntaxNode => c !== null) : [];
const quote = (key: string) => JSON.stringify(key);
const lineOf = (node: SyntaxNode) => node.startPosition.row + 1;

/** Why a comparison is left to the runner whatever its expected side (rules.ts `unsealed.<this>`). */
type LeftToRunner = "setup-module" | "expect-alias" | "equality-testers" | "extended-matcher";

/** `(x)`, `x as T`: the expression inside. */
function bare(node: SyntaxNode): SyntaxNode {
  let n = node;
  while (["parenthesized_expression", "as_expression", "satisfies_expression"].includes(n.type)) {
    const inner = named(n)[0];
    if (!inner) break;
    n = inner;
  }
  return n;
}

/** How the file asserts: node:assert bindings (strict or legacy), chai's assert and expect. */
interface Vocabulary {
  /** Names bound to node's assert, and whether each is the strict one. */
  nodeAssert: Map<string, boolean>;
  /** Functions imported from node's assert by name (`strictEqual`), with strictness. */
  nodeFunctions: Map<string, { name: string; strict: boolean }>;
  /** Names bound to chai's assert. */
  chaiAssert: Set<string>;
  /** Whether `expect` is chai's (else jest's or vitest's, whose chai chains are chai's too). */
  chaiExpect: boolean;
  /**
   * What the file binds `expect` to: the runner's (`vitest`, `@jest/globals`, the `expect` package),
   * chai's, another value (a helper module's, a declaration, a parameter, an assignment), or nothing
   * (the runner's global).
   */
  expectBinding: "runner" | "chai" | "other" | null;
}

/** Modules whose `expect` is the runner's own. */
const RUNNER_EXPECT = new Set(["vitest", "@jest/globals", "expect"]);

const ASSERT_SOURCE = /^(node:)?assert(\/strict)?$/;

function stringValue(node: SyntaxNode | null | undefined): string | null {
  if (node?.type !== "string") return null;
  const value = jsLiteral(node);
  return value?.t === "str" ? (value.v as string) : null;
}

/** `require("x")` or `require("x").strict`: the module and whether `.strict` was taken. */
function requireOf(node: SyntaxNode | null): { source: string; strict: boolean } | null {
  if (!node) return null;
  let call = node;
  let strict = false;
  if (node.type === "member_expression" && node.childForFieldName("property")?.text === "strict") {
    call = node.childForFieldName("object")!;
    strict = true;
  }
  if (call.type !== "call_expression" || call.childForFieldName("function")?.text !== "require") return null;
  const source = stringValue(named(call.childForFieldName("arguments"))[0]);
  return source === null ? null : { source, strict };
}

function vocabulary(root: SyntaxNode): Vocabulary {
  const vocab: Vocabulary = {
    nodeAssert: new Map(),
    nodeFunctions: new Map(),
    chaiAssert: new Set(),
    chaiExpect: false,
    expectBinding: null,
  };
  const bindExpect = (binding: "runner" | "chai" | "other") => {
    // A second binding of the name (`import { expect } from "vitest"` and `let expect` inside) is another value.
    vocab.expectBinding = vocab.expectBinding === null ? binding : "other";
  };
  const bindImport = (source: string, local: string, imported: string | null) => {
    if (local === "expect")
      bindExpect(
        source === "chai" && imported === "expect"
          ? "chai"
          : RUNNER_EXPECT.has(source) &&
              (imported === "expect" ||
                (source === "expect" && (imported === null || imported === "default")))
            ? "runner"
            : "other",
      );
    if (ASSERT_SOURCE.test(source)) {
      const strict = source.endsWith("/strict") || imported === "strict";
      if (imported === null || imported === "default" || imported === "strict")
        vocab.nodeAssert.set(local, strict);
      else vocab.nodeFunctions.set(local, { name: imported, strict: source.endsWith("/strict") });
    }
    if (source === "chai") {
      if (imported === "assert") vocab.chaiAssert.add(local);
      if (imported === "expect") vocab.chaiExpect = local === "expect";
    }
  };
  for (const statement of named(root)) {
    if (statement.type === "import_statement") {
      const source = stringValue(statement.childForFieldName("source"));
      if (source === null) continue;
      for (const clause of named(statement).filter((c) => c.type === "import_clause"))
        for (const part of named(clause)) {
          if (part.type === "identifier") bindImport(source, part.text, null);
          if (part.type === "namespace_import") bindImport(source, named(part)[0]?.text ?? "", null);
          if (part.type === "named_imports")
            for (const spec of named(part)) {
              const name = spec.childForFieldName("name")?.text ?? "";
              bindImport(source, spec.childForFieldName("alias")?.text ?? name, name);
            }
        }
    }
    if (statement.type === "lexical_declaration" || statement.type === "variable_declaration")
      for (const declarator of named(statement).filter((d) => d.type === "variable_declarator")) {
        const target = declarator.childForFieldName("name");
        const value = declarator.childForFieldName("value");
        const required = requireOf(value);
        // `const expect = require("chai").expect` (or `require("@jest/globals").expect`).
        const taken =
          value?.type === "member_expression" && value.childForFieldName("property")?.text === "expect"
            ? requireOf(value.childForFieldName("object"))
            : null;
        if (target?.type === "identifier" && target.text === "expect" && !required) {
          if (taken) bindImport(taken.source, "expect", "expect");
          else bindExpect("other");
        }
        if (!target || !required) continue;
        if (target.type === "identifier" && target.text === "expect")
          bindImport(required.source, "expect", null);
        if (target.type === "identifier") {
          if (ASSERT_SOURCE.test(required.source))
            vocab.nodeAssert.set(target.text, required.strict || required.source.endsWith("/strict"));
        } else if (target.type === "object_pattern")
          for (const prop of named(target)) {
            const key = prop.type === "pair_pattern" ? prop.childForFieldName("key")?.text : prop.text;
            const local = prop.type === "pair_pattern" ? prop.childForFieldName("value")?.text : prop.text;
            if (key && local) bindImport(required.source, local, key);
          }
      }
  }
  // `expect` bound inside (a parameter, a test's own `const expect`), a top-level function or class
  // of that name, or assigned anywhere (`expect = wrap(expect)`): not the runner's.
  const assigned = root
    .descendantsOfType("assignment_expression")
    .some((a) =>
      /^(?:(?:globalThis|global|window|self)\s*\.\s*)?expect$/.test(a?.childForFieldName("left")?.text ?? ""),
    );
  if (assigned || boundInside(root, false).has("expect")) vocab.expectBinding = "other";
  return vocab;
}

/** One assertion statement's comparison, before it gets its key. */
interface Found {
  kind: ComparisonKind;
  line: number;
  source: string;
  expected?: Canon;
  options?: Record<string, number | boolean | null>;
  /** The module constant the expected side is, when it is one (`toEqual(UNIQUE)`). */
  constant?: string;
  edits: (key: string) => Edit[];
  /**
   * A comparison whose expected side the test computes: that side's node, and the edits that hand
   * both sides to the runtime's table cells (a table's emptied column: js/table.ts), which record
   * the actual value under a row's key and give the matcher undefined twice, or give back both
   * sides for a row that holds its value (`expect(__oracleCell(want, f(x))).toBe(__oracleCellWant(want))`).
   */
  column?: { expected: SyntaxNode; cell: () => Edit[] };
}

/** The chain of an expression `expect(A).x.y(B)`: the expect call's argument and the member names after it, the last call's arguments. */
function expectChain(
  expression: SyntaxNode,
): { actual: SyntaxNode; expectName: string; names: string[]; args: SyntaxNode[] | null } | null {
  let node = expression;
  let args: SyntaxNode[] | null = null;
  if (node.type === "call_expression") {
    args = named(node.childForFieldName("arguments"));
    node = node.childForFieldName("function")!;
  }
  const names: string[] = [];
  while (node.type === "member_expression") {
    names.unshift(node.childForFieldName("property")?.text ?? "");
    node = node.childForFieldName("object")!;
  }
  if (node.type !== "call_expression") return null;
  const fn = node.childForFieldName("function");
  if (fn?.type !== "identifier") return null;
  const expectArgs = named(node.childForFieldName("arguments"));
  if (expectArgs.length !== 1 || expectArgs[0]!.type === "spread_element") return null;
  return { actual: expectArgs[0]!, expectName: fn.text, names, args };
}

const JEST_MATCHERS: Record<string, ComparisonKind> = {
  toBe: "js.is",
  toEqual: "js.toEqual",
  toStrictEqual: "js.toStrictEqual",
};
const CHAI_EQUAL = new Set(["equal", "equals", "eq"]);
const CHAI_FILLER = new Set([
  "to",
  "be",
  "been",
  "is",
  "that",
  "which",
  "and",
  "has",
  "have",
  "with",
  "at",
  "of",
  "same",
  "but",
  "does",
  "still",
  "also",
]);

/** An assertion statement's comparison (jest/vitest expect, chai expect/assert, node assert), or null. */
function comparisonOf(
  expression: SyntaxNode,
  statement: SyntaxNode,
  vocab: Vocabulary,
  constants: ReadonlyMap<string, Canon>,
): Found | null {
  const line = lineOf(statement);
  const source = statement.text;
  const literal = (node: SyntaxNode | undefined) => (node ? jsLiteral(node, constants) : null);
  // A jest/vitest `expect` chain stays one `expect(…)` matcher call that passes whatever the value
  // (the runtime helpers return undefined; the verdict is the host's, on the record), so
  // `expect.assertions(n)` and `expect.hasAssertions()` count what they counted before; a chai
  // chain keeps chai's form. node:assert and chai's assert count nothing and become the bare call.
  let counted: "jest" | "chai" | null = null;
  const replaceWith = (key: string, fn: string, actual: SyntaxNode): Edit[] => {
    const call = `${fn}(${quote(key)}, ${actual.text})`;
    const text =
      counted === "jest"
        ? `expect(${call}).toBe(undefined)`
        : counted === "chai"
          ? `expect(${call}).to.equal(undefined)`
          : call;
    return [{ start: expression.startIndex, end: expression.endIndex, text }];
  };
  const sealed = (
    kind: ComparisonKind,
    actual: SyntaxNode,
    expected: Canon,
    options?: Found["options"],
  ): Found => ({
    kind,
    line,
    source,
    expected,
    ...(options ? { options } : {}),
    edits: (key) => replaceWith(key, "__oracleSeal", actual),
  });
  const truth = (actual: SyntaxNode, want: boolean): Found => ({
    kind: "js.truth",
    line,
    source,
    expected: { t: "bool", v: want },
    edits: (key) => replaceWith(key, "__oracleTruth", actual),
  });
  const checked = (kind: ComparisonKind, a: SyntaxNode, b: SyntaxNode): Found => ({
    kind,
    line,
    source,
    edits: (key) => [
      { start: a.startIndex, end: a.startIndex, text: `__oracleSide(${quote(key)}, 0, ` },
      { start: a.endIndex, end: a.endIndex, text: ")" },
      { start: b.startIndex, end: b.startIndex, text: `__oracleSide(${quote(key)}, 1, ` },
      { start: b.endIndex, end: b.endIndex, text: ")" },
    ],
  });
  const compare = (kind: ComparisonKind, a: SyntaxNode, b: SyntaxNode): Found => {
    const expected = literal(b);
    if (!expected)
      return {
        ...checked(kind, a, b),
        column: {
          expected: b,
          cell: () => [
            { start: a.startIndex, end: a.startIndex, text: `__oracleCell(${b.text}, ` },
            { start: a.endIndex, end: a.endIndex, text: ")" },
            { start: b.startIndex, end: b.endIndex, text: `__oracleCellWant(${b.text})` },
          ],
        },
      };
    const found = sealed(kind, a, expected);
    return b.type === "identifier" && constants.has(b.text) ? { ...found, constant: b.text } : found;
  };
  const chain = expectChain(expression);
  if (chain && chain.expectName === "expect") {
    const { actual, names, args } = chain;
    if (names.some((n) => ["not", "resolves", "rejects"].includes(n))) return null;
    const last = names.at(-1) ?? "";
    const chai = vocab.chaiExpect || names.slice(0, -1).some((n) => CHAI_FILLER.has(n));
    if (!vocab.chaiExpect) counted = chai ? "chai" : "jest";
    if (!chai && names.length === 1 && args !== null) {
      const [b] = args;
      if (JEST_MATCHERS[last] && args.length === 1 && b) return compare(JEST_MATCHERS[last]!, actual, b);
      if (args.length === 0) {
        if (last === "toBeTruthy") return truth(actual, true);
        if (last === "toBeFalsy") return truth(actual, false);
        if (last === "toBeNull") return sealed("js.is", actual, { t: "null" });
        if (last === "toBeUndefined") return sealed("js.is", actual, { t: "undefined" });
        if (last === "toBeNaN") return sealed("js.is", actual, { t: "num", v: "NaN" });
      }
      return null;
    }
    if (names.slice(0, -1).some((n) => !CHAI_FILLER.has(n) && n !== "deep")) return null;
    const deep = names.includes("deep");
    if (args !== null && args.length === 1 && args[0]) {
      if (CHAI_EQUAL.has(last)) return compare(deep ? "js.eql" : "js.strict", actual, args[0]);
      if (last === "eql") return compare("js.eql", actual, args[0]);
      return null;
    }
    if (args === null) {
      if (last === "true") return sealed("js.strict", actual, { t: "bool", v: true });
      if (last === "false") return sealed("js.strict", actual, { t: "bool", v: false });
      if (last === "null") return sealed("js.strict", actual, { t: "null" });
      if (last === "undefined") return sealed("js.strict", actual, { t: "undefined" });
      if (last === "ok") return truth(actual, true);
    }
    return null;
  }
  if (expression.type !== "call_expression") return null;
  const fn = expression.childForFieldName("function")!;
  const args = named(expression.childForFieldName("arguments"));
  if (args.some((a) => a.type === "spread_element")) return null;
  const [a, b] = args;
  // node:assert: `assert(x)`, `assert.ok(x)`, `assert.strictEqual(a, b)`, … (strict: `equal` is `strictEqual`).
  const object = fn.type === "member_expression" ? fn.childForFieldName("object")?.text : undefined;
  const method = fn.type === "member_expression" ? fn.childForFieldName("property")?.text : undefined;
  if (fn.type === "identifier" && vocab.nodeAssert.has(fn.text) && a) return truth(a, true);
  const nodeCall =
    object !== undefined && vocab.nodeAssert.has(object)
      ? { name: method ?? "", strict: vocab.nodeAssert.get(object)! }
      : fn.type === "identifier"
        ? vocab.nodeFunctions.get(fn.text)
        : undefined;
  if (nodeCall) {
    const { name, strict } = nodeCall;
    if (name === "ok" && a) return truth(a, true);
    if (!a || !b) return null;
    if (name === "strictEqual" || (strict && name === "equal")) return compare("js.is", a, b);
    if (name === "deepStrictEqual" || (strict && name === "deepEqual"))
      return compare("js.deepStrictEqual", a, b);
    if (name === "equal") return compare("js.nodeLoose", a, b);
    if (name === "deepEqual") return compare("js.deepEqual", a, b);
    return null;
  }
  if (object !== undefined && vocab.chaiAssert.has(object) && a) {
    if (method === "isTrue") return sealed("js.strict", a, { t: "bool", v: true });
    if (method === "isFalse") return sealed("js.strict", a, { t: "bool", v: false });
    if (method === "isNull") return sealed("js.strict", a, { t: "null" });
    if (method === "isUndefined") return sealed("js.strict", a, { t: "undefined" });
    if (method === "isOk" || method === "ok") return truth(a, true);
    if (!b) return null;
    if (method === "strictEqual") return compare("js.strict", a, b);
    if (method === "equal") return compare("js.loose", a, b);
    if (method === "deepEqual" || method === "deepStrictEqual") return compare("js.eql", a, b);
  }
  return null;
}

/** A test or suite call: its kind, its title (when a plain string), its callback, why it cannot be sealed. */
interface Call {
  kind: "suite" | "test";
  title: string | null;
  body: SyntaxNode | null;
  why: SealRule | null;
  /** `suite(title);` with no callback (mocha's qunit interface): the tests after it, up to the next such call, are its. */
  opens: boolean;
}

const SUITES = new Set(["describe", "context", "suite"]);
const TESTS = new Set(["it", "test", "specify"]);

function callOf(statement: SyntaxNode): Call | null {
  const [expression] = named(statement);
  if (expression?.type !== "call_expression") return null;
  const fn = expression.childForFieldName("function")!;
  let base = fn.type === "identifier" ? fn.text : null;
  let modifier: string | null = null;
  if (fn.type === "member_expression" && fn.childForFieldName("object")?.type === "identifier") {
    base = fn.childForFieldName("object")!.text;
    modifier = fn.childForFieldName("property")?.text ?? null;
  }
  const kind = base && SUITES.has(base) ? "suite" : base && TESTS.has(base) ? "test" : null;
  if (kind === null) return null;
  if (fn.type === "call_expression")
    return { kind, title: null, body: null, why: "unsealed.title", opens: false };
  const args = named(expression.childForFieldName("arguments"));
  const [titleNode, callback] = args;
  const titleValue = titleNode ? jsLiteral(titleNode) : null;
  const title = titleValue?.t === "str" ? (titleValue.v as string) : null;
  const fnBody =
    callback &&
    (callback.type === "arrow_function" ||
      callback.type === "function_expression" ||
      callback.type === "function")
      ? callback.childForFieldName("body")
      : null;
  let why: SealRule | null = title === null ? "unsealed.title" : null;
  if (modifier && ["concurrent", "each", "for", "failing", "fails", "todo"].includes(modifier))
    why = modifier === "failing" || modifier === "fails" ? "unsealed.xfail" : "unsealed.title";
  if (
    modifier &&
    !["only", "skip", "concurrent", "each", "for", "failing", "fails", "todo"].includes(modifier)
  )
    why = "unsealed.title";
  return {
    kind,
    title,
    body: fnBody,
    why,
    opens: kind === "suite" && args.length === 1 && modifier === null,
  };
}

/** How many test calls (`it(…)`, `test.only(…)`) a loop statement (`for`, `while`, `rows.forEach(…)`) holds; 0 for any other statement. */
function loopTests(statement: SyntaxNode): number {
  const expression = statement.type === "expression_statement" ? named(statement)[0] : null;
  const fn = expression?.type === "call_expression" ? expression.childForFieldName("function") : null;
  const loop =
    ["for_in_statement", "for_statement", "while_statement", "do_statement"].includes(statement.type) ||
    (fn?.type === "member_expression" && fn.childForFieldName("property")?.text === "forEach");
  if (!loop) return 0;
  let n = 0;
  const walk = (node: SyntaxNode) => {
    if (node.type === "call_expression") {
      let f = node.childForFieldName("function");
      if (f?.type === "member_expression") f = f.childForFieldName("object");
      if (f?.type === "identifier" && TESTS.has(f.text)) n++;
    }
    for (const child of named(node)) walk(child);
  };
  walk(statement);
  return n;
}

/**
 * The statements of a block with the suite titles they run under: mocha's qunit interface opens a
 * suite with `suite(title);` and every test after it, up to the next one, is that suite's.
 */
function underSuites(
  statements: SyntaxNode[],
  titles: string[],
): Array<{ statement: SyntaxNode; call: Call; titles: string[] | null }> {
  const out: Array<{ statement: SyntaxNode; call: Call; titles: string[] | null }> = [];
  let current: string[] | null = titles;
  for (const statement of statements) {
    const call = callOf(statement);
    if (!call) continue;
    if (call.opens) {
      current = call.title === null ? null : [...titles, call.title];
      continue;
    }
    out.push({ statement, call, titles: current });
  }
  return out;
}

/** Whether a callback body returns (before its last statement), skips itself, or is not a block. */
function exitsEarly(body: SyntaxNode): boolean {
  const statements = named(body);
  const visit = (node: SyntaxNode): boolean => {
    if (node.type === "return_statement" && node !== statements.at(-1)) return true;
    if (node.type === "call_expression" && /(^|\.)skip$/.test(node.childForFieldName("function")?.text ?? ""))
      return true;
    if (
      [
        "function_declaration",
        "function_expression",
        "arrow_function",
        "class_declaration",
        "method_definition",
      ].includes(node.type)
    )
      return false;
    return named(node).some(visit);
  };
  return statements.some(visit);
}

/** The file's module system, for the runtime; null when it cannot be told. */
function moduleKind(path: string, root: SyntaxNode, vitest: boolean): JsModuleKind | null {
  if (/\.m[jt]s$/.test(path) || vitest) return "esm";
  if (/\.c[jt]s$/.test(path)) return "cjs";
  const top = named(root);
  if (top.some((s) => s.type === "import_statement" || s.type === "export_statement")) return "esm";
  return /\brequire\s*\(/.test(root.text) ? "cjs" : null;
}

/** Where an identifier node binds a name (a declaration, a parameter, a catch or loop binding, a pattern). */
const BINDS = new Set([
  "variable_declarator",
  "formal_parameters",
  "required_parameter",
  "optional_parameter",
  "assignment_pattern",
  "array_pattern",
  "object_pattern",
  "rest_pattern",
  "pair_pattern",
  "catch_clause",
  "for_in_statement",
  "arrow_function",
  "function_declaration",
  "generator_function_declaration",
  "class_declaration",
  "function_expression",
  "class",
  "import_specifier",
  "import_clause",
  "namespace_import",
]);

/**
 * Names bound anywhere in the file but by a top-level statement: a test, a suite or a helper that
 * declares its own `WANT` (`const`, `let`, a parameter, a catch or `for … of` binding) reads that,
 * not the module's; such a name is no constant anywhere in the file (found by an attack review: a
 * test's `const WANT = f(2)` was sealed with the module's `WANT`).
 */
function boundInside(root: SyntaxNode, imports = true): Set<string> {
  const names = new Set<string>();
  const walk = (node: SyntaxNode) => {
    const parent = node.parent;
    if (
      (node.type === "identifier" && parent && BINDS.has(parent.type)) ||
      node.type === "shorthand_property_identifier_pattern"
    ) {
      // A declarator's value, a default's value, a pair's key and a loop's right side are reads.
      const field = (name: string) => parent?.childForFieldName(name);
      const read =
        (parent?.type === "variable_declarator" && field("value")?.id === node.id) ||
        (parent?.type === "assignment_pattern" && field("right")?.id === node.id) ||
        (parent?.type === "pair_pattern" && field("key")?.id === node.id) ||
        (parent?.type === "for_in_statement" && field("right")?.id === node.id) ||
        (parent?.type === "arrow_function" && field("body")?.id === node.id) ||
        ((parent?.type === "required_parameter" || parent?.type === "optional_parameter") &&
          field("value")?.id === node.id);
      if (!read) names.add(node.text);
    }
    for (const child of named(node)) walk(child);
  };
  for (const statement of named(root)) {
    if (!imports && statement.type === "import_statement") continue;
    const topLevel = statement.type === "lexical_declaration" || statement.type === "variable_declaration";
    if (!topLevel) {
      walk(statement);
      continue;
    }
    // A top-level declaration's own names are the constants; what its values hold is inside.
    for (const declarator of named(statement).filter((d) => d.type === "variable_declarator")) {
      const value = declarator.childForFieldName("value");
      if (value) walk(value);
    }
  }
  return names;
}

/**
 * The tables (js/table.ts) a loop in a block may read: the block's own `const NAME = [...]` (the
 * file's top level, or a suite's body: `describe("encode", () => { const tests = [...]; for (const t
 * of tests) … })`), named in that block only there and by the loop, and those of the blocks around
 * it that the block does not declare again.
 */
function blockTables(
  block: SyntaxNode,
  outer: ReadonlyMap<string, SyntaxNode>,
): ReadonlyMap<string, SyntaxNode> {
  const out = new Map(outer);
  for (const statement of named(block))
    if (statement.type === "lexical_declaration" || statement.type === "variable_declaration")
      for (const declarator of named(statement).filter((d) => d.type === "variable_declarator"))
        out.delete(declarator.childForFieldName("name")?.text ?? "");
  for (const [name, rows] of tablesOf(block, (name) => usesIn(block, name), boundInside(block)))
    out.set(name, rows);
  return out;
}

/** How often a file names an identifier (its declaration, `{ NAME }` shorthands included; not `x.NAME`). */
function usesIn(root: SyntaxNode, name: string): number {
  let n = 0;
  const walk = (node: SyntaxNode) => {
    if ((node.type === "identifier" || node.type === "shorthand_property_identifier") && node.text === name)
      n++;
    for (const child of named(node)) walk(child);
  };
  walk(root);
  return n;
}

/** Top-level `const NAME = <literal>`, each bound once and bound nowhere else in the file. */
function constantsOf(root: SyntaxNode): Map<string, Canon> {
  const constants = new Map<string, Canon>();
  const seen = boundInside(root);
  for (const statement of named(root)) {
    if (statement.type !== "lexical_declaration" || !statement.text.startsWith("const")) continue;
    for (const declarator of named(statement).filter((d) => d.type === "variable_declarator")) {
      const name = declarator.childForFieldName("name");
      const value = declarator.childForFieldName("value");
      if (name?.type !== "identifier" || !value) continue;
      const literal = jsLiteral(value);
      if (literal && !seen.has(name.text)) constants.set(name.text, literal);
      seen.add(name.text);
    }
  }
  return constants;
}

/**
 * A statement that is not a site but may be a check that fails the test: expect/assert/should
 * chains the oracle does not seal (`toThrow`, `rejects`, `assert.throws`), `fail()`, a helper named
 * for checking, or any other statement that calls something, declarations aside (a helper of any
 * name may hold an `expect`: attack review s23, `same(raw, want)` before a seal the unfixed code
 * passes). Read by its text, so more than checks match (the conservative side).
 */
const UNJUDGED_CHECK = /expect|assert|should|throw|reject|fail|check|verify/i;
/** Statements that bind a name: a call there computes what a later seal compares. */
const JS_BINDINGS = new Set([
  "lexical_declaration",
  "variable_declaration",
  "function_declaration",
  "generator_function_declaration",
  "class_declaration",
]);
const unjudgedCheck = (statement: SyntaxNode, helpers: ReadonlySet<string>): boolean =>
  statement.type !== "comment" &&
  !(statement.type === "expression_statement" && named(statement)[0]?.type === "string") &&
  // expect.assertions(n) / expect.hasAssertions() check at the test's end, after every seal.
  !/^expect\s*\.\s*(assertions|hasAssertions)\s*\(/.test(statement.text) &&
  (UNJUDGED_CHECK.test(statement.text) ||
    (!JS_BINDINGS.has(statement.type) &&
      statement.descendantsOfType(["call_expression", "new_expression"]).length > 0) ||
    // A binding's call computes a value, unless it calls a helper that may check on the way.
    callees(statement).some((name) => helpers.has(name)));

/** The names a statement's calls go through: `f(…)`, and the object of `h.f(…)` and `h.f.g(…)`. */
function callees(node: SyntaxNode): string[] {
  const names: string[] = [];
  for (const call of node.descendantsOfType(["call_expression", "new_expression"])) {
    let fn = call?.childForFieldName(call.type === "call_expression" ? "function" : "constructor") ?? null;
    while (fn?.type === "member_expression") fn = fn.childForFieldName("object");
    if (fn?.type === "identifier") names.push(fn.text);
  }
  return names;
}

/** A module a test imports helpers from, not the code under test: a relative path through a test-support folder or file. */
const SUPPORT_MODULE =
  /^\.{1,2}\/(?:.*\/)?(?:__tests__|tests?|specs?|helpers?|support|fixtures?|testing|test[-_]?(?:utils?|helpers?|support))(?:[/.]|$)/i;

/**
 * The names in a file that may check when called (attack review s24, the binding side of
 * `same(raw, want)`: `const out = roundtrip(x)` whose helper holds an `expect`, before a seal the
 * unfixed code passes): functions the file defines whose text reads as a check or calls such a
 * function, and what it binds from a test-support module (`require("./support/helpers")`).
 */
function checkingHelpers(root: SyntaxNode): Set<string> {
  const defined = new Map<string, SyntaxNode>();
  const helpers = new Set<string>();
  const walk = (node: SyntaxNode) => {
    if (node.type === "function_declaration" || node.type === "generator_function_declaration") {
      const name = node.childForFieldName("name");
      if (name) defined.set(name.text, node);
    }
    if (node.type === "variable_declarator") {
      const name = node.childForFieldName("name");
      const value = node.childForFieldName("value");
      if (name?.type === "identifier" && value && /function|arrow_function/.test(value.type))
        defined.set(name.text, value);
      const required = requireOf(value);
      if (name && required && SUPPORT_MODULE.test(required.source))
        for (const id of [
          name,
          ...name.descendantsOfType(["identifier", "shorthand_property_identifier_pattern"]),
        ])
          if (id?.type === "identifier" || id?.type === "shorthand_property_identifier_pattern")
            helpers.add(id.text);
    }
    if (node.type === "import_statement") {
      const source = stringValue(node.childForFieldName("source"));
      if (source !== null && SUPPORT_MODULE.test(source))
        for (const id of node.descendantsOfType("identifier")) if (id) helpers.add(id.text);
    }
    for (const child of named(node)) walk(child);
  };
  walk(root);
  for (const [name, fn] of defined) if (UNJUDGED_CHECK.test(fn.text)) helpers.add(name);
  // Through the file's own functions: one that calls a checking helper checks too.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, fn] of defined)
      if (!helpers.has(name) && callees(fn).some((c) => helpers.has(c))) {
        helpers.add(name);
        grew = true;
      }
  }
  return helpers;
}

const IDENT = "[A-Za-z_$][\\w$]*";

/**
 * The names a text gives a value whose pattern is `value`, by declaration or assignment (`const e =
 * expect`, `globalThis.check = expect`, `check = expect`) or as an object literal's property
 * (`Object.assign(global, { check: expect })`, `{ t: require("assert") }`): read by text, more
 * names than the runtime binds (the conservative side). As regex alternatives.
 */
function aliasesOf(text: string, value: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(
    new RegExp(`(?<![\\w$])(${IDENT})\\s*(?:=(?![=>])|:)\\s*(?:${value})(?![\\w$])(?!\\s*[(.\\[])`, "g"),
  ))
    out.push(m[1]!);
  return out;
}

/** Global objects whose members a setup file may bind (`globalThis.expect`). */
const GLOBAL = "(?:(?:globalThis|global|window|self)\\s*\\.\\s*)";

/**
 * The names a text binds to jest's or vitest's `expect` besides `expect` itself: `const { expect:
 * jestExpect } = require("@jest/globals")`, `import { expect as check } from "vitest"`, `const e =
 * expect`, `globalThis.check = expect` (a setup file's; brief s26 sealjs3), `{ check: expect }`,
 * `import expect2 from "expect"`. Read by text; extendCalls also counts any name ending in
 * "expect"/"Expect". As regex alternatives.
 */
function expectAliases(text: string): string[] {
  const names = new Set(aliasesOf(text, `${GLOBAL}?expect`));
  for (const m of text.matchAll(new RegExp(`\\bexpect\\s*(?::|\\bas\\b)\\s*(${IDENT})`, "g")))
    names.add(m[1]!);
  for (const m of text.matchAll(
    new RegExp(
      `\\b(?:import\\s+(${IDENT})\\s+from|(${IDENT})\\s*=\\s*require\\s*\\()\\s*["'\`]expect["'\`]`,
      "g",
    ),
  ))
    names.add((m[1] ?? m[2])!);
  names.delete("expect");
  return [...names].map((n) => n.replace(/\$/g, "\\$"));
}

/**
 * `expect.extend(` on `expect` or on any name bound to it (expectAliases; attack review s25, finding 3:
 * `jestExpect.extend({ toBe … })` in a setup file), as a member or by a string key (`expect["extend"](`).
 */
function extendCalls(text: string): RegExp {
  const object = ["[\\w$]*[Ee]xpect", ...expectAliases(text)].join("|");
  return new RegExp(
    `(?<![\\w$])(?:${object})(?![\\w$])\\s*(?:\\.\\s*extend|\\[\\s*["'\`]extend["'\`]\\s*\\])\\s*\\(`,
    "g",
  );
}

/**
 * Whether a text registers a jest/vitest equality tester (`expect.addEqualityTesters`), which changes
 * what toEqual and toStrictEqual mean wherever it is registered (a hidden file, a setup file).
 */
export function equalityTestersIn(text: string): boolean {
  return /\baddEqualityTesters\b/.test(text);
}

/** extendedMatchers' name for "any matcher": an `expect.extend` argument whose keys the text does not show. */
export const ANY_MATCHER = "*";

/**
 * The matcher names the files redefine through `expect.extend({ name(…) {…}, name: fn })` (jest and
 * vitest: the last definition wins over the built-in one). Read by text, keys of the call's object
 * literal (more than matchers may match: the conservative side). An argument that is not an object
 * literal of plain keys (`expect.extend(matchers)`, `require("jest-extended")`, a spread, a computed
 * key) may redefine any matcher: ANY_MATCHER (a project's matchers module redefining toBe FAILed a
 * correct fix the runner passes; `js/seal.test.ts`).
 */
export function extendedMatchers(files: ReadonlyArray<{ text: string }>): Set<string> {
  const names = new Set<string>();
  for (const { text } of files) {
    // Through another name (`const e = expect`, `import { expect as e }`, `{ expect: e } = require(…)`),
    // a destructured `extend` or a computed `expect["extend"]`: the same extend (brief s25 sealjs2).
    const aliases = ["expect", ...expectAliases(text)].join("|");
    if (
      new RegExp(`\\{[^{}]*\\bextend\\b[^{}]*\\}\\s*=\\s*(?:[\\w$]+\\s*\\.\\s*)?(?:${aliases})\\b`).test(
        text,
      ) ||
      new RegExp(`\\b(?:${aliases})\\s*\\[\\s*["'\`]extend["'\`]`).test(text)
    )
      names.add(ANY_MATCHER);
    for (const start of text.matchAll(extendCalls(text))) {
      let depth = 1;
      let end = start.index + start[0].length;
      while (end < text.length && depth > 0) {
        if (text[end] === "(") depth++;
        else if (text[end] === ")") depth--;
        end++;
      }
      const call = text.slice(start.index + start[0].length, end);
      if (!call.trimStart().startsWith("{") || /\.\.\.|[{,]\s*\[/.test(call)) names.add(ANY_MATCHER);
      for (const key of call.matchAll(/(?:^|[{,\s])(?:async\s+)?["'`]?([A-Za-z_$][\w$]*)["'`]?\s*(?=[(:])/g))
        names.add(key[1]!);
    }
  }
  return names;
}

/**
 * Whether a text rebinds the runner's global `expect` (`globalThis.expect = wrap(expect)`, a bare
 * `expect = …`, `Object.defineProperty(global, "expect", …)`), as a setup file may: every file that
 * reads the global then calls that value, whose matchers the planner does not know (brief s25
 * sealjs2: a wrapper reading digits as numbers passed a correct count returned as text, the seal
 * FAILed it). A declaration of a name of its own (`const expect = require("chai").expect`) is none.
 */
export function expectRebound(text: string): boolean {
  return (
    /\b(?:globalThis|global|window|self)\s*(?:\.\s*expect\b|\[\s*["'`]expect["'`]\s*\])\s*=(?![=>])/.test(
      text,
    ) ||
    /\bdefineProperty\s*\(\s*(?:globalThis|global|window|self)\s*,\s*["'`]expect["'`]/.test(text) ||
    /\bassign\s*\(\s*(?:globalThis|global|window|self)\s*,[^;]*\bexpect\b/.test(text) ||
    /(?<![\w$.]|\b(?:const|let|var)\s+)\bexpect\s*=(?![=>])/.test(text) ||
    globalExpectKeyed(text)
  );
}

/**
 * Whether a text naming a global object (`globalThis`, `global`, `window`, `self`) also names `expect`
 * as a key or a member it sets: the string `"expect"` (`Reflect.set(globalThis, "expect", …)`,
 * `root["expect"] = …`), an assignment `g.expect = …` to any object, or a key of an object literal
 * handed to a call (`Object.defineProperties(globalThis, { expect: … })`, `Object.assign(g, { expect })`, `merge`, `defaults`).
 * An alias of the global object (`const g = globalThis`), a helper taking it as a parameter or
 * Reflect rebinds expect as well as `globalThis.expect =` does; a setup file did it through
 * `Reflect.set` and a correct count returned as text, which its `toBe` accepted, FAILed the seal
 * (attack review s26, finding 3). Conservative, but not blind: a module named "expect", `expect`
 * imported or destructured, an `expect:` key of a plain table and `expect.extend` count for nothing.
 */
function globalExpectKeyed(text: string): boolean {
  if (!/(?<![\w$.])(?:globalThis|global|window|self)(?![\w$])/.test(text)) return false;
  const plain = text
    .replace(/\b(?:from|import|require\s*\(|import\s*\()\s*["'`]expect["'`]/g, "")
    .replace(/\b(?:import|export)\s*(?:type\s*)?\{[^{}]*\}/g, "")
    .replace(/\{[^{}]*\}\s*=(?![=>])/g, "");
  return (
    /["'`]expect["'`]/.test(plain) ||
    /(?:[\w$\])]\s*\.\s*expect|\[\s*["'`]expect["'`]\s*\])\s*=(?![=>])/.test(plain) ||
    /\b(?:assign|defineProperties|merge|defaults)\s*\([^;()]*?\{[^{}]*?(?<![\w$.])expect\s*[:,}]/.test(plain)
  );
}

/**
 * The context text (seal-run.ts `context`) that stands for a setup module a runner's configuration
 * names and the planner cannot read (a package: `setupFilesAfterEnv: ["jest-extended/all"]`, an
 * entry the config computes): it may redefine any of that runner's matchers, and load chai plugins.
 */
export function setupModuleText(runner: string, entry: string): string {
  return `${SETUP_MODULE_MARK}${runner}: ${JSON.stringify(entry)} */\n`;
}
const SETUP_MODULE_MARK = "/* oracle: a setup module the planner cannot read, for ";

/** Whether the context names a setup module of `framework` (any runner's when it is not known) that the planner cannot read. */
export function setupModuleIn(
  files: ReadonlyArray<{ text: string }>,
  framework: string | null | undefined,
): boolean {
  return files.some(
    (f) =>
      f.text.startsWith(SETUP_MODULE_MARK) &&
      (!framework || f.text.startsWith(`${SETUP_MODULE_MARK}${framework}:`)),
  );
}

/** The environments the runners bring themselves (a docblock's `@jest-environment jsdom`). */
const OWN_ENVIRONMENTS = new Set(["node", "jsdom", "happy-dom", "edge-runtime"]);

/**
 * Whether a test file picks an environment of its own by a docblock (`@jest-environment ./env.js`,
 * `@vitest-environment custom`) that is not one the runners bring: the environment builds the
 * file's global object and may patch what the matchers use (`this.global.Object.is`, which jest's
 * toBe calls: a correct count returned as "2" passes jest there; brief s26 sealjs3, item 2). Its
 * expect and chai comparisons are left to the runner, as for a setup module the planner cannot read.
 */
export function environmentOwnIn(text: string): boolean {
  for (const m of text.matchAll(/@(?:jest|vitest)-environment[ \t]+([^\s*]+)/g))
    if (!OWN_ENVIRONMENTS.has(m[1]!.replace(/^jest-environment-/, ""))) return true;
  return false;
}

/**
 * Whether a file may load a chai plugin, which can redefine any of chai's matchers (`equal`, `eql`,
 * and vitest's `toBe`/`toEqual`, chai methods too): `chai.use(…)` or `use(…)` in a file that names
 * chai, `overwriteMethod`/`addMethod` and their Property/ChainableMethod kin, or an assignment to
 * `Assertion.prototype` (chai-almost's shape: numbers equal to the cent; attack review s24, finding 3).
 * Read by text, anywhere: the conservative side.
 */
export function chaiPluginIn(text: string): boolean {
  return (
    /\b(?:overwrite|add)(?:Method|Property|ChainableMethod)\b|\bAssertion\s*\.\s*prototype\b/.test(text) ||
    // chai 5's `config.deepEqual` replaces the comparison behind eql, deep.equal and assert.deepEqual
    // (a money comparator to the cent FAILed a correct split; attack review s25, finding 4).
    /\bconfig\s*(?:\.\s*deepEqual\b|\[\s*["'`]deepEqual["'`]\s*\])/.test(text) ||
    (/\bchai\b/.test(text) && /\buse\s*\(|\buse\s+as\s+[\w$]|\buse\s*:\s*[\w$]/.test(text)) ||
    // chai's `use` handed on (`export { use } from "chai"`): a file importing it from there may call it.
    /\bexport\s*(?:\*|\{[^}]*\buse\b[^}]*\})\s*from\s*["'`]chai["'`]/.test(text)
  );
}

/**
 * Whether a file assigns to a member of an assert object: `assert.equal = assert.strictEqual` (old
 * mocha suites), `assert["deepEqual"] = …`, `Object.assign(assert, …)`, `require("assert").equal = …`.
 * node's assert module and chai's assert are one object per process, so a setup file's assignment
 * changes every file's `assert.…` (a count returned as "4" PASSed a strict suite on the host's loose
 * `==`; attack review s25, finding 6). The object is named `assert` or a name ending in it
 * (`chai.assert`, `nodeAssert`), or a name bound to the assert module by `require`/`import`. Read by
 * text: the conservative side.
 */
export function assertPatchedIn(text: string): boolean {
  const module = `["'\`](?:node:)?assert(?:/strict)?["'\`]`;
  const required = `require\\s*\\(\\s*${module}\\s*\\)(?:\\s*\\.\\s*strict)?`;
  // Any name the text gives an assert: `global.t = assert`, `const check = chai.assert`,
  // `verify = require("assert")`, `{ t: require("node:assert") }` (brief s26 sealjs3, item 3).
  const names = [
    "[\\w$]*[Aa]ssert",
    ...aliasesOf(text, `(?:[\\w$]+\\s*\\.\\s*)*[\\w$]*[Aa]ssert|${required}`),
  ];
  for (const m of text.matchAll(
    new RegExp(
      `\\b(?:import\\s+(?:\\*\\s+as\\s+)?(${IDENT})\\s+from|(${IDENT})\\s*=\\s*require\\s*\\()\\s*${module}`,
      "g",
    ),
  ))
    names.push((m[1] ?? m[2])!.replace(/\$/g, "\\$"));
  // The module's members taken by name: `const { strict: verify } = require("assert")`, `import { strict as verify } from "assert"`.
  for (const m of text.matchAll(
    new RegExp(`\\{([^{}]*)\\}\\s*(?:=\\s*require\\s*\\(|from)\\s*${module}`, "g"),
  ))
    for (const local of m[1]!.matchAll(new RegExp(`(${IDENT})\\s*(?:,|$)`, "g")))
      names.push(local[1]!.replace(/\$/g, "\\$"));
  const object = `(?:(?<![\\w$])(?:${names.join("|")})(?![\\w$])|require\\s*\\(\\s*${module}\\s*\\)(?:\\s*\\.\\s*strict)?)`;
  const member = `(?:\\.\\s*${IDENT}|\\[[^\\]\\n]*\\])`;
  return (
    new RegExp(`${object}\\s*${member}\\s*=(?![=>])`).test(text) ||
    new RegExp(
      `\\bObject\\s*\\.\\s*(?:assign|defineProperty|defineProperties|setPrototypeOf)\\s*\\(\\s*${object}`,
    ).test(text) ||
    // `Reflect.set(assert, "equal", assert.strictEqual)`, sinon's `replace`/`stub`, jest's and vitest's
    // `spyOn`/`replaceProperty`, node:test's `mock.method`, on assert or a member of it (`chai.assert`,
    // `assert.strict`): a mocha `--require`d file did the first and a count returned as text PASSed
    // (attack review s26, finding 2).
    new RegExp(
      `(?:\\bReflect\\s*\\.\\s*(?:set|defineProperty|setPrototypeOf)|(?<![\\w$])(?:[\\w$]+\\s*\\.\\s*)?(?:replace|stub|spyOn|replaceProperty)|[\\w$]\\s*\\.\\s*method)\\s*\\(\\s*(?:[\\w$]+\\s*\\.\\s*)*${object}(?:\\s*\\.\\s*strict)?\\s*,`,
    ).test(text)
  );
}

/** Whether a comparison is chai's (a chai plugin may redefine it): chai's assert, chai's expect, or vitest's expect. */
function chaiMatcher(expression: SyntaxNode, vocab: Vocabulary, jest: boolean): boolean {
  const chain = expectChain(expression);
  if (chain) return chain.expectName === "expect" && (vocab.chaiExpect || !jest);
  const fn = expression.type === "call_expression" ? expression.childForFieldName("function") : null;
  const object = fn?.type === "member_expression" ? fn.childForFieldName("object")?.text : undefined;
  return object !== undefined && vocab.chaiAssert.has(object);
}

/** Whether a comparison is node's assert or chai's (`assert.equal(…)`, `equal(…)` imported from assert, `assert(x)`). */
function assertCall(expression: SyntaxNode, vocab: Vocabulary): boolean {
  const fn = expression.type === "call_expression" ? expression.childForFieldName("function") : null;
  if (fn?.type === "identifier") return vocab.nodeAssert.has(fn.text) || vocab.nodeFunctions.has(fn.text);
  const object = fn?.type === "member_expression" ? fn.childForFieldName("object")?.text : undefined;
  return object !== undefined && (vocab.nodeAssert.has(object) || vocab.chaiAssert.has(object));
}

/** The sealed text of one JS/TS test file; null when it does not parse. */
export function sealJs(
  parsers: Parsers,
  file: { path: string; text: string; index: number },
  options: {
    demoted?: ReadonlySet<string>;
    vitest?: boolean;
    jest?: boolean;
    titles?: ReadonlyMap<string, number>;
    /** Whether an equality tester is registered (`expect.addEqualityTesters`): toEqual and toStrictEqual are not sealed. */
    testers?: boolean;
    /** Matcher names a file redefines (`expect.extend({ toBe … })`, extendedMatchers): not sealed. */
    extended?: ReadonlySet<string>;
    /** Whether a file may load a chai plugin (chaiPluginIn): chai's and vitest's matchers are not sealed. */
    chaiPlugins?: boolean;
    /** Whether a file assigns to a member of an assert object (assertPatchedIn): node's and chai's `assert` comparisons are not sealed. */
    assertPatched?: boolean;
    /** Whether a file rebinds the global `expect` (expectRebound): a file reading the global is not sealed. */
    rebound?: boolean;
    /** Whether the runner's config names a setup module the planner cannot read (setupModuleIn): no expect or chai comparison is sealed. */
    setupModule?: boolean;
    /** Array and object constants the file also uses otherwise (sealJs's second pass). */
    shared?: ReadonlySet<string>;
  } = {},
): FileSeals | null {
  // toEqual and toStrictEqual differ between jest and vitest (seal/js-eq.ts): the plan names the runner.
  const runner: Record<string, boolean> | null = options.jest
    ? { jest: true }
    : options.vitest
      ? { vitest: true }
      : null;
  const grammar: Grammar = file.path.endsWith(".tsx")
    ? "tsx"
    : /\.[cm]?ts$/.test(file.path)
      ? "typescript"
      : "javascript";
  return parsers.read(grammar, file.text, (root) => {
    const vocab = vocabulary(root);
    const helpers = checkingHelpers(root);
    const constants = constantsOf(root);
    for (const name of options.shared ?? []) constants.delete(name);
    const sealedReads = new Map<string, number>();
    const kind = moduleKind(file.path, root, options.vitest === true);
    const sites: SealSite[] = [];
    const planned: string[] = [];
    const unsealed: Unsealed[] = [];
    const tests: FileSeals["tests"] = [];
    const edits: Edit[] = [];
    let n = 0;
    /** Why a comparison is left to the runner whatever its expected side (a setup module, an alias of expect, …), or null. */
    const leftToRunner = (found: Found, expression: SyntaxNode): LeftToRunner | null => {
      if (options.setupModule && chaiMatcher(expression, vocab, false)) return "setup-module";
      if (
        expectChain(expression)?.expectName === "expect" &&
        (vocab.expectBinding === "other" || (options.rebound && vocab.expectBinding === null))
      )
        return "expect-alias";
      if (options.testers && (found.kind === "js.toEqual" || found.kind === "js.toStrictEqual"))
        return "equality-testers";
      if (options.assertPatched && assertCall(expression, vocab)) return "extended-matcher";
      if (options.chaiPlugins && chaiMatcher(expression, vocab, options.jest === true))
        return "extended-matcher";
      const chain = options.extended?.size ? expectChain(expression) : null;
      const matcher = chain?.expectName === "expect" ? chain.names.at(-1) : undefined;
      if (matcher !== undefined && (options.extended!.has(matcher) || options.extended!.has(ANY_MATCHER)))
        return "extended-matcher";
      return null;
    };
    const rowTitles: string[] = [];
    const sealTable = (table: Table, titles: string[], blocked: SealRule | null) => {
      const refs = table.rows.map(
        (row): TestRef => ({ file: file.path, entry: [...titles, row.title].join(" ") }),
      );
      rowTitles.push(...table.rows.map((r) => r.title));
      // A row whose title another test shares (or a report may give back changed) is not sealed;
      // its cells keep their values and the runner compares them.
      const ambiguous = refs.map(
        (ref) => reportedTitle(ref.entry) !== ref.entry || (options.titles?.get(ref.entry) ?? 1) > 1,
      );
      const body = table.body;
      const reason: SealRule | null =
        blocked ??
        (kind === null ? "unsealed.module" : null) ??
        (!body
          ? "unsealed.no-comparison"
          : body.type === "statement_block" && exitsEarly(body)
            ? "unsealed.early-exit"
            : null);
      if (reason) {
        for (const ref of refs) unsealed.push({ test: ref, rule: reason });
        return;
      }
      const pairs: Array<[SyntaxNode | null, SyntaxNode]> =
        body!.type === "statement_block"
          ? named(body!).map((s): [SyntaxNode | null, SyntaxNode] => [
              s.type === "expression_statement" ? (named(s)[0] ?? null) : null,
              s,
            ])
          : [[body!, body!]];
      // Each statement: a comparison whose expected side is a column (`want`) or a column's member
      // (`result.camelCase`), an unjudged check, or nothing.
      interface Candidate {
        found: Found;
        column: string;
        member: string | null;
      }
      let left: LeftToRunner | null = null;
      const read = pairs.map(([expression, statement]): Candidate | "unjudged" | null => {
        const found = expression ? comparisonOf(expression, statement, vocab, constants) : null;
        if (!found) return unjudgedCheck(statement, helpers) ? "unjudged" : null;
        const why = leftToRunner(found, expression!);
        if (why) {
          left ??= why;
          return "unjudged";
        }
        const at = columnAt(table, found.column?.expected ?? null);
        return at ? { found, ...at } : "unjudged";
      });
      // A column the seals empty: read only as their expected sides (not by the title, the actual
      // side or anything else), each member once, literal in every row.
      const candidates = read.filter((c): c is Candidate => typeof c === "object" && c !== null);
      const emptied = new Set<string>();
      for (const column of new Set(candidates.map((c) => c.column))) {
        const mine = candidates.filter((c) => c.column === column);
        const members = mine.map((c) => c.member);
        const uses = columnUses(table, column, usesIn);
        if (uses !== mine.length) continue;
        if (members.includes(null) ? mine.length !== 1 : new Set(members).size !== members.length) continue;
        const literalIn = (row: Table["rows"][number]) => {
          const node = row.columns.get(column);
          const value = node ? jsLiteral(node) : null;
          return value !== null && (members.includes(null) || value.t === "obj");
        };
        if (table.rows.every(literalIn)) emptied.add(column);
      }
      const expectedOf = (row: Table["rows"][number], c: Candidate): Canon => {
        const value = jsLiteral(row.columns.get(c.column)!)!;
        if (c.member === null) return value;
        const prop = (value.props as Array<[string, Canon]>).find(([k]) => k === c.member);
        return prop ? prop[1] : { t: "undefined" };
      };
      // Keys row by row, in the order the comparisons run (an ambiguous row has none); a row whose
      // key the sweep demoted keeps that value in its cell, and the runner compares it.
      const sealedCandidates = candidates.filter((c) => emptied.has(c.column));
      const keys = table.rows.map(() => new Map<Candidate, string>());
      const sealedIn = table.rows.map(() => new Set<Candidate>());
      for (const [r, ref] of refs.entries()) {
        if (ambiguous[r]) continue;
        for (const c of sealedCandidates) {
          const key = `${file.index}.${n++}`;
          keys[r]!.set(c, key);
          planned.push(`${key}\t${c.found.line}\t${c.found.kind}\t${ref.entry}`);
          if (!options.demoted?.has(key)) sealedIn[r]!.add(c);
        }
      }
      const typescript = grammar !== "javascript";
      const cast = (text: string) => (typescript ? `(${text} as any)` : text);
      const cell = (key: string) => `{ __oracleKey: ${quote(key)} }`;
      for (const c of sealedCandidates)
        if (sealedIn.some((set) => set.has(c))) edits.push(...c.found.column!.cell());
      // Each sealed row's emptied columns hold its keys instead of its values.
      for (const [r, row] of table.rows.entries())
        for (const column of emptied) {
          const node = row.columns.get(column)!;
          const mine = sealedCandidates.filter((c) => c.column === column);
          if (!mine.some((c) => sealedIn[r]!.has(c))) continue;
          let text: string;
          if (mine[0]!.member === null) text = cell(keys[r]!.get(mine[0]!)!);
          else {
            const pairsOf = new Map(
              named(bare(node))
                .filter((p) => p.type === "pair")
                .map((p) => [p.childForFieldName("key")?.text ?? "", p.childForFieldName("value")!]),
            );
            const parts = mine.map((c) =>
              sealedIn[r]!.has(c)
                ? `${JSON.stringify(c.member)}: ${cell(keys[r]!.get(c)!)}`
                : pairsOf.has(c.member!)
                  ? `${JSON.stringify(c.member)}: ${pairsOf.get(c.member!)!.text}`
                  : null,
            );
            text = `{ ${parts.filter((p) => p !== null).join(", ")} }`;
          }
          edits.push({ start: node.startIndex, end: node.endIndex, text: cast(text) });
        }
      for (const [r, ref] of refs.entries()) {
        if (ambiguous[r]) {
          unsealed.push({ test: ref, rule: "unsealed.title" });
          continue;
        }
        const rowKeys: string[] = [];
        let guarded = false;
        for (const entry of read) {
          if (entry === null) continue;
          if (entry === "unjudged" || !sealedIn[r]!.has(entry)) {
            guarded = true;
            continue;
          }
          const key = keys[r]!.get(entry)!;
          const found = entry.found;
          sites.push({
            key,
            test: ref,
            line: found.line,
            kind: found.kind,
            expected: expectedOf(table.rows[r]!, entry),
            ...(runner && (found.kind === "js.toEqual" || found.kind === "js.toStrictEqual")
              ? { options: runner }
              : {}),
            source: found.source,
            strength: "strong",
            ...(guarded ? { afterUnsealed: true as const } : {}),
          });
          rowKeys.push(key);
        }
        if (rowKeys.length > 0) tests.push({ test: ref, keys: rowKeys });
        else
          unsealed.push({
            test: ref,
            rule: left ? (`unsealed.${left}` as SealRule) : "unsealed.no-comparison",
          });
      }
    };
    const visit = (
      statements: SyntaxNode[],
      outer: string[],
      blocked: SealRule | null,
      tables: ReadonlyMap<string, SyntaxNode>,
    ) => {
      // A table's tests (js/table.ts), unless mocha's qunit `suite(title);` decides the suite.
      const qunit = statements.some((s) => callOf(s)?.opens);
      const plain: SyntaxNode[] = [];
      for (const statement of statements) {
        const table = qunit ? null : tableOf(statement, tables);
        if (table) sealTable(table, outer, blocked);
        else {
          // A loop's tests that are no table (a title the planner cannot compute, rows it cannot
          // read): each is listed, its title unknown.
          for (let i = loopTests(statement); i > 0; i--)
            unsealed.push({
              test: { file: file.path, entry: [...outer, "?"].join(" ") },
              rule: blocked ?? "unsealed.title",
            });
          plain.push(statement);
        }
      }
      statements = plain;
      for (const { call, titles: under } of underSuites(statements, outer)) {
        const titles = under ?? outer;
        const path = call.title === null || under === null ? null : [...titles, call.title];
        const why =
          blocked ??
          call.why ??
          (under === null ? "unsealed.title" : null) ??
          (kind === null && call.kind === "test" ? "unsealed.module" : null);
        if (call.kind === "suite") {
          if (call.body?.type === "statement_block")
            visit(
              named(call.body),
              path ?? titles,
              why ?? (path ? null : "unsealed.title"),
              blockTables(call.body, tables),
            );
          continue;
        }
        const ref: TestRef = { file: file.path, entry: (path ?? [...titles, "?"]).join(" ") };
        const reported = reportedTitle(ref.entry);
        const ambiguous = reported !== ref.entry || (options.titles?.get(reported) ?? 1) > 1;
        const body = call.body;
        const reason: SealRule | null =
          why ??
          (ambiguous
            ? "unsealed.title"
            : !body
              ? "unsealed.no-comparison"
              : body.type === "statement_block" && exitsEarly(body)
                ? "unsealed.early-exit"
                : null);
        if (reason) {
          unsealed.push({ test: ref, rule: reason });
          continue;
        }
        // A block's own expression statements; an arrow's expression body is one. Other statements
        // are kept (no expression) for telling what comes before a site.
        const pairs: Array<[SyntaxNode | null, SyntaxNode]> =
          body!.type === "statement_block"
            ? named(body!).map((s): [SyntaxNode | null, SyntaxNode] => [
                s.type === "expression_statement" ? (named(s)[0] ?? null) : null,
                s,
              ])
            : [[body!, body!]];
        const keys: string[] = [];
        // Whether an assertion the oracle does not judge came before (judge.ts decidedBy): a statement
        // that is not a site and reads as a check (`toThrow`, `assert.throws`, a helper's check), a
        // demoted site, or a checked one (the runner's own comparison still runs).
        let guarded = false;
        let tested = false;
        let extended = false;
        let aliased = false;
        let setupModule = false;
        for (const [expression, statement] of pairs) {
          const found = expression ? comparisonOf(expression, statement, vocab, constants) : null;
          if (!found) {
            if (unjudgedCheck(statement, helpers)) guarded = true;
            continue;
          }
          const left = leftToRunner(found, expression!);
          if (left) {
            guarded = true;
            if (left === "setup-module") setupModule = true;
            if (left === "expect-alias") aliased = true;
            if (left === "equality-testers") tested = true;
            if (left === "extended-matcher") extended = true;
            continue;
          }
          const key = `${file.index}.${n++}`;
          planned.push(`${key}\t${found.line}\t${found.kind}\t${ref.entry}`);
          if (options.demoted?.has(key)) {
            guarded = true;
            continue;
          }
          edits.push(...found.edits(key));
          sites.push({
            key,
            test: ref,
            line: found.line,
            kind: found.kind,
            ...(found.expected ? { expected: found.expected } : {}),
            ...(found.options ? { options: found.options } : {}),
            ...(runner && (found.kind === "js.toEqual" || found.kind === "js.toStrictEqual")
              ? { options: runner }
              : {}),
            source: found.source,
            strength: found.expected ? "strong" : "checked",
            ...(guarded ? { afterUnsealed: true as const } : {}),
          });
          if (found.constant) sealedReads.set(found.constant, (sealedReads.get(found.constant) ?? 0) + 1);
          if (!found.expected) guarded = true;
          keys.push(key);
        }
        if (keys.length > 0) tests.push({ test: ref, keys });
        else
          unsealed.push({
            test: ref,
            rule: setupModule
              ? "unsealed.setup-module"
              : aliased
                ? "unsealed.expect-alias"
                : tested
                  ? "unsealed.equality-testers"
                  : extended
                    ? "unsealed.extended-matcher"
                    : "unsealed.no-comparison",
          });
      }
    };
    visit(
      named(root).filter((s) => s.type === "expression_statement" || s.type === "for_in_statement"),
      [],
      null,
      blockTables(root, new Map()),
    );
    // An array or object constant the file uses otherwise too (passed to the code, exported, put in
    // another value) can be changed in place before a comparison reads it: the runner compares with
    // what it holds then, so its comparisons record both sides (an attack review's `dedupe` returned
    // the right array and emptied its argument: jest failed `toEqual(UNIQUE)`, the literal PASSed).
    const shared = [...constants].filter(
      ([name, value]) =>
        (value.t === "arr" || value.t === "obj") &&
        (sealedReads.get(name) ?? 0) > 0 &&
        usesIn(root, name) - 1 !== sealedReads.get(name),
    );
    if (shared.length > 0)
      return sealJs(parsers, file, {
        ...options,
        shared: new Set([...(options.shared ?? []), ...shared.map(([name]) => name)]),
      });
    // The runtime reads $ORACLE_SEALS and takes its fs functions before anything of the file runs
    // (a suite body may clear process.env; jest.mock("fs") is hoisted above the imports), on the
    // first statement's line, after a hashbang, comments and the directive prologue.
    const first = named(root).find(
      (s) =>
        s.type !== "comment" &&
        s.type !== "hash_bang_line" &&
        !(s.type === "expression_statement" && named(s).length === 1 && named(s)[0]!.type === "string"),
    );
    if (sites.length > 0 && first)
      edits.push({ start: first.startIndex, end: first.startIndex, text: "__oracleInit(); " });
    const rewritten = applyEdits(file.text, edits);
    const text =
      sites.length > 0 ? `${rewritten}${jsRuntime(kind ?? "cjs", grammar !== "javascript")}` : file.text;
    return {
      path: file.path,
      text,
      sites: (() => {
        // A table row's title is handed to the code like any title (strengthOf's texts and spoken).
        const [literals, texts, spoken] = literalsIn(parsers, grammar, rewritten);
        return strengthOf(sites, literals, [...texts, ...rowTitles], [...spoken, ...rowTitles]);
      })(),
      unsealed,
      tests,
      planned,
    };
  });
}

/**
 * A full title as it can come back in a JUnit report: XML reads a tab, newline or carriage return
 * in an attribute as a space (jest-junit, mocha-junit-reporter and vitest write them unescaped), and
 * vitest drops the other C0 control characters (jest-junit keeps them). A test whose title holds any
 * is not sealed: its report id may not be its title, and may be another test's (`a\nb` and `a b`).
 */
function reportedTitle(title: string): string {
  return title.replace(/[\t\n\r]/g, " ").replace(/[\u0000-\u001f]/g, "");
}

/**
 * The full titles of the tests of JS files (`describe` titles and the test's, joined by spaces) as
 * a report can give them back (reportedTitle), counted: a title two tests share is not sealed.
 */
export function jsTitles(
  parsers: Parsers,
  files: ReadonlyArray<{ path: string; text: string }>,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of files) {
    const grammar: Grammar = file.path.endsWith(".tsx")
      ? "tsx"
      : /\.[cm]?ts$/.test(file.path)
        ? "typescript"
        : "javascript";
    parsers.read(grammar, file.text, (root) => {
      const visit = (statements: SyntaxNode[], outer: string[], tables: ReadonlyMap<string, SyntaxNode>) => {
        const qunit = statements.some((s) => callOf(s)?.opens);
        for (const statement of qunit ? [] : statements)
          for (const row of tableOf(statement, tables)?.rows ?? []) {
            const title = reportedTitle([...outer, row.title].join(" "));
            counts.set(title, (counts.get(title) ?? 0) + 1);
          }
        for (const { call, titles } of underSuites(statements, outer)) {
          if (call.title === null || titles === null) continue;
          const path = [...titles, call.title];
          if (call.kind === "suite" && call.body?.type === "statement_block")
            visit(named(call.body), path, blockTables(call.body, tables));
          const title = reportedTitle(path.join(" "));
          if (call.kind === "test") counts.set(title, (counts.get(title) ?? 0) + 1);
        }
      };
      visit(
        named(root).filter((s) => s.type === "expression_statement" || s.type === "for_in_statement"),
        [],
        blockTables(root, new Map()),
      );
    });
  }
  return counts;
}

/** The literal values a JS text still holds, for exposure, and the text of its strings and comments (a test's title: strengthOf's `texts`). */
function literalsIn(parsers: Parsers, grammar: Grammar, text: string): [Canon[], string[], string[]] {
  return (
    parsers.read(grammar, text, (root) => {
      const out: Canon[] = [];
      const texts: string[] = [];
      // What the runner hands the code (a test's or a suite's title: expect.getState().currentTestName)
      // and the comments: where a number counts as spelled (strengthOf).
      const spoken: string[] = [];
      const walk = (node: SyntaxNode) => {
        const value = ["string", "template_string", "number", "array", "object"].includes(node.type)
          ? jsLiteral(node)
          : null;
        if (value) out.push(value);
        if (["string", "template_string", "comment"].includes(node.type)) texts.push(node.text);
        if (node.type === "comment") spoken.push(node.text);
        const title = node.type === "call_expression" ? titleOf(node) : null;
        if (title) spoken.push(title.text);
        for (const child of named(node)) walk(child);
      };
      walk(root);
      return [out, texts, spoken] as [Canon[], string[], string[]];
    }) ?? [[], [], []]
  );
}

const TITLED = new Set([
  "it",
  "test",
  "describe",
  "context",
  "specify",
  "suite",
  "bench",
  "xit",
  "xtest",
  "fit",
]);

/** A call's title: the first argument, a string, of `it(…)`, `test.only(…)`, `describe.each(rows)(…)`. */
function titleOf(call: SyntaxNode): SyntaxNode | null {
  let fn = call.childForFieldName("function");
  while (fn?.type === "member_expression" || fn?.type === "call_expression")
    fn = fn.childForFieldName(fn.type === "member_expression" ? "object" : "function");
  if (fn?.type !== "identifier" || !TITLED.has(fn.text)) return null;
  const first = named(call.childForFieldName("arguments"))[0];
  return first && ["string", "template_string"].includes(first.type) ? first : null;
}
