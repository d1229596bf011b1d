import type { SyntaxNode } from "../parsers.js";
import type { Canon } from "../seal/canon.js";

/**
 * JavaScript and TypeScript literals read off the syntax tree into the canon form the runtime
 * records (js/runtime.ts): numbers (-0, NaN, Infinity), bigints, strings and templates without a
 * substitution (escapes decoded), true/false/null/undefined, arrays and plain object literals of
 * those. Anything else depends on code (null).
 */

const named = (node: SyntaxNode): SyntaxNode[] =>
  node.namedChildren.filter((c): c is SyntaxNode => c !== null);

/** The canon value of a literal expression, or null. */
export function jsLiteral(node: SyntaxNode, constants?: ReadonlyMap<string, Canon>): Canon | null {
  switch (node.type) {
    case "number":
      return numberLiteral(node.text);
    case "string":
    case "template_string":
      return stringLiteral(node);
    case "true":
      return { t: "bool", v: true };
    case "false":
      return { t: "bool", v: false };
    case "null":
      return { t: "null" };
    case "undefined":
      return { t: "undefined" };
    case "identifier":
      if (node.text === "undefined") return { t: "undefined" };
      if (node.text === "NaN") return { t: "num", v: "NaN" };
      if (node.text === "Infinity") return { t: "num", v: "Infinity" };
      return constants?.get(node.text) ?? null;
    case "unary_expression": {
      const operator = node.childForFieldName("operator")?.text;
      const argument = node.childForFieldName("argument");
      const value = argument ? jsLiteral(argument, constants) : null;
      if (!value || (value.t !== "num" && value.t !== "bigint")) return null;
      if (operator === "+" && value.t === "num") return value;
      if (operator !== "-") return null;
      const v = value.v as string;
      if (value.t === "bigint")
        return { t: "bigint", v: v.startsWith("-") ? v.slice(1) : v === "0" ? "0" : `-${v}` };
      if (v === "NaN") return value;
      return { t: "num", v: v === "0" ? "-0" : v === "-0" ? "0" : v.startsWith("-") ? v.slice(1) : `-${v}` };
    }
    case "parenthesized_expression":
    case "as_expression":
    case "satisfies_expression":
    case "non_null_expression": {
      const [inner] = named(node);
      return inner ? jsLiteral(inner, constants) : null;
    }
    case "array": {
      const items: Canon[] = [];
      for (const child of node.children) {
        if (child === null || child.type === "[" || child.type === "]") continue;
        if (child.type === ",") continue;
        const value = jsLiteral(child, constants);
        if (!value) return null;
        items.push(value);
      }
      // Holes (`[1, , 2]`) are left to the code: rare, and their comparisons differ by matcher.
      if (/,\s*,|\[\s*,/.test(node.text.replace(/"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'/g, '""'))) return null;
      return { t: "arr", proto: "Array", v: items, props: [], syms: [] };
    }
    case "object": {
      const props: Array<[string, Canon]> = [];
      for (const pair of named(node)) {
        if (pair.type !== "pair") return null;
        const keyNode = pair.childForFieldName("key");
        const valueNode = pair.childForFieldName("value");
        if (!keyNode || !valueNode) return null;
        const key = propertyKey(keyNode);
        const value = jsLiteral(valueNode, constants);
        if (key === null || !value || key === "__proto__") return null;
        const at = props.findIndex(([k]) => k === key);
        if (at >= 0) props.splice(at, 1);
        props.push([key, value]);
      }
      return { t: "obj", proto: "Object", tag: "[object Object]", props: orderKeys(props), syms: [] };
    }
    default:
      return null;
  }
}

/** Object.keys order: integer-like keys ascending first, then the rest in insertion order. */
function orderKeys(props: Array<[string, Canon]>): Array<[string, Canon]> {
  const index = (k: string) => /^(0|[1-9]\d*)$/.test(k) && Number(k) < 2 ** 32 - 1;
  return [
    ...props.filter(([k]) => index(k)).sort((a, b) => Number(a[0]) - Number(b[0])),
    ...props.filter(([k]) => !index(k)),
  ];
}

function propertyKey(node: SyntaxNode): string | null {
  if (node.type === "property_identifier") return node.text;
  if (node.type === "string") {
    const s = stringLiteral(node);
    return s ? (s.v as string) : null;
  }
  if (node.type === "number") {
    const n = numberLiteral(node.text);
    return n && n.t === "num" ? (n.v as string) : null;
  }
  return null;
}

/** A number or bigint literal (`1_000`, `0x1F`, `0o17`, `0b1`, `.5`, `1e3`, `10n`). */
export function numberLiteral(text: string): Canon | null {
  const clean = text.replaceAll("_", "");
  if (clean.endsWith("n")) {
    const digits = clean.slice(0, -1);
    try {
      return { t: "bigint", v: BigInt(digits).toString() };
    } catch {
      return null;
    }
  }
  if (/^0[0-7]+$/.test(clean)) return { t: "num", v: String(Number.parseInt(clean, 8)) };
  const value = Number(clean);
  if (Number.isNaN(value)) return null;
  return { t: "num", v: String(value) };
}

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
  "'": "'",
  '"': '"',
  "\\": "\\",
  "`": "`",
  $: "$",
};

/** A string or template literal without a substitution, its escapes decoded; null otherwise. */
function stringLiteral(node: SyntaxNode): Canon | null {
  if (node.type === "template_string" && named(node).some((c) => c.type === "template_substitution"))
    return null;
  const body = node.text.slice(1, -1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) return null;
    if (next === "\n" || next === "\r") {
      i += next === "\r" && body[i + 2] === "\n" ? 2 : 1;
      continue;
    }
    if (next === "0" && /[0-9]/.test(body[i + 2] ?? "")) return null;
    if (next in ESCAPES) {
      out += ESCAPES[next];
      i++;
      continue;
    }
    if (next === "x") {
      const hex = body.slice(i + 2, i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 3;
      continue;
    }
    if (next === "u") {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(body.slice(i + 2));
      if (braced) {
        const code = Number.parseInt(braced[1]!, 16);
        if (code > 0x10ffff) return null;
        out += String.fromCodePoint(code);
        i += 1 + braced[0].length;
        continue;
      }
      const hex = body.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return null;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 5;
      continue;
    }
    if (/[1-9]/.test(next)) return null;
    // Any other escaped character is itself.
    out += next;
    i++;
  }
  if (node.type === "template_string") out = out.replace(/\r\n?/g, "\n");
  return { t: "str", v: out };
}
