import { spansLiteral } from "./sentinel-lex.js";
import { decoratedAt, looksPure, pythonBody } from "./sentinel-text.js";

/**
 * A pytest test parametrised by one `@pytest.mark.parametrize("a, b, expected", [ … ])` whose rows
 * are tuples of literals, one per line, and whose body compares with one of its parameters
 * (`assert add(a, b) == expected`): a twin of it changes that parameter's value in one row, so the
 * copy's row fails on honest code while every other row passes (docs/security.md, "Twins").
 */
export interface ParamTest {
  name: string;
  /** The class it is a method of (by its indent). */
  className?: string;
  /** The decorator's first line: the copy starts here. */
  start: number;
  def: number;
  /** The line after the body (exclusive). */
  end: number;
  /** Rows whose expected value can change: absolute line, the text before and after the value. */
  rows: Array<{ line: number; head: string; literal: string; tail: string }>;
}

/** The decorator up to its list's `[`, on one line or three (black's style). */
const OPEN =
  /^( *)@pytest\.mark\.parametrize\(\s*(["'])([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?\s*\2\s*,\s*\[\s*$/;
/** The list's end and the decorator's: `])` on one line, or `],` and `)` on two. */
const CLOSE = /^ *\]\s*,?\s*\)\s*$/;
const CLOSE_LIST = /^ *\]\s*,?\s*$/;
const CLOSE_CALL = /^ *\)\s*$/;
const ROW = /^( +)\((.*)\)(\s*,?\s*)$/;
const DEF = /^( *)def[ \t]+(test\w*)[ \t]*\(([^)]*)\)\s*(?:->[^:]*)?:\s*$/;
/** `assert <expression> == <parameter>` on one line. */
const ASSERT_PARAM = /^assert\s+(.+?)\s*==\s*([A-Za-z_]\w*)\s*$/;

/** A tuple's elements at its top level, with their offsets (strings and brackets kept whole). */
function elements(inner: string): Array<{ text: string; at: number }> | null {
  const out: Array<{ text: string; at: number }> = [];
  let depth = 0;
  let from = 0;
  let quote: string | null = null;
  for (let i = 0; i <= inner.length; i++) {
    const ch = inner[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch !== undefined && "([{".includes(ch)) depth++;
    else if (ch !== undefined && ")]}".includes(ch)) depth--;
    else if ((ch === "," && depth === 0) || ch === undefined) {
      const raw = inner.slice(from, i);
      const lead = raw.length - raw.trimStart().length;
      out.push({ text: raw.trim(), at: from + lead });
      from = i + 1;
    }
    if (depth < 0) return null;
  }
  if (quote || depth !== 0) return null;
  // `(1, 2, 3,)`: a trailing comma leaves an empty last element.
  if (out.length > 1 && out.at(-1)!.text === "") out.pop();
  return out.some((e) => e.text === "") ? null : out;
}

/**
 * The module's parametrised tests a twin can change: module-level or a method (`self` first) of a
 * top-level class, no other decorator, no fixture (the parameters are exactly the argnames), a body
 * that looks free of side effects (`looksPure`) with one top-level `assert <expression> == <p>`,
 * `p` an argname used nowhere else in the body, and rows whose `p` is a literal (`literal`: the
 * values the oracle can change). `inside`: the lines inside strings that span lines; `base`: lines
 * the base commit holds (a row there is left alone).
 */
export function pythonParamTests(
  text: string,
  inside: ReadonlySet<number>,
  literal: RegExp,
  base: ReadonlySet<string>,
  plain: (expression: string) => boolean,
): ParamTest[] {
  const lines = text.split("\n");
  const found: ParamTest[] = [];
  for (const [i, line] of lines.entries()) {
    if (inside.has(i) || !line.trimStart().startsWith("@pytest.mark.parametrize(")) continue;
    // The head: the decorator's line, or it and the next two (`(`, the names, `[`).
    const heads = [1, 3].map((n) => ({ n, open: OPEN.exec(lines.slice(i, i + n).join(" ")) }));
    const head = heads.find(
      (h) => h.open !== null && !lines.slice(i + 1, i + h.n).some((l) => l.includes("#")),
    );
    if (!head || spansLiteral(inside, i, i + head.n)) continue;
    const open = head.open!;
    const first = i + head.n;
    const indent = open[1]!;
    const names = open[3]!.split(",").map((n) => n.trim());
    if (decoratedAt(lines, i)) continue;
    const close = lines.findIndex((l, j) => j >= first && (CLOSE.test(l) || CLOSE_LIST.test(l)));
    if (close < 0) continue;
    const closeLines = CLOSE.test(lines[close]!) ? 1 : CLOSE_CALL.test(lines[close + 1] ?? "") ? 2 : 0;
    if (closeLines === 0) continue;
    const rowLines = lines.slice(first, close);
    const rows = rowLines.map((l) => {
      const m = ROW.exec(l);
      const parts = m && m[1]!.length > indent.length ? elements(m[2]!) : null;
      return m && parts && parts.length === names.length ? { m, parts } : null;
    });
    if (rows.length === 0 || rows.some((r) => r === null)) continue;
    // A bracket in a string parameter (`"[a-c]"`, `r"[a-c]"`) would stand in the row's report id
    // (`test_x[[a-c]-6]`), which the sentinel check reads as `name[params]` with no bracket inside.
    if (rows.some((r) => r!.parts.some((e) => /["']/.test(e.text) && /[[\]]/.test(e.text)))) continue;
    const def = close + closeLines;
    const d = DEF.exec(lines[def] ?? "");
    if (!d || d[1] !== indent) continue;
    const params = d[3]!.split(",").map((p) => p.trim());
    if (params.at(-1) === "") params.pop();
    const method = indent.length > 0;
    if (method && params.shift() !== "self") continue;
    if (params.join(",") !== names.join(",")) continue;
    const className = method
      ? /^class[ \t]+([A-Za-z_]\w*)\b[^:]*:\s*(?:#.*)?$/.exec(
          lines.slice(0, i).findLast((l) => l.trim() !== "" && !/^[ \t]/.test(l)) ?? "",
        )?.[1]
      : undefined;
    if (method && className === undefined) continue;
    const own = pythonBody(lines, def, indent);
    if (!own) continue;
    const { body, indent: bodyIndent } = own;
    if (!looksPure(body, bodyIndent) || spansLiteral(inside, i, def + 1 + body.length)) continue;
    const code = body.join("\n");
    const compared = body
      .filter((l) => l.startsWith(bodyIndent) && !/^\s/.test(l.slice(bodyIndent.length)))
      .map((l) => ASSERT_PARAM.exec(l.slice(bodyIndent.length).trimEnd()))
      .filter(
        (m) =>
          m !== null && names.includes(m[2]!) && plain(m[1]!) && !new RegExp(`\\b${m[2]}\\b`).test(m[1]!),
      );
    const p = compared.length === 1 ? compared[0]![2]! : null;
    if (p === null || (code.match(new RegExp(`\\b${p}\\b`, "g")) ?? []).length !== 1) continue;
    const k = names.indexOf(p);
    const changeable = rows.flatMap((r, n) => {
      const { m, parts } = r!;
      const part = parts[k]!;
      const at = first + n;
      if (!literal.test(part.text) || base.has(lines[at]!.trim()) || lines[at]!.includes("#")) return [];
      const inner = m[2]!;
      return [
        {
          line: at,
          head: `${m[1]}(${inner.slice(0, part.at)}`,
          literal: part.text,
          tail: `${inner.slice(part.at + part.text.length)})${m[3]}`,
        },
      ];
    });
    if (changeable.length === 0) continue;
    found.push({
      name: d[2]!,
      ...(className ? { className } : {}),
      start: i,
      def,
      end: def + 1 + body.length,
      rows: changeable,
    });
  }
  return found;
}
