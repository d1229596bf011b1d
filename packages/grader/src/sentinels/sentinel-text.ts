import { createHash } from "node:crypto";
import { cryptoRandom, type Random } from "@oracle/test-set";
import type { SentinelFramework } from "./runner-command.js";
import { depthAfter, openLines, spansLiteral } from "./sentinel-lex.js";

/** One sentinel test: its name as the report shows it, and whether it must fail or pass. */
export interface SentinelTest {
  /** The names a report may give it (a JS test's full title, or its own title). */
  names: string[];
  role: "fail" | "pass";
}

/** The text appended to one hidden test file and the two tests it defines. */
export interface SentinelAppend {
  path: string;
  text: string;
  tests: SentinelTest[];
  /** The pytest class the tests were added to (a `file::Class` selection), if any. */
  className?: string;
}

/** Random numbers for one must-fail / must-pass pair: the pass compares `a + b` with its sum. */
function numbers(random: Random): { a: number; b: number } {
  return { a: random.int(2, 60), b: random.int(2, 60) };
}

/**
 * The file's imported names that it uses as values (calls, or reads a member of: `merge(`, `core.`),
 * one picked by the file's text (`pickStable`): a name that is only a type (`type Range`, an
 * interface) is gone at run time and one bound to None is not called, so a pair touching it would
 * fail a correct fix (red team round 3: a TypeScript file's `typeof Range`, in half the grades).
 */
function valueName(names: readonly string[], text: string): string | undefined {
  const code = text.replace(/^\s*(?:import|from)\b.*$/gm, "");
  const quoted = (n: string) => n.replace(/\$/g, "\\$");
  const used = names.filter((n) => new RegExp(`(?:^|[^.\\w$])${quoted(n)}\\s*[(.]`, "m").test(code));
  return pickStable(used, text);
}

/**
 * One of `items`, the same for the same file text in every run. For what changes how correct code
 * fares: the must-fail runs a test body a second time, and a body with a side effect another test
 * sees (a registry, a file, a global) can fail a correct diff. Only bodies that look pure are copied
 * (`looksPure`); for what that misses, the pick is by the file's content: picked at random, such a
 * task FAILed a correct diff in some grades only, and the sweep's gold run could miss it
 * (attack-sentinel-side-effect); picked so, the sweep's gold runs see what every grade sees. The body is in the file the tests read anyway, so knowing the pick reveals nothing.
 */
export function pickStable<T>(items: T[], text: string): T | undefined {
  if (items.length === 0) return undefined;
  return items[createHash("sha256").update(text).digest().readUInt32BE(0) % items.length];
}

/** Names of the file's own tests, for sentinel names that look like them. */
function pythonTestNames(text: string): string[] {
  return [...text.matchAll(/^[ \t]*(?:async[ \t]+)?def[ \t]+(test[A-Za-z0-9_]*)[ \t]*\(/gm)].map(
    (m) => m[1]!,
  );
}

/**
 * Whether a test body (its lines at its own indent `indent`) looks free of side effects another test
 * could see: each of its statements an `assert` (or a unittest `self.assert…(…)`), an assignment to plain local names (`x = f(1)`,
 * `a, b = ...`) or a one-line docstring; nothing deeper than its indent but the continuation of those (no block, so no
 * `with`, `for`, `if`). A bare call (`core.register("x")`), an assignment to an attribute or an item,
 * `global`, `del`, an import or a block rules it out: the must-fail runs the body a second time, and a
 * registry, a file or a global changed twice can fail a correct diff in a later test.
 */
export function looksPure(body: string[], indent: string): boolean {
  const assignment = /^[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*\s*(?::[^=]*)?=(?!=)/;
  // Brackets still open, or a trailing backslash: the next line continues the statement.
  let open = 0;
  let continued = false;
  for (const line of body) {
    // A `#` or a bracket inside a string miscounts; a count left open at the end rules the body out.
    const code = line.replace(/#.*$/, "").trimEnd();
    if (code.trim() === "") continue;
    if (open === 0 && !continued) {
      if (!code.startsWith(indent) || /^\s/.test(code.slice(indent.length))) return false;
      const statement = code.slice(indent.length);
      const docstring = /^(?:"{3}.*"{3}|'{3}.*'{3}|"[^"\\]*"|'[^'\\]*')$/.test(statement);
      const asserts = /^assert\b/.test(statement) || /^self\.assert[A-Z]\w*\(/.test(statement);
      if (!asserts && !assignment.test(statement) && !docstring) return false;
    }
    open = depthAfter(code, open);
    continued = code.endsWith("\\");
  }
  return open === 0 && !continued;
}

/**
 * A test that takes no fixture and has no decorator, as lines of its file: a module-level
 * `def test_x():`, or a `def test_x(self):` of a top-level class.
 */
export interface PlainTest {
  name: string;
  /** The class it is a method of. */
  className?: string;
  /** Index of its `def` line. */
  def: number;
  /** Its body's lines (from the line after `def`, trailing blank lines left out), as written. */
  body: string[];
  /** The body's indent. */
  indent: string;
}

const MODULE_TEST = /^def[ \t]+(test[A-Za-z0-9_]*)[ \t]*\(\s*\)\s*(?:->[^:]*)?:\s*(?:#.*)?$/;
const METHOD_TEST = /^( +)def[ \t]+(test[A-Za-z0-9_]*)[ \t]*\(\s*self\s*\)\s*(?:->[^:]*)?:\s*(?:#.*)?$/;

/**
 * Whether the statement before line `i` is a decorator: blank and comment lines skipped, and a
 * decorator spread over lines (`@mock.patch(\n    "x", new=f\n)`) read back to its `@`. A test
 * whose decorator went unseen would lose it to a copy inserted between the two.
 */
export function decoratedAt(lines: readonly string[], i: number): boolean {
  let depth = 0;
  for (let j = i - 1; j >= 0; j--) {
    const code = lines[j]!.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
      .replace(/#.*$/, "")
      .trim();
    if (code === "" && depth === 0) continue;
    for (const ch of [...code].reverse()) {
      if (")]}".includes(ch)) depth++;
      else if ("([{".includes(ch)) depth--;
    }
    if (depth > 0) continue;
    return code.startsWith("@");
  }
  return false;
}

/**
 * The body of the `def` on line `def` (indented by `defIndent`): the lines after it that are deeper
 * or blank, trailing blank lines left out, and its indent; null when it is not deeper than the def,
 * or its lines mix indents or use tabs.
 */
export function pythonBody(
  lines: readonly string[],
  def: number,
  defIndent: string,
): { body: string[]; indent: string } | null {
  const body: string[] = [];
  for (const next of lines.slice(def + 1)) {
    if (next.trim() !== "" && !(next.startsWith(defIndent) && /^[ \t]/.test(next.slice(defIndent.length))))
      break;
    body.push(next);
  }
  while (body.length > 0 && body.at(-1)!.trim() === "") body.pop();
  const indent = /^( +)\S/.exec(body.find((l) => l.trim() !== "") ?? "")?.[1];
  if (!indent || indent.length <= defIndent.length) return null;
  if (body.some((l) => l.trim() !== "" && (!l.startsWith(indent) || /^ *\t/.test(l)))) return null;
  return { body, indent };
}

/** The module's plain tests (`PlainTest`) whose bodies look free of side effects (`looksPure`). */
export function pythonPlainTests(text: string): PlainTest[] {
  const lines = text.split("\n");
  const inStrings = openLines(text, "python");
  const tests: PlainTest[] = [];
  let className: string | undefined;
  let memberIndent: string | undefined;
  for (const [i, line] of lines.entries()) {
    if (line.trim() !== "" && !/^[ \t]/.test(line)) {
      className = /^class[ \t]+([A-Za-z_]\w*)\b[^:]*:\s*(?:#.*)?$/.exec(line)?.[1];
      memberIndent = undefined;
    } else if (className && memberIndent === undefined && line.trim() !== "")
      memberIndent = /^( +)/.exec(line)?.[1] ?? "";
    const module = MODULE_TEST.exec(line);
    const method = className ? METHOD_TEST.exec(line) : null;
    const name = module?.[1] ?? (method && method[1] === memberIndent ? method[2] : undefined);
    if (!name || decoratedAt(lines, i)) continue;
    const found = pythonBody(lines, i, method?.[1] ?? "");
    if (!found || !looksPure(found.body, found.indent)) continue;
    const { body, indent } = found;
    // The def line, the body and the line after it all outside any string that spans lines.
    if (spansLiteral(inStrings, i, i + 1 + body.length)) continue;
    tests.push({ name, ...(method ? { className } : {}), def: i, body, indent });
  }
  return tests;
}

/**
 * The bodies of the module-level plain tests (`pythonPlainTests`), re-indented by 8 spaces, so a
 * must-fail can run one verbatim: the same calls of the code under test, the same asserts.
 */
export function pythonPlainBodies(text: string, except: readonly string[] = []): string[][] {
  return pythonPlainTests(text)
    .filter((t) => t.className === undefined && !except.includes(t.name))
    .map(({ body, indent }) => body.map((l) => (l.trim() === "" ? "" : `        ${l.slice(indent.length)}`)));
}

/** The names the module's top-level imports bind (`import a.b` binds `a`, `from x import y as z` binds `z`). */
export function pythonImportedNames(text: string): string[] {
  const names = new Set<string>();
  // The runner's own modules are not the code under test: touching them would not tell the sentinel from the module's tests.
  const runner = (name: string) => ["pytest", "_pytest", "unittest"].includes(name);
  for (const m of text.matchAll(/^import[ \t]+([^\n#]+)/gm))
    for (const part of m[1]!.split(",")) {
      const alias = /\bas[ \t]+(\w+)/.exec(part)?.[1] ?? /^\s*(\w+)/.exec(part)?.[1];
      if (alias && !runner(alias)) names.add(alias);
    }
  for (const m of text.matchAll(/^from[ \t]+[\w.]+[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)/gm))
    for (const part of m[1]!.replace(/[()]/g, "").split(",")) {
      const alias = /\bas[ \t]+(\w+)/.exec(part)?.[1] ?? /^\s*(\w+)\s*$/.exec(part)?.[1];
      if (alias && !runner(alias)) names.add(alias);
    }
  return [...names];
}

/** Whether a sentinel name is kept by the run's selection (`-k`): true, false, or not provable (null). */
export type NameFilter = (name: string) => boolean | null;

/**
 * The pair's local for its sum: a name the file's text never spells. A local the module also
 * imports is local to the whole function, so `assert total is not None` raised UnboundLocalError for
 * `from cart import total`, and the must-pass failed in every run, gold's too (s25 attack finding 7);
 * the sum is `a + b` inline for the same reason (`from vec import sum` made `sum([a, b])` the module's).
 * Go's pair too: `total :=` in `func TestX(total *testing.T)` did not compile (sealpy3).
 */
export function localName(text: string, random: Random): string {
  const free = (name: string) => !new RegExp(`\\b${name}\\b`).test(text);
  const known = ["total", "value", "result", "got", "answer"].find(free);
  if (known) return known;
  for (;;) {
    const name = `value_${random.int(100, 100000)}`;
    if (free(name)) return name;
  }
}

/**
 * Two pytest tests appended to a hidden module, after its own imports: each first touches a name
 * the module imports (so a wrapper keyed on tests that use the code wraps it too), the must-fail
 * runs the body of one of the module's own fixture-less tests verbatim (the same calls of the code,
 * the same asserts, whether a wrapper reads the source or watches the calls) and then, in
 * `finally`, asserts a wrong sum; plain `assert` (rewritten like the module's own), or `self.assertEqual` in a
 * unittest class. Named like the module's tests with a number, in random order. With `className`
 * they become methods of that class; with `accepts` (a `-k` expression) only names it provably
 * keeps are used, and null is returned when none is found; `taken` are names the run uses already.
 */
export function pythonSentinel(
  path: string,
  text: string,
  options: {
    className?: string;
    accepts?: NameFilter;
    /** Whether the command deselects a test of this name (`--deselect` is a node-id prefix). */
    deselects?: (name: string, className?: string) => boolean;
    taken?: readonly string[];
    /** The run's other test files: a report id ends in the test's name, whatever its file. */
    elsewhere?: string;
    /** Tests of the file whose comparisons are sealed: the must-fail does not repeat their bodies (their expected values stay out). */
    twinned?: readonly string[];
    /** The names' numbers, the order and the values (default: node:crypto). */
    random?: Random;
    /**
     * The must-fail copies no body of the file (a selection by node id leaves the file's other tests
     * out on purpose: one may hang or need what the run does not have).
     */
    bare?: boolean;
  } = {},
): SentinelAppend | null {
  const random = options.random ?? cryptoRandom;
  const own = pythonTestNames(text);
  const taken = (name: string) =>
    options.taken?.includes(name) === true ||
    new RegExp(`\\b${name}\\b`).test(text) ||
    new RegExp(`\\b${name}\\b`).test(options.elsewhere ?? "");
  const models = own.length > 0 ? own : ["test_value"];
  const accepts = options.accepts ?? (() => true);
  const names: string[] = [];
  for (let tries = 0; names.length < 2 && tries < 400; tries++) {
    // At module level the name must be one pytest's python_functions takes: `test_…` is (the default
    // prefix `test`, and the usual `test_*`); a unittest method's `testSmall` alone is not.
    const model = models[tries % models.length]!;
    const base =
      options.className !== undefined || model.startsWith("test_")
        ? model
        : `test_${model.replace(/^test/, "")}`;
    const name = `${base}_${random.int(2, 100)}`;
    const deselected = options.deselects?.(name, options.className) === true;
    if (!taken(name) && !names.includes(name) && accepts(name) === true && !deselected) names.push(name);
  }
  if (names.length < 2) return null;
  const roles: Array<"fail" | "pass"> = random.int(0, 2) === 0 ? ["fail", "pass"] : ["pass", "fail"];
  const className = options.className;
  const unit = className !== undefined && /\bTestCase\b/.test(text);
  const eq = (a: string, b: number) => (unit ? `self.assertEqual(${a}, ${b})` : `assert ${a} == ${b}`);
  const imported = valueName(pythonImportedNames(text), text);
  const body =
    className || options.bare ? undefined : pickStable(pythonPlainBodies(text, options.twinned), text);
  const local = localName(text, random);
  const lines: string[] = [text.endsWith("\n") || text === "" ? "" : "\n"];
  const tests: SentinelTest[] = [];
  for (const [i, name] of names.entries()) {
    const role = roles[i]!;
    const { a, b } = numbers(random);
    const expected = role === "pass" ? a + b : a + b + random.int(1, 9);
    lines.push("", "", `def ${name}(${className ? "self" : ""}):`);
    if (imported) lines.push(`    assert ${imported} is not None`);
    const check = [`${local} = ${a} + ${b}`, eq(local, expected)];
    // A raise in `finally` wins over the body's own return, skip or failure: the must-fail fails.
    if (role === "fail" && body)
      lines.push("    try:", ...body, "    finally:", ...check.map((l) => `        ${l}`));
    else lines.push(...check.map((l) => `    ${l}`));
    if (className) lines.push(`${className}.${name} = ${name}`, `del ${name}`);
    tests.push({ names: [name], role });
  }
  return {
    path,
    text: `${lines.join("\n")}\n`,
    tests,
    ...(className ? { className } : {}),
  };
}

/** How a JS test file asserts: `assert.x(...)`, a destructured function, chai/jest `expect`, or nothing known. */
export function jsAssertStyle(
  text: string,
  framework: SentinelFramework,
): (actual: string, expected: number | string) => string {
  const mod = `["'](?:node:)?assert(?:/strict)?["']`;
  const bound =
    new RegExp(`(?:const|let|var)\\s+(\\w+)\\s*=\\s*require\\(\\s*${mod}\\s*\\)`).exec(text) ??
    new RegExp(`import\\s+(?:\\*\\s+as\\s+)?(\\w+)\\s+from\\s+${mod}`).exec(text) ??
    new RegExp(`import\\s*\\{[^}]*\\bstrict\\s+as\\s+(\\w+)[^}]*\\}\\s*from\\s+${mod}`).exec(text);
  if (bound) return (a, b) => `${bound[1]}.strictEqual(${a}, ${b});`;
  const named = new RegExp(
    `(?:\\{([^}]*)\\}\\s*=\\s*require\\(\\s*${mod}|import\\s*\\{([^}]*)\\}\\s*from\\s+${mod})`,
  ).exec(text);
  const fns = (named?.[1] ?? named?.[2] ?? "").split(",").map((s) => s.trim());
  const fn = ["strictEqual", "equal", "deepStrictEqual", "deepEqual"].find((f) => fns.includes(f));
  if (fn) return (a, b) => `${fn}(${a}, ${b});`;
  if (/\bexpect\s*\(/.test(text)) {
    return framework === "mocha"
      ? (a, b) => `expect(${a}).to.equal(${b});`
      : (a, b) => `expect(${a}).toBe(${b});`;
  }
  return (a, b) => `if ((${a}) !== ${b}) throw new Error("expected " + (${a}) + " to equal " + ${b});`;
}

const JS_TITLE = /\b(?:it|test)\s*\(\s*(["'])((?:(?!\1)[^\\\n])+)\1/g;
const ASSERT_LIBS = /^(?:node:)?(?:assert(?:\/strict)?|chai|vitest|@jest\/globals|expect|power-assert)$/;

/** The bindings a JS test file takes from the code it tests (`require`/`import` of anything but assertion libraries). */
export function jsImportedNames(text: string): string[] {
  const names = new Set<string>();
  const binding =
    /(?:(?:const|let|var)\s+(\{[^}]*\}|\w+)\s*=\s*require\(\s*["']([^"']+)["']\s*\)|import\s+(\{[^}]*\}|\*\s+as\s+\w+|\w+)\s+from\s+["']([^"']+)["'])/g;
  for (const m of text.matchAll(binding)) {
    const source = m[2] ?? m[4]!;
    // `import type { … }` binds types only, gone at run time.
    if (ASSERT_LIBS.test(source) || /^import\s+type\b/.test(m[0])) continue;
    const bound = (m[1] ?? m[3]!).replace(/^\*\s+as\s+/, "");
    for (const part of bound.replace(/[{}]/g, "").split(",")) {
      if (/^\s*type\s+[\w$]/.test(part)) continue;
      const name = /(?:[\w$]+\s*(?::|\bas\b)\s*)?([A-Za-z_$][\w$]*)\s*$/.exec(part.trim())?.[1];
      if (name) names.add(name);
    }
  }
  return [...names];
}

/**
 * Two JS tests appended to a hidden test file, with the file's own `it`/`test`, its own assertion
 * library (asserting first on a binding the file takes from the code under test, so that an
 * assertion library patched only for files that load the code is patched for them too), inside a
 * `describe` of the file's first top-level title if it has one, titled like its tests with a
 * number. With `accepts` (the runner's name filter) only full titles it keeps are used, and null
 * is returned when none is found.
 */
export function jsSentinel(
  path: string,
  text: string,
  framework: SentinelFramework,
  options: {
    accepts?: (fullTitle: string) => boolean;
    taken?: readonly string[];
    /** The run's other test files: a report id ends in the test's title, whatever its file. */
    elsewhere?: string;
    /** The titles' numbers, the order and the values (default: node:crypto). */
    random?: Random;
  } = {},
): SentinelAppend | null {
  const random = options.random ?? cryptoRandom;
  // The test function the file itself calls (plainly or as `test.each`): an ESM vitest file imports only what it uses.
  const uses = (name: string) => new RegExp(`(?:^|[^.\\w$])${name}\\s*[(.]`, "m").test(text);
  const fn = uses("it") || !uses("test") ? "it" : "test";
  const assert = jsAssertStyle(text, framework);
  const titles = [...text.matchAll(JS_TITLE)].map((m) => m[2]!);
  const describe = /^describe\s*\(\s*(["'])((?:(?!\1)[^\\\n])+)\1/m.exec(text)?.[2];
  const full = (title: string) => (describe ? `${describe} ${title}` : title);
  const accepts = options.accepts ?? (() => true);
  const models = titles.length > 0 ? titles : ["returns the expected value"];
  const chosen: string[] = [];
  for (let tries = 0; chosen.length < 2 && tries < 600; tries++) {
    const model = models[tries % models.length]!;
    const n = random.int(2, 100);
    const forms = [`${model} ${n}`, `${model} (${n})`, `${n} ${model}`, `${model}${n}`];
    const title = forms[Math.floor(tries / models.length) % forms.length]!;
    // A title that ends another one the run uses (or is ended by it) would match that test's report entry.
    const clashes = (options.taken ?? []).some(
      (t) => t === title || t.endsWith(` ${title}`) || title.endsWith(` ${t}`),
    );
    const elsewhere = (options.elsewhere ?? "").includes(title);
    if (!text.includes(title) && !elsewhere && !chosen.includes(title) && !clashes && accepts(full(title)))
      chosen.push(title);
  }
  if (chosen.length < 2) return null;
  const imported = valueName(jsImportedNames(text), text);
  const roles: Array<"fail" | "pass"> = random.int(0, 2) === 0 ? ["fail", "pass"] : ["pass", "fail"];
  const body: string[] = [];
  const tests: SentinelTest[] = [];
  for (const [i, title] of chosen.entries()) {
    const role = roles[i]!;
    const { a, b } = numbers(random);
    const expected = role === "pass" ? a + b : a + b + random.int(1, 9);
    body.push(`${fn}(${JSON.stringify(title)}, () => {`);
    if (imported) body.push(`  ${assert(`typeof ${imported} === "undefined"`, "false")}`);
    body.push(`  ${assert(`${a} + ${b}`, expected)}`, "});");
    tests.push({ names: describe ? [full(title), title] : [title], role });
  }
  const block = describe
    ? [`describe(${JSON.stringify(describe)}, () => {`, ...body.map((l) => `  ${l}`), "});"]
    : body;
  const lead = text.endsWith("\n") || text === "" ? "" : "\n";
  return { path, text: `${lead}\n${block.join("\n")}\n`, tests };
}
