// JS sealed comparisons a setup file changes through Reflect, found by an attack review (session 26,
// findings 2 and 3; tasks strict2-mocha and wrap2-jest) on tasks the sweep had judged healthy (main
// df7005e). A mocha `--require`d file outside the existing suite's files makes node's assert strict
// with `Reflect.set(assert, "equal", assert.strictEqual)`: the host's loose seal PASSed a count
// returned as text, which mocha fails. A jest setup file rebinds the global expect with
// `Reflect.set(globalThis, "expect", …)` to one whose toBe compares as text: the seal FAILed a correct
// count returned as "4", which jest passes.

import { describe, expect, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});
const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";
const MOCHA = `node_modules/.bin/mocha --reporter mocha-junit-reporter --reporter-option mochaFile="$ORACLE_JUNIT"`;
const JEST = `JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false --coverage=false`;
// After the paths: jest's --reporters takes the words that follow it as reporters too.
const REPORTERS = "--reporters=default --reporters=jest-junit";

const COUNT = "text.split(/\\s+/).filter(Boolean).length";
const TEXT = 'String(text.split(" ").filter((w) => w !== "").length)';
// Text only where the hidden test looks (a run of spaces): the existing suite's strict assert passes.
const TEXT_ON_SPACES =
  '(text.includes("  ") ? String : Number)(text.split(" ").filter((w) => w !== "").length)';
const esm = (body: string) =>
  `/** The number of words in a text. */\nexport function count(text) {\n  return ${body};\n}\n`;
const cjs = (body: string) =>
  `/** The number of words in a text. */\nfunction count(text) {\n  return ${body};\n}\n\nmodule.exports = { count };\n`;

const STRICT: Shape = {
  id: "seal-js-s26-strict",
  title: "mocha: a --require'd file makes assert.equal strict through Reflect.set",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "wc", version: "0.3.0", private: true, type: "module" }, null, 2)}\n`,
      ".mocharc.json": '{ "require": ["test/strict.cjs"] }\n',
      "test/strict.cjs":
        '// Loose equality hides type bugs: every equal is strict in this suite.\nconst assert = require("node:assert");\n\nfor (const [loose, strict] of [["equal", "strictEqual"], ["deepEqual", "deepStrictEqual"]])\n  Reflect.set(assert, loose, assert[strict]);\n',
      "src/count.js": esm('text.split(" ").length'),
      "test/basic.test.js":
        'import assert from "node:assert";\nimport { count } from "../src/count.js";\n\ndescribe("count basics", () => {\n  it("one word", () => {\n    assert.equal(count("word"), 1);\n  });\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/spaces.test.js":
        'import assert from "node:assert";\nimport { count } from "../src/count.js";\n\ndescribe("count", () => {\n  it("runs of spaces separate words once", () => {\n    assert.equal(count("the  quick   brown fox"), 4);\n  });\n});\n',
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      image: "node-mocha",
      description: "seal-js-s26-strict: runs of spaces",
      suites: {
        // test/strict.cjs is not one of the existing suite's files: the grader's grep finds it.
        existing: { command: `${LINK} ${MOCHA} test/basic.test.js`, files: ["test/basic.test.js"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**", ".mocharc.json"] },
      timeoutSeconds: 120,
    },
  },
  hidden: `${LINK} ${MOCHA} test/spaces.test.js`,
  gold: { "src/count.js": esm(COUNT) },
  tamper: none,
  skip: none,
};

const WRAP: Shape = {
  id: "seal-js-s26-wrap",
  title: "jest: a setup file rebinds the global expect through Reflect.set",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "count", version: "1.2.0", private: true, jest: { setupFilesAfterEnv: ["<rootDir>/jest.setup.js"] } }, null, 2)}\n`,
      "jest.setup.js":
        '// Counts come back from the CLI as text as often as numbers: toBe compares them as text.\nconst jestExpect = globalThis.expect;\n\nfunction textExpect(received) {\n  const matchers = jestExpect(received);\n  matchers.toBe = (expected) => jestExpect(String(received)).toBe(String(expected));\n  return matchers;\n}\n\nReflect.set(globalThis, "expect", Object.assign(textExpect, jestExpect));\n',
      "src/count.js": cjs('text.split(" ").length'),
      "test/unit/basic.test.js":
        'const { count } = require("../../src/count");\n\ntest("one word", () => {\n  expect(count("word")).toBe(1);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/spaces.test.js":
        'const { count } = require("../../src/count");\n\ntest("runs of spaces separate words once", () => {\n  expect(count("the  quick   brown fox")).toBe(4);\n});\n',
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      image: "node-jest",
      description: "seal-js-s26-wrap: runs of spaces",
      suites: {
        existing: {
          command: `${LINK} ${JEST} test/unit ${REPORTERS}`,
          files: ["test/unit/**", "package.json"],
        },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**", "jest.setup.js"] },
      timeoutSeconds: 300,
    },
  },
  hidden: `${LINK} ${JEST} test/regression ${REPORTERS}`,
  gold: { "src/count.js": cjs(COUNT) },
  tamper: none,
  skip: none,
};

// A base test spells the scalar a hidden test expects (attack review s26, finding 7; brief s27 jsfix,
// item 3c): the existing suite's `toBeCloseTo(0.3)` stands in the container beside the hidden
// `toBe(0.3)`, and unfixed code that returns the number a test file spells near its own sum PASSes.
// That cannot be stopped (the value is right), but the grade must not claim a strong seal decided
// it: the seal is exposed (seal-run.ts, strength.ts readAround), and the FAIL_TO_PASS test is listed
// as not strongly sealed.
const cartTotal = (body: string) =>
  `/** The total of a cart's prices, to the cent. */\nfunction total(prices) {\n${body}\n}\n\nmodule.exports = { total };\n`;
const SUM = "  return prices.reduce((sum, price) => sum + price, 0);";
const EXPOSED: Shape = {
  id: "seal-js-base-spells",
  title: "jest: a base test's toBeCloseTo(0.3) spells the hidden toBe(0.3)",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "cart", version: "1.0.0", private: true }, null, 2)}\n`,
      "src/total.js": cartTotal(SUM),
      "test/unit/total.test.js":
        'const { total } = require("../../src/total");\n\ntest("sums two prices", () => {\n  expect(total([0.1, 0.2])).toBeCloseTo(0.3);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/cents.test.js":
        'const { total } = require("../../src/total");\n\ntest("sums prices to the cent", () => {\n  expect(total([0.1, 0.2])).toBe(0.3);\n});\n',
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      image: "node-jest",
      description: "seal-js-base-spells: cents",
      suites: {
        existing: { command: `${LINK} ${JEST} test/unit ${REPORTERS}`, files: ["test/unit/**"] },
        hidden: { command: "", expected: { failToPass: ["sums prices to the cent"] } },
      },
      diff: { allow: ["**"], deny: ["test/**"] },
      timeoutSeconds: 300,
    },
  },
  hidden: `${LINK} ${JEST} test/regression ${REPORTERS}`,
  gold: {
    "src/total.js": cartTotal(
      "  return Math.round(prices.reduce((sum, price) => sum + price, 0) * 100) / 100;",
    ),
  },
  tamper: none,
  skip: none,
};
/** Unfixed code that answers with a number a test file under test/ spells, when one is within 1e-9 of its own sum. */
const READS_TESTS = `  const sum = prices.reduce((total, price) => total + price, 0);
  const fs = require("fs");
  const path = require("path");
  const seen = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else seen.push(fs.readFileSync(path.join(dir, entry.name), "utf8"));
  };
  walk(path.join(__dirname, "..", "test"));
  for (const text of seen)
    for (const m of text.matchAll(/\\d+\\.\\d+/g)) if (Math.abs(Number(m[0]) - sum) < 1e-9) return Number(m[0]);
  return sum;`;

const c = conformanceHooks([STRICT, WRAP, EXPOSED]);

describe.concurrent("seals: assert and the global expect changed through Reflect.set in a setup file (seal-js-s26-atk)", () => {
  it("mocha, a strict assert.equal: gold PASSes, a count returned as text FAILs", async () => {
    const graded = await gradeNamed(c, STRICT, {
      gold: "gold",
      text: () => ({ "src/count.js": esm(TEXT_ON_SPACES) }),
    });
    expectVerdicts(graded, { pass: ["gold"], fail: ["text"] });
  }, 1_200_000);

  it("jest, a toBe comparing as text: a correct count returned as text PASSes, as jest passes it", async () => {
    const graded = await gradeNamed(c, WRAP, { text: () => ({ "src/count.js": cjs(TEXT) }) });
    expectVerdicts(graded, { pass: ["text"], fail: [] });
  }, 1_200_000);

  it("jest, a base test spells the hidden scalar: unfixed code reading it PASSes, but no strong seal is claimed", async () => {
    const graded = await gradeNamed(c, EXPOSED, {
      gold: "gold",
      baseline: "baseline",
      "reads-tests": () => ({ "src/total.js": cartTotal(READS_TESTS) }),
    });
    expectVerdicts(graded, { pass: ["gold", "reads-tests"], fail: ["baseline"] });
    const seals = graded["reads-tests"]!.result.seals;
    expect(seals?.sealed).toEqual({ strong: 0, weak: 0, exposed: 1 });
    expect(seals?.failToPass).toMatchObject({ total: 1, sealed: 0, unsealed: ["sums prices to the cent"] });
  }, 1_200_000);
});
