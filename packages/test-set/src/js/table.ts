import type { SyntaxNode } from "../parsers.js";
import type { Canon } from "../seal/canon.js";
import { jsLiteral } from "./literal.js";

/**
 * JS tests declared from a literal table, one test per row (rules.ts `seal.js-table`): a `for (const
 * [a, want] of <rows>) it(<title>, …)` loop, `<rows>.forEach(([a, want]) => it(<title>, …))`, and
 * `it.each(<rows>)(<title>, (a, want) => …)` / `test.each`, whose rows are array literals (or object
 * literals, destructured by name or bound whole: `for (const t of tests) it(t.input, …)`, unjs/ufo's
 * shape; or an object literal's own keys, `for (const input in tests)`: keyedTable), inline or a `const` of the file's top level or of a suite's body that its block reads
 * nowhere else (a table the file also hands the code could be changed before it is read). Each
 * row's title is computed here as the runner computes it (a template or `+` of strings and numbers,
 * a column's `.toString()` or `JSON.stringify`; jest's and vitest's `%s`, `%d`, `%i`, `%#`), so
 * each row is named as its report names it; a table whose title the planner cannot compute is not
 * one (its tests are listed `<suite> ?`, `unsealed.title`).
 */

const named = (node: SyntaxNode | null | undefined): SyntaxNode[] =>
  node ? node.namedChildren.filter((c): c is SyntaxNode => c !== null) : [];

export interface TableRow {
  /** The row's test title, as the runner gives it. */
  title: string;
  /** Each bound name's element in this row (null: the row has none). */
  columns: Map<string, SyntaxNode | null>;
}

export interface Table {
  rows: TableRow[];
  /** The bound names (the loop's or the callback's parameters). */
  names: Set<string>;
  /** The test callback's body. */
  body: SyntaxNode | null;
  /** Where the bound names are read: the test's title and callback (`.each`: the callback's body, past its parameters). */
  scope: SyntaxNode[];
  /** The test call's modifier (`only`, `skip`), if any. */
  modifier: string | null;
  /** Whether the table is `it.each`/`test.each` (jest's and vitest's formatting), else a loop. */
  each: boolean;
  /**
   * A loop that binds each row whole (`for (const t of tests)`, object rows): its name. Its columns
   * are then named `t.input`, `t.out` (read as `t.input`), and the table has none the seals can
   * empty when the body or the title reads `t` otherwise (`f(t)`, `t[k]`, `t?.out`).
   */
  row: string | null;
  /** An object table read by key (`tests[input]`, keyedTable): the table's and the key's names. */
  keyed?: { table: string; key: string };
}

const TESTS = new Set(["it", "test", "specify"]);

/** Unwraps `(x)`, `x as T`, `x satisfies T`, `x!`. */
function bare(node: SyntaxNode | null | undefined): SyntaxNode | null {
  let n = node ?? null;
  while (
    n &&
    ["parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression"].includes(
      n.type,
    )
  )
    n = named(n)[0] ?? null;
  return n;
}

/** `it(…)`, `test.only(…)`, `it.skip(…)`: the call's base name and modifier, or null. */
function testCall(node: SyntaxNode | null): { call: SyntaxNode; modifier: string | null } | null {
  if (node?.type !== "call_expression") return null;
  const fn = node.childForFieldName("function");
  if (fn?.type === "identifier" && TESTS.has(fn.text)) return { call: node, modifier: null };
  if (
    fn?.type === "member_expression" &&
    fn.childForFieldName("object")?.type === "identifier" &&
    TESTS.has(fn.childForFieldName("object")!.text) &&
    ["only", "skip"].includes(fn.childForFieldName("property")?.text ?? "")
  )
    return { call: node, modifier: fn.childForFieldName("property")!.text };
  return null;
}

function callbackOf(call: SyntaxNode): SyntaxNode | null {
  const callback = named(call.childForFieldName("arguments"))[1];
  return callback && ["arrow_function", "function_expression", "function"].includes(callback.type)
    ? callback
    : null;
}

/**
 * The array node of a table: an inline array literal, or a top-level `const NAME = [...]` bound
 * nowhere else and named nowhere else in the file but here (`tables`).
 */
function rowsNode(
  node: SyntaxNode | null | undefined,
  tables: ReadonlyMap<string, SyntaxNode>,
): SyntaxNode | null {
  const n = bare(node);
  if (n?.type === "array") return n;
  if (n?.type === "identifier") return tables.get(n.text)?.type === "array" ? tables.get(n.text)! : null;
  return null;
}

/** The names a pattern binds, by position (array) or by key (object), or the row whole; null when it is not one the planner reads. */
type Pattern =
  | { by: "index"; names: Array<string | null> }
  | { by: "key"; names: Map<string, string> }
  | { by: "row"; name: string };

function patternOf(node: SyntaxNode | null): Pattern | null {
  // The row bound whole: its columns are its keys, `t.input` (object rows only).
  if (node?.type === "identifier") return { by: "row", name: node.text };
  if (node?.type === "array_pattern") {
    const names: Array<string | null> = [];
    // Holes (`[, want]`) keep their position.
    let position = 0;
    for (const child of node.children) {
      if (!child) continue;
      if (child.type === ",") {
        position++;
        continue;
      }
      if (child.type === "[" || child.type === "]") continue;
      if (child.type !== "identifier") return null;
      names[position] = child.text;
    }
    for (let i = 0; i < names.length; i++) names[i] ??= null;
    return { by: "index", names };
  }
  if (node?.type === "object_pattern") {
    const names = new Map<string, string>();
    for (const prop of named(node)) {
      if (prop.type === "shorthand_property_identifier_pattern") names.set(prop.text, prop.text);
      else if (prop.type === "pair_pattern") {
        const key = prop.childForFieldName("key");
        const value = prop.childForFieldName("value");
        if (key?.type !== "property_identifier" || value?.type !== "identifier") return null;
        names.set(value.text, key.text);
      } else return null;
    }
    return { by: "key", names };
  }
  return null;
}

/** A row's elements by the pattern's names; null when a row is not a literal of the pattern's shape. */
function columnsOf(row: SyntaxNode, pattern: Pattern): Map<string, SyntaxNode | null> | null {
  const out = new Map<string, SyntaxNode | null>();
  const r = bare(row);
  if (pattern.by === "index") {
    if (r?.type !== "array") return null;
    const items = named(r).filter((i) => i.type !== "comment");
    if (items.some((i) => i.type === "spread_element")) return null;
    // Holes would shift positions.
    if (/,\s*,|\[\s*,/.test(r.text.replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`/g, '""')))
      return null;
    pattern.names.forEach((name, i) => {
      if (name !== null) out.set(name, items[i] ?? null);
    });
    return out;
  }
  if (r?.type !== "object") return null;
  const pairs = new Map<string, SyntaxNode>();
  for (const pair of named(r)) {
    if (pair.type === "comment") continue;
    if (pair.type !== "pair") return null;
    const key = pair.childForFieldName("key");
    if (key?.type !== "property_identifier" || key.text === "__proto__") return null;
    if (pairs.has(key.text)) return null;
    pairs.set(key.text, pair.childForFieldName("value")!);
  }
  if (pattern.by === "row") {
    for (const [key, value] of pairs) out.set(`${pattern.name}.${key}`, value);
    return out;
  }
  for (const [name, key] of pattern.names) out.set(name, pairs.get(key) ?? null);
  return out;
}

/** A string or a number's text as the runner spells it in a title (String(v)); null for anything else. */
function spelled(value: Canon | null): string | null {
  if (value?.t === "str") return value.v as string;
  if (value?.t === "num") {
    const v = value.v as string;
    // -0 reads "0" in a template and "-0" under %s: not read.
    return v === "-0" ? null : String(Number(v));
  }
  return null;
}

/**
 * What `x.toString()` gives for a literal: a string itself, a number as String(n), a boolean its
 * word, an array its elements' joined by commas (null and undefined as nothing, an array within
 * again); null for anything else. (The code under test can redefine toString or join: a title it
 * changes names no planned test, which the report then lacks; each row's keys are in its cells.)
 */
function toStringOf(value: Canon | null): string | null {
  if (value?.t === "arr") {
    const parts: string[] = [];
    for (const item of value.v as Canon[]) {
      const part =
        item.t === "null" || item.t === "undefined"
          ? ""
          : item.t === "bool"
            ? String(item.v)
            : toStringOf(item);
      if (part === null) return null;
      parts.push(part);
    }
    return parts.join(",");
  }
  if (value?.t === "bool") return String(value.v);
  return spelled(value);
}

/** What `JSON.stringify(x)` gives for a string, number, boolean or null literal; null for anything else. */
function jsonOf(value: Canon | null): string | null {
  if (value?.t === "str") return JSON.stringify(value.v as string);
  if (value?.t === "num") return JSON.stringify(Number(value.v as string));
  if (value?.t === "bool") return String(value.v);
  if (value?.t === "null") return "null";
  return null;
}

/** A column's value in one row: `x` (a bound name) or `t.input` (a row bound whole); undefined when the node is neither. */
function columnValue(node: SyntaxNode, values: ReadonlyMap<string, Canon | null>): Canon | null | undefined {
  if (node.type === "identifier") return values.has(node.text) ? (values.get(node.text) ?? null) : undefined;
  if (node.type === "member_expression" && !named(node).some((c) => c.type === "optional_chain")) {
    const object = node.childForFieldName("object");
    const property = node.childForFieldName("property");
    const name = `${object?.text}.${property?.text}`;
    if (object?.type === "identifier" && property?.type === "property_identifier" && values.has(name))
      return values.get(name) ?? null;
  }
  return undefined;
}

/** `String.raw` of a template without substitutions: its raw text (line ends read as \n). */
function rawString(node: SyntaxNode): string | null {
  if (node.type !== "call_expression" || node.childForFieldName("function")?.text !== "String.raw")
    return null;
  const template = node.childForFieldName("arguments");
  if (template?.type !== "template_string" || named(template).some((c) => c.type === "template_substitution"))
    return null;
  return template.text.slice(1, -1).replace(/\r\n?/g, "\n");
}

/**
 * A loop's title for one row: a string, a column (`x`, `t.input`), a column's `.toString()` or
 * `JSON.stringify` (a string, number, boolean or null), a template or `+` of those; null when not
 * computable. (`JSON.stringify` too is the code's to redefine, as `toString` is.)
 */
function titleFor(node: SyntaxNode | null, values: ReadonlyMap<string, Canon | null>): string | null {
  const n = bare(node);
  if (!n) return null;
  const column = columnValue(n, values);
  if (column !== undefined) return spelled(column);
  if (n.type === "string") return spelled(jsLiteral(n));
  if (n.type === "call_expression" && n.childForFieldName("function")?.text === "JSON.stringify") {
    const args = named(n.childForFieldName("arguments"));
    const arg = args.length === 1 ? bare(args[0]) : null;
    const value = arg ? (columnValue(arg, values) ?? jsLiteral(arg)) : null;
    return jsonOf(value);
  }
  if (n.type === "call_expression") {
    const fn = n.childForFieldName("function");
    const receiver = fn?.type === "member_expression" ? bare(fn.childForFieldName("object")) : null;
    if (
      !receiver ||
      fn!.childForFieldName("property")?.text !== "toString" ||
      named(fn!).some((c) => c.type === "optional_chain") ||
      named(n.childForFieldName("arguments")).length > 0
    )
      return null;
    const value = columnValue(receiver, values);
    return value === undefined ? null : toStringOf(value);
  }
  if (n.type === "template_string") {
    let out = "";
    for (const child of n.children) {
      if (!child || child.type === "`") continue;
      if (child.type === "template_substitution") {
        const inner = titleFor(named(child)[0] ?? null, values);
        if (inner === null) return null;
        out += inner;
      } else if (child.type === "string_fragment") out += child.text;
      else return null;
    }
    return out;
  }
  if (n.type === "binary_expression" && n.childForFieldName("operator")?.text === "+") {
    const left = bare(n.childForFieldName("left"));
    const right = bare(n.childForFieldName("right"));
    const stringy = (side: SyntaxNode | null) =>
      side?.type === "string" ||
      side?.type === "template_string" ||
      (side != null && columnValue(side, values)?.t === "str") ||
      // `x.toString()` is a string whatever x is.
      (side?.type === "call_expression" && titleFor(side, values) !== null) ||
      side?.type === "binary_expression";
    // `1 + 2 + "x"` adds before it joins: only a string on one side joins.
    if (!stringy(left) && !stringy(right)) return null;
    const [a, b] = [titleFor(left, values), titleFor(right, values)];
    return a === null || b === null ? null : a + b;
  }
  return null;
}

/**
 * jest's and vitest's title for one row of `.each` (array rows): `%#` the row's index, then each
 * `%s`/`%d`/`%i` takes the next element. Only strings without `%` and numbers the two spell alike
 * (integers for `%d`/`%i`); any other `%` or `$` in the title, or more placeholders than elements,
 * is not computed.
 */
function formatEach(
  template: string,
  row: ReadonlyArray<Canon | null>,
  index: number,
): { title: string; used: number } | null {
  if (template.includes("$")) return null;
  let used = 0;
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== "%") {
      out += c;
      continue;
    }
    const spec = template[i + 1];
    i++;
    if (spec === "#") {
      out += String(index);
      continue;
    }
    if (spec !== "s" && spec !== "d" && spec !== "i") return null;
    if (used >= row.length) return null;
    const value = row[used++] ?? null;
    const text = spelled(value);
    if (text === null || text.includes("%")) return null;
    if (spec !== "s" && (value?.t !== "num" || !Number.isSafeInteger(Number(value.v)))) return null;
    out += text;
  }
  return { title: out, used };
}

/**
 * The `const NAME = [...]` tables a block (the file, a suite's body) names only there and in one
 * place else, and its `const NAME = { ... }` ones (tableOf checks that their other reads are their
 * loop's).
 */
export function tablesOf(
  root: SyntaxNode,
  usesIn: (name: string) => number,
  boundInside: ReadonlySet<string>,
): Map<string, SyntaxNode> {
  const out = new Map<string, SyntaxNode>();
  for (const statement of named(root)) {
    if (statement.type !== "lexical_declaration" || !statement.text.startsWith("const")) continue;
    for (const declarator of named(statement).filter((d) => d.type === "variable_declarator")) {
      const name = declarator.childForFieldName("name");
      const value = bare(declarator.childForFieldName("value"));
      if (name?.type !== "identifier" || (value?.type !== "array" && value?.type !== "object")) continue;
      // An object table's keys are read in its loop too (`tests[input]`): tableOf counts those.
      if (boundInside.has(name.text) || usesIn(name.text) < 2) continue;
      if (value.type === "array" && usesIn(name.text) !== 2) continue;
      out.set(name.text, value);
    }
  }
  return out;
}

/** The table a statement declares tests from, or null (also when a row's title cannot be computed). */
export function tableOf(statement: SyntaxNode, tables: ReadonlyMap<string, SyntaxNode>): Table | null {
  // for (const key in ROWS) { it(key, () => … ROWS[key] …) }
  if (statement.type === "for_in_statement" && statement.childForFieldName("operator")?.text === "in") {
    const right = bare(statement.childForFieldName("right"));
    const left = statement.childForFieldName("left");
    const rows = right?.type === "identifier" ? tables.get(right.text) : undefined;
    if (
      statement.childForFieldName("kind")?.text !== "const" ||
      left?.type !== "identifier" ||
      rows?.type !== "object"
    )
      return null;
    const body = statement.childForFieldName("body");
    const statements = body?.type === "statement_block" ? named(body) : body ? [body] : [];
    const tests = statements.map((s) =>
      s.type === "expression_statement" ? testCall(named(s)[0] ?? null) : null,
    );
    if (tests.length !== 1 || !tests[0] || !body) return null;
    // Every read of the table but its declaration and this loop's right side is in the loop.
    const block = rows.parent?.parent?.parent;
    if (!block || countIn(block, right!.text) !== 2 + countIn(body, right!.text)) return null;
    return keyedTable(rows, right!.text, left.text, tests[0]);
  }
  // for (const [a, want] of ROWS) { it(…); … }
  if (statement.type === "for_in_statement") {
    if (
      statement.childForFieldName("operator")?.text !== "of" ||
      statement.childForFieldName("kind")?.text !== "const"
    )
      return null;
    const rows = rowsNode(statement.childForFieldName("right"), tables);
    const pattern = patternOf(statement.childForFieldName("left"));
    const body = statement.childForFieldName("body");
    const statements = body?.type === "statement_block" ? named(body) : body ? [body] : [];
    const tests = statements.map((s) =>
      s.type === "expression_statement" ? testCall(named(s)[0] ?? null) : null,
    );
    if (!rows || !pattern || tests.length !== 1 || !tests[0]) return null;
    return loopTable(rows, pattern, tests[0]);
  }
  if (statement.type !== "expression_statement") return null;
  const expression = named(statement)[0];
  if (expression?.type !== "call_expression") return null;
  const fn = expression.childForFieldName("function");
  // ROWS.forEach(([a, want]) => { it(…) }) / (([a, want]) => it(…))
  if (fn?.type === "member_expression" && fn.childForFieldName("property")?.text === "forEach") {
    const rows = rowsNode(fn.childForFieldName("object"), tables);
    const args = named(expression.childForFieldName("arguments"));
    const callback = args[0];
    if (
      !rows ||
      args.length !== 1 ||
      !callback ||
      !["arrow_function", "function_expression"].includes(callback.type)
    )
      return null;
    const params = callback.childForFieldName("parameters");
    const paramList = params
      ? named(params)
      : [callback.childForFieldName("parameter")].filter((p): p is SyntaxNode => !!p);
    if (paramList.length !== 1) return null;
    const param =
      paramList[0]!.type === "required_parameter"
        ? paramList[0]!.childForFieldName("pattern")
        : paramList[0]!;
    const pattern = patternOf(param ?? null);
    const body = callback.childForFieldName("body");
    const statements = body?.type === "statement_block" ? named(body) : body ? [body] : [];
    const tests = statements.map((s) =>
      testCall(s.type === "expression_statement" ? (named(s)[0] ?? null) : s),
    );
    if (!pattern || tests.length !== 1 || !tests[0]) return null;
    return loopTable(rows, pattern, tests[0]);
  }
  // it.each(ROWS)(title, (a, want) => …)
  if (fn?.type === "call_expression") {
    const inner = fn.childForFieldName("function");
    if (
      inner?.type !== "member_expression" ||
      inner.childForFieldName("property")?.text !== "each" ||
      inner.childForFieldName("object")?.type !== "identifier" ||
      !TESTS.has(inner.childForFieldName("object")!.text)
    )
      return null;
    const innerArgs = named(fn.childForFieldName("arguments"));
    const rows = innerArgs.length === 1 ? rowsNode(innerArgs[0], tables) : null;
    const [titleNode] = named(expression.childForFieldName("arguments"));
    const callback = callbackOf(expression);
    const template = titleNode ? jsLiteral(titleNode) : null;
    if (!rows || !callback || template?.t !== "str") return null;
    const params = named(callback.childForFieldName("parameters"));
    const names: Array<string | null> = [];
    for (const p of params) {
      const id = p.type === "required_parameter" ? p.childForFieldName("pattern") : p;
      if (id?.type !== "identifier" || p.childForFieldName("value")) return null;
      names.push(id.text);
    }
    const out: TableRow[] = [];
    for (const [index, row] of named(rows)
      .filter((r) => r.type !== "comment")
      .entries()) {
      const columns = columnsOf(row, { by: "index", names });
      // Every row as long as the callback's parameters: jest hands a longer callback `done`.
      const elements =
        bare(row)?.type === "array" ? named(bare(row)!).filter((e) => e.type !== "comment") : [];
      if (!columns || elements.length !== names.length) return null;
      const values = elements.map((e) => jsLiteral(e));
      const formatted = formatEach(template.v as string, values, index);
      if (!formatted) return null;
      out.push({ title: formatted.title, columns });
    }
    if (out.length === 0) return null;
    return {
      rows: out,
      names: new Set(names.filter((n): n is string => n !== null)),
      body: callback.childForFieldName("body"),
      scope: [titleNode!, callback.childForFieldName("body")!].filter(Boolean),
      modifier: null,
      each: true,
      row: null,
    };
  }
  return null;
}

function loopTable(
  rows: SyntaxNode,
  pattern: Pattern,
  test: { call: SyntaxNode; modifier: string | null },
): Table | null {
  const callback = callbackOf(test.call);
  const titleNode = named(test.call.childForFieldName("arguments"))[0] ?? null;
  if (!callback) return null;
  const read: Array<Map<string, SyntaxNode | null>> = [];
  for (const row of named(rows)) {
    if (row.type === "comment") continue;
    const columns = columnsOf(row, pattern);
    if (!columns) return null;
    read.push(columns);
  }
  // A row bound whole has a column for each key any row holds (a row without it: null).
  const names = new Set(
    pattern.by === "index"
      ? pattern.names.filter((n): n is string => n !== null)
      : pattern.by === "key"
        ? pattern.names.keys()
        : read.flatMap((columns) => [...columns.keys()]),
  );
  const out: TableRow[] = [];
  for (const columns of read) {
    for (const name of names) if (!columns.has(name)) columns.set(name, null);
    const values = new Map(
      [...columns].map(([k, v]): [string, Canon | null] => {
        if (!v) return [k, { t: "undefined" }];
        const raw = rawString(bare(v)!);
        return [k, raw !== null ? { t: "str", v: raw } : jsLiteral(v)];
      }),
    );
    const title = titleFor(titleNode, values);
    if (title === null) return null;
    out.push({ title, columns });
  }
  if (out.length === 0) return null;
  return {
    rows: out,
    names,
    body: callback.childForFieldName("body"),
    scope: titleNode ? [titleNode, callback] : [callback],
    modifier: test.modifier,
    each: false,
    row: pattern.by === "row" ? pattern.name : null,
  };
}

/** How often a node names an identifier (`{ NAME }` shorthands included; not `x.NAME`). */
function countIn(node: SyntaxNode, name: string): number {
  let n =
    (node.type === "identifier" || node.type === "shorthand_property_identifier") && node.text === name
      ? 1
      : 0;
  for (const child of named(node)) n += countIn(child, name);
  return n;
}

/**
 * An object table read by key, `for (const input in tests) it(input, () => expect(f(input)).toBe(tests[input]))`
 * (unjs/ufo's trailing-slash.test.ts): each own key a row, titled by the loop's title with the key
 * bound; its one column `tests[input]`. Keys a string or a name, each once, none an array index
 * (for…in visits those first, in another order), no `__proto__`, no spread, method or shorthand:
 * else no table.
 */
function keyedTable(
  rows: SyntaxNode,
  table: string,
  key: string,
  test: { call: SyntaxNode; modifier: string | null },
): Table | null {
  const callback = callbackOf(test.call);
  const titleNode = named(test.call.childForFieldName("arguments"))[0] ?? null;
  if (!callback) return null;
  const column = `${table}[${key}]`;
  const seen = new Set<string>();
  const out: TableRow[] = [];
  for (const pair of named(rows)) {
    if (pair.type === "comment") continue;
    if (pair.type !== "pair") return null;
    const keyNode = pair.childForFieldName("key");
    const name =
      keyNode?.type === "property_identifier"
        ? keyNode.text
        : keyNode?.type === "string"
          ? (jsLiteral(keyNode)?.v as string | undefined)
          : undefined;
    if (name === undefined || name === "__proto__" || seen.has(name) || /^(0|[1-9][0-9]*)$/.test(name))
      return null;
    seen.add(name);
    const title = titleFor(titleNode, new Map([[key, { t: "str", v: name }]]));
    if (title === null) return null;
    out.push({ title, columns: new Map([[column, pair.childForFieldName("value")]]) });
  }
  if (out.length === 0) return null;
  return {
    rows: out,
    names: new Set([column]),
    body: callback.childForFieldName("body"),
    scope: titleNode ? [titleNode, callback] : [callback],
    modifier: test.modifier,
    each: false,
    row: null,
    keyed: { table, key },
  };
}

/**
 * The column a node reads, and the member of it: `want` (null member), `result.camel`, and for a
 * row bound whole `t.out` (column `t.out`) and `t.out.camel`; null when the node reads none.
 */
export function columnAt(
  table: Table,
  node: SyntaxNode | null,
): { column: string; member: string | null } | null {
  const member = (n: SyntaxNode | null) =>
    n?.type === "member_expression" &&
    !named(n).some((c) => c.type === "optional_chain") &&
    n.childForFieldName("property")?.type === "property_identifier"
      ? { object: n.childForFieldName("object")!, property: n.childForFieldName("property")!.text }
      : null;
  if (table.keyed) {
    const { table: name, key } = table.keyed;
    const read = (n: SyntaxNode | null) =>
      n?.type === "subscript_expression" &&
      !named(n).some((c) => c.type === "optional_chain") &&
      n.childForFieldName("object")?.type === "identifier" &&
      n.childForFieldName("object")!.text === name &&
      n.childForFieldName("index")?.type === "identifier" &&
      n.childForFieldName("index")!.text === key;
    const column = `${name}[${key}]`;
    if (read(node)) return { column, member: null };
    const m = member(node);
    return m && read(m.object) ? { column, member: m.property } : null;
  }
  if (table.row === null) {
    if (node?.type === "identifier" && table.names.has(node.text)) return { column: node.text, member: null };
    const m = member(node);
    if (m?.object.type === "identifier" && table.names.has(m.object.text))
      return { column: m.object.text, member: m.property };
    return null;
  }
  const m = member(node);
  if (!m) return null;
  const column = `${m.object.text}.${m.property}`;
  if (m.object.type === "identifier" && m.object.text === table.row && table.names.has(column))
    return { column, member: null };
  const inner = member(m.object);
  const outer = inner ? `${inner.object.text}.${inner.property}` : null;
  if (inner?.object.type === "identifier" && inner.object.text === table.row && table.names.has(outer!))
    return { column: outer!, member: m.property };
  return null;
}

/** Where an identifier is read, not bound (an object table's key may stand only there). */
const READS = new Set([
  "arguments",
  "subscript_expression",
  "member_expression",
  "call_expression",
  "binary_expression",
  "template_substitution",
  "expression_statement",
  "parenthesized_expression",
  "as_expression",
  "non_null_expression",
  "array",
  "unary_expression",
  "ternary_expression",
  "spread_element",
  "return_statement",
]);

/**
 * How many times the test's title and callback read a column (a bound name's every occurrence; a
 * row bound whole: each `t.<column>`). A row bound whole that is read otherwise too (`f(t)`,
 * `t[k]`, `t?.out`, a parameter or binding of the same name) may have any column read: Infinity.
 */
export function columnUses(
  table: Table,
  column: string,
  usesIn: (node: SyntaxNode, name: string) => number,
): number {
  if (table.keyed) {
    // Each `tests[input]`; the table named otherwise, or the key bound again (a parameter, a
    // declaration: `tests[input]` would then read another key), may read any row.
    const { table: name, key } = table.keyed;
    let n = 0;
    let opaque = false;
    const walk = (node: SyntaxNode) => {
      if (node.type === "identifier" || node.type === "shorthand_property_identifier") {
        const parent = node.parent;
        if (node.text === name) {
          const index = parent?.childForFieldName("index");
          if (
            parent?.type === "subscript_expression" &&
            parent.childForFieldName("object")?.id === node.id &&
            index?.type === "identifier" &&
            index.text === key &&
            !named(parent).some((c) => c.type === "optional_chain")
          )
            n++;
          else opaque = true;
        } else if (node.text === key && parent && !READS.has(parent.type)) opaque = true;
      }
      if (node.type === "shorthand_property_identifier_pattern" && node.text === key) opaque = true;
      for (const child of named(node)) walk(child);
    };
    for (const node of table.scope) walk(node);
    return opaque ? Number.POSITIVE_INFINITY : n;
  }
  if (table.row === null) return table.scope.reduce((sum, node) => sum + usesIn(node, column), 0);
  const row = table.row;
  let n = 0;
  let opaque = false;
  const walk = (node: SyntaxNode) => {
    if ((node.type === "identifier" || node.type === "shorthand_property_identifier") && node.text === row) {
      const parent = node.parent;
      const ok =
        parent?.type === "member_expression" &&
        parent.childForFieldName("object")?.id === node.id &&
        parent.childForFieldName("property")?.type === "property_identifier" &&
        !named(parent).some((c) => c.type === "optional_chain");
      if (!ok) opaque = true;
      else if (`${row}.${parent!.childForFieldName("property")!.text}` === column) n++;
    }
    for (const child of named(node)) walk(child);
  };
  for (const node of table.scope) walk(node);
  return opaque ? Number.POSITIVE_INFINITY : n;
}
