import { randomInt } from "node:crypto";
import type { SentinelFramework } from "./runner-command.js";

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
function numbers(): { a: number; b: number } {
  return { a: randomInt(2, 60), b: randomInt(2, 60) };
}

const unique = (taken: (name: string) => boolean, base: (n: number) => string): string => {
  for (;;) {
    const name = base(randomInt(2, 100));
    if (!taken(name)) return name;
  }
};

const pick = <T>(items: T[]): T | undefined => items[randomInt(0, Math.max(1, items.length))];

/** Names of the file's own tests, for sentinel names that look like them. */
function pythonTestNames(text: string): string[] {
  return [...text.matchAll(/^[ \t]*(?:async[ \t]+)?def[ \t]+(test[A-Za-z0-9_]*)[ \t]*\(/gm)].map(
    (m) => m[1]!,
  );
}

/**
 * Two pytest tests appended to a hidden module: plain `assert` comparisons (rewritten by pytest like
 * the module's own), named like the module's tests with a number, in random order. With `className`
 * they become methods of that class (a `file::Class` selection); with `keyword` (a plain `-k`) their
 * names contain it.
 */
export function pythonSentinel(
  path: string,
  text: string,
  options: { className?: string; keyword?: string } = {},
): SentinelAppend {
  const keyword = options.keyword;
  const own = pythonTestNames(text).filter(
    (n) => !keyword || n.toLowerCase().includes(keyword.toLowerCase()),
  );
  const taken = (name: string) => new RegExp(`\\b${name}\\b`).test(text);
  const model = pick(own) ?? (keyword ? `test_${keyword}` : "test_value");
  const first = unique(taken, (n) => `${model}_${n}`);
  const second = unique(
    (n) => taken(n) || n === first,
    (n) => `${pick(own) ?? model}_${n}`,
  );
  const roles: Array<"fail" | "pass"> = randomInt(0, 2) === 0 ? ["fail", "pass"] : ["pass", "fail"];
  const self = options.className ? "self" : "";
  const lines: string[] = [text.endsWith("\n") || text === "" ? "" : "\n"];
  const tests: SentinelTest[] = [];
  for (const [i, name] of [first, second].entries()) {
    const role = roles[i]!;
    const { a, b } = numbers();
    const expected = role === "pass" ? a + b : a + b + randomInt(1, 9);
    lines.push(
      "",
      "",
      `def ${name}(${self}):`,
      `    total = sum([${a}, ${b}])`,
      `    assert total == ${expected}`,
    );
    if (options.className) lines.push(`${options.className}.${name} = ${name}`, `del ${name}`);
    tests.push({ names: [name], role });
  }
  return {
    path,
    text: `${lines.join("\n")}\n`,
    tests,
    ...(options.className ? { className: options.className } : {}),
  };
}

/** How a JS test file asserts: `assert.x(...)`, a destructured function, chai/jest `expect`, or nothing known. */
export function jsAssertStyle(
  text: string,
  framework: SentinelFramework,
): (actual: string, expected: number) => string {
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
  return (a, b) => `if (${a} !== ${b}) throw new Error("expected " + ${a} + " to equal " + ${b});`;
}

const JS_TITLE = /\b(?:it|test)\s*\(\s*(["'])((?:(?!\1)[^\\\n])+)\1/g;

/**
 * Two JS tests appended to a hidden test file, with the file's own `it`/`test`, its own assertion
 * library, inside a `describe` of the file's first top-level title if it has one, titled like its
 * tests with a number. With `grep` (a plain `--grep`/`-t` string) the titles contain it.
 */
export function jsSentinel(
  path: string,
  text: string,
  framework: SentinelFramework,
  options: { grep?: string } = {},
): SentinelAppend {
  const fn = /\bit\s*\(/.test(text) || !/\btest\s*\(/.test(text) ? "it" : "test";
  const assert = jsAssertStyle(text, framework);
  const titles = [...text.matchAll(JS_TITLE)].map((m) => m[2]!);
  const describe = /^describe\s*\(\s*(["'])((?:(?!\1)[^\\\n])+)\1/m.exec(text)?.[2];
  const grep = options.grep;
  const withGrep = (title: string) =>
    !grep || title.includes(grep) || describe?.includes(grep) ? title : `${title} ${grep}`;
  const taken = (name: string) => text.includes(name);
  const roles: Array<"fail" | "pass"> = randomInt(0, 2) === 0 ? ["fail", "pass"] : ["pass", "fail"];
  const body: string[] = [];
  const tests: SentinelTest[] = [];
  const used = new Set<string>();
  for (const role of roles) {
    const model = withGrep(pick(titles) ?? "returns the expected value");
    const title = unique(
      (n) => taken(n) || used.has(n),
      (n) => `${model} ${n}`,
    );
    used.add(title);
    const { a, b } = numbers();
    const expected = role === "pass" ? a + b : a + b + randomInt(1, 9);
    body.push(`${fn}(${JSON.stringify(title)}, () => {`, `  ${assert(`${a} + ${b}`, expected)}`, "});");
    tests.push({ names: describe ? [`${describe} ${title}`, title] : [title], role });
  }
  const block = describe
    ? [`describe(${JSON.stringify(describe)}, () => {`, ...body.map((l) => `  ${l}`), "});"]
    : body;
  const lead = text.endsWith("\n") || text === "" ? "" : "\n";
  return { path, text: `${lead}\n${block.join("\n")}\n`, tests };
}
