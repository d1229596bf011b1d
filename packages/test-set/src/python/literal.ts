import type { SyntaxNode } from "../parsers.js";
import type { Canon } from "../seal/canon.js";

/**
 * Python literals read off the syntax tree into the canon form the runtime records (seal/canon.ts):
 * numbers, strings and bytes (escapes decoded as Python decodes them), True/False/None, and lists,
 * tuples, dicts and sets of those. An expression that is anything else is not a literal (null): it
 * depends on code, so its comparison cannot be sealed.
 */

const named = (node: SyntaxNode): SyntaxNode[] =>
  node.namedChildren.filter((c): c is SyntaxNode => c !== null);

/** The canon value of a literal expression, or null when the expression is not one. */
export function pythonLiteral(node: SyntaxNode, constants?: ReadonlyMap<string, Canon>): Canon | null {
  switch (node.type) {
    case "integer":
    case "float":
      return numberLiteral(node.text);
    case "true":
      return { t: "bool", v: true };
    case "false":
      return { t: "bool", v: false };
    case "none":
      return { t: "none" };
    case "string":
      return stringLiteral(node.text);
    case "concatenated_string": {
      const parts = named(node).map((c) => stringLiteral(c.text));
      if (parts.some((p) => p === null)) return null;
      const bytes = parts.every((p) => p!.t === "bytes");
      if (!bytes && parts.some((p) => p!.t === "bytes")) return null;
      return bytes
        ? { t: "bytes", v: parts.map((p) => p!.v as string).join("") }
        : { t: "str", v: parts.map((p) => p!.v as string).join("") };
    }
    case "unary_operator": {
      const operator = node.child(0)?.text;
      const argument = node.childForFieldName("argument");
      if (!argument || (operator !== "-" && operator !== "+")) return null;
      const value = pythonLiteral(argument, constants);
      if (!value || !["int", "float", "complex"].includes(value.t)) return null;
      return operator === "+" ? value : negate(value);
    }
    case "parenthesized_expression": {
      const inner = named(node);
      return inner.length === 1 ? pythonLiteral(inner[0]!, constants) : null;
    }
    case "list":
    case "tuple":
    case "set": {
      const items = named(node).map((c) => pythonLiteral(c, constants));
      if (items.some((i) => i === null)) return null;
      return { t: node.type, v: items as Canon[] };
    }
    case "dictionary": {
      const pairs: Canon[][] = [];
      for (const pair of named(node)) {
        if (pair.type !== "pair") return null;
        const key = pair.childForFieldName("key");
        const value = pair.childForFieldName("value");
        const k = key ? pythonLiteral(key, constants) : null;
        const v = value ? pythonLiteral(value, constants) : null;
        if (!k || !v) return null;
        pairs.push([k, v]);
      }
      return { t: "dict", v: pairs };
    }
    case "identifier":
      return constants?.get(node.text) ?? null;
    default:
      return null;
  }
}

function negate(value: Canon): Canon {
  const flip = (text: string) => (text.startsWith("-") ? text.slice(1) : `-${text}`);
  if (value.t === "int") return { t: "int", v: flip(value.v as string) };
  if (value.t === "float") return { t: "float", d: flip(value.d as string) };
  return { t: "complex", re: flip(value.re as string), im: flip(value.im as string) };
}

/** An integer, float or imaginary literal (`1_000`, `0x1F`, `0o17`, `0b1`, `1.5e3`, `.5`, `2j`). */
export function numberLiteral(text: string): Canon | null {
  const clean = text.replaceAll("_", "");
  if (/[jJ]$/.test(clean)) {
    const im = clean.slice(0, -1);
    return /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(im) ? { t: "complex", re: "0", im } : null;
  }
  if (/^0[xX][0-9a-fA-F]+$/.test(clean)) return { t: "int", v: BigInt(clean).toString() };
  if (/^0[oO][0-7]+$/.test(clean)) return { t: "int", v: BigInt(`0o${clean.slice(2)}`).toString() };
  if (/^0[bB][01]+$/.test(clean)) return { t: "int", v: BigInt(`0b${clean.slice(2)}`).toString() };
  if (/^(0+|[1-9]\d*)$/.test(clean)) return { t: "int", v: BigInt(clean).toString() };
  if (/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(clean)) return { t: "float", d: clean };
  return null;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/**
 * A string or bytes literal (`'a'`, `"""b"""`, `r"\d"`, `b"\x00"`, `u"x"`), decoded. Null for an
 * f-string (it interpolates code) and for `\N{…}` escapes (the names need Unicode's table).
 */
export function stringLiteral(text: string): Canon | null {
  const m = /^([rRbBuU]{0,2})('''|"""|'|")([\s\S]*)\2$/.exec(text);
  if (!m) return null;
  const prefix = m[1]!.toLowerCase();
  if (prefix.includes("f") || (prefix.includes("u") && prefix.length > 1)) return null;
  const raw = prefix.includes("r");
  const bytes = prefix.includes("b");
  const body = m[3]!;
  const decoded = raw ? body : decodeEscapes(body, bytes);
  if (decoded === null) return null;
  if (!bytes) return { t: "str", v: decoded };
  let hex = "";
  for (const ch of decoded) {
    const code = ch.codePointAt(0)!;
    if (code > 0xff) return null;
    hex += code.toString(16).padStart(2, "0");
  }
  return { t: "bytes", v: hex };
}

function decodeEscapes(body: string, bytes: boolean): string | null {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) return null;
    if (next === "\n") {
      i++;
      continue;
    }
    if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
      i++;
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(body.slice(i + 1));
    if (octal) {
      out += String.fromCharCode(Number.parseInt(octal[0], 8));
      i += octal[0].length;
      continue;
    }
    const hex = (n: number) => {
      const digits = body.slice(i + 2, i + 2 + n);
      return new RegExp(`^[0-9a-fA-F]{${n}}$`).test(digits) ? Number.parseInt(digits, 16) : null;
    };
    if (next === "x") {
      const code = hex(2);
      if (code === null) return null;
      out += String.fromCharCode(code);
      i += 3;
      continue;
    }
    if (!bytes && (next === "u" || next === "U")) {
      const n = next === "u" ? 4 : 8;
      const code = hex(n);
      // A surrogate code point has no faithful UTF-16 text (two would read as one character): not a literal.
      if (code === null || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return null;
      out += String.fromCodePoint(code);
      i += 1 + n;
      continue;
    }
    if (!bytes && next === "N") return null;
    // An unknown escape keeps its backslash (Python warns, and keeps it).
    out += c;
  }
  return out;
}
