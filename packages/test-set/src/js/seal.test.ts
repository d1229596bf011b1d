import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { planSeals } from "../seal/seal-run.js";
import { sealJs, setupModuleText } from "./seal.js";

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["javascript", "typescript", "tsx"]);
});

const plan = (text: string, path = "test/x.test.js", framework?: string) =>
  planSeals(parsers, [{ path, text }], framework ? { framework } : {});

describe("sealJs", () => {
  it("jest/vitest matchers: a literal leaves the file, a computed side is checked, the runtime is appended", () => {
    const p = plan(`const { slugify } = require("../src/slugify");

describe("separators", () => {
  test("collapses runs of spaces", () => {
    expect(slugify("hello   world")).toBe("hello-world");
    expect(slugify("a b")).toEqual(slugify("a  b"));
  });

  it("expression body", () => expect(slugify("x")).toStrictEqual({ a: [1, -0, 2n] }));
});
`);
    expect(p.sites.map((s) => [s.key, s.test.entry, s.kind, s.expected ?? null, s.line])).toEqual([
      ["0.0", "separators collapses runs of spaces", "js.is", { t: "str", v: "hello-world" }, 5],
      ["0.1", "separators collapses runs of spaces", "js.toEqual", null, 6],
      [
        "0.2",
        "separators expression body",
        "js.toStrictEqual",
        {
          t: "obj",
          proto: "Object",
          tag: "[object Object]",
          props: [
            [
              "a",
              {
                t: "arr",
                proto: "Array",
                v: [
                  { t: "num", v: "1" },
                  { t: "num", v: "-0" },
                  { t: "bigint", v: "2" },
                ],
                props: [],
                syms: [],
              },
            ],
          ],
          syms: [],
        },
        9,
      ],
    ]);
    const text = p.files[0]!.text;
    expect(text).toContain('    expect(__oracleSeal("0.0", slugify("hello   world"))).toBe(undefined);\n');
    expect(text).toContain(
      'expect(__oracleSide("0.1", 0, slugify("a b"))).toEqual(__oracleSide("0.1", 1, slugify("a  b")));',
    );
    expect(text).toContain(
      'it("expression body", () => expect(__oracleSeal("0.2", slugify("x"))).toBe(undefined));',
    );
    expect(text.split("// --- oracle seal runtime")[0]).not.toContain("hello-world");
    expect(text).toContain('eval("require")("fs")');
  });

  it("keeps one expect(…) matcher call per sealed expect, so expect.assertions and hasAssertions count the same", () => {
    const original = `const { f } = require("../src/f");
describe("counts", () => {
  beforeEach(() => expect.hasAssertions());
  test("three", () => {
    expect.assertions(4);
    expect(f(1)).toBe(2);
    expect(f(2)).toBeTruthy();
    expect(f(3)).to.equal(4);
    expect(f(4)).toEqual(f(5));
  });
});
`;
    const p = plan(original, "test/x.test.js", "jest");
    expect(p.sites.map((s) => s.key)).toEqual(["0.0", "0.1", "0.2", "0.3"]);
    const sealed = p.files[0]!.text.split("// --- oracle seal runtime")[0]!;
    const calls = (text: string) => text.match(/\bexpect\(/g)?.length ?? 0;
    expect(calls(sealed)).toBe(calls(original));
    expect(sealed).toContain('expect(__oracleSeal("0.0", f(1))).toBe(undefined);');
    expect(sealed).toContain('expect(__oracleTruth("0.1", f(2))).toBe(undefined);');
    expect(sealed).toContain('expect(__oracleSeal("0.2", f(3))).to.equal(undefined);');
    expect(sealed).not.toMatch(/toBe\(2\)|equal\(4\)/);
  });

  it("a module constant bound again inside the file (const, let, a parameter, catch, for…of) is no constant: both sides are recorded", () => {
    const head = 'const { f } = require("../src/f");\nconst WANT = 5;\nconst OTHER = 7;\n';
    const bodies = [
      "const WANT = f(2);\n    expect(f(1)).toBe(WANT);",
      "let WANT = f(2);\n    expect(f(1)).toBe(WANT);",
      "for (const WANT of [f(2)]) f(WANT);\n    expect(f(1)).toBe(WANT);",
      "try { f(0); } catch (WANT) { f(WANT); }\n    expect(f(1)).toBe(WANT);",
      "const g = (WANT) => WANT;\n    expect(f(1)).toBe(WANT);",
    ];
    for (const body of bodies) {
      const p = plan(`${head}test("t", () => {\n    ${body}\n    expect(f(3)).toBe(OTHER);\n});\n`);
      expect(
        p.sites.map((s) => s.expected ?? null),
        body,
      ).toEqual([null, { t: "num", v: "7" }]);
    }
    const unshadowed = plan(
      `${head}test("t", () => {\n    const x = WANT;\n    expect(f(1)).toBe(WANT);\n});\n`,
    );
    expect(unshadowed.sites.map((s) => s.expected ?? null)).toEqual([{ t: "num", v: "5" }]);
  });

  it("node:assert strict and legacy, chai expect and assert; ESM imports the runtime's modules", () => {
    const p = plan(
      `import assert from "node:assert/strict";
import * as legacy from "assert";
import { expect as chaiExpect, assert as chai } from "chai";
import { calculate } from "../../src/index.js";

describe("ops", () => {
  it("all", () => {
    assert.equal(calculate("1"), 1);
    assert.deepEqual(calculate("[]"), []);
    legacy.equal(calculate("2"), "2");
    legacy.deepEqual(calculate("o"), { a: 1 });
    assert(calculate("t"));
    chai.equal(calculate("3"), 3);
    chai.deepEqual(calculate("4"), [4]);
    chai.isTrue(calculate("5"));
  });
});
`,
      "test/ops.test.mjs",
    );
    expect(p.sites.map((s) => s.kind)).toEqual([
      "js.is",
      "js.deepStrictEqual",
      "js.nodeLoose",
      "js.deepEqual",
      "js.truth",
      "js.loose",
      "js.eql",
      "js.strict",
    ]);
    expect(p.files[0]!.text).toContain('import * as __oracleFsModule from "fs";');
  });

  it("titles that are not plain strings, tables, concurrent and failing tests, duplicate titles, and early exits are left alone", () => {
    const p = plan(
      `const { f } = require("../src/f");

describe("s", () => {
  test.each([[1, 2]])("adds %i", (a, b) => { expect(a).toBe(b); });
  test.concurrent("c", async () => { expect(1).toBe(1); });
  test.failing("f", () => { expect(1).toBe(2); });
  test(\`t \${1}\`, () => { expect(1).toBe(1); });
  test("dup", () => { expect(1).toBe(1); });
  test("dup", () => { expect(2).toBe(2); });
  test("early", () => { if (x) return; expect(1).toBe(1); });
  test("plain", () => { expect(f()).toBe(3); });
});
`,
      "test/s.test.js",
    );
    // A table of literal rows (test.each(...)(...)) is one test per row, its title formatted as the
    // runner formats it (js/table.test.ts).
    expect(p.sites.map((s) => s.test.entry)).toEqual(["s adds 1", "s plain"]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["s c", "unsealed.title"],
      ["s f", "unsealed.xfail"],
      ["s ?", "unsealed.title"],
      ["s dup", "unsealed.title"],
      ["s dup", "unsealed.title"],
      ["s early", "unsealed.early-exit"],
    ]);
  });

  it("a title holding a control character is not sealed, nor one it would give back in a report (XML reads a newline as a space)", () => {
    const p = plan(
      `const { f } = require("../src/f");

describe("s", () => {
  test("a\\fb", () => { expect(f()).toBe(1); });
  test("c\\nd", () => { expect(f()).toBe(1); });
  test("c d", () => { expect(f()).toBe(1); });
  test("e\\u0001f", () => { expect(f()).toBe(1); });
  test("ef", () => { expect(f()).toBe(1); });
  test("plain", () => { expect(f()).toBe(3); });
});
`,
      "test/s.test.js",
    );
    expect(p.sites.map((s) => s.test.entry)).toEqual(["s plain"]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["s a\fb", "unsealed.title"],
      ["s c\nd", "unsealed.title"],
      ["s c d", "unsealed.title"],
      ["s e\u0001f", "unsealed.title"],
      ["s ef", "unsealed.title"],
    ]);
  });

  it("mocha's qunit interface: suite(title); opens a suite for the tests after it (mocha reports 'serialize path')", () => {
    const p = plan(
      `var assert = require("assert");
var cookie = require("..");

test("top", function () {
  assert.equal(cookie.f(1), "1");
});

suite("serialize");

test("path", function () {
  assert.equal(cookie.serialize("foo", "bar"), "foo=bar");
});

suite("parse");

test("basic", function () {
  assert.deepEqual(cookie.parse("a=b"), { a: "b" });
});

suite(name);

test("unknown", function () {
  assert.equal(cookie.f(2), "2");
});
`,
      "test/serialize.js",
    );
    expect(p.sites.map((s) => s.test.entry)).toEqual(["top", "serialize path", "parse basic"]);
    expect(p.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([["?", "unsealed.title"]]);
  });

  it("a file whose module system cannot be told (no import, no require, not vitest) is not sealed", () => {
    const p = plan('describe("s", () => {\n  test("t", () => { expect(f()).toBe(1); });\n});\n');
    expect(p.unsealed.map((u) => u.rule)).toEqual(["unsealed.module"]);
    expect(
      plan('test("t", () => { expect(f()).toBe(1); });\n', "test/v.test.js", "vitest").sites,
    ).toHaveLength(1);
  });

  it("TypeScript: the runtime's parameters are typed, the file still parses", () => {
    const p = plan(
      `import { describe, expect, it } from "vitest";\nimport { merge } from "../src/ranges";\n\ndescribe("m", () => {\n  it("j", () => {\n    expect(merge([[1, 3], [3, 5]] as number[][])).toEqual([[1, 5]]);\n  });\n});\n`,
      "test/m.test.ts",
      "vitest",
    );
    expect(p.sites).toHaveLength(1);
    const text = p.files[0]!.text;
    expect(text).toContain("function __oracleSeal(key: any, value: any): any");
    expect(sealJs(parsers, { path: "again.ts", text, index: 9 })).not.toBeNull();
  });
  it("expect.addEqualityTesters in a hidden file or a base test file (a setup file): toEqual and toStrictEqual are not sealed (attack review s23, finding 10)", () => {
    const TESTER = `expect.addEqualityTesters([\n  (a, b) => (typeof a === "number" && typeof b === "number" ? Math.abs(a - b) < 0.005 : undefined),\n]);\n`;
    const test = (head: string) =>
      `const { total } = require("../src/cart");\n${head}\ntest("sums", () => {\n  expect(total([0.1, 0.2])).toEqual(0.3);\n  expect(total([])).toBe(0);\n});\n\ntest("strict", () => {\n  expect(total([1])).toStrictEqual(1);\n});\n`;
    const kinds = (p: ReturnType<typeof planSeals>) => ({
      sites: p.sites.map((s) => [s.test.entry, s.kind, s.afterUnsealed ?? false]),
      unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
    });
    const unsealed = {
      sites: [["sums", "js.is", true]],
      unsealed: [["strict", "unsealed.equality-testers"]],
    };
    expect(kinds(plan(test(TESTER), "test/cart.test.js", "jest"))).toEqual(unsealed);
    const setup = { path: "test/setup.js", text: TESTER };
    expect(
      kinds(
        planSeals(parsers, [{ path: "test/cart.test.js", text: test("") }], {
          framework: "jest",
          context: [setup],
        }),
      ),
    ).toEqual(unsealed);
    // No tester anywhere: every comparison is sealed.
    expect(kinds(plan(test(""), "test/cart.test.js", "jest")).sites).toEqual([
      ["sums", "js.toEqual", false],
      ["sums", "js.is", false],
      ["strict", "js.toStrictEqual", false],
    ]);
  });
  it("NaN and ±Infinity are what a guesser writes first for a number: their seals are weak (attack review s23)", () => {
    const p = plan(
      'const { f } = require("../src/f");\n\ntest("t", () => {\n  expect(f(1)).toBeNaN();\n  expect(f(2)).toBe(NaN);\n  expect(f(3)).toBe(-Infinity);\n  expect(f(4)).toEqual([Infinity]);\n  expect(f(5)).toBe(2.5);\n});\n',
    );
    expect(p.sites.map((s) => s.strength)).toEqual(["weak", "weak", "weak", "strong", "strong"]);
  });
  it("a call before a seal, whatever its name, may have failed the test: the seal after it is afterUnsealed (attack review s23, the JS side of finding 6)", () => {
    const p = plan(
      'const { normalise } = require("../src/text");\n\nfunction same(raw, want) {\n  expect(normalise(raw)).toBe(want);\n}\n\ntest("helper", () => {\n  same("a  b", "a b");\n  expect(normalise("  x  ")).toBe("x");\n});\n\ntest("loop", () => {\n  for (const [raw, want] of [["a  b", "a b"]]) same(raw, want);\n  expect(normalise("  x  ")).toBe("x");\n});\n\ntest("declaration", () => {\n  const out = normalise("  y  ");\n  expect(out).toBe("y");\n});\n',
    );
    expect(p.sites.map((s) => [s.test.entry, s.afterUnsealed ?? false])).toEqual([
      ["helper", true],
      ["loop", true],
      ["declaration", false],
    ]);
  });
  it("a binding statement that calls a helper holding a check (the file's own, or a test-support module's) may have failed the test: the seal after it is afterUnsealed", () => {
    const p = plan(
      'const { parse, format } = require("../src/codec");\nconst h = require("./support/helpers");\nimport { decoded } from "../test-utils/codec";\n\nfunction roundtrip(value) {\n  const out = parse(format(value));\n  expect(out).toEqual(value);\n  return out;\n}\nconst twice = (v) => { const w = roundtrip(v); return roundtrip(w); };\n\ntest("local helper", () => {\n  const out = roundtrip(["a", "b", "c"]);\n  expect(out.length).toBe(3);\n});\n\ntest("arrow helper, nested", () => {\n  const outs = [["a"]].map((v) => twice(v));\n  expect(outs.length).toBe(1);\n});\n\ntest("support module", () => {\n  const out = h.same(parse("a,b"));\n  expect(out).toBe(2);\n});\n\ntest("imported from test-utils", () => {\n  const out = decoded("a,b");\n  expect(out).toBe(2);\n});\n\ntest("code under test", () => {\n  const out = parse("a,b,c");\n  expect(out.length).toBe(3);\n});\n',
    );
    expect(p.sites.map((s) => [s.test.entry, s.afterUnsealed ?? false])).toEqual([
      ["local helper", true],
      ["arrow helper, nested", true],
      ["support module", true],
      ["imported from test-utils", true],
      ["code under test", false],
    ]);
  });
  it("a matcher redefined through expect.extend, in a hidden file or a base test file, is not sealed where it is used (attack review s23, finding 10's twin)", () => {
    const EXTEND =
      'expect.extend({\n  toBe(received, expected) {\n    return { pass: String(received) === String(expected), message: () => "differ" };\n  },\n  async toEqual(received, expected) {\n    return { pass: true, message: () => "" };\n  },\n});\n';
    const test = (head: string) =>
      `const { f } = require("../src/f");\n${head}\ntest("t", () => {\n  expect(f(1)).toBe(1);\n  expect(f(2)).toStrictEqual(2);\n});\n\ntest("u", () => {\n  expect(f(3)).toEqual([3]);\n});\n`;
    const kinds = (p: ReturnType<typeof planSeals>) => ({
      sites: p.sites.map((s) => [s.test.entry, s.kind, s.afterUnsealed ?? false]),
      unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
    });
    const want = {
      sites: [["t", "js.toStrictEqual", true]],
      unsealed: [["u", "unsealed.extended-matcher"]],
    };
    expect(kinds(plan(test(EXTEND), "test/f.test.js", "jest"))).toEqual(want);
    expect(
      kinds(
        planSeals(parsers, [{ path: "test/f.test.js", text: test("") }], {
          framework: "jest",
          context: [{ path: "test/setup.js", text: EXTEND }],
        }),
      ),
    ).toEqual(want);
  });
  it("expect.extend of an object the planner cannot read (a name, a spread, a call) may redefine any matcher: none of the expect chains is sealed", () => {
    const test = (head: string) =>
      `const { f } = require("../src/f");\n${head}\ntest("t", () => {\n  expect(f(1)).toBe(1);\n  assert.strictEqual(f(2), 2);\n});\n\ntest("u", () => {\n  expect(f(3)).toEqual([3]);\n  expect(f(4)).toBeNull();\n});\n`;
    const kinds = (p: ReturnType<typeof planSeals>) => ({
      sites: p.sites.map((s) => [s.test.entry, s.kind, s.afterUnsealed ?? false]),
      unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
    });
    const want = {
      sites: [["t", "js.is", true]],
      unsealed: [["u", "unsealed.extended-matcher"]],
    };
    const head = 'const assert = require("node:assert");\n';
    for (const extend of [
      // jest-extended's shape, or a project's matchers module: which names it holds is not in the text.
      'const matchers = require("./support/matchers");\nexpect.extend(matchers);\n',
      'expect.extend(require("jest-extended"));\n',
      "expect.extend({ ...matchers, toBeWithin() {} });\n",
      "expect.extend({ [name]: impl });\n",
    ]) {
      expect(kinds(plan(test(head + extend), "test/f.test.js", "jest")), extend).toEqual(want);
      // In a setup file of the base commit alike.
      expect(
        kinds(
          planSeals(parsers, [{ path: "test/f.test.js", text: test(head) }], {
            framework: "jest",
            context: [{ path: "jest.setup.js", text: extend }],
          }),
        ),
        extend,
      ).toEqual(want);
    }
    // An object literal's own keys are read: new names leave the built-in matchers sealed.
    expect(
      kinds(
        plan(
          test(`${head}expect.extend({ toBeWithin(r, a, b) { return { pass: r >= a && r <= b } } });\n`),
          "test/f.test.js",
          "jest",
        ),
      ).sites,
    ).toHaveLength(4);
  });
  it('expect.extend through an alias (`jestExpect.extend`, `const e = expect`, `expect["extend"]`) redefines matchers too (attack review s25, finding 3)', () => {
    const test = (head: string) =>
      `const { count } = require("../src/count");\n${head}\ntest("t", () => {\n  expect(count("a b")).toBe(2);\n});\n`;
    const kinds = (p: ReturnType<typeof planSeals>) => ({
      sites: p.sites.map((s) => [s.test.entry, s.kind]),
      unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
    });
    const want = { sites: [], unsealed: [["t", "unsealed.extended-matcher"]] };
    for (const extend of [
      'const { expect: jestExpect } = require("@jest/globals");\njestExpect.extend({ toBe(r, e) { return { pass: r == e, message: () => "" }; } });\n',
      'import { expect as check } from "@jest/globals";\ncheck.extend(matchers);\n',
      "const e = expect;\ne.extend({ toBe() {} });\n",
      'expect["extend"]({ toBe() {} });\n',
    ]) {
      expect(kinds(plan(test(extend), "test/f.test.js", "jest")), extend).toEqual(want);
      expect(
        kinds(
          planSeals(parsers, [{ path: "test/f.test.js", text: test("") }], {
            framework: "jest",
            context: [{ path: "jest.setup.js", text: extend }],
          }),
        ),
        extend,
      ).toEqual(want);
    }
    // `expected.extend(…)` (a schema, not expect) leaves the matchers sealed.
    expect(kinds(plan(test("const merged = expected.extend(other);\n"), "test/f.test.js", "jest"))).toEqual({
      sites: [["t", "js.is"]],
      unsealed: [],
    });
  });
  it("chai 5's config.deepEqual replaces the comparison behind eql: chai's and vitest's matchers are not sealed (attack review s25, finding 4)", () => {
    const test =
      'import { expect, test } from "vitest";\nimport { split } from "../src/split.js";\n\ntest("split", () => {\n  expect(split(4, 3)).to.eql([1.33, 1.33, 1.34]);\n});\n';
    for (const setup of [
      'import * as chai from "chai";\nchai.config.deepEqual = (a, b) => chai.util.eql(a, b, { comparator: cents });\n',
      'import { config } from "chai";\nconfig["deepEqual"] = near;\n',
    ]) {
      const p = planSeals(parsers, [{ path: "test/split.test.js", text: test }], {
        framework: "vitest",
        context: [{ path: "test/setup.js", text: setup }],
      });
      expect(p.sites, setup).toEqual([]);
      expect(
        p.unsealed.map((u) => u.rule),
        setup,
      ).toEqual(["unsealed.extended-matcher"]);
    }
  });
  it("an assignment to a member of node's or chai's assert (`assert.equal = assert.strictEqual`) leaves their comparisons unsealed (attack review s25, finding 6)", () => {
    const test = (head: string) =>
      `import assert from "node:assert";\nimport { expect } from "chai";\nimport { count } from "../src/count.js";\n${head}\ndescribe("count", () => {\n  it("a", () => {\n    assert.equal(count("the  quick"), 2);\n  });\n  it("b", () => {\n    expect(count("x")).to.equal(1);\n  });\n});\n`;
    const kinds = (p: ReturnType<typeof planSeals>) => ({
      sites: p.sites.map((s) => [s.test.entry, s.kind]),
      unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
    });
    const want = { sites: [["count b", "js.strict"]], unsealed: [["count a", "unsealed.extended-matcher"]] };
    for (const patch of [
      "assert.equal = assert.strictEqual;\n",
      'assert["deepEqual"] = assert.deepStrictEqual;\n',
      "Object.assign(assert, { equal: assert.strictEqual });\n",
      'require("assert").equal = require("assert").strictEqual;\n',
      'const a = require("node:assert");\na.equal = a.strictEqual;\n',
      'const chai = require("chai");\nchai.assert.equal = chai.assert.strictEqual;\n',
    ]) {
      expect(kinds(plan(test(patch), "test/count.test.js", "mocha")), patch).toEqual(want);
      expect(
        kinds(
          planSeals(parsers, [{ path: "test/count.test.js", text: test("") }], {
            framework: "mocha",
            context: [{ path: "test/setup.js", text: patch }],
          }),
        ),
        patch,
      ).toEqual(want);
    }
    // A comparison or a read is not an assignment.
    for (const plain of ["if (assert.equal === undefined) throw 1;\n", "const eq = assert.equal;\n"])
      expect(kinds(plan(test(plain), "test/count.test.js", "mocha")).sites, plain).toHaveLength(2);
  });
  it("node's assert patched through Reflect, sinon, jest/vitest or node:test's mock (Reflect.set(assert, \"equal\", assert.strictEqual)) leaves its comparisons unsealed (attack review s26, finding 2: task strict2-mocha, a count returned as text PASSed)", () => {
    const test = `import assert from "node:assert";\nimport { expect } from "chai";\nimport { count } from "../src/count.js";\n\ndescribe("count", () => {\n  it("a", () => {\n    assert.equal(count("the  quick"), 2);\n  });\n  it("b", () => {\n    expect(count("x")).to.equal(1);\n  });\n});\n`;
    const kinds = (p: ReturnType<typeof planSeals>) => ({
      sites: p.sites.map((s) => [s.test.entry, s.kind]),
      unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
    });
    const want = { sites: [["count b", "js.strict"]], unsealed: [["count a", "unsealed.extended-matcher"]] };
    for (const patch of [
      'const assert = require("node:assert");\nfor (const [loose, strict] of [["equal", "strictEqual"]]) Reflect.set(assert, loose, assert[strict]);\n',
      'Reflect.defineProperty(assert, "equal", { value: assert.strictEqual });\n',
      'Reflect.set(require("assert"), "equal", require("assert").strictEqual);\n',
      'Reflect.set(assert.strict, "equal", loose);\n',
      'sinon.replace(assert, "equal", assert.strictEqual);\n',
      'sandbox.stub(chai.assert, "equal").callsFake(strict);\n',
      'jest.spyOn(assert, "equal").mockImplementation(assert.strictEqual);\n',
      'vi.replaceProperty(nodeAssert, "equal", strict);\n',
      'import { mock } from "node:test";\nmock.method(assert, "equal", assert.strictEqual);\n',
    ])
      expect(
        kinds(
          planSeals(parsers, [{ path: "test/count.test.js", text: test }], {
            framework: "mocha",
            context: [{ path: "test/strict.cjs", text: patch }],
          }),
        ),
        patch,
      ).toEqual(want);
    // Reflect on another object, a spy on another object: assert's comparisons stay sealed.
    for (const plain of [
      'Reflect.set(config, "equal", 1);\n',
      'jest.spyOn(console, "log");\nconst same = Reflect.get(assert, "equal");\n',
    ])
      expect(
        kinds(
          planSeals(parsers, [{ path: "test/count.test.js", text: test }], {
            framework: "mocha",
            context: [{ path: "test/setup.cjs", text: plain }],
          }),
        ).sites,
        plain,
      ).toHaveLength(2);
  });
  it("a chai plugin (chai.use, Assertion.overwriteMethod/addMethod…) may redefine chai's and vitest's matchers: none of them is sealed, node:assert's are (attack review s24, finding 3)", () => {
    // chai-almost's shape: equal and toBe compare numbers to the cent (vitest's expect is chai's).
    const PLUGIN =
      'chai.use((chai, utils) => {\n  const near = (_super) => function (expected) { this.assert(Math.abs(utils.flag(this, "object") - expected) < 0.005, "", "", expected); };\n  chai.Assertion.overwriteMethod("equal", near);\n  chai.Assertion.overwriteMethod("toBe", near);\n});\n';
    const test = (head: string, imports = 'import { chai, expect, test } from "vitest";\n') =>
      `${imports}import { assert } from "chai";\nimport nodeAssert from "node:assert";\nimport { total } from "../src/cart.js";\n${head}\ntest("chai", () => {\n  expect(total([0.1, 0.2])).to.equal(0.3);\n  expect(total([0.2])).to.deep.equal(0.2);\n});\n\ntest("jest style", () => {\n  expect(total([0.1, 0.2, 0.3])).toBe(0.6);\n  expect(total([1])).toEqual(1);\n});\n\ntest("chai assert", () => {\n  assert.equal(total([0.1, 0.2]), 0.3);\n});\n\ntest("node", () => {\n  nodeAssert.strictEqual(total([1]), 1);\n});\n`;
    const kinds = (p: ReturnType<typeof planSeals>) => ({
      sites: p.sites.map((s) => [s.test.entry, s.kind]),
      unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
    });
    const want = {
      sites: [["node", "js.is"]],
      unsealed: [
        ["chai", "unsealed.extended-matcher"],
        ["jest style", "unsealed.extended-matcher"],
        ["chai assert", "unsealed.extended-matcher"],
      ],
    };
    const vitest = (text: string, context: Array<{ path: string; text: string }> = []) =>
      kinds(planSeals(parsers, [{ path: "test/cart.test.js", text }], { framework: "vitest", context }));
    expect(vitest(test(PLUGIN))).toEqual(want);
    // In a base test file (a setup file), by a name (`use(chaiAlmost)` from chai), or through utils.
    expect(
      vitest(test(""), [
        {
          path: "test/setup.js",
          text: 'import chaiAlmost from "chai-almost";\nimport { chai } from "vitest";\nchai.use(chaiAlmost());\n',
        },
      ]),
    ).toEqual(want);
    expect(
      vitest(
        test('import { use } from "chai";\nimport chaiAlmost from "chai-almost";\nuse(chaiAlmost(0.01));\n'),
      ),
    ).toEqual(want);
    expect(
      vitest(
        test(
          'utils.overwriteMethod(Assertion.prototype, "equal", near);\n',
          'import { expect, test } from "vitest";\n',
        ),
      ),
    ).toEqual(want);
    // No plugin: every comparison is sealed.
    expect(vitest(test("")).sites).toHaveLength(6);
    // jest's expect is not chai's: a plugin leaves its matchers sealed, chai's assert not.
    const jest = kinds(
      planSeals(
        parsers,
        [
          {
            path: "test/cart.test.js",
            text: test(PLUGIN, 'const chai = require("chai");\n').replace(
              /\n {2}expect\(total\(\[0\.2\]\)\)[^\n]*|\n {2}expect\([^\n]*to\.equal[^\n]*/g,
              "",
            ),
          },
        ],
        { framework: "jest" },
      ),
    );
    expect(jest.sites).toEqual([
      ["jest style", "js.is"],
      ["jest style", "js.toEqual"],
      ["node", "js.is"],
    ]);
    expect(jest.unsealed).toEqual([
      ["chai", "unsealed.no-comparison"],
      ["chai assert", "unsealed.extended-matcher"],
    ]);
  });
  it("an expected RegExp, Date, Map, Set, boxed value, typed array or Error is checked, never sealed: the host's rules ignore their own keys (attack review s24)", () => {
    // node 18's deepEqual/deepStrictEqual compare a RegExp's lastIndex and the own enumerable keys of
    // these objects, which js-eq.ts does not: sealing such a literal would judge it more loosely than
    // node. The container's own comparison runs on both recorded sides instead.
    const VALUES = [
      "/a/g",
      'new RegExp("a")',
      "new Date(0)",
      'new Map([["a", 1]])',
      'new Set(["a"])',
      "new Number(1)",
      'new String("a")',
      "new Uint8Array([1])",
      "Buffer.from([1])",
      'new Error("bad")',
      'new TypeError("bad")',
    ];
    const check = (head: string, calls: Array<(v: string) => string>, framework: string) => {
      const lines = VALUES.flatMap((v) => calls.map((call) => call(v)));
      const p = plan(
        `${head}const { f } = require("../src/f");\n\n${lines.map((line, i) => `test("c${i}", () => {\n  ${line}\n});\n`).join("\n")}`,
        "test/f.test.js",
        framework,
      );
      expect(p.sites.map((s) => [s.source.trim(), s.strength, s.expected ?? null])).toEqual(
        lines.map((line) => [line, "checked", null]),
      );
    };
    check(
      'const assert = require("node:assert");\n',
      [
        (v) => `assert.deepStrictEqual(f(), ${v});`,
        (v) => `assert.deepEqual(f(), ${v});`,
        (v) => `assert.deepEqual(f(), { pattern: ${v} });`,
        (v) => `assert.deepStrictEqual(f(), [${v}]);`,
        (v) => `expect(f()).toEqual(${v});`,
        (v) => `expect(f()).toStrictEqual({ v: ${v} });`,
      ],
      "jest",
    );
    check(
      'const { assert, expect } = require("chai");\n',
      [
        (v) => `expect(f()).to.eql(${v});`,
        (v) => `expect(f()).to.deep.equal([${v}]);`,
        (v) => `assert.deepEqual(f(), { v: ${v} });`,
      ],
      "mocha",
    );
  });
});

describe("a value a test's title or a comment spells is exposed, not strong (attack review s24, finding 5)", () => {
  it("jest hands the title to the code (expect.getState().currentTestName)", () => {
    const p = plan(
      'const { slugify } = require("../src/slugify");\n\ntest(\'turns "Hello   big  World" into "hello-big-world"\', () => {\n  expect(slugify("Hello   big  World")).toBe("hello-big-world");\n});\n\ntest("runs of spaces", () => {\n  // a-b, not a--b; x-y too\n  expect(slugify("A  B")).toBe("a-b");\n  expect(slugify("x  y")).toEqual(["x-y", "zz"]);\n  expect(slugify("q  r")).toEqual(["q-r", "abcd"]);\n});\n',
    );
    // "zz" is shorter than three characters: guessed anyway, it does not count; "abcd" is nowhere.
    expect(p.sites.map((s) => s.strength)).toEqual(["exposed", "exposed", "exposed", "strong"]);
  });
});

describe("what expect is (brief s25 sealjs2: aliases, rebinding, setup modules)", () => {
  const kinds = (p: ReturnType<typeof planSeals>) => ({
    sites: p.sites.map((s) => [s.test.entry, s.kind]),
    unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
  });
  const run = (text: string, framework: string, context: Array<{ path: string; text: string }> = []) =>
    kinds(planSeals(parsers, [{ path: "test/regression/x.test.js", text }], { framework, context }));
  const body = `const { count } = require("../../src/fields");
const assert = require("node:assert");

test("count", () => {
  expect(count("two  words")).toBe(2);
});

test("node", () => {
  assert.strictEqual(count("a"), 1);
});
`;

  it("an expect the file binds to another module's (a stricter helper) is not sealed: its toEqual is not the runner's (task wrap-jest, parse-undef.diff PASSed)", () => {
    const unsealed = {
      sites: [["node", "js.is"]],
      unsealed: [["count", "unsealed.expect-alias"]],
    };
    for (const binding of [
      'const { expect } = require("../../support/strict");\n',
      'import { expect } from "../helpers.js";\n',
      "const expect = makeExpect();\n",
      "function expect(value) {\n  return real(value);\n}\n",
      'const helpers = require("./helpers");\nconst expect = helpers.expect;\n',
      "let expect;\nbeforeAll(() => {\n  expect = wrap(globalThis.expect);\n});\n",
    ])
      expect(run(binding + body, "jest"), binding).toEqual(unsealed);
    // The runner's own expect, or chai's, under any of its bindings, stays sealed.
    for (const binding of [
      "",
      'const { expect } = require("@jest/globals");\n',
      'import { expect } from "@jest/globals";\n',
      'import { expect, test } from "vitest";\n',
      'const { expect: expect } = require("expect");\n',
    ])
      expect(run(binding + body, "jest").sites, binding).toEqual([
        ["count", "js.is"],
        ["node", "js.is"],
      ]);
    const chai = body.replace(".toBe(2)", ".to.equal(2)");
    for (const binding of [
      'const expect = require("chai").expect;\n',
      'const { expect } = require("chai");\n',
    ])
      expect(run(binding + chai, "jest").sites, binding).toEqual([
        ["count", "js.strict"],
        ["node", "js.is"],
      ]);
  });

  it("an alias of expect is not sealed (no wrong verdict: the runner decides it)", () => {
    for (const binding of [
      "const check = expect;\n",
      'import { expect as check } from "vitest";\n',
      'const { expect: check } = require("@jest/globals");\n',
    ])
      expect(run(binding + body.replace("expect(count", "check(count"), "jest").sites, binding).toEqual([
        ["node", "js.is"],
      ]);
  });

  it("a setup file that rebinds the global expect (globalThis.expect = wrap(expect)) leaves the global expect unsealed, an imported one sealed (task wrap-jest, count-text.diff FAILed)", () => {
    const unsealed = {
      sites: [["node", "js.is"]],
      unsealed: [["count", "unsealed.expect-alias"]],
    };
    for (const setup of [
      "const builtin = expect;\nglobalThis.expect = Object.assign((actual) => builtin(Number(actual)), builtin);\n",
      "global.expect = wrap(global.expect);\n",
      "expect = wrap(expect);\n",
      'globalThis["expect"] = wrap(expect);\n',
      'Object.defineProperty(globalThis, "expect", { value: wrap(expect) });\n',
    ])
      expect(run(body, "jest", [{ path: "support/expect.js", text: setup }]), setup).toEqual(unsealed);
    const imported = `import { expect, test } from "vitest";\n${body}`;
    expect(
      run(imported, "vitest", [{ path: "support/expect.js", text: "globalThis.expect = wrap(expect);\n" }])
        .sites,
    ).toEqual([
      ["count", "js.is"],
      ["node", "js.is"],
    ]);
    // A declaration of its own is no rebinding of the global one.
    expect(
      run(body, "jest", [{ path: "test/helpers.js", text: 'const expect = require("chai").expect;\n' }])
        .sites,
    ).toEqual([
      ["count", "js.is"],
      ["node", "js.is"],
    ]);
  });

  it("a setup file that rebinds the global expect through Reflect, defineProperties or an alias of the global object leaves the global expect unsealed (attack review s26, finding 3: task wrap2-jest, a correct count returned as text FAILed)", () => {
    const unsealed = {
      sites: [["node", "js.is"]],
      unsealed: [["count", "unsealed.expect-alias"]],
    };
    for (const setup of [
      'const jestExpect = globalThis.expect;\nReflect.set(globalThis, "expect", Object.assign(textExpect, jestExpect));\n',
      'Reflect.defineProperty(global, "expect", { value: wrap(expect) });\n',
      "Object.defineProperties(globalThis, { expect: { value: wrap(expect), writable: true } });\n",
      "Object.defineProperties(globalThis, {\n  expect: { value: wrap(expect) },\n});\n",
      "const g = globalThis;\ng.expect = wrap(g.expect);\n",
      'const root = typeof window === "undefined" ? global : window;\nroot["expect"] = wrap(root["expect"]);\n',
      "function install(target) {\n  Object.assign(target, { expect: wrap(target.expect) });\n}\ninstall(globalThis);\n",
      "const wrapped = wrap(expect);\nconst g = global;\nObject.assign(g, { expect: wrapped });\n",
    ])
      expect(run(body, "jest", [{ path: "jest.setup.js", text: setup }]), setup).toEqual(unsealed);
    // Ordinary setup files and test files naming the global object and expect stay sealed: a module
    // named "expect", expect imported or destructured, an `expect:` key of a table, expect.extend.
    for (const plain of [
      'import { expect } from "@jest/globals";\nglobal.fetch = jest.fn();\n',
      'const { expect: jestExpect } = require("@jest/globals");\nwindow.matchMedia = () => ({ matches: false });\n',
      'const expectLib = require("expect");\nglobalThis.TextEncoder = TextEncoder;\n',
      'import "@testing-library/jest-dom";\nObject.assign(global, { TextEncoder, TextDecoder });\nexpect.extend({ toBeWithin });\n',
      'const cases = [{ input: "a  b", expect: 2 }];\nwindow.scrollTo = () => {};\n',
      'Reflect.set(globalThis, "fetch", fakeFetch);\nObject.defineProperties(globalThis, { crypto: { value: webcrypto } });\n',
    ])
      expect(run(body, "jest", [{ path: "jest.setup.js", text: plain }]).sites, plain).toEqual([
        ["count", "js.is"],
        ["node", "js.is"],
      ]);
  });

  it("expect.extend through an alias (const e = expect; import { expect as e }; const { extend } = expect; expect['extend']) redefines matchers too", () => {
    const extended = {
      sites: [["node", "js.is"]],
      unsealed: [["count", "unsealed.extended-matcher"]],
    };
    for (const setup of [
      "const e = expect;\ne.extend({ toBe(received, expected) { return { pass: received == expected, message: () => '' }; } });\n",
      'import { expect as check } from "vitest";\ncheck.extend(matchers);\n',
      'const { expect: check } = require("@jest/globals");\ncheck.extend({ ...matchers });\n',
      "const { extend } = expect;\nextend({ toBe: loose });\n",
      'expect["extend"]({ toBe: loose });\n',
    ])
      expect(run(body, "jest", [{ path: "support/matchers.js", text: setup }]), setup).toEqual(extended);
  });

  it("chai's use under another name or re-exported loads a plugin too (import { use as plug } from 'chai'; export { use } from 'chai')", () => {
    const vitest = `import { expect, test } from "vitest";\n${body}`;
    const want = {
      sites: [["node", "js.is"]],
      unsealed: [["count", "unsealed.extended-matcher"]],
    };
    for (const setup of [
      'import { use as plug } from "chai";\nimport near from "near-plugin";\nplug(near);\n',
      'const { use: plug } = require("chai");\nplug(require("near-plugin"));\n',
      'export { use } from "chai";\n',
      'export * from "chai";\n',
    ])
      expect(run(vitest, "vitest", [{ path: "support/chai.js", text: setup }]), setup).toEqual(want);
  });

  it("a setup module the runner's config names from a package (jest-extended/all, @testing-library/jest-dom) leaves that runner's expect and chai unsealed, node:assert sealed", () => {
    const marker = (runner: string, entry: string) => ({
      path: `package.json: setupFilesAfterEnv ${entry}`,
      text: setupModuleText(runner, entry),
    });
    expect(run(body, "jest", [marker("jest", "jest-extended/all")])).toEqual({
      sites: [["node", "js.is"]],
      unsealed: [["count", "unsealed.setup-module"]],
    });
    const vitest = `import { expect, test } from "vitest";\n${body}`;
    expect(run(vitest, "vitest", [marker("vitest", "some-package/setup")]).sites).toEqual([
      ["node", "js.is"],
    ]);
    // Another runner's configuration does not load it.
    expect(run(vitest, "vitest", [marker("jest", "jest-extended/all")]).sites).toEqual([
      ["count", "js.is"],
      ["node", "js.is"],
    ]);
  });
});

describe("a number a test's title or a comment spells is exposed (attack review s25, finding 2)", () => {
  it("`adds 0.1 + 0.2 to equal 0.3`, a comment over a container, but not a string argument", () => {
    const p = plan(
      'const { total, parse } = require("../src/m");\n\ntest("adds 0.1 + 0.2 to equal 0.3", () => {\n  expect(total([0.1, 0.2])).toBe(0.3);\n});\n\ntest("sum", () => {\n  // 3 items at 19.99 make 59.97, 17.5 off, 0.40 tax\n  expect(total([19.99, 19.99, 19.99])).toBe(59.97);\n  expect(parse("y=2")).toEqual(["yy", 22]); // yy 22\n  expect(parse("734")).toBe(734);\n  expect(total([5, 2])).toBe(7.5);\n  expect(total([2, 2])).toBe(40);\n});\n',
    );
    // 734 is the input the code is handed; 7.5 and 40 stand nowhere as a token (7.5 is not 17.5, 40 is not 0.40).
    expect(p.sites.map((s) => s.strength)).toEqual([
      "exposed",
      "exposed",
      "exposed",
      "strong",
      "strong",
      "strong",
    ]);
  });
});
describe("aliases of expect and assert under other names (brief s26 sealjs3, item 3)", () => {
  const kinds = (p: ReturnType<typeof planSeals>) => ({
    sites: p.sites.map((s) => [s.test.entry, s.kind]),
    unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
  });
  it("a setup file extends expect through a name it assigns (globalThis.check = expect; check.extend): the matcher is not sealed", () => {
    const test =
      'const { count } = require("../src/count");\ntest("t", () => {\n  expect(count("a b")).toBe(2);\n});\n';
    for (const setup of [
      "globalThis.check = expect;\ncheck.extend({ toBe(r, e) { return { pass: r == e, message: () => '' }; } });\n",
      "let check;\ncheck = expect;\ncheck.extend({ toBe: loose });\n",
      "Object.assign(helpers, { check: expect });\nhelpers.check.extend({ toBe: loose });\n",
      "const tools = { check: expect };\ntools.check.extend({ toBe: loose });\n",
    ])
      expect(
        kinds(
          planSeals(parsers, [{ path: "test/f.test.js", text: test }], {
            framework: "jest",
            context: [{ path: "test/setup.js", text: setup }],
          }),
        ),
        setup,
      ).toEqual({ sites: [], unsealed: [["t", "unsealed.extended-matcher"]] });
  });
  it("a setup file patches assert through a name it assigns (global.t = assert; verify = require('assert')): assert comparisons are not sealed", () => {
    const test =
      'const assert = require("assert");\nconst { count } = require("../src/count");\ndescribe("count", () => {\n  it("a", () => {\n    assert.equal(count("the  quick"), 2);\n  });\n});\n';
    for (const setup of [
      'const assert = require("assert");\nglobal.t = assert;\nt.equal = t.strictEqual;\n',
      'global.verify = require("assert");\nverify.equal = verify.strictEqual;\n',
      'const { strict: verify } = require("assert");\nverify.equal = (a, b) => {};\n',
      'import * as chai from "chai";\nconst check = chai.assert;\ncheck.equal = check.strictEqual;\n',
      'const tools = { t: require("node:assert") };\ntools.t.equal = tools.t.strictEqual;\n',
    ])
      expect(
        kinds(
          planSeals(parsers, [{ path: "test/count.test.js", text: test }], {
            framework: "mocha",
            context: [{ path: "test/setup.js", text: setup }],
          }),
        ),
        setup,
      ).toEqual({ sites: [], unsealed: [["count a", "unsealed.extended-matcher"]] });
  });
});

// Spelled apart: vitest reads these words anywhere in a test file as its own docblock.
const JEST_ENV = ["@jest", "environment"].join("-");
const VITEST_ENV = ["@vitest", "environment"].join("-");

describe("a test file's own environment (brief s26 sealjs3, item 2)", () => {
  it(`a docblock naming an environment the runners do not bring (${JEST_ENV} ./env.js) leaves the file's expect unsealed; jsdom, node and happy-dom do not`, () => {
    const test = (head: string) =>
      `${head}const { count } = require("../src/count");\ntest("t", () => {\n  expect(count("a b")).toBe(2);\n});\n`;
    const kinds = (p: ReturnType<typeof planSeals>) => ({
      sites: p.sites.map((s) => [s.test.entry, s.kind]),
      unsealed: p.unsealed.map((u) => [u.test.entry, u.rule]),
    });
    for (const head of [
      `/**\n * ${JEST_ENV} ./test/loose-env.js\n */\n`,
      `/** ${JEST_ENV} jest-environment-loose */\n`,
      `// ${VITEST_ENV} ./env/custom.ts\n`,
    ])
      expect(kinds(plan(test(head), "test/f.test.js", "jest")), head).toEqual({
        sites: [],
        unsealed: [["t", "unsealed.setup-module"]],
      });
    for (const head of [
      `/**\n * ${JEST_ENV} jsdom\n */\n`,
      `/** ${JEST_ENV} jest-environment-node */\n`,
      `// ${VITEST_ENV} happy-dom\n`,
    ])
      expect(kinds(plan(test(head), "test/f.test.js", "jest")), head).toEqual({
        sites: [["t", "js.is"]],
        unsealed: [],
      });
  });
});
