import type { Canon } from "./canon.js";
import { fromFloatHex, fromHexInt, toDouble } from "./exact.js";
import { codePoints } from "./python-eq.js";

/**
 * A canon value written as its language would print it, for the message a failed seal shows
 * (what the runner would have shown: the expected and the actual value). Bounded: long values are
 * cut with an ellipsis.
 */
const MAX = 2000;

const clip = (text: string) => (text.length > MAX ? `${text.slice(0, MAX)}…` : text);

/** Python's repr of a float (`1.0`, `1e+20`, `1e-07`, `nan`, `-0.0`). */
function pyFloat(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  if (Object.is(value, -0)) return "-0.0";
  const exp = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)));
  if (exp < -4 || exp >= 16) {
    const [mantissa, e] = value.toExponential().split("e") as [string, string];
    const n = Number(e);
    return `${mantissa}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
  }
  const text = String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

const pyStr = (codes: number[]) => {
  const has = (c: string) => codes.includes(c.charCodeAt(0));
  const quote = has("'") && !has('"') ? '"' : "'";
  let out = quote;
  for (const code of codes) {
    const ch = String.fromCodePoint(code);
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += `\\u${code.toString(16)}`;
    else out += ch;
  }
  return `${out}${quote}`;
};

const floatText = (node: Canon, field: "x" | "d" = "x"): string =>
  typeof node[field] === "string" && field === "x"
    ? pyFloat(toDouble(fromFloatHex(node.x as string)))
    : pyFloat(Number(node.d));

const items = (node: Canon): Canon[] => (node.v as Canon[]) ?? [];
const pairs = (node: Canon): Array<[Canon, Canon]> => (node.v as Array<[Canon, Canon]>) ?? [];

/** Python's repr of a canon value; one recorded as a builtin it only compares like (a dict view, a UserList, a 0-d array) is named by its class. */
export function renderPython(node: Canon): string {
  if (typeof node.cls === "string" && !["opaque", "ident", "dataclass"].includes(node.t)) {
    const { cls, ...data } = node;
    return clip(`${cls.split(".").at(-1)}(${renderPython(data)})`);
  }
  return renderPythonData(node);
}

function renderPythonData(node: Canon): string {
  const r = renderPython;
  switch (node.t) {
    case "none":
      return "None";
    case "bool":
      return node.v ? "True" : "False";
    case "int":
      return typeof node.x === "string" ? fromHexInt(node.x).toString() : String(node.v);
    case "float":
      return typeof node.x === "string" ? floatText(node) : floatText(node, "d");
    case "complex":
      return `(${node.re}+${node.im}j)`;
    case "str":
      return clip(pyStr(codePoints(node)));
    case "bytes":
      return clip(
        `b'${(node.v as string).replace(/../g, (h) => {
          const c = Number.parseInt(h, 16);
          return c >= 0x20 && c < 0x7f && c !== 0x27 && c !== 0x5c ? String.fromCharCode(c) : `\\x${h}`;
        })}'`,
      );
    case "list":
      return clip(`[${items(node).map(r).join(", ")}]`);
    case "ndarray": {
      // numpy's repr: the rows of an array of two or more dimensions as nested lists.
      const rows = (n: Canon): string =>
        `[${items(n)
          .map((item) => (item.t === "ndarray" ? rows(item) : r(item)))
          .join(", ")}]`;
      return clip(`array(${rows(node)})`);
    }
    case "tuple":
      return clip(
        items(node).length === 1 ? `(${r(items(node)[0]!)},)` : `(${items(node).map(r).join(", ")})`,
      );
    case "set":
      return clip(items(node).length === 0 ? "set()" : `{${items(node).map(r).join(", ")}}`);
    case "dict":
    case "odict":
    case "counter": {
      const body = `{${pairs(node)
        .map(([k, v]) => `${r(k)}: ${r(v)}`)
        .join(", ")}}`;
      return clip(node.t === "dict" ? body : `${node.t === "odict" ? "OrderedDict" : "Counter"}(${body})`);
    }
    case "decimal":
      return `Decimal('${node.v}')`;
    case "fraction":
      return `Fraction(${fromHexInt(node.n as string)}, ${fromHexInt(node.d as string)})`;
    case "dataclass": {
      const name = String(node.cls).replace(/#.*$/, "").split(".").at(-1);
      return clip(
        `${name}(${pairs(node)
          .map(([k, v]) => `${k as unknown as string}=${r(v)}`)
          .join(", ")})`,
      );
    }
    case "ident":
      return `<${node.cls} object>`;
    case "call":
      return clip(renderCall(node));
    default:
      return renderOther(node);
  }
}

/** unittest.mock's repr of a call: `call.send('ann', urgent=False)`, `call('bob')`. */
function renderCall(node: Canon): string {
  const parts = items(node);
  const [name, args, kwargs] = parts.length === 3 ? parts : [undefined, ...parts];
  if (args?.t !== "tuple" || !["dict", "odict", "counter"].includes(kwargs?.t ?? ""))
    return `call${renderPython({ ...node, t: "tuple" })}`;
  const text = name?.t === "str" ? String(name.v ?? "") : "";
  const shown = [
    ...items(args).map(renderPython),
    ...pairs(kwargs!).map(([k, v]) => `${k.t === "str" ? String(k.v) : renderPython(k)}=${renderPython(v)}`),
  ];
  return `call${text ? `.${text}` : ""}(${shown.join(", ")})`;
}

/** Tags every language shares. */
export function renderOther(node: Canon): string {
  if (node.t === "opaque") return `<${node.cls ?? "a value"}: ${node.why ?? "not plain data"}>`;
  if (node.t === "deep") return "<nested too deep to record>";
  if (node.t === "big") return "<too large to record>";
  return clip(JSON.stringify(node));
}

/** A JavaScript value as node's util.inspect would print it (close enough for a message). */
export function renderJs(node: Canon): string {
  const r = renderJs;
  const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
  const named = (proto: unknown) => {
    const p = String(proto ?? "");
    return p.startsWith("#")
      ? `${p.split(":").slice(1).join(":") || "Object"} `
      : p === "null"
        ? "[Object: null prototype] "
        : "";
  };
  switch (node.t) {
    case "undefined":
      return "undefined";
    case "null":
      return "null";
    case "bool":
      return String(node.v);
    case "num":
      return String(node.v);
    case "bigint":
      return `${node.v}n`;
    case "str":
      return clip(`'${String(node.v).replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`);
    case "sym":
      return `Symbol(${node.d})`;
    case "fn":
      return `[Function: ${node.name || "(anonymous)"}]`;
    case "hole":
      return "<empty>";
    case "arr":
      return clip(
        `${named(node.proto === "Array" ? "" : node.proto)}[ ${[...(node.v as Canon[]).map(r), ...((node.props as Array<[string, Canon]>) ?? []).map(([k, v]) => `${key(k)}: ${r(v)}`)].join(", ")} ]`.replace(
          "[  ]",
          "[]",
        ),
      );
    case "obj": {
      const body = ((node.props as Array<[string, Canon]>) ?? [])
        .map(([k, v]) => `${key(k)}: ${r(v)}`)
        .join(", ");
      return clip(`${named(node.proto)}{${body ? ` ${body} ` : ""}}`);
    }
    case "map":
      return clip(
        `Map(${(node.v as unknown[]).length}) { ${(node.v as Array<[Canon, Canon]>).map(([k, v]) => `${r(k)} => ${r(v)}`).join(", ")} }`,
      );
    case "set":
      return clip(`Set(${(node.v as unknown[]).length}) { ${(node.v as Canon[]).map(r).join(", ")} }`);
    case "date":
      return node.v === "NaN" ? "Invalid Date" : new Date(Number(node.v)).toISOString();
    case "regexp":
      return `/${node.src}/${node.flags}`;
    case "error":
      return `${node.name}: ${node.message}`;
    case "boxed":
      return `[${String(node.tag).slice(8, -1)}: ${r(node.v as Canon)}]`;
    case "typed":
      return `${String(node.tag).slice(8, -1)}(${String(node.v).length / 2}) [${
        String(node.v)
          .match(/../g)
          ?.map((h) => Number.parseInt(h, 16))
          .join(", ") ?? ""
      }]`;
    default:
      return renderOther(node);
  }
}

/** A Go value as %#v would roughly print it (never through its String method). */
export function renderGo(node: Canon): string {
  const r = renderGo;
  const hexText = (x: string) => Buffer.from(x, "hex").toString("utf8");
  switch (node.t) {
    case "const":
      if (node.c === "string") return JSON.stringify(hexText(node.x as string));
      if (node.c === "nil") return "nil";
      if (node.c === "rune") return `'${String.fromCodePoint(Number(node.v))}'`;
      if (node.c === "imag") return `${node.v}i`;
      return String(node.v);
    case "lit":
      return clip(
        `${node.ty}{${(node.v as unknown[]).map((i) => (Array.isArray(i) ? `${r(i[0] as Canon)}: ${r(i[1] as Canon)}` : r(i as Canon))).join(", ")}}`,
      );
    case "bool":
      return String(node.v);
    case "int":
    case "uint":
      return String(node.v);
    case "float":
      return String(node.v);
    case "complex":
      return "(complex)";
    case "string":
      return clip(
        typeof node.v === "string"
          ? JSON.stringify(node.v)
          : `"\\x${String(node.x).match(/../g)?.join("\\x") ?? ""}"`,
      );
    case "slice":
    case "array":
      return node.nil ? `${node.ty}(nil)` : clip(`${node.ty}{${(node.v as Canon[]).map(r).join(", ")}}`);
    case "map":
      return node.nil
        ? `${node.ty}(nil)`
        : clip(
            `${node.ty}{${(node.v as Array<[Canon, Canon]>).map(([k, v]) => `${r(k)}: ${r(v)}`).join(", ")}}`,
          );
    case "struct":
      return clip(
        `${node.ty}{${(node.v as Array<[string, Canon]>).map(([k, v]) => `${k}:${r(v)}`).join(", ")}}`,
      );
    case "ptr":
      return node.nil ? `(${node.ty})(nil)` : `&${r(node.v as Canon)}`;
    case "iface":
      return node.nil ? "<nil>" : r(node.v as Canon);
    case "ref":
      return node.nil ? `(${node.ty})(nil)` : `(${node.ty})(0x${node.a})`;
    default:
      return renderOther(node);
  }
}
