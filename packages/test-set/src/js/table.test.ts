import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { planSeals } from "../seal/seal-run.js";

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["javascript", "typescript", "tsx"]);
});

const plan = (text: string, path = "test/x.test.js", framework?: string, demoted?: ReadonlySet<string>) =>
  planSeals(parsers, [{ path, text }], {
    ...(framework ? { framework } : {}),
    ...(demoted ? { demoted } : {}),
  });
const rows = (p: ReturnType<typeof plan>) =>
  p.sites.map((s) => [s.key, s.test.entry, s.expected?.v ?? s.expected?.t, s.strength]);
const body = (p: ReturnType<typeof plan>) => p.files[0]!.text.split("// --- oracle seal runtime")[0]!;

const CHANGE_CASE = `import { describe, it, expect } from "vitest";
import { camel, snake } from "./index.js";
const tests: [string, Result, Options?][] = [
  ["a b", { camel: "aB", snake: "a_b", unread: "zz" }],
  // a comment between rows
  ["x-y", { camel: "xY", snake: "x_y" }, { sep: "-" }],
];
describe("change case", () => {
  for (const [input, result, options] of tests) {
    it(input, () => {
      expect(camel(input, options)).toEqual(result.camel);
      expect(snake(input, options)).toEqual(result.snake);
    });
  }
});
`;

describe("JS tables (seal.table): one test per row, each row's expected value sealed", () => {
  it("a for…of loop over a const table (change-case's shape): each row's members leave the file, the row holds its keys", () => {
    const p = plan(CHANGE_CASE, "src/index.spec.ts", "vitest");
    expect(rows(p)).toEqual([
      ["0.0", "change case a b", "aB", "strong"],
      ["0.1", "change case a b", "a_b", "strong"],
      ["0.2", "change case x-y", "xY", "strong"],
      ["0.3", "change case x-y", "x_y", "strong"],
    ]);
    expect(p.tests.map((t) => [t.test.entry, t.keys])).toEqual([
      ["change case a b", ["0.0", "0.1"]],
      ["change case x-y", ["0.2", "0.3"]],
    ]);
    const text = body(p);
    expect(text).toContain(
      `["a b", ({ "camel": { __oracleKey: "0.0" }, "snake": { __oracleKey: "0.1" } } as any)],`,
    );
    expect(text).toContain(
      `["x-y", ({ "camel": { __oracleKey: "0.2" }, "snake": { __oracleKey: "0.3" } } as any), { sep: "-" }],`,
    );
    // The matcher stays: a sealed row's cell records the actual value and hands it undefined twice.
    expect(text).toContain(
      "expect(__oracleCell(result.camel, camel(input, options))).toEqual(__oracleCellWant(result.camel));",
    );
    for (const value of ["aB", "a_b", "xY", "x_y", "zz"]) expect(text).not.toContain(`"${value}"`);
    // Lines keep their numbers.
    const lineOf = (t: string, part: string) => t.split("\n").findIndex((l) => l.includes(part));
    expect(lineOf(text, "result.snake")).toBe(lineOf(CHANGE_CASE, "result.snake"));
    expect(p.sites.map((s) => s.line)).toEqual([11, 12, 11, 12]);
  });

  it("it.each/test.each with %s, %i and %#, and a forEach: titles as jest and vitest format them", () => {
    const p = plan(
      `const { ms, spell } = require("../src");
describe("s", () => {
  it.each([["1s", 1000], ["2m", 120000]])("parses %s (%#)", (s, want) => {
    expect(ms(s)).toBe(want);
  });
  test.each([[3, "three"]])("spells %i", (n, word) => expect(spell(n)).toBe(word));
  [[1, "one"], [2, "two"]].forEach(([n, word]) => it(\`spells \${n} as a word\`, () => expect(spell(n)).toBe(word)));
  for (const { n, word: w } of [{ n: 4, word: "four" }]) {
    it("spell " + n, function () { assert.strictEqual(spell(n), w); });
  }
});
`,
    );
    expect(rows(p)).toEqual([
      ["0.0", "s parses 1s (0)", "1000", "strong"],
      ["0.1", "s parses 2m (1)", "120000", "strong"],
      ["0.2", "s spells 3", "three", "strong"],
      ["0.3", "s spells 1 as a word", "one", "strong"],
      ["0.4", "s spells 2 as a word", "two", "strong"],
    ]);
    const text = body(p);
    expect(text).toContain(
      `it.each([["1s", { __oracleKey: "0.0" }], ["2m", { __oracleKey: "0.1" }]])("parses %s (%#)", (s, want) => {`,
    );
    expect(text).toContain("expect(__oracleCell(want, ms(s))).toBe(__oracleCellWant(want));");
    expect(text).toContain(`[[1, { __oracleKey: "0.3" }], [2, { __oracleKey: "0.4" }]].forEach(`);
    expect(text).toContain("assert.strictEqual(spell(n), w);");
    // `assert` is not bound in that file: its loop's test has no comparison the rules read.
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([["s spell 4", "unsealed.no-comparison"]]);
  });

  it("a column read anywhere but as a sealed expected side is not emptied: its comparisons are the runner's", () => {
    const p = plan(
      `const { f, g } = require("../src");
describe("s", () => {
  for (const [x, want] of [["a", "A"], ["b", "B"]]) {
    it(\`maps \${x}\`, () => {
      expect(g(want)).toBe(x);
      expect(f(x)).toBe(want);
    });
  }
  for (const [x, want] of [["c", "C"]]) {
    it(\`maps \${x} to \${want}\`, () => expect(f(x)).toBe(want));
  }
  for (const [x, want] of [["d", "D"]]) {
    it(\`twice \${x}\`, () => {
      expect(f(x)).toBe(want);
      expect(f(x + x)).toBe(want);
    });
  }
  for (const [x, want] of [["e", new Date(0)]]) {
    it(\`dated \${x}\`, () => expect(f(x)).toEqual(want));
  }
});
`,
    );
    expect(p.sites).toEqual([]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["s maps a", "unsealed.no-comparison"],
      ["s maps b", "unsealed.no-comparison"],
      ["s maps c to C", "unsealed.no-comparison"],
      ["s twice d", "unsealed.no-comparison"],
      ["s dated e", "unsealed.no-comparison"],
    ]);
    expect(body(p)).toContain(`"A"`);
  });

  it("what is no table: a const the file also hands the code, a title the planner cannot compute, a row of another shape, more placeholders than elements, a callback longer than the rows", () => {
    const p = plan(
      `const { f, inspect } = require("../src");
const CASES = [["a", "A"], ["b", "B"]];
const OTHER = [["c", "C"]];
describe("s", () => {
  it("keeps its table", () => { f(CASES); });
  for (const [x, want] of CASES) {
    it(x, () => expect(f(x)).toBe(want));
  }
  for (const [x, want] of OTHER) {
    it(\`\${inspect(x)}\`, () => expect(f(x)).toBe(want));
  }
  for (const [x, want] of [["d", "D"], { x: "e" }]) {
    it(x, () => expect(f(x)).toBe(want));
  }
  it.each([["f", "F"]])("%s %s %s", (x, want) => expect(f(x)).toBe(want));
  it.each([["g", "G"]])("%p", (x, want) => expect(f(x)).toBe(want));
  it.each([["h", "H"]])("%s", (x, want, done) => { expect(f(x)).toBe(want); done(); });
});
`,
    );
    expect(p.sites).toEqual([]);
    expect(body(p)).toContain(`const CASES = [["a", "A"], ["b", "B"]];`);
    expect(body(p)).toContain(`const OTHER = [["c", "C"]];`);
  });

  it("row titles count with the file's other titles: a row named as another test, or twice in its table, is not sealed and keeps its values; the other rows are sealed", () => {
    const p = plan(
      `const { f } = require("../src");
describe("s", () => {
  it("maps a", () => expect(f("a")).toBe("A"));
  for (const [x, want] of [["a", "A"], ["b", "B"]]) {
    it(\`maps \${x}\`, () => expect(f(x)).toBe(want));
  }
  it.each([["c", "C"], ["c", "C2"]])("maps %s!", (x, want) => expect(f(x)).toBe(want));
});
`,
    );
    expect(rows(p)).toEqual([["0.0", "s maps b", "B", "strong"]]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["s maps a", "unsealed.title"],
      ["s maps c!", "unsealed.title"],
      ["s maps c!", "unsealed.title"],
      ["s maps a", "unsealed.title"],
    ]);
    // The ambiguous row's value stays: the cell gives it back to the runner's own toBe.
    expect(body(p)).toContain(`for (const [x, want] of [["a", "A"], ["b", { __oracleKey: "0.0" }]]) {`);
    expect(body(p)).toContain(`it.each([["c", "C"], ["c", "C2"]])`);
  });

  it("a key the sweep demoted leaves that row's value in its cell for the runner; the table's other rows and comparisons stay sealed", () => {
    const p = plan(CHANGE_CASE, "src/index.spec.ts", "vitest", new Set(["0.2"]));
    expect(rows(p)).toEqual([
      ["0.0", "change case a b", "aB", "strong"],
      ["0.1", "change case a b", "a_b", "strong"],
      ["0.3", "change case x-y", "x_y", "strong"],
    ]);
    const text = body(p);
    expect(text).toContain(
      `["x-y", ({ "camel": "xY", "snake": { __oracleKey: "0.3" } } as any), { sep: "-" }],`,
    );
    // In that row the comparison left to the runner comes first: the seal after it may not decide.
    expect(p.sites.map((s) => s.afterUnsealed ?? false)).toEqual([false, false, true]);
    // The plan's fingerprint covers every site found, demoted ones too.
    expect(p.files[0]!.planned).toHaveLength(4);
  });

  it("a row value the file spells elsewhere (an input equal to its expected output) or in a row's title is exposed; a trivial one weak", () => {
    const p = plan(
      `const { f } = require("../src");
describe("s", () => {
  for (const [x, want] of [["same", "same"], ["in", "title in"], ["z", true], ["y", "Why"]]) {
    it(\`\${x} title in\`, () => expect(f(x)).toBe(want));
  }
});
`,
    );
    expect(rows(p)).toEqual([
      ["0.0", "s same title in", "same", "exposed"],
      ["0.1", "s in title in", "title in", "exposed"],
      ["0.2", "s z title in", true, "weak"],
      ["0.3", "s y title in", "Why", "strong"],
    ]);
  });

  it("ufo's shape: a table declared in its suite's body, each row bound whole (`t.input`, `t.out`), titled `t.input.toString()`", () => {
    // Cut down from unjs/ufo test/encoding.test.ts and utilities.test.ts (v1.6.3).
    const p = plan(
      `import { describe, expect, test } from "vitest";
import { encodeQueryValue, isScriptProtocol } from "../src/";

describe("encodeQueryValue", () => {
  const tests = [
    { input: "hello+world", out: "hello%2Bworld" },
    { input: true, out: "tru3" },
    { input: 42, out: "4-2" },
    { input: ["apple", null, 7], out: "apple,,7!" },
    {
      input: String.raw\`!@#$%^&*()_+{}[]|\\:;<>,./?\`,
      out: "!@%23$%25^%26*()_%2B",
    },
  ];

  for (const t of tests) {
    test(t.input.toString(), () => {
      expect(encodeQueryValue(t.input.toString())).toStrictEqual(t.out);
    });
  }
});

describe("isScriptProtocol", () => {
  const tests = [
    { input: "javascript:", out: "jsproto" },
    { input: "\\0vbscript:", out: "vbproto" },
  ];
  for (const t of tests) {
    test(\`\${t.input}\`, () => {
      expect(isScriptProtocol(t.input)).toBe(t.out);
    });
  }
});
`,
      "test/encoding.test.ts",
      "vitest",
    );
    expect(rows(p)).toEqual([
      ["0.0", "encodeQueryValue hello+world", "hello%2Bworld", "strong"],
      ["0.1", "encodeQueryValue true", "tru3", "strong"],
      ["0.2", "encodeQueryValue 42", "4-2", "strong"],
      ["0.3", "encodeQueryValue apple,,7", "apple,,7!", "strong"],
      ["0.4", "encodeQueryValue !@#$%^&*()_+{}[]|\\:;<>,./?", "!@%23$%25^%26*()_%2B", "strong"],
      ["0.5", "isScriptProtocol javascript:", "jsproto", "strong"],
    ]);
    // A title with a control character may come back changed: that row keeps its value.
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["isScriptProtocol \u0000vbscript:", "unsealed.title"],
    ]);
    const text = body(p);
    expect(text).toContain(`{ input: "hello+world", out: ({ __oracleKey: "0.0" } as any) },`);
    expect(text).toContain(
      `input: String.raw\`!@#$%^&*()_+{}[]|\\:;<>,./?\`,\n      out: ({ __oracleKey: "0.4" } as any),`,
    );
    expect(text).toContain(
      "expect(__oracleCell(t.out, encodeQueryValue(t.input.toString()))).toStrictEqual(__oracleCellWant(t.out));",
    );
    expect(text).toContain(`{ input: "\\0vbscript:", out: "vbproto" },`);
    for (const value of ["hello%2Bworld", "tru3", "4-2", "apple,,7!", "%25^%26", "jsproto"])
      expect(text).not.toContain(value);
  });

  it("a row bound whole keeps its values when the test reads it otherwise (`f(t)`, `t[k]`, `t?.out`, a parameter named as it, `t.out` twice), or its table is named again in its suite; a loop the planner cannot read lists its tests as `<suite> ?`", () => {
    const p = plan(
      `import { describe, expect, test } from "vitest";
import { f, log } from "../src";
describe("s", () => {
  const a = [{ input: "a", out: "A1" }];
  for (const t of a) test(t.input, () => { log(t); expect(f(t.input)).toBe(t.out); });
  const b = [{ input: "b", out: "B1" }];
  for (const t of b) test(t.input, () => expect(f(t["input"])).toBe(t.out));
  const c = [{ input: "c", out: "C1" }];
  for (const t of c) test(t.input, () => expect(f(t.input)).toBe(t?.out));
  const d = [{ input: "d", out: "D1" }];
  for (const t of d) test(t.input, (t) => expect(f(t.input)).toBe(t.out));
  const e = [{ input: "e", out: "E1" }];
  for (const t of e) test(t.input, () => { expect(f(t.input)).toBe(t.out); expect(f(t.input + "!")).toBe(t.out); });
  const g = [{ input: "g", out: "G1" }];
  test("counts", () => expect(g.length).toBe(1));
  for (const t of g) test(t.input, () => expect(f(t.input)).toBe(t.out));
  const h = [{ input: "h", out: "H1" }];
  for (const t of h) test(log(t.input), () => expect(f(t.input)).toBe(t.out));
});
`,
      "test/x.test.ts",
      "vitest",
    );
    expect(rows(p)).toEqual([["0.0", "s counts", "1", "weak"]]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["s a", "unsealed.no-comparison"],
      ["s b", "unsealed.no-comparison"],
      ["s c", "unsealed.no-comparison"],
      ["s d", "unsealed.no-comparison"],
      ["s e", "unsealed.no-comparison"],
      ["s ?", "unsealed.title"],
      ["s ?", "unsealed.title"],
    ]);
    for (const value of ["A1", "B1", "C1", "D1", "E1", "G1", "H1"]) expect(body(p)).toContain(`"${value}"`);
  });

  it("ufo's base.test.ts shape: titles through JSON.stringify of a string, number, boolean or null column; of an array, or mapped, not computed", () => {
    const p = plan(
      `import { describe, expect, test } from "vitest";
import { joinURL, withBase } from "../src";
describe("withBase", () => {
  const tests = [
    { base: "/foo", input: "", out: "/foo-x" },
    { base: 'a"\\t', input: 2, out: "/quoted" },
    { base: null, input: false, out: "/nothing" },
  ];
  for (const t of tests) {
    test(JSON.stringify(t.base) + " + " + JSON.stringify(t.input), () => {
      expect(withBase(t.input, t.base)).toBe(t.out);
    });
  }
});
describe("joinURL", () => {
  const tests = [{ input: ["a", "b"], out: "a/b" }];
  for (const t of tests) {
    test(JSON.stringify(t.input), () => expect(joinURL(...t.input)).toBe(t.out));
  }
  const more = [{ input: ["c"], out: "c" }];
  for (const t of more) {
    test(\`\${t.input.map((i) => JSON.stringify(i)).join(", ")}\`, () => expect(joinURL(...t.input)).toBe(t.out));
  }
});
`,
      "test/base.test.ts",
      "vitest",
    );
    expect(rows(p)).toEqual([
      ["0.0", 'withBase "/foo" + ""', "/foo-x", "strong"],
      // The row's tab is JSON's \\t in the title: no control character.
      ["0.1", 'withBase "a\\"\\t" + 2', "/quoted", "strong"],
      ["0.2", "withBase null + false", "/nothing", "strong"],
    ]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["joinURL ?", "unsealed.title"],
      ["joinURL ?", "unsealed.title"],
    ]);
  });

  it("ufo's trailing-slash.test.ts shape: an object table read by key in a for…in loop, `tests[input]` each row's column", () => {
    const p = plan(
      `import { describe, expect, test } from "vitest";
import { withTrailingSlash } from "../src";
describe("withTrailingSlash", () => {
  const tests = {
    bar: "bar/x",
    "/foo?123": "/foo/?123x",
    "\\0x": "x-zero",
  };
  for (const input in tests) {
    test(input, () => {
      expect(withTrailingSlash(input)).toBe(tests[input]);
    });
  }
});
`,
      "test/trailing-slash.test.ts",
      "vitest",
    );
    expect(rows(p)).toEqual([
      ["0.0", "withTrailingSlash bar", "bar/x", "strong"],
      ["0.1", "withTrailingSlash /foo?123", "/foo/?123x", "strong"],
    ]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["withTrailingSlash \u0000x", "unsealed.title"],
    ]);
    const text = body(p);
    expect(text).toContain(
      `    bar: ({ __oracleKey: "0.0" } as any),\n    "/foo?123": ({ __oracleKey: "0.1" } as any),\n    "\\0x": "x-zero",`,
    );
    expect(text).toContain(
      "expect(__oracleCell(tests[input], withTrailingSlash(input))).toBe(__oracleCellWant(tests[input]));",
    );
  });

  it("an object table keeps its values when its loop reads it otherwise (twice, `tests?.[input]`, a key bound again) or the block names it elsewhere; an array-index key or a computed one is no table", () => {
    const p = plan(
      `import { describe, expect, test } from "vitest";
import { f } from "../src";
describe("s", () => {
  const a = { a: "A1" };
  for (const k in a) test(k, () => { expect(f(k)).toBe(a[k]); expect(f(k + k)).toBe(a[k]); });
  const b = { b: "B1" };
  for (const k in b) test(k, () => expect(f(k)).toBe(b?.[k]));
  const c = { c: "C1" };
  for (const k in c) test(k, (k) => expect(f(k)).toBe(c[k]));
  const d = { d: "D1" };
  test("keys", () => expect(Object.keys(d)).toEqual(["d"]));
  for (const k in d) test(k, () => expect(f(k)).toBe(d[k]));
  const e = { 1: "E1" };
  for (const k in e) test(k, () => expect(f(k)).toBe(e[k]));
  const g = { ["g"]: "G1" };
  for (const k in g) test(k, () => expect(f(k)).toBe(g[k]));
});
`,
      "test/x.test.ts",
      "vitest",
    );
    expect(rows(p).map((r) => r[1])).toEqual(["s keys"]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["s a", "unsealed.no-comparison"],
      ["s b", "unsealed.no-comparison"],
      ["s c", "unsealed.no-comparison"],
      ["s ?", "unsealed.title"],
      ["s ?", "unsealed.title"],
      ["s ?", "unsealed.title"],
    ]);
    for (const value of ["A1", "B1", "C1", "D1", "E1", "G1"]) expect(body(p)).toContain(`"${value}"`);
  });
});
