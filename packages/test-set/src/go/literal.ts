import type { SyntaxNode } from "../parsers.js";
import type { Canon } from "../seal/canon.js";

/**
 * Go constants and composite literals read off the syntax tree (the expected side of a sealed Go
 * comparison). An untyped constant is `{ t: "const", c: int|float|imag|rune|string|bool|nil }`
 * with its exact text (Go converts it to the other side's type at compile time; the host does the
 * same); a composite literal of basic types is `{ t: "lit", ty, k: slice|array|map, v }` with its
 * type as reflect prints it. Anything else is code (null).
 */

const named = (node: SyntaxNode | null): SyntaxNode[] =>
  node ? node.namedChildren.filter((c): c is SyntaxNode => c !== null) : [];

const BASIC = new Set([
  "bool",
  "string",
  "int",
  "int8",
  "int16",
  "int32",
  "int64",
  "uint",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "uintptr",
  "float32",
  "float64",
  "complex64",
  "complex128",
  "byte",
  "rune",
  "any",
]);

/** A type node as reflect's Type.String() prints it (byte is uint8, rune int32, any and interface{} `interface {}`); null for a type the host does not model. */
export function goTypeString(node: SyntaxNode): string | null {
  switch (node.type) {
    case "type_identifier": {
      if (!BASIC.has(node.text)) return null;
      return node.text === "byte"
        ? "uint8"
        : node.text === "rune"
          ? "int32"
          : node.text === "any"
            ? "interface {}"
            : node.text;
    }
    case "interface_type":
      return named(node).length === 0 ? "interface {}" : null;
    case "slice_type": {
      const element = node.childForFieldName("element");
      const inner = element ? goTypeString(element) : null;
      return inner ? `[]${inner}` : null;
    }
    case "array_type": {
      const element = node.childForFieldName("element");
      const length = node.childForFieldName("length");
      const inner = element ? goTypeString(element) : null;
      return inner && length?.type === "int_literal"
        ? `[${BigInt(length.text.replaceAll("_", ""))}]${inner}`
        : null;
    }
    case "map_type": {
      const key = node.childForFieldName("key");
      const value = node.childForFieldName("value");
      const k = key ? goTypeString(key) : null;
      const v = value ? goTypeString(value) : null;
      return k && v ? `map[${k}]${v}` : null;
    }
    case "parenthesized_type":
      return named(node)[0] ? goTypeString(named(node)[0]!) : null;
    default:
      return null;
  }
}

/** The element type string of a slice, array or map type string. */
export function elementType(ty: string): string {
  if (ty.startsWith("[]")) return ty.slice(2);
  if (ty.startsWith("[")) return ty.slice(ty.indexOf("]") + 1);
  if (ty.startsWith("map[")) {
    let depth = 0;
    for (let i = 3; i < ty.length; i++) {
      if (ty[i] === "[") depth++;
      if (ty[i] === "]" && --depth === 0) return ty.slice(i + 1);
    }
  }
  return ty;
}

/** A map type string's key type. */
export function keyType(ty: string): string {
  let depth = 0;
  for (let i = 3; i < ty.length; i++) {
    if (ty[i] === "[") depth++;
    if (ty[i] === "]" && --depth === 0) return ty.slice(4, i);
  }
  return ty;
}

/** The canon of a Go constant expression or composite literal, or null. */
export function goLiteral(node: SyntaxNode): Canon | null {
  switch (node.type) {
    case "int_literal": {
      const v = intValue(node.text);
      return v === null ? null : { t: "const", c: "int", v: v.toString() };
    }
    case "float_literal":
      return /^[0-9._eE+-]+$/.test(node.text)
        ? { t: "const", c: "float", v: node.text.replaceAll("_", "") }
        : null;
    case "imaginary_literal":
      return /^[0-9._eE+-]+i$/.test(node.text)
        ? { t: "const", c: "imag", v: node.text.slice(0, -1).replaceAll("_", "") }
        : null;
    case "rune_literal": {
      const decoded = decodeGoString(node.text.slice(1, -1), true);
      if (decoded === null) return null;
      const code = [...decoded.text][0]?.codePointAt(0);
      return code === undefined ? null : { t: "const", c: "rune", v: String(decoded.byte ?? code) };
    }
    case "interpreted_string_literal": {
      const decoded = decodeGoString(node.text.slice(1, -1), false);
      return decoded === null ? null : { t: "const", c: "string", x: decoded.hex };
    }
    case "raw_string_literal":
      return {
        t: "const",
        c: "string",
        x: Buffer.from(node.text.slice(1, -1).replaceAll("\r", ""), "utf8").toString("hex"),
      };
    case "true":
    case "false":
      return { t: "const", c: "bool", v: node.type === "true" };
    case "nil":
      return { t: "const", c: "nil" };
    case "parenthesized_expression":
      return named(node)[0] ? goLiteral(named(node)[0]!) : null;
    case "unary_expression": {
      const operator = node.childForFieldName("operator")?.text;
      const operand = node.childForFieldName("operand");
      const value = operand ? goLiteral(operand) : null;
      if (value?.t !== "const" || (operator !== "-" && operator !== "+")) return null;
      if (!["int", "float", "imag"].includes(value.c as string)) return null;
      if (operator === "+") return value;
      const v = value.v as string;
      return { ...value, v: v.startsWith("-") ? v.slice(1) : `-${v}` };
    }
    case "composite_literal":
      return compositeLiteral(node);
    default:
      return null;
  }
}

function compositeLiteral(node: SyntaxNode): Canon | null {
  const typeNode = node.childForFieldName("type");
  const body = node.childForFieldName("body");
  const ty = typeNode ? goTypeString(typeNode) : null;
  if (!ty || !body) return null;
  const k = ty.startsWith("[]")
    ? "slice"
    : ty.startsWith("[")
      ? "array"
      : ty.startsWith("map[")
        ? "map"
        : null;
  if (!k) return null;
  const elements = named(body);
  const elementValue = (element: SyntaxNode | null): Canon | null => {
    if (!element) return null;
    const inner = element.type === "literal_element" ? named(element)[0] : element;
    if (!inner) return null;
    // An element without its type (`{1, 2}` inside `[][]int{...}`) takes the element type.
    if (inner.type === "literal_value") return compositeOfType(elementType(ty), inner);
    return goLiteral(inner);
  };
  if (k === "map") {
    const pairs: Canon[][] = [];
    for (const element of elements) {
      if (element.type !== "keyed_element") return null;
      const key = elementValue(element.childForFieldName("key"));
      const value = elementValue(element.childForFieldName("value"));
      if (!key || !value) return null;
      pairs.push([key, value]);
    }
    return { t: "lit", ty, k, v: pairs };
  }
  const items: Canon[] = [];
  for (const element of elements) {
    if (element.type === "keyed_element") return null;
    const value = elementValue(element);
    if (!value) return null;
    items.push(value);
  }
  if (k === "array") {
    const length = Number(/^\[(\d+)\]/.exec(ty)?.[1]);
    if (items.length !== length) return null;
  }
  return { t: "lit", ty, k, v: items };
}

/** An untyped `{…}` (a composite literal whose type is elided), as a literal of the given type; null for a type not modelled. */
export function goLiteralOfType(ty: string, body: SyntaxNode): Canon | null {
  return compositeOfType(ty, body);
}

/** An untyped `{…}` inside a composite literal, as a literal of the element type. */
function compositeOfType(ty: string, body: SyntaxNode): Canon | null {
  const k = ty.startsWith("[]")
    ? "slice"
    : ty.startsWith("[")
      ? "array"
      : ty.startsWith("map[")
        ? "map"
        : null;
  if (!k) return null;
  const items: Canon[] = [];
  for (const element of named(body)) {
    if (element.type !== "literal_element") return null;
    const inner = named(element)[0];
    const value =
      inner?.type === "literal_value"
        ? compositeOfType(elementType(ty), inner)
        : inner
          ? goLiteral(inner)
          : null;
    if (!value) return null;
    items.push(value);
  }
  return k === "map" ? null : { t: "lit", ty, k, v: items };
}

function intValue(text: string): bigint | null {
  const clean = text.replaceAll("_", "");
  try {
    if (/^0[0-7]+$/.test(clean)) return BigInt(`0o${clean.slice(1)}`);
    if (/^0[oO][0-7]+$/.test(clean)) return BigInt(`0o${clean.slice(2)}`);
    return BigInt(clean);
  } catch {
    return null;
  }
}

/**
 * A Go string or rune literal's body decoded: the text, its UTF-8 bytes as hex (`\xff` is one byte,
 * whatever UTF-8 makes of it), and for a rune literal written as one byte escape, that byte.
 */
function decodeGoString(body: string, rune: boolean): { text: string; hex: string; byte?: number } | null {
  const bytes: number[] = [];
  let text = "";
  let single: number | undefined;
  const push = (s: string) => {
    text += s;
    bytes.push(...Buffer.from(s, "utf8"));
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      push(c);
      continue;
    }
    const next = body[i + 1];
    const simple: Record<string, string> = {
      a: "\x07",
      b: "\b",
      f: "\f",
      n: "\n",
      r: "\r",
      t: "\t",
      v: "\v",
      "\\": "\\",
      "'": "'",
      '"': '"',
    };
    if (next !== undefined && next in simple) {
      push(simple[next]!);
      i++;
      continue;
    }
    if (next === "x") {
      const h = body.slice(i + 2, i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(h)) return null;
      bytes.push(Number.parseInt(h, 16));
      single = Number.parseInt(h, 16);
      text += String.fromCharCode(single);
      i += 3;
      continue;
    }
    if (next !== undefined && /[0-7]/.test(next)) {
      const o = body.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(o)) return null;
      single = Number.parseInt(o, 8);
      bytes.push(single);
      text += String.fromCharCode(single);
      i += 3;
      continue;
    }
    if (next === "u" || next === "U") {
      const n = next === "u" ? 4 : 8;
      const h = body.slice(i + 2, i + 2 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(h)) return null;
      const code = Number.parseInt(h, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return null;
      push(String.fromCodePoint(code));
      i += 1 + n;
      continue;
    }
    return null;
  }
  return {
    text,
    hex: Buffer.from(bytes).toString("hex"),
    ...(rune && single !== undefined && body.length <= 4 ? { byte: single } : {}),
  };
}
