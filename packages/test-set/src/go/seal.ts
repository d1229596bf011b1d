import { posix } from "node:path";
import type { Parsers, SyntaxNode } from "../parsers.js";
import type { Canon } from "../seal/canon.js";
import { applyEdits, type Edit } from "../seal/edits.js";
import type { ComparisonKind } from "../seal/kinds.js";
import type { AddedFile, FileSeals, SealSite, TestRef, Unsealed } from "../seal/plan.js";
import { strengthOf } from "../seal/strength.js";
import { goLiteral } from "./literal.js";
import { goRuntime } from "./runtime.js";

/**
 * Seals a Go test file (docs/security.md, "Sealed expectations"; rules.ts): in each `func TestX(t
 * *testing.T)`, an `if` of the body's own statements whose block only reports a failure
 * (`t.Error…`, `t.Fatal…`, `t.Fail…`, `t.Log…`, `return`) and whose condition is `got != <constant>`,
 * `!reflect.DeepEqual(got, <literal>)`, `err != nil`, `!cond` or `cond`, and each testify
 * `assert.Equal(t, <literal>, got)` / `assert.True` / `assert.False` / `assert.Nil` / `assert.NoError`
 * (or `require.…`) statement, is rewritten to hand the actual value to the runtime (go/runtime.ts,
 * a file added in the same package), which returns false: the block, emptied of its message (it
 * could hold the expected value), never runs.
 */

const named = (node: SyntaxNode | null | undefined): SyntaxNode[] =>
  node ? node.namedChildren.filter((c): c is SyntaxNode => c !== null) : [];
const quote = (key: string) => JSON.stringify(key);
const lineOf = (node: SyntaxNode) => node.startPosition.row + 1;

interface Found {
  kind: ComparisonKind;
  line: number;
  source: string;
  expected: Canon;
  edits: (key: string) => Edit[];
  /** Local names the comparison's expected side reads (a `want := <literal>` the plan may empty). */
  locals: string[];
}

const FAILS = /^(Error|Errorf|Fatal|Fatalf|Fail|FailNow)$/;
const REPORTS = /^(Error|Errorf|Fatal|Fatalf|Fail|FailNow|Log|Logf|Helper)$/;

/** Whether a block only reports through `t` (and returns), and fails at least once. */
function reportsOnly(block: SyntaxNode, t: string): boolean {
  const statements = named(named(block)[0] ?? null).length > 0 ? named(named(block)[0]!) : named(block);
  let fails = false;
  for (const statement of statements) {
    if (statement.type === "return_statement" && named(statement).length === 0) continue;
    if (statement.type !== "expression_statement") return false;
    const call = named(statement)[0];
    const fn = call?.type === "call_expression" ? call.childForFieldName("function") : null;
    if (fn?.type !== "selector_expression" || fn.childForFieldName("operand")?.text !== t) return false;
    const method = fn.childForFieldName("field")?.text ?? "";
    if (!REPORTS.test(method)) return false;
    if (FAILS.test(method)) fails = true;
  }
  return fails;
}

/** Identifiers a node reads (not field names). */
function identifiers(node: SyntaxNode): string[] {
  const out: string[] = [];
  const walk = (n: SyntaxNode) => {
    if (n.type === "identifier") out.push(n.text);
    for (const c of named(n)) walk(c);
  };
  walk(node);
  return out;
}

/** A value boxed so the runtime sees its static type. */
const boxed = (expression: string) => `func() interface{} { v := ${expression}; return &v }()`;

/** The block's replacement: a failure without a message, and each local it read kept used. */
function emptiedBlock(block: SyntaxNode, t: string, locals: ReadonlySet<string>): string {
  const kept = [...new Set(identifiers(block).filter((id) => locals.has(id) && id !== t))];
  return `{\n\t\t${t}.FailNow()${kept.map((id) => `\n\t\t_ = ${id}`).join("")}\n\t}`;
}

interface TestContext {
  t: string;
  /** Local names of the test (parameters, := and var), for keeping the ones an emptied block read used. */
  locals: ReadonlySet<string>;
  /** `want := <literal>` locals of the test body, by name. */
  constants: ReadonlyMap<string, Canon>;
  /** The testify packages' local names (assert, require). */
  testify: ReadonlySet<string>;
}

function ifComparison(statement: SyntaxNode, ctx: TestContext): Found | null {
  if (statement.childForFieldName("alternative")) return null;
  const condition = statement.childForFieldName("condition");
  const block = statement.childForFieldName("consequence");
  if (!condition || !block || !reportsOnly(block, ctx.t)) return null;
  const line = lineOf(statement);
  const source = `if ${condition.text} {`;
  const literal = (node: SyntaxNode) =>
    goLiteral(node) ?? (node.type === "identifier" ? (ctx.constants.get(node.text) ?? null) : null);
  const localsOf = (node: SyntaxNode) =>
    node.type === "identifier" && ctx.constants.has(node.text) ? [node.text] : [];
  const rewrite = (_key: string, call: string): Edit[] => [
    { start: condition.startIndex, end: condition.endIndex, text: call },
    { start: block.startIndex, end: block.endIndex, text: emptiedBlock(block, ctx.t, ctx.locals) },
  ];
  if (condition.type === "binary_expression" && condition.childForFieldName("operator")?.text === "!=") {
    const left = condition.childForFieldName("left")!;
    const right = condition.childForFieldName("right")!;
    const [actual, expectedNode] = literal(right)
      ? [left, right]
      : literal(left)
        ? [right, left]
        : [null, null];
    if (!actual || !expectedNode) return null;
    const expected = literal(expectedNode)!;
    if (expected.t !== "const") return null;
    return {
      kind: expected.c === "nil" ? "go.nil" : "go.eq",
      line,
      source,
      expected,
      locals: localsOf(expectedNode),
      edits: (key) => rewrite(key, `oracleSeal(${quote(key)}, ${boxed(actual.text)})`),
    };
  }
  if (condition.type === "unary_expression" && condition.childForFieldName("operator")?.text === "!") {
    const operand = condition.childForFieldName("operand")!;
    const call = operand.type === "call_expression" ? operand : null;
    if (call?.childForFieldName("function")?.text === "reflect.DeepEqual") {
      const [a, b] = named(call.childForFieldName("arguments"));
      if (!a || !b) return null;
      const [actual, expectedNode] = literal(b) ? [a, b] : literal(a) ? [b, a] : [null, null];
      if (!actual || !expectedNode) return null;
      return {
        kind: "go.deepEqual",
        line,
        source,
        expected: literal(expectedNode)!,
        locals: localsOf(expectedNode),
        edits: (key) => rewrite(key, `oracleSeal(${quote(key)}, ${boxed(`interface{}(${actual.text})`)})`),
      };
    }
    return {
      kind: "go.truth",
      line,
      source,
      expected: { t: "bool", v: true },
      locals: [],
      edits: (key) => rewrite(key, `oracleSealTruth(${quote(key)}, ${operand.text})`),
    };
  }
  if (condition.type === "binary_expression" && condition.childForFieldName("operator")?.text === "==")
    return null;
  return {
    kind: "go.truth",
    line,
    source,
    expected: { t: "bool", v: false },
    locals: [],
    edits: (key) => rewrite(key, `oracleSealTruth(${quote(key)}, ${condition.text})`),
  };
}

function testifyComparison(statement: SyntaxNode, ctx: TestContext): Found | null {
  const call = named(statement)[0];
  if (call?.type !== "call_expression") return null;
  const fn = call.childForFieldName("function");
  if (fn?.type !== "selector_expression" || !ctx.testify.has(fn.childForFieldName("operand")?.text ?? ""))
    return null;
  const method = fn.childForFieldName("field")?.text ?? "";
  const args = named(call.childForFieldName("arguments"));
  if (args[0]?.text !== ctx.t) return null;
  const line = lineOf(statement);
  const source = statement.text;
  const replace = (text: string): Edit[] => [{ start: call.startIndex, end: call.endIndex, text }];
  const literal = (node: SyntaxNode) =>
    goLiteral(node) ?? (node.type === "identifier" ? (ctx.constants.get(node.text) ?? null) : null);
  const [, a, b] = args;
  if (method === "Equal" && a && b) {
    const expected = literal(a);
    if (!expected) return null;
    return {
      kind: "go.deepEqual",
      line,
      source,
      expected,
      locals: a.type === "identifier" && ctx.constants.has(a.text) ? [a.text] : [],
      edits: (key) => replace(`oracleSeal(${quote(key)}, ${boxed(`interface{}(${b.text})`)})`),
    };
  }
  if ((method === "True" || method === "False") && a)
    return {
      kind: "go.truth",
      line,
      source,
      expected: { t: "bool", v: method === "True" },
      locals: [],
      edits: (key) => replace(`oracleSealTruth(${quote(key)}, ${a.text})`),
    };
  if ((method === "Nil" || method === "NoError") && a)
    return {
      kind: "go.nil",
      line,
      source,
      expected: { t: "const", c: "nil" },
      locals: [],
      edits: (key) => replace(`oracleSeal(${quote(key)}, ${boxed(`interface{}(${a.text})`)})`),
    };
  return null;
}

/** Whether a body returns (outside a failure block) or skips itself (`t.Skip…`, `t.Run`'s closures aside). */
function exitsEarly(body: SyntaxNode, t: string): boolean {
  const visit = (node: SyntaxNode, inFailure: boolean): boolean => {
    if (node.type === "func_literal") return false;
    if (node.type === "return_statement" && !inFailure) return true;
    if (
      node.type === "call_expression" &&
      new RegExp(`^${t}\\.Skip`).test(node.childForFieldName("function")?.text ?? "")
    )
      return true;
    if (node.type === "if_statement") {
      const block = node.childForFieldName("consequence");
      const failure = block ? reportsOnly(block, t) : false;
      return named(node).some((c) => visit(c, inFailure || (c === block && failure)));
    }
    return named(node).some((c) => visit(c, inFailure));
  };
  return named(body).some((c) => visit(c, false));
}

/** The statements of a block (tree-sitter-go wraps them in a statement_list). */
const statementsOf = (block: SyntaxNode) => {
  const [list] = named(block);
  return list?.type === "statement_list" ? named(list) : named(block);
};

/** Local names a test declares (parameters, `:=`, `var`), and those bound once to a literal. */
function localsOf(fn: SyntaxNode, body: SyntaxNode): { locals: Set<string>; constants: Map<string, Canon> } {
  const locals = new Set<string>();
  const counts = new Map<string, number>();
  const walk = (node: SyntaxNode) => {
    if (
      node.type === "parameter_declaration" ||
      node.type === "short_var_declaration" ||
      node.type === "var_spec"
    ) {
      const names =
        node.type === "short_var_declaration"
          ? named(node.childForFieldName("left"))
          : named(node).filter((c) => c.type === "identifier");
      for (const n of names) if (n.type === "identifier") locals.add(n.text);
    }
    if (node.type === "identifier") counts.set(node.text, (counts.get(node.text) ?? 0) + 1);
    for (const c of named(node)) walk(c);
  };
  walk(fn);
  const constants = new Map<string, Canon>();
  for (const statement of statementsOf(body)) {
    if (statement.type !== "short_var_declaration") continue;
    const left = named(statement.childForFieldName("left"));
    const right = named(statement.childForFieldName("right"));
    if (left.length !== 1 || right.length !== 1 || left[0]!.type !== "identifier") continue;
    const value = goLiteral(right[0]!);
    if (value) constants.set(left[0]!.text, value);
  }
  // Assigned again (`want = …`, `want++`) or taken by address: not a constant.
  const text = body.text;
  for (const name of [...constants.keys()])
    if (
      new RegExp(
        `(^|[^\\w.])${name}\\s*([-+*/%&|^]|<<|>>|&\\^)?=[^=]|&${name}\\b|${name}\\s*(\\+\\+|--)`,
        "m",
      ).test(text.replace(new RegExp(`\\b${name}\\s*:=`), ""))
    )
      constants.delete(name);
  return { locals, constants };
}

/** The zero value of a local constant's type, which replaces its literal when only seals read it. */
function zeroOf(value: Canon): string {
  if (value.t === "lit") return `${value.ty}(nil)`;
  switch (value.c) {
    case "string":
      return '""';
    case "bool":
      return "false";
    case "float":
      return "0.0";
    case "imag":
      return "0i";
    case "rune":
      return "rune(0)";
    default:
      return "0";
  }
}

/** The sealed text of one Go test file and the runtime file its package needs; null when it does not parse. */
export function sealGo(
  parsers: Parsers,
  file: { path: string; text: string; index: number },
  options: { demoted?: ReadonlySet<string> } = {},
): (FileSeals & { added: AddedFile | null; pkg: string }) | null {
  return parsers.read("go", file.text, (root) => {
    const pkg = named(root).find((n) => n.type === "package_clause");
    const pkgName = pkg ? (named(pkg)[0]?.text ?? "") : "";
    const testify = new Set<string>();
    for (const spec of root.descendantsOfType("import_spec").filter((s): s is SyntaxNode => s !== null)) {
      const path = spec.childForFieldName("path")?.text ?? "";
      const alias = spec.childForFieldName("name")?.text;
      const m = /^"github\.com\/stretchr\/testify\/(assert|require)"$/.exec(path);
      if (m) testify.add(alias ?? m[1]!);
    }
    const sites: SealSite[] = [];
    const planned: string[] = [];
    const unsealed: Unsealed[] = [];
    const tests: FileSeals["tests"] = [];
    const edits: Edit[] = [];
    let n = 0;
    for (const fn of named(root).filter((d) => d.type === "function_declaration")) {
      const name = fn.childForFieldName("name")?.text ?? "";
      const params = named(fn.childForFieldName("parameters"));
      const body = fn.childForFieldName("body");
      if (!/^Test([^a-z]|$)/.test(name) || params.length !== 1 || !body) continue;
      const t = params[0]!.childForFieldName("name")?.text ?? "";
      if (!/testing\.T$/.test(params[0]!.childForFieldName("type")?.text ?? "") || t === "" || t === "_")
        continue;
      const ref: TestRef = { file: file.path, entry: name };
      if (exitsEarly(body, t)) {
        unsealed.push({ test: ref, rule: "unsealed.early-exit" });
        continue;
      }
      const { locals, constants } = localsOf(fn, body);
      const ctx: TestContext = { t, locals, constants, testify };
      const keys: string[] = [];
      const sealedReads = new Map<string, number>();
      for (const statement of statementsOf(body)) {
        const found =
          statement.type === "if_statement"
            ? ifComparison(statement, ctx)
            : statement.type === "expression_statement"
              ? testifyComparison(statement, ctx)
              : null;
        if (!found) continue;
        const key = `${file.index}.${n++}`;
        planned.push(`${key}\t${found.line}\t${found.kind}\t${ref.entry}`);
        if (options.demoted?.has(key)) continue;
        edits.push(...found.edits(key));
        sites.push({
          key,
          test: ref,
          line: found.line,
          kind: found.kind,
          expected: found.expected,
          source: found.source,
          strength: "strong",
        });
        for (const local of found.locals) sealedReads.set(local, (sealedReads.get(local) ?? 0) + 1);
        keys.push(key);
      }
      // A `want := <literal>` that only seals read loses its value (its emptied blocks keep it used).
      const mine = sites.filter((s) => s.test === ref);
      for (const local of sealedReads.keys()) {
        const declaration = statementsOf(body).find(
          (s) => s.type === "short_var_declaration" && named(s.childForFieldName("left"))[0]?.text === local,
        );
        const value = declaration ? named(declaration.childForFieldName("right"))[0] : undefined;
        if (value && !readsOutsideSeals(body, local, mine))
          edits.push({ start: value.startIndex, end: value.endIndex, text: zeroOf(constants.get(local)!) });
      }
      if (keys.length > 0) tests.push({ test: ref, keys });
      else unsealed.push({ test: ref, rule: "unsealed.no-comparison" });
    }
    const rewritten = keepImportsUsed(root, applyEdits(file.text, edits), edits, file.text);
    const dir = posix.dirname(file.path);
    const added =
      sites.length > 0
        ? {
            path: posix.join(
              dir === "." ? "" : dir,
              pkgName.endsWith("_test") ? "zz_oracle_seal_ext_test.go" : "zz_oracle_seal_test.go",
            ),
            text: goRuntime(pkgName),
          }
        : null;
    return {
      path: file.path,
      text: rewritten,
      sites: strengthOf(sites, literalsIn(parsers, rewritten)),
      unsealed,
      tests,
      planned,
      added,
      pkg: pkgName,
    };
  });
}

/**
 * Go refuses an import nothing uses: a package the rewrite took the last call of (`reflect.DeepEqual`
 * in a sealed condition, `fmt.Sprintf` in an emptied message) is kept used by `var _ = pkg.Func`.
 */
function keepImportsUsed(
  root: SyntaxNode,
  rewritten: string,
  edits: readonly Edit[],
  original: string,
): string {
  const imported = new Set<string>();
  for (const spec of root.descendantsOfType("import_spec").filter((s): s is SyntaxNode => s !== null)) {
    const alias = spec.childForFieldName("name")?.text;
    const path = JSON.parse(spec.childForFieldName("path")?.text ?? '""') as string;
    if (alias !== "_" && alias !== ".") imported.add(alias ?? path.split("/").at(-1)!);
  }
  const removed = edits.map((e) => original.slice(e.start, e.end)).join("\n");
  const calls = new Map<string, string>();
  for (const m of removed.matchAll(/\b([A-Za-z_]\w*)\.([A-Z]\w*)\s*\(/g))
    if (imported.has(m[1]!) && !calls.has(m[1]!)) calls.set(m[1]!, m[2]!);
  const body = rewritten.replace(/^import\s*(\([\s\S]*?\)|"[^"]*")/m, "");
  const keep = [...calls].filter(([pkg]) => !new RegExp(`\\b${pkg}\\.`).test(body));
  return keep.length === 0
    ? rewritten
    : `${rewritten}${rewritten.endsWith("\n") ? "" : "\n"}\n${keep.map(([pkg, fn]) => `var _ = ${pkg}.${fn}`).join("\n")}\n`;
}

/**
 * Whether a local is read anywhere but in the sealed comparisons' expected sides and their emptied
 * blocks (where the plan keeps it used with `_ = name`): then its value must stay.
 */
function readsOutsideSeals(body: SyntaxNode, local: string, sites: readonly SealSite[]): boolean {
  const lines = new Set(sites.map((s) => s.line));
  for (const statement of statementsOf(body)) {
    const reads = identifiers(statement).includes(local);
    if (!reads) continue;
    if (
      statement.type === "short_var_declaration" &&
      named(statement.childForFieldName("left"))[0]?.text === local
    )
      continue;
    if (lines.has(lineOf(statement))) continue;
    return true;
  }
  return false;
}

/** The literal values a Go text still holds, for exposure. */
function literalsIn(parsers: Parsers, text: string): Canon[] {
  return (
    parsers.read("go", text, (root) => {
      const out: Canon[] = [];
      const walk = (node: SyntaxNode) => {
        const value = [
          "interpreted_string_literal",
          "raw_string_literal",
          "int_literal",
          "float_literal",
          "rune_literal",
          "composite_literal",
        ].includes(node.type)
          ? goLiteral(node)
          : null;
        if (value) out.push(value);
        for (const child of named(node)) walk(child);
      };
      walk(root);
      return out;
    }) ?? []
  );
}
