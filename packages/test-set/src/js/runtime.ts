/**
 * The seal runtime for JavaScript and TypeScript test files (mocha, jest, vitest), appended to a
 * sealed file: function declarations (hoisted, so the tests find them wherever the file ends),
 * recording each actual value as plain data (seal/canon.ts) in `$ORACLE_SEALS`, one JSON line per
 * record, one `writeSync` each on an O_APPEND descriptor. Nothing here is trusted: code under test
 * can replace these functions or write records itself, but it cannot know the expected values.
 *
 * Plain data: undefined, null, booleans, numbers (-0, NaN), bigints, strings, arrays (holes kept),
 * objects (own enumerable string and symbol keys, with a tag for their prototype: Object, null, or
 * a class by identity; the enumerable string keys they inherit, as `for…in` lists them, in `inh`:
 * chai's deep-eql counts those, read from the prototype's data properties, an inherited getter
 * never run but opaque, a Proxy on the chain "?"; and `value.constructor` as toStrictEqual reads it, found along the prototype
 * chain by property descriptors: a getter or a Proxy on the way is "?", never run), Map, Set, Date, RegExp, Error, boxed primitives, typed arrays. An object
 * that answers for its own equality (a Proxy, `asymmetricMatch`, jest's matcher symbol) or that
 * the runtime cannot read without running its code in unknown ways is `opaque`; a getter is read
 * once, as the matchers read it.
 *
 * `__oracleSeal` and `__oracleTruth` return nothing: a test `() => expect(x).toBe(y)` becomes
 * `() => __oracleSeal(…)`, and jest fails a test function that returns a value.
 *
 * Every helper is emitted in every sealed file and marked as read (`void __oracleSeal;`, …), and the
 * TypeScript text types each parameter, index and array as `any` and reads `process.env` by
 * bracket: a file that uses one helper still compiles under ts-jest with `strict`,
 * `noUnusedLocals`, `noUnusedParameters`, `noUncheckedIndexedAccess` and
 * `noPropertyAccessFromIndexSignature` (runtime-typescript.test.ts compiles it with the real compiler).
 */

/** How the runtime reaches `fs`: an import (ES module syntax) or `require` (CommonJS, found by eval so a TypeScript file needs no declaration). */
export type JsModuleKind = "esm" | "cjs";

const BODY = String.raw`
function __oracleInit() {
  if (__oracleState) return __oracleState;
  __oracleState = { fs: null, refs: null, symbols: null, next: 1, path: undefined, open: null, write: null, close: null, realm: null };
  var objectProto = Object.getPrototypeOf({}), arrayProto = Object.getPrototypeOf([]);
  __oracleState.realm = { objectProto: objectProto, arrayProto: arrayProto, Object: objectProto.constructor, Array: arrayProto.constructor, error: Error.prototype, source: Function.prototype.toString };
  var env = typeof process !== "undefined" && process.env ? process.env : {};
  __oracleState.path = env["ORACLE_SEALS"];
  var fs = null;
  try { if (typeof process.getBuiltinModule === "function") fs = process.getBuiltinModule("fs"); } catch (e) { fs = null; }
  if (!fs) {
    try { var j = eval("typeof jest === 'undefined' ? undefined : jest"); if (j && typeof j.requireActual === "function") fs = j.requireActual("fs"); } catch (e) { fs = null; }
  }
  if (!fs) {
    try { fs = __ORACLE_NATIVE_FS__; } catch (e) { fs = null; }
  }
  if (!fs) fs = __ORACLE_FS__;
  __oracleState.fs = fs;
  __oracleState.open = fs.openSync; __oracleState.write = fs.writeSync; __oracleState.close = fs.closeSync;
  return __oracleState;
}
var __oracleState = __oracleInit();
function __oracleRef(value) {
  if (!__oracleState.refs) { __oracleState.refs = new WeakMap(); __oracleState.symbols = new Map(); }
  var table = typeof value === "symbol" ? __oracleState.symbols : __oracleState.refs;
  var id = table.get(value);
  if (id === undefined) { id = __oracleState.next++; table.set(value, id); }
  return id;
}
function __oracleCtorName(proto) {
  var ctor = Object.prototype.hasOwnProperty.call(proto, "constructor") ? proto.constructor : undefined;
  return typeof ctor === "function" ? String(ctor.name) : "";
}
function __oracleProto(value) {
  var proto = Object.getPrototypeOf(value);
  if (proto === null) return "null";
  var realm = __oracleState.realm;
  if (proto === realm.objectProto) return "Object";
  if (proto === realm.arrayProto && Array.isArray(value)) return "Array";
  return "#" + __oracleRef(proto) + ":" + __oracleCtorName(proto);
}
function __oracleChain(value, types) {
  var chain = [];
  for (var o = value; o !== null; o = Object.getPrototypeOf(o)) {
    if (!types || types.isProxy(o) || chain.length > 1000) return null;
    chain.push(o);
  }
  return chain;
}
function __oracleOwnData(chain, key) {
  for (var i = 0; i < chain.length; i++) {
    var d = Object.getOwnPropertyDescriptor(chain[i], key);
    if (d) return "value" in d ? { v: d.value } : null;
  }
  return { v: undefined };
}
function __oracleRead(chain, key, sub) {
  var found = chain ? __oracleOwnData(chain, key) : null;
  return found ? sub(found.v) : { t: "opaque", why: "read through a getter or a Proxy" };
}
function __oracleCtor(chain, types) {
  var found = chain ? __oracleOwnData(chain, "constructor") : null;
  if (!found) return "?";
  var c = found.v;
  if (c === undefined || c === null) return String(c);
  if (typeof c === "string") return "=s:" + c;
  if (typeof c === "number") return c !== c ? "?" : "=n:" + String(c === 0 ? 0 : c);
  if (typeof c === "boolean") return "=b:" + String(c);
  if (typeof c === "bigint") return "=g:" + String(c);
  if (typeof c !== "function" || types.isProxy(c)) return "?";
  var realm = __oracleState.realm;
  if (c === realm.Object) return "Object";
  if (c === realm.Array) return "Array";
  if (realm.source.call(c).indexOf("[native code]") < 0) return "#" + __oracleRef(c);
  var own = __oracleChain(c, types);
  var name = own ? __oracleOwnData(own, "name") : null;
  if (!name || typeof name.v !== "string") return "?";
  return "native:" + name.v + "#" + __oracleRef(c);
}
function __oracleTag(value) { return Object.prototype.toString.call(value); }
function __oracleOwn(value, budget, depth, stack) {
  var props = [];
  var keys = Object.keys(value);
  for (var i = 0; i < keys.length; i++) {
    if (Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(keys[i]) && Number(keys[i]) < value.length) continue;
    props.push([keys[i], __oracleCanon(value[keys[i]], budget, depth + 1, stack)]);
  }
  var syms = Object.getOwnPropertySymbols(value).filter(function (s) { return Object.prototype.propertyIsEnumerable.call(value, s); });
  var out = [];
  for (var j = 0; j < syms.length; j++) out.push([String(syms[j].description), __oracleRef(syms[j]), __oracleCanon(value[syms[j]], budget, depth + 1, stack)]);
  return { props: props, syms: out };
}
function __oracleInherited(value, chain, budget, depth, stack) {
  if (!chain) return "?";
  var out = [];
  for (var key in value) {
    if (Object.prototype.hasOwnProperty.call(value, key)) continue;
    var d = null;
    for (var i = 1; i < chain.length && !d; i++) d = Object.getOwnPropertyDescriptor(chain[i], key);
    out.push([key, d && "value" in d ? __oracleCanon(d.value, budget, depth + 1, stack) : { t: "opaque", why: "an inherited getter" }]);
  }
  return out;
}
function __oracleCanon(value, budget, depth, stack) {
  budget.n -= 1;
  if (budget.n < 0) return { t: "big" };
  if (depth > 64) return { t: "deep" };
  var type = typeof value;
  if (value === undefined) return { t: "undefined" };
  if (value === null) return { t: "null" };
  if (type === "boolean") return { t: "bool", v: value };
  if (type === "number") return { t: "num", v: Object.is(value, -0) ? "-0" : String(value) };
  if (type === "bigint") return { t: "bigint", v: value.toString() };
  if (type === "string") return { t: "str", v: value };
  if (type === "symbol") return { t: "sym", d: String(value.description), id: __oracleRef(value) };
  if (type === "function") return { t: "fn", name: String(value.name), id: __oracleRef(value) };
  if (stack.indexOf(value) >= 0) return { t: "opaque", why: "it contains itself" };
  var types = __oracleState.types;
  if (types === undefined) { try { types = __ORACLE_TYPES__; } catch (e) { types = null; } __oracleState.types = types; }
  if (types && types.isProxy(value)) return { t: "opaque", cls: "Proxy", why: "a Proxy answers for itself" };
  if (typeof value.asymmetricMatch === "function") return { t: "opaque", why: "it has asymmetricMatch (a matcher that answers for its own equality)" };
  if (value.$$typeof === Symbol.for("jest.asymmetricMatcher")) return { t: "opaque", why: "a jest asymmetric matcher" };
  var inner = stack.concat([value]);
  var sub = function (x) { return __oracleCanon(x, budget, depth + 1, inner); };
  var tag = __oracleTag(value);
  var ref = __oracleRef(value);
  var proto = __oracleProto(value);
  var chain = __oracleChain(value, types);
  var ctor = __oracleCtor(chain, types);
  if (Array.isArray(value)) {
    var items = [];
    for (var i = 0; i < value.length; i++) items.push(Object.prototype.hasOwnProperty.call(value, i) ? sub(value[i]) : { t: "hole" });
    var own = __oracleOwn(value, budget, depth, inner);
    return { t: "arr", proto: proto, ref: ref, ctor: ctor, v: items, props: own.props, syms: own.syms };
  }
  if (types ? types.isMap(value) : tag === "[object Map]") {
    var entries = [];
    Map.prototype.forEach.call(value, function (v, k) { entries.push([sub(k), sub(v)]); });
    return { t: "map", proto: proto, ref: ref, ctor: ctor, v: entries };
  }
  if (types ? types.isSet(value) : tag === "[object Set]") {
    var members = [];
    Set.prototype.forEach.call(value, function (v) { members.push(sub(v)); });
    return { t: "set", proto: proto, ref: ref, ctor: ctor, v: members };
  }
  if (types ? types.isDate(value) : tag === "[object Date]") {
    var time = Date.prototype.getTime.call(value);
    return { t: "date", proto: proto, ref: ref, ctor: ctor, v: String(time) };
  }
  if (types ? types.isRegExp(value) : tag === "[object RegExp]") return { t: "regexp", proto: proto, ref: ref, ctor: ctor, src: value.source, flags: value.flags, last: value.lastIndex };
  if (types ? types.isNativeError(value) : tag === "[object Error]") {
    var err = __oracleOwn(value, budget, depth, inner);
    var ofError = chain ? chain.indexOf(__oracleState.realm.error) > 0 : undefined;
    return { t: "error", proto: proto, ref: ref, ctor: ctor, ofError: ofError, name: String(value.name), message: String(value.message), code: __oracleRead(chain, "code", sub), props: err.props, syms: err.syms };
  }
  if (types ? types.isBoxedPrimitive(value) : /^\[object (Number|String|Boolean)\]$/.test(tag)) return { t: "boxed", proto: proto, ref: ref, ctor: ctor, tag: tag, v: sub(value.valueOf()) };
  if (ArrayBuffer.isView(value) && !(types && types.isDataView(value))) {
    var bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    var hex = "";
    for (var b = 0; b < bytes.length; b++) hex += (bytes[b] < 16 ? "0" : "") + bytes[b].toString(16);
    return { t: "typed", proto: proto, ref: ref, ctor: ctor, tag: tag, v: hex };
  }
  if (tag !== "[object Object]" && tag !== "[object Arguments]") return { t: "opaque", cls: tag, why: "not a kind of value the oracle compares" };
  var fields = __oracleOwn(value, budget, depth, inner);
  var node = { t: "obj", proto: proto, ref: ref, ctor: ctor, tag: tag, props: fields.props, syms: fields.syms };
  var inherited = __oracleInherited(value, chain, budget, depth, inner);
  if (inherited.length > 0) node.inh = inherited;
  if (tag === "[object Arguments]") {
    var length = chain ? __oracleOwnData(chain, "length") : null;
    var n = length ? length.v : undefined;
    if (typeof n === "number" && n >= 0 && n <= 100000 && n === Math.floor(n)) {
      var argv = [];
      for (var a = 0; a < n; a++) argv.push(__oracleRead(chain, String(a), sub));
      node.args = argv;
    } else node.args = "?";
  }
  return node;
}
function __oracleWrite(key, side, value) {
  var canon;
  try { canon = __oracleCanon(value, { n: 200000 }, 0, []); } catch (e) { canon = { t: "opaque", why: "reading it threw" }; }
  var line = JSON.stringify({ k: key, s: side, v: canon });
  if (line.length > 1048576) line = JSON.stringify({ k: key, s: side, v: { t: "big" } });
  var state = __oracleInit();
  if (!state.path) return;
  var fd = state.open.call(state.fs, state.path, "a", 384);
  try { state.write.call(state.fs, fd, line + "\n"); } finally { state.close.call(state.fs, fd); }
}
function __oracleSeal(key, value) { __oracleWrite(key, 0, value); }
function __oracleCellKey(cell) {
  if (cell === null || typeof cell !== "object") return null;
  var d = Object.getOwnPropertyDescriptor(cell, "__oracleKey");
  return d && typeof d.value === "string" ? d.value : null;
}
function __oracleCell(cell, value) { var key = __oracleCellKey(cell); if (key === null) return value; __oracleWrite(key, 0, value); return undefined; }
function __oracleCellWant(cell) { return __oracleCellKey(cell) === null ? cell : undefined; }
function __oracleTruth(key, value) { __oracleWrite(key, 0, !!value); }
function __oracleSide(key, side, value) { __oracleWrite(key, side, value); return value; }
void __oracleSeal; void __oracleTruth; void __oracleSide; void __oracleInit; void __oracleCell; void __oracleCellWant;
`;

/**
 * The runtime's text for one file: its module system (ESM syntax imports `fs` and `util`, hoisted
 * wherever the import stands; CommonJS requires them through eval, which a TypeScript file needs no
 * declaration for) and its language (TypeScript gets `any` on every parameter, so a type-checking
 * runner such as ts-jest under `noImplicitAny` accepts it).
 */
export function jsRuntime(kind: JsModuleKind, typescript: boolean): string {
  const fs = kind === "esm" ? "__oracleFsModule" : 'eval("require")("fs")';
  const types = kind === "esm" ? "__oracleUtilModule.types" : 'eval("require")("util").types';
  // An ES module's own `import … from "fs"` is what vitest's hoisted `vi.mock("node:fs")` replaces
  // (node 18 has no process.getBuiltinModule, vitest no jest.requireActual): node's own require,
  // made by createRequire, loads the builtin past any runner's module mocks.
  const native = kind === "esm" ? '__oracleCreateRequire("/")("fs")' : "null";
  let body = BODY.replace("__ORACLE_NATIVE_FS__", native)
    .replace("__ORACLE_FS__", fs)
    .replace("__ORACLE_TYPES__", types);
  if (typescript)
    body = body
      .replace(/function (\w+)\(([^)]*)\)/g, (_, name: string, params: string) => {
        const typed = params
          .split(",")
          .map((p) => p.trim())
          .filter((p) => p !== "")
          .map((p) => `${p}: any`)
          .join(", ");
        return `function ${name}(${typed}): any`;
      })
      .replace("var __oracleState = __oracleInit();", "var __oracleState: any = __oracleInit();")
      .replace("var env = ", "var env: any = ")
      .replace("var fs = null;", "var fs: any = null;")
      .replace("var j = ", "var j: any = ")
      .replace(/process\.getBuiltinModule/g, '(process as any)["getBuiltinModule"]')
      .replace("var sub = function (x)", "var sub = function (x: any)")
      .replace("function (v, k) {", "function (v: any, k: any) {")
      .replace("function (v) { members", "function (v: any) { members")
      .replace("function (s) { return", "function (s: any) { return")
      .replace("var chain = [];", "var chain: any[] = [];")
      .replace("var out = [];\n  for (var key", "var out: any[] = [];\n  for (var key")
      .replace("var d = null;", "var d: any = null;")
      .replace("var node = {", "var node: any = {")
      .replace("var props = [];", "var props: any[] = [];")
      .replace("var out = [];", "var out: any[] = [];")
      .replace("var items = [];", "var items: any[] = [];")
      .replace("var entries = [];", "var entries: any[] = [];")
      .replace("var members = [];", "var members: any[] = [];")
      .replace("var canon;", "var canon: any;")
      .replace("var types = __oracleState.types;", "var types: any = __oracleState.types;")
      .replace("var keys = ", "var keys: any = ")
      .replace("var syms = ", "var syms: any = ")
      .replace("var bytes = ", "var bytes: any = ");
  const imports =
    kind === "esm"
      ? 'import * as __oracleFsModule from "fs";\nimport * as __oracleUtilModule from "util";\nimport { createRequire as __oracleCreateRequire } from "module";\n'
      : "";
  return `\n\n// --- oracle seal runtime (planted by the oracle; not part of the task's tests) ---\n${imports}${body}`;
}
