import { posix } from "node:path";
import type { Parsers, SyntaxNode } from "../parsers.js";
import type { Canon } from "../seal/canon.js";
import { applyEdits, type Edit } from "../seal/edits.js";
import type { ComparisonKind } from "../seal/kinds.js";
import type { AddedFile, FileSeals, SealSite, TestRef, Unsealed } from "../seal/plan.js";
import { strengthOf } from "../seal/strength.js";
import { goLiteral, goLiteralOfType, goTypeString } from "./literal.js";
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
  /** The expected value; absent when a table's column gives it by row (`rows`). */
  expected?: Canon;
  rows?: Canon[];
  /** The column (`tt.want`) the rows come from. */
  column?: string;
  edits: (key: string) => Edit[];
  /** Local names the comparison's expected side reads (a `want := <literal>` the plan may empty). */
  locals: string[];
  /**
   * What the rewrite takes out of the file: the expected side and the emptied block. A read anywhere
   * else (the actual side, an if's init, a truth condition) stays in the container and needs the value.
   */
  gone: SyntaxNode[];
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
  return identifierNodes(node).map((n) => n.text);
}

/** The identifier nodes of a node (not field names), for where each one stands. */
function identifierNodes(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const walk = (n: SyntaxNode) => {
    if (n.type === "identifier") out.push(n);
    for (const c of named(n)) walk(c);
  };
  walk(node);
  return out;
}

/** A value boxed so the runtime sees its static type. */
const boxed = (expression: string) => `func() interface{} { v := ${expression}; return &v }()`;

/**
 * The block's replacement: a failure without a message, and each local it read kept used, with the
 * `want := <literal>` locals the sealed condition read (`also`): the condition no longer names them,
 * and Go refuses a local nothing uses ("declared but not used").
 */
function emptiedBlock(
  block: SyntaxNode,
  t: string,
  visible: (name: string, at: SyntaxNode) => boolean,
  also: readonly string[],
): string {
  const read = identifiers(block).filter((id) => id !== t && visible(id, block));
  const kept = [...new Set([...read, ...also])];
  return `{\n\t\t${t}.FailNow()${kept.map((id) => `\n\t\t_ = ${id}`).join("")}\n\t}`;
}

interface TestContext {
  t: string;
  /** `want := <literal>` locals of the test body, by name. */
  constants: ReadonlyMap<string, Canon>;
  /** Whether a local of that name is in scope at a node (inScope), for keeping it used there. */
  visible: (name: string, at: SyntaxNode) => boolean;
  /** Where each constant's declaration ends: only an identifier after it names the constant. */
  declared: ReadonlyMap<string, number>;
  /** The testify packages' local names (assert, require). */
  testify: ReadonlySet<string>;
  /** A table's columns inside its loop, by the selector that reads them (`tt.want`): each row's value. */
  columns?: ReadonlyMap<string, Canon[]>;
}

/**
 * The constant an identifier names: a body-level `x := <literal>` declared before it. The same
 * name earlier in the function is another variable (a package-level one): sealing it against the
 * local's value would be wrong, and a `_ = x` there would not build ("undefined: x").
 */
function constantOf(node: SyntaxNode, ctx: TestContext): Canon | null {
  if (node.type !== "identifier") return null;
  const end = ctx.declared.get(node.text);
  return end !== undefined && end <= node.startIndex ? (ctx.constants.get(node.text) ?? null) : null;
}

function ifComparison(statement: SyntaxNode, ctx: TestContext): Found | null {
  if (statement.childForFieldName("alternative")) return null;
  const condition = statement.childForFieldName("condition");
  const block = statement.childForFieldName("consequence");
  if (!condition || !block || !reportsOnly(block, ctx.t)) return null;
  const line = lineOf(statement);
  const source = `if ${condition.text} {`;
  const literal = (node: SyntaxNode) => goLiteral(node) ?? constantOf(node, ctx);
  const localsOf = (node: SyntaxNode) => (constantOf(node, ctx) ? [node.text] : []);
  // A struct key (`S{want: 1}`) is kept too: a map key would be a read, and `_ = want` always builds.
  const constantsRead = [
    ...new Set(
      identifierNodes(condition)
        .filter((id) => constantOf(id, ctx) !== null)
        .map((id) => id.text),
    ),
  ];
  const rewrite = (_key: string, call: string): Edit[] => [
    { start: condition.startIndex, end: condition.endIndex, text: call },
    {
      start: block.startIndex,
      end: block.endIndex,
      text: emptiedBlock(block, ctx.t, ctx.visible, constantsRead),
    },
  ];
  if (condition.type === "binary_expression" && condition.childForFieldName("operator")?.text === "!=") {
    const left = condition.childForFieldName("left")!;
    const right = condition.childForFieldName("right")!;
    const column = ctx.columns?.has(right.text) ? right : ctx.columns?.has(left.text) ? left : null;
    if (column) {
      const rows = ctx.columns!.get(column.text)!;
      const actual = column === right ? left : right;
      if (!rows.every((r) => r.t === "const")) return null;
      const nil = rows.every((r) => r.c === "nil");
      if (!nil && rows.some((r) => r.c === "nil")) return null;
      return {
        kind: nil ? "go.nil" : "go.eq",
        line,
        source,
        rows,
        column: column.text,
        locals: [],
        gone: [column, block],
        edits: (key) => rewrite(key, `oracleSeal(${quote(key)}, ${boxed(actual.text)})`),
      };
    }
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
      gone: [expectedNode, block],
      edits: (key) => rewrite(key, `oracleSeal(${quote(key)}, ${boxed(actual.text)})`),
    };
  }
  if (condition.type === "unary_expression" && condition.childForFieldName("operator")?.text === "!") {
    const operand = condition.childForFieldName("operand")!;
    const call = operand.type === "call_expression" ? operand : null;
    if (call?.childForFieldName("function")?.text === "reflect.DeepEqual") {
      const [a, b] = named(call.childForFieldName("arguments"));
      if (!a || !b) return null;
      const column = ctx.columns?.has(b.text) ? b : ctx.columns?.has(a.text) ? a : null;
      if (column) {
        const actual = column === b ? a : b;
        const rows = ctx.columns!.get(column.text)!;
        if (!rows.every((r) => r.t === "lit" || typeof r.as === "string")) return null;
        return {
          kind: "go.deepEqual",
          line,
          source,
          rows,
          column: column.text,
          locals: [],
          gone: [column, block],
          edits: (key) => rewrite(key, `oracleSeal(${quote(key)}, ${boxed(`interface{}(${actual.text})`)})`),
        };
      }
      const [actual, expectedNode] = literal(b) ? [a, b] : literal(a) ? [b, a] : [null, null];
      if (!actual || !expectedNode) return null;
      return {
        kind: "go.deepEqual",
        line,
        source,
        expected: literal(expectedNode)!,
        locals: localsOf(expectedNode),
        gone: [expectedNode, block],
        edits: (key) => rewrite(key, `oracleSeal(${quote(key)}, ${boxed(`interface{}(${actual.text})`)})`),
      };
    }
    return {
      kind: "go.truth",
      line,
      source,
      expected: { t: "bool", v: true },
      locals: [],
      gone: [block],
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
    gone: [block],
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
  const literal = (node: SyntaxNode) => goLiteral(node) ?? constantOf(node, ctx);
  const [, a, b] = args;
  if (method === "Equal" && a && b) {
    const expected = literal(a);
    if (!expected) return null;
    return {
      kind: "go.deepEqual",
      line,
      source,
      expected,
      locals: constantOf(a, ctx) ? [a.text] : [],
      gone: [a],
      // The call no longer names a `want := <literal>` it compared with: a use keeps it declared.
      edits: (key) =>
        replace(
          `oracleSeal(${quote(key)}, ${boxed(`interface{}(${b.text})`)})${constantOf(a, ctx) ? `; _ = ${a.text}` : ""}`,
        ),
    };
  }
  if ((method === "True" || method === "False") && a)
    return {
      kind: "go.truth",
      line,
      source,
      expected: { t: "bool", v: method === "True" },
      locals: [],
      gone: [],
      edits: (key) => replace(`oracleSealTruth(${quote(key)}, ${a.text})`),
    };
  // Nil is testify's isNil: the value its interface{} holds, a nil pointer, slice, map, chan or func
  // in it too (oracleSealNil records that value); NoError is `err != nil` on the error interface.
  if ((method === "Nil" || method === "NoError") && a)
    return {
      kind: "go.nil",
      line,
      source,
      expected: { t: "const", c: "nil" },
      locals: [],
      gone: [],
      edits: (key) =>
        replace(
          method === "Nil"
            ? `oracleSealNil(${quote(key)}, ${a.text})`
            : `oracleSeal(${quote(key)}, ${boxed(`interface{}(${a.text})`)})`,
        ),
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

/**
 * Whether a table loop's body can leave a row before its last statement: `continue`, `break` or
 * `goto` aimed at the loop (a labelled one, or one outside a nested loop or switch), or a subtest
 * that returns or skips. Its rows would then not all run the seals, one record each.
 */
function leavesRowEarly(loopBody: SyntaxNode, t: string): boolean {
  const visit = (node: SyntaxNode, inLoop: boolean, inSwitch: boolean): boolean => {
    if (node.type === "func_literal") return false;
    if (node.type === "goto_statement") return true;
    const labelled = named(node).some((c) => c.type === "label_name");
    if (node.type === "continue_statement") return labelled || !inLoop;
    if (node.type === "break_statement") return labelled || !(inLoop || inSwitch);
    const loop = inLoop || node.type === "for_statement";
    const sw =
      inSwitch ||
      ["expression_switch_statement", "type_switch_statement", "select_statement"].includes(node.type);
    return named(node).some((c) => visit(c, loop, sw));
  };
  if (statementsOf(loopBody).some((s) => visit(s, false, false))) return true;
  return statementsOf(loopBody).some((s) => {
    const sub = subtestOf(s, t);
    return sub !== null && exitsEarly(sub.body, sub.t);
  });
}

/** The statements of a block (tree-sitter-go wraps them in a statement_list). */
const statementsOf = (block: SyntaxNode) => {
  const [list] = named(block);
  return list?.type === "statement_list" ? named(list) : named(block);
};

/** The test body's locals bound once to a literal (`want := 5`), and where each declaration ends. */
function localsOf(
  fn: SyntaxNode,
  body: SyntaxNode,
): { constants: Map<string, Canon>; declared: Map<string, number> } {
  const declarations = new Map<string, number>();
  for (const name of declaredNames(fn)) declarations.set(name, (declarations.get(name) ?? 0) + 1);
  const constants = new Map<string, Canon>();
  const declared = new Map<string, number>();
  for (const statement of statementsOf(body)) {
    if (statement.type !== "short_var_declaration") continue;
    // Declared again anywhere in the function (an inner `want := …`): which one a comparison reads
    // is a matter of scopes, so none is a constant.
    const left = named(statement.childForFieldName("left"));
    const right = named(statement.childForFieldName("right"));
    if (left.length !== 1 || right.length !== 1 || left[0]!.type !== "identifier") continue;
    const value = goLiteral(right[0]!);
    if (!value || (declarations.get(left[0]!.text) ?? 0) > 1) continue;
    if (changedLater(fn, left[0]!, right[0]!.type === "composite_literal")) continue;
    constants.set(left[0]!.text, value);
    declared.set(left[0]!.text, statement.endIndex);
  }
  return { constants, declared };
}

/** Calls that read their arguments and leave them as they are: comparisons, lengths, messages. */
const READERS =
  /^(reflect\.DeepEqual|(assert|require)\.\w+|cmp\.(Equal|Diff)|len|cap|t\.(Error|Errorf|Fatal|Fatalf|Log|Logf|Skip|Skipf)|fmt\.\w+)$/;

/**
 * Whether a use of a value only reads it: compared, an element or field of it compared or printed,
 * passed to a reader (READERS), ranged over. Anything else may change it in place or share it.
 */
function readsOnly(node: SyntaxNode): boolean {
  const parent = node.parent;
  if (!parent) return false;
  switch (parent.type) {
    case "binary_expression":
    case "parenthesized_expression":
      return parent.type === "binary_expression" || readsOnly(parent);
    case "range_clause":
      return parent.childForFieldName("right")?.startIndex === node.startIndex;
    case "argument_list": {
      const callee = parent.parent?.childForFieldName("function")?.text ?? "";
      return READERS.test(callee);
    }
    case "index_expression":
    case "selector_expression":
      // An element or field of it, read (not assigned, not a method called on it).
      return parent.childForFieldName("operand")?.startIndex === node.startIndex && readsOnly(parent);
    default:
      return false;
  }
}

/**
 * Whether the local `declared` names may hold another value where a comparison reads it than its
 * literal: an assignment, alone or with others (`want = …`, `want += …`, `want, n = …`, a range's or
 * a receive's `=`), a step (`want++`, `want--`), its address taken (`&want`), and for a slice, map,
 * array or struct literal
 * any use that can change it in place or share it (`want[i] = …`, `sort.Strings(want)`,
 * `w := want`, `want.Sort()`, `want[1:]`). A composite stays a constant only where every use
 * reads it (a comparison, an element or field compared or printed, `len`, a range). Sealed against
 * the literal, a swapped `want` passed unfixed code and failed the gold diff (an attack review).
 */
function changedLater(fn: SyntaxNode, declared: SyntaxNode, composite: boolean): boolean {
  const name = declared.text;
  // The expression that is the local itself: `(want)` is `want` to `=`, `++` and `&` too.
  const whole = (node: SyntaxNode): SyntaxNode =>
    node.parent?.type === "parenthesized_expression" ? whole(node.parent) : node;
  // Left of `=`, `op=`, a range's or a receive's `=` (alone or with others), or stepped (`want++`).
  const assigned = (node: SyntaxNode): boolean => {
    const parent = node.parent;
    if (parent?.type === "inc_statement" || parent?.type === "dec_statement") return true;
    const list = parent?.type === "expression_list" ? parent : null;
    const statement = (list ?? parent)?.parent;
    return (
      (statement?.type === "assignment_statement" ||
        statement?.type === "range_clause" ||
        statement?.type === "receive_statement") &&
      statement.childForFieldName("left")?.startIndex === (list ?? node).startIndex
    );
  };
  // Its address taken (`p := &want`, `fmt.Sscan(s, &want)`): written through the pointer.
  const addressed = (node: SyntaxNode): boolean =>
    node.parent?.type === "unary_expression" && node.parent.childForFieldName("operator")?.type === "&";
  let changed = false;
  const visit = (node: SyntaxNode) => {
    if (changed) return;
    if (node.type === "identifier" && node.text === name && node.startIndex !== declared.startIndex) {
      const local = whole(node);
      if (assigned(local) || addressed(local) || (composite && !readsOnly(node))) changed = true;
      return;
    }
    for (const child of named(node)) visit(child);
  };
  visit(fn);
  return changed;
}

/**
 * Every name a function declares, once per declaration, with the node that declares it: `:=` (a
 * range, a select's receive), `var`, `const`, parameters and results (its closures' too), a type
 * switch's alias. A name declared twice may be shadowed; an assignment through `=` is no declaration
 * (changedLater's check).
 */
function declarationsOf(fn: SyntaxNode): Array<{ name: string; node: SyntaxNode }> {
  const out: Array<{ name: string; node: SyntaxNode }> = [];
  const add = (names: SyntaxNode | null, node: SyntaxNode | null) => {
    for (const c of named(names)) if (c.type === "identifier" && node) out.push({ name: c.text, node });
  };
  const walk = (node: SyntaxNode) => {
    switch (node.type) {
      case "short_var_declaration":
      case "range_clause":
      case "receive_statement":
        if (node.type === "short_var_declaration" || /^[^=]*:=/.test(node.text))
          add(node.childForFieldName("left"), node);
        break;
      case "type_switch_statement":
        add(node.childForFieldName("alias"), node.childForFieldName("alias"));
        break;
      case "var_spec":
      case "const_spec":
      case "parameter_declaration":
      case "variadic_parameter_declaration":
        add(node, node);
        break;
    }
    for (const c of named(node)) walk(c);
  };
  walk(fn);
  return out;
}

/** The names a function declares, once per declaration. */
const declaredNames = (fn: SyntaxNode) => declarationsOf(fn).map((d) => d.name);

const SCOPES = new Set([
  "block",
  "if_statement",
  "for_statement",
  "func_literal",
  "function_declaration",
  "expression_switch_statement",
  "type_switch_statement",
  "select_statement",
  "communication_case",
  "expression_case",
  "type_case",
  "default_case",
]);

/**
 * Whether some local of that name is in scope at a node: declared before it, in a scope (block,
 * if, for, switch, case, function) that holds it. A `_ = name` there builds only then: the same
 * text may be a struct key, a closure's parameter or a local of another scope.
 */
function inScope(fn: SyntaxNode): (name: string, at: SyntaxNode) => boolean {
  const declarations = declarationsOf(fn);
  return (name, at) =>
    declarations.some(({ name: n, node }) => {
      if (n !== name || node.endIndex > at.startIndex) return false;
      let scope = node.parent;
      while (scope && !SCOPES.has(scope.type)) scope = scope.parent;
      return scope !== null && scope.startIndex <= at.startIndex && at.endIndex <= scope.endIndex;
    });
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

/** A literal table a test loops over: each column (`tt.want`) by row, its cells, and each field's type text. */
interface GoTable {
  columns: Map<string, Canon[]>;
  cells: Map<string, SyntaxNode[]>;
  types: Map<string, string>;
  rows: number;
}

/** The fields of an anonymous struct type, in order, with their type nodes. */
function structFields(struct: SyntaxNode): Array<{ name: string; type: SyntaxNode }> | null {
  const list = named(struct).find((c) => c.type === "field_declaration_list");
  if (!list) return null;
  const fields: Array<{ name: string; type: SyntaxNode }> = [];
  for (const decl of named(list)) {
    if (decl.type !== "field_declaration") return null;
    const type = decl.childForFieldName("type");
    const names = decl.childrenForFieldName("name").filter((n): n is SyntaxNode => n !== null);
    if (!type || names.length === 0) return null;
    for (const n of names) fields.push({ name: n.text, type });
  }
  return fields;
}

/** The zero value of a modelled type as the host reads it (a missing keyed field). */
function zeroCanon(ty: string | null): Canon | null {
  if (ty === null) return null;
  if (ty === "string") return { t: "const", c: "string", x: "" };
  if (ty === "bool") return { t: "const", c: "bool", v: false };
  if (/^(u?int\d*|uintptr|float\d+|complex\d+)$/.test(ty)) return { t: "const", c: "int", v: "0" };
  if (ty.startsWith("[]") || ty.startsWith("map["))
    return { t: "lit", ty, k: ty.startsWith("[]") ? "slice" : "map", nil: true, v: [] };
  if (ty === "error" || ty === "interface {}") return { t: "const", c: "nil" };
  return null;
}

/**
 * A column's type as the host judges it: {@link goTypeString}'s, or `error`, the one named interface
 * every Go file knows (a nil `want error` is a nil interface, which a nil `*MyError` is not).
 */
function columnType(type: SyntaxNode): string | null {
  return goTypeString(type) ?? (type.type === "type_identifier" && type.text === "error" ? "error" : null);
}

/**
 * A nil cell of a column whose type the host does not know and that may be an interface (a named or
 * qualified type: `want Validator`, `want io.Reader`): Go compares `got` converted to it, nil only when
 * `got` is a nil interface, which the host cannot tell from a nil pointer of a concrete type.
 */
const mayBeInterface = (type: SyntaxNode) =>
  ["type_identifier", "qualified_type", "generic_type"].includes(type.type);

/** `[]struct{…}{ {…}, {name: …} }` of literal cells: its table, or null. */
function goTable(literal: SyntaxNode): GoTable | null {
  const type = literal.childForFieldName("type");
  const element =
    type?.type === "slice_type" || type?.type === "array_type" ? type.childForFieldName("element") : null;
  const fields = element?.type === "struct_type" ? structFields(element) : null;
  const body = literal.childForFieldName("body");
  if (!fields || !body) return null;
  const table: GoTable = { columns: new Map(), cells: new Map(), types: new Map(), rows: 0 };
  const usable = new Set(fields.map((f) => f.name));
  for (const f of fields) {
    table.columns.set(f.name, []);
    table.cells.set(f.name, []);
    table.types.set(f.name, f.type.text);
  }
  for (const element of named(body)) {
    const row = element.type === "literal_element" ? named(element)[0] : null;
    if (row?.type !== "literal_value") return null;
    const items = named(row);
    const keyed = items.length > 0 && items.every((i) => i.type === "keyed_element");
    if (!keyed && items.some((i) => i.type === "keyed_element")) return null;
    if (!keyed && items.length !== fields.length) return null;
    for (const [i, f] of fields.entries()) {
      const item = keyed
        ? items.find(
            (k) =>
              named(k.childForFieldName("key"))[0]?.text === f.name ||
              k.childForFieldName("key")?.text === f.name,
          )
        : items[i];
      const cell = item ? (keyed ? named(item.childForFieldName("value"))[0] : named(item)[0]) : undefined;
      const ty = columnType(f.type);
      const literal = cell
        ? cell.type === "literal_value"
          ? ty
            ? goLiteralOfType(ty, cell)
            : null
          : goLiteral(cell)
        : zeroCanon(ty);
      // A cell takes its field's type (`want int64: 5` is an int64; `want []string: nil` a nil
      // []string): what reflect.DeepEqual compares. A field type the host does not model leaves the
      // constant untyped (good for `!=`, which converts it to the other side's type).
      // A constant of a named column type the host does not know (`want driver.Value`, a package's
      // own `type Value any`) names it: when that type is an interface, Go compares got's dynamic
      // type with the constant's default one (go-eq.ts goEq).
      const value =
        literal?.t === "const" && ty !== null
          ? literal.c === "nil" && (ty.startsWith("[]") || ty.startsWith("map["))
            ? zeroCanon(ty)
            : { ...literal, as: ty }
          : literal?.t === "const" && literal.c !== "nil" && mayBeInterface(f.type)
            ? { ...literal, named: f.type.text }
            : literal;
      if (!value || (ty === null && value.t === "const" && value.c === "nil" && mayBeInterface(f.type)))
        usable.delete(f.name);
      else table.columns.get(f.name)!.push(value);
      if (cell) table.cells.get(f.name)!.push(cell);
    }
    table.rows++;
  }
  for (const f of fields) if (!usable.has(f.name)) table.columns.delete(f.name);
  return table;
}

/**
 * `for _, tt := range <table>` at the top of a test body, the table a literal or a local bound to
 * one that nothing else reads; its columns keyed by the selectors the loop reads them with.
 */
function loopTable(loop: SyntaxNode, body: SyntaxNode): { table: GoTable; row: string } | null {
  const clause = named(loop).find((c) => c.type === "range_clause");
  const left = clause ? named(clause.childForFieldName("left")) : [];
  const right = clause?.childForFieldName("right");
  if (!clause || left.length !== 2 || !right || left[1]!.type !== "identifier") return null;
  let literal: SyntaxNode | null = right.type === "composite_literal" ? right : null;
  if (right.type === "identifier") {
    const declaration = statementsOf(body).find(
      (s) => s.type === "short_var_declaration" && named(s.childForFieldName("left"))[0]?.text === right.text,
    );
    const value = declaration ? named(declaration.childForFieldName("right"))[0] : undefined;
    if (
      value?.type === "composite_literal" &&
      identifiers(body).filter((id) => id === right.text).length === 2
    )
      literal = value;
  }
  const table = literal ? goTable(literal) : null;
  if (!table) return null;
  const row = left[1]!.text;
  const columns = new Map([...table.columns].map(([field, values]) => [`${row}.${field}`, values]));
  return { table: { ...table, columns }, row };
}

/** A `t.Run(name, func(t *testing.T) { … })` statement: the closure's t and body; null when it is not one, or runs in parallel. */
function subtestOf(statement: SyntaxNode, t: string): { t: string; body: SyntaxNode } | null {
  const call = named(statement)[0];
  if (call?.type !== "call_expression" || call.childForFieldName("function")?.text !== `${t}.Run`)
    return null;
  const closure = named(call.childForFieldName("arguments"))[1];
  if (closure?.type !== "func_literal") return null;
  const params = named(closure.childForFieldName("parameters"));
  const inner = params[0]?.childForFieldName("name")?.text;
  const body = closure.childForFieldName("body");
  if (params.length !== 1 || !inner || !body || /\.Parallel\(\)/.test(body.text)) return null;
  return { t: inner, body };
}

/** The sealed text of one Go test file and the runtime file its package needs; null when it does not parse. */
/**
 * A statement that is not a site but may be a check that fails the test: a report through a
 * testing.T (`t.Fatal`, `t.Errorf`, … anywhere in it: an unsealed `if`, a `t.Run` subtest), a
 * testify or other call named for checking (`assert.`, `require.`, `checkX`, `verify…`, `must…`), or
 * a call handed the test's `t` (a helper that may fail it), or any other statement that calls
 * something, declarations and `t`'s own logging aside (a helper not named for checking may panic or
 * call a closure over `t`: attack review s23 finding 7). Read by its text, so more than checks
 * match (the conservative side). A `defer` runs after every seal: it comes before none.
 */
/** Statements that bind a value: a call there computes what a later seal compares. */
const GO_BINDINGS = new Set([
  "short_var_declaration",
  "var_declaration",
  "const_declaration",
  "assignment_statement",
]);
const goCallsOut = (statement: SyntaxNode, t: string): boolean =>
  !GO_BINDINGS.has(statement.type) &&
  statement.descendantsOfType("call_expression").length > 0 &&
  !new RegExp(
    `^${t.replace(/[^\w]/g, "")}\\.(Log|Logf|Helper|Parallel|Cleanup|Setenv|TempDir|Name)\\s*\\(`,
  ).test(statement.text);
const GO_REPORT = /\.(Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\.Error\s*\(\s*[^\s)]/;
const GO_CHECK_CALL = /\b(assert|require)\s*\.|\b(check|verify|expect|must|ensure|assert)\w*\s*\(/i;
const goUnjudgedCheck = (statement: SyntaxNode, t: string): boolean =>
  statement.type !== "comment" &&
  statement.type !== "defer_statement" &&
  (GO_REPORT.test(statement.text) ||
    GO_CHECK_CALL.test(statement.text) ||
    new RegExp(`[(,]\\s*&?${t.replace(/[^\w]/g, "")}\\s*[,)]`).test(statement.text) ||
    goCallsOut(statement, t));

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
      const { constants, declared } = localsOf(fn, body);
      const ctx: TestContext = { t, constants, declared, visible: inScope(fn), testify };
      const keys: string[] = [];
      let leftEarly = false;
      const sealedReads = new Map<string, number>();
      const gone: SyntaxNode[] = [];
      // Whether an assertion the oracle does not judge came before (judge.ts decidedBy): a statement
      // that is not a site and reads as a check (goUnjudgedCheck), or a demoted site.
      let guarded = false;
      const sealStatements = (
        statements: readonly SyntaxNode[],
        context: TestContext,
        onColumn: (c: string) => void,
      ): string[] => {
        const stepKeys: string[] = [];
        for (const statement of statements) {
          if (statement.type === "for_statement" && !context.columns) {
            const loop = loopTable(statement, body);
            const loopBody = statement.childForFieldName("body");
            if (!loop || !loopBody) {
              if (goUnjudgedCheck(statement, context.t)) guarded = true;
              continue;
            }
            if (leavesRowEarly(loopBody, context.t)) {
              leftEarly = true;
              if (goUnjudgedCheck(statement, context.t)) guarded = true;
              continue;
            }
            // A slice, map or array column the body may change or share (`Uniq(tt.want)`, `check(tt)`)
            // is not sealed against its rows: the runner compares with what the row holds then.
            const columns = new Map(
              [...loop.table.columns].filter(
                ([column, rows]) =>
                  !rows.some((r) => r.t === "lit") || !sharedInLoop(loopBody, loop.row, column),
              ),
            );
            const inner: TestContext = { ...context, columns };
            const used = new Map<string, number>();
            const loopKeys: string[] = [];
            // A later row runs after the whole body: an unjudged check anywhere in it comes first.
            const from = sites.length;
            for (const s2 of statementsOf(loopBody)) {
              const sub = subtestOf(s2, context.t);
              const found = sub
                ? sealStatements(statementsOf(sub.body), { ...inner, t: sub.t }, (c) =>
                    used.set(c, (used.get(c) ?? 0) + 1),
                  )
                : sealStatements([s2], inner, (c) => used.set(c, (used.get(c) ?? 0) + 1));
              loopKeys.push(...found);
            }
            if (guarded) for (const site of sites.slice(from)) site.afterUnsealed = true;
            for (let r = 0; r < loop.table.rows; r++) stepKeys.push(...loopKeys);
            // A column only the loop's seals read leaves the file: its cells become the field type's zero.
            const wholeRow = readsWholeRow(loopBody, loop.row, gone);
            for (const [column, count] of used) {
              const reads = kept(selectorNodes(loopBody, column), gone).length;
              const field = column.slice(loop.row.length + 1);
              if (!wholeRow && reads === 0 && count > 0)
                for (const cell of loop.table.cells.get(field) ?? [])
                  edits.push({
                    start: cell.startIndex,
                    end: cell.endIndex,
                    text: `*new(${loop.table.types.get(field)})`,
                  });
            }
            continue;
          }
          const found =
            statement.type === "if_statement"
              ? ifComparison(statement, context)
              : statement.type === "expression_statement"
                ? testifyComparison(statement, context)
                : null;
          if (!found) {
            if (goUnjudgedCheck(statement, context.t)) guarded = true;
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
            ...(found.rows ? { rows: found.rows } : {}),
            source: found.source,
            strength: "strong",
            ...(guarded ? { afterUnsealed: true as const } : {}),
          });
          gone.push(...found.gone);
          if (found.column) onColumn(found.column);
          for (const local of found.locals) sealedReads.set(local, (sealedReads.get(local) ?? 0) + 1);
          stepKeys.push(key);
        }
        return stepKeys;
      };
      keys.push(...sealStatements(statementsOf(body), ctx, () => {}));
      // A `want := <literal>` that only seals read loses its value (its emptied blocks keep it used).
      for (const local of sealedReads.keys()) {
        const declaration = statementsOf(body).find(
          (s) => s.type === "short_var_declaration" && named(s.childForFieldName("left"))[0]?.text === local,
        );
        const value = declaration ? named(declaration.childForFieldName("right"))[0] : undefined;
        const left = declaration ? named(declaration.childForFieldName("left"))[0] : undefined;
        const reads = kept(
          identifierNodes(body).filter((id) => id.text === local && id.startIndex !== left?.startIndex),
          gone,
        );
        if (value && reads.length === 0)
          edits.push({ start: value.startIndex, end: value.endIndex, text: zeroOf(constants.get(local)!) });
      }
      if (keys.length > 0) tests.push({ test: ref, keys });
      else unsealed.push({ test: ref, rule: leftEarly ? "unsealed.early-exit" : "unsealed.no-comparison" });
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
      sites: strengthOf(sites, ...literalsIn(parsers, rewritten)),
      unsealed,
      tests,
      planned,
      added,
      pkg: pkgName,
    };
  });
}

/**
 * Whether a loop body uses a column (`tt.want`) or its whole row (`tt`) other than by reading it
 * (readsOnly): a callee may change a slice or map in place (an attack review's `Uniq` returned a
 * right answer and zeroed its argument; `go test` compared with the zeroed row, the host with the
 * literal).
 */
function sharedInLoop(loopBody: SyntaxNode, row: string, column: string): boolean {
  return [...selectorNodes(loopBody, column), ...wholeRowUses(loopBody, row)].some((n) => !readsOnly(n));
}

/** The uses of a loop's row variable as a whole (`check(tt)`, `row := tt`, `&tt`), not as a selector's operand (`tt.want`). */
function wholeRowUses(loopBody: SyntaxNode, row: string): SyntaxNode[] {
  const operands = new Set<number>();
  const walk = (n: SyntaxNode) => {
    const operand = n.type === "selector_expression" ? n.childForFieldName("operand") : null;
    if (operand?.type === "identifier" && operand.text === row) operands.add(operand.startIndex);
    for (const c of named(n)) walk(c);
  };
  walk(loopBody);
  return identifierNodes(loopBody).filter((id) => id.text === row && !operands.has(id.startIndex));
}

/** The selectors (`tt.want`) in a node that read a column. */
function selectorNodes(node: SyntaxNode, selector: string): SyntaxNode[] {
  const out: SyntaxNode[] = node.type === "selector_expression" && node.text === selector ? [node] : [];
  for (const child of named(node)) out.push(...selectorNodes(child, selector));
  return out;
}

/** The reads that stay in the sealed file: those outside what the seals take out (`Found.gone`). */
function kept(reads: readonly SyntaxNode[], gone: readonly SyntaxNode[]): SyntaxNode[] {
  return reads.filter((r) => !gone.some((g) => g.startIndex <= r.startIndex && r.endIndex <= g.endIndex));
}

/**
 * Whether a loop's row is read whole where it stays (`check(tt)`, `row := tt`, `&tt`): the callee may
 * read any column, so none can lose its values.
 */
function readsWholeRow(loopBody: SyntaxNode, row: string, gone: readonly SyntaxNode[]): boolean {
  return kept(wholeRowUses(loopBody, row), gone).length > 0;
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

/** The literal values a Go text still holds, for exposure, and the text of its strings and comments (strengthOf's `texts`). */
function literalsIn(parsers: Parsers, text: string): [Canon[], string[], string[]] {
  return (
    parsers.read("go", text, (root) => {
      const out: Canon[] = [];
      const texts: string[] = [];
      // Where a number counts as spelled (strengthOf): what the code can read that is not its input, a
      // comment, a function's name (runtime.Callers names the calling test), a subtest's title (a
      // `t.Run` literal, or a table's name-like column: `{"seventeen gives 4253", 17, 4253}`) (attack
      // review s27, findings 2 and 3).
      const spoken: string[] = [];
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
        if (["interpreted_string_literal", "raw_string_literal", "comment"].includes(node.type))
          texts.push(node.text);
        if (node.type === "comment") spoken.push(node.text);
        if (node.type === "function_declaration" || node.type === "method_declaration") {
          const name = node.childForFieldName("name")?.text;
          if (name) {
            texts.push(name);
            spoken.push(name);
          }
        }
        if (
          node.type === "call_expression" &&
          /\.Run$/.test(node.childForFieldName("function")?.text ?? "")
        ) {
          const title = named(node.childForFieldName("arguments"))[0];
          if (title && /string_literal$/.test(title.type)) spoken.push(title.text);
        }
        if (node.type === "composite_literal") spoken.push(...titleCells(node));
        for (const child of named(node)) walk(child);
      };
      walk(root);
      return [out, texts, spoken] as [Canon[], string[], string[]];
    }) ?? [[], [], []]
  );
}

/** A field that names a table's rows (`name`, `desc`, `title`, `scenario`, `msg`…). */
const TITLE_FIELD =
  /^(name|desc|description|title|scenario|case|msg|message|label|about|summary|what|why|comment|testname|test_?name)$/i;

/** The string cells of a table's title-like columns: `[]struct{name string; …}{{"seventeen gives 4253", …}}`. */
function titleCells(literal: SyntaxNode): string[] {
  const type = literal.childForFieldName("type");
  const element =
    type?.type === "slice_type" || type?.type === "array_type" ? type.childForFieldName("element") : null;
  const fields = element?.type === "struct_type" ? structFields(element) : null;
  const body = literal.childForFieldName("body");
  if (!fields || !body) return [];
  const out: string[] = [];
  for (const element of named(body)) {
    const row = element.type === "literal_element" ? named(element)[0] : null;
    if (row?.type !== "literal_value") continue;
    named(row).forEach((item, i) => {
      const keyed = item.type === "keyed_element";
      const key = item.childForFieldName("key");
      const field = keyed ? (named(key)[0]?.text ?? key?.text) : fields[i]?.name;
      const cell = keyed ? named(item.childForFieldName("value"))[0] : named(item)[0];
      if (field && TITLE_FIELD.test(field) && cell && /string_literal$/.test(cell.type)) out.push(cell.text);
    });
  }
  return out;
}
