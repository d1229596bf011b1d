import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { judgeSeals } from "../seal/judge.js";
import { planSeals } from "../seal/seal-run.js";
import { runNode } from "../testing/run-node.js";

/** The JS runtime on node, end to end: a sealed file runs, its records are judged. */
let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["javascript"]);
});

const CJS_TEST = `const { slugify, ranges, pick } = require("../src/lib");

describe("lib", () => {
  it("slugs", () => {
    expect(slugify("hello   world")).toBe("hello-world");
  });
  it("ranges", () => {
    expect(ranges()).toEqual([[1, 5]]);
    expect(pick()).toEqual(ranges());
  });
});
`;
const ESM_TEST = CJS_TEST.replace(
  'const { slugify, ranges, pick } = require("../src/lib");',
  'import { slugify, ranges, pick } from "../src/lib.mjs";',
);
const CORRECT = `exports.slugify = (s) => s.trim().split(/\\s+/).join("-");\nexports.ranges = () => [[1, 5]];\nexports.pick = () => [[1, 5]];\n`;
const WRONG = CORRECT.replace('join("-")', 'join("--")');

function grade(lib: string, esm = false) {
  const testFile = esm ? "test/lib.test.mjs" : "test/lib.test.js";
  const plan = planSeals(parsers, [{ path: testFile, text: esm ? ESM_TEST : CJS_TEST }]);
  const libFile = esm ? "src/lib.mjs" : "src/lib.js";
  const libText = esm ? lib.replace(/exports\.(\w+) =/g, "export const $1 =") : lib;
  const run = runNode({ [libFile]: libText, [testFile]: plan.files[0]!.text }, testFile);
  return { run, judged: judgeSeals(plan, run.records, run.tests) };
}

describe("the JS seal runtime on node", () => {
  for (const esm of [false, true])
    describe(esm ? "ES module" : "CommonJS", () => {
      it("a correct fix: every seal matched", () => {
        const { judged } = grade(CORRECT, esm);
        expect(judged.inconsistent).toBeNull();
        expect(Object.values(judged.sites)).toEqual(["matched", "matched", "matched"]);
        expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
      });

      it("a wrong value: the runner passed it, the seal failed it with both values", () => {
        const { run, judged } = grade(WRONG, esm);
        expect(run.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
        expect(judged.tests[0]!.outcome).toBe("failed");
        expect(judged.tests[0]!.message).toBe(
          `${esm ? "test/lib.test.mjs" : "test/lib.test.js"}:5: expect(slugify("hello   world")).toBe("hello-world");\n  expected: 'hello-world'\n  actual:   'hello--world'`,
        );
      });
    });

  it("a suite that clears process.env and a test that replaces fs's functions lose no record: both are taken at load", () => {
    const text = CJS_TEST.replace(
      'describe("lib", () => {\n',
      'const fs = require("fs");\ndescribe("lib", () => {\n  process.env = {};\n  fs.openSync = () => { throw new Error("mocked"); };\n  fs.writeSync = () => 0;\n',
    ).replace("const { slugify", '"use strict";\nconst { slugify');
    const testFile = "test/lib.test.js";
    const plan = planSeals(parsers, [{ path: testFile, text }]);
    expect(plan.files[0]!.text).toMatch(/^"use strict";\n__oracleInit\(\); const \{ slugify/);
    const run = runNode({ "src/lib.js": WRONG, [testFile]: plan.files[0]!.text }, testFile);
    const judged = judgeSeals(plan, run.records, run.tests);
    expect(judged.inconsistent).toBeNull();
    expect(judged.sites).toEqual({ "0.0": "mismatch", "0.1": "matched", "0.2": "matched" });
  });

  it("an array constant the code is given (expect(dedupe(UNIQUE)).toEqual(UNIQUE)) is not sealed against its literal: a dedupe that empties its argument fails, as the runner says", () => {
    const text = `const { dedupe } = require("../src/lib");

const UNIQUE = ["pear", "fig", "kiwi"];
const WANT = ["a", "b"];

test("dedupe keeps unique items", () => {
  expect(dedupe(UNIQUE)).toEqual(UNIQUE);
});

test("dedupe drops repeats", () => {
  expect(dedupe(["a", "b", "a"])).toEqual(WANT);
});
`;
    const testFile = "test/lib.test.js";
    const plan = planSeals(parsers, [{ path: testFile, text }]);
    // UNIQUE is read by the code too: both sides recorded; WANT only by the seal: sealed against it.
    expect(plan.sites.map((s) => s.strength)).toEqual(["checked", "exposed"]);
    const run = (dedupe: string) => {
      const r = runNode(
        { "src/lib.js": `exports.dedupe = ${dedupe};\n`, [testFile]: plan.files[0]!.text },
        testFile,
      );
      return { run: r, judged: judgeSeals(plan, r.records, r.tests) };
    };
    const right = run("(xs) => [...new Set(xs)]");
    expect(right.judged.inconsistent).toBeNull();
    expect(right.judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
    // The right items, argument emptied: the runner compares with the emptied UNIQUE.
    const splice = run(
      "(xs) => { const out = []; while (xs.length > 0) { const x = xs.shift(); if (!out.includes(x)) out.push(x); } return out; }",
    );
    expect(splice.run.tests.map((t) => t.outcome)).toEqual(["failed", "passed"]);
    expect(splice.judged.tests.map((t) => t.outcome)).toEqual(["failed", "passed"]);
  });

  it("values equal to anything: an array carrying asymmetricMatch, a Proxy", () => {
    const matcher = `${WRONG}\nconst anything = [[0]]; Object.defineProperty(anything, "asymmetricMatch", { value: () => true });\nexports.ranges = () => anything;\nexports.pick = () => anything;\n`;
    const judged = grade(matcher).judged;
    expect(judged.sites).toMatchObject({ "0.1": "not-plain", "0.2": "not-plain" });
    expect(judged.tests[1]!.message).toMatch(/not plain data .*asymmetricMatch/);
    const proxy = `${WRONG}\nexports.ranges = () => new Proxy([[1, 5]], {});\nexports.pick = exports.ranges;\n`;
    expect(grade(proxy).judged.tests[1]!.message).toMatch(/not plain data .*Proxy/);
  });

  it("valueOf, toJSON and Symbol.toPrimitive change nothing: the value is read as data", () => {
    const tricks = `${WRONG}\nexports.slugify = () => ({ valueOf: () => "hello-world", toJSON: () => "hello-world", [Symbol.toPrimitive]: () => "hello-world", toString: () => "hello-world" });\n`;
    const { judged } = grade(tricks);
    expect(judged.tests[0]!.outcome).toBe("failed");
    expect(judged.tests[0]!.message).toMatch(
      /expected: 'hello-world'\n {2}actual: {3}\{ valueOf: \[Function: valueOf\]/,
    );
  });
});
