// JS sealed comparisons the host judged unlike the runner, found by an attack review (session 24,
// findings 3 and 6) on tasks the sweep had judged healthy. One vitest task holds both shapes: a chai
// plugin in the hidden file overwrites `toBe` (numbers equal to the cent, chai-almost's shape) and
// `toEqual` (the value must also be frozen), and node's legacy `assert.deepEqual` compares a parsed
// pair. Before the fixes a correct total not rounded to the cent FAILed (the host's Object.is), a
// summary that is not frozen PASSed (the host's built-in toEqual), and a correct pair that also
// carries its source line under a symbol key FAILed (node's legacy deepEqual ignores symbol keys).

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { VITEST_RUN, vitestTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const cart = (
  totalBody: string,
  summaryBody: string,
  pairBody: string,
) => `/** The total of the prices, to the cent. */
export function total(prices) {
${totalBody}
}

/** How many prices and their total, frozen. */
export function summary(prices) {
${summaryBody}
}

/** A \`key = value\` line as { key, value }, both trimmed. */
export function parsePair(line) {
  const at = line.indexOf("=");
${pairBody}
}
`;

const TOTAL =
  "  let sum = 0;\n  for (let i = 0; i < prices.length; i++) sum += prices[i];\n  return Math.round(sum * 100) / 100;";
const SUMMARY = "  return Object.freeze({ count: prices.length, total: total(prices) });";
const PAIR = "  return { key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };";

const HIDDEN = `import assert from "node:assert";
import { chai, expect, test } from "vitest";
import { parsePair, summary, total } from "../../src/cart.js";

// Amounts are compared to the cent, and summaries must be frozen (chai plugins: toBe and toEqual overwritten).
chai.use((chai, utils) => {
  chai.Assertion.overwriteMethod(
    "toBe",
    (_super) =>
      function (expected, ...rest) {
        const actual = utils.flag(this, "object");
        if (typeof actual === "number" && typeof expected === "number")
          this.assert(Math.abs(actual - expected) < 0.005, "expected #{act} to be #{exp} to the cent", "", expected, actual);
        else _super.call(this, expected, ...rest);
      },
  );
  chai.Assertion.overwriteMethod(
    "toEqual",
    (_super) =>
      function (expected, ...rest) {
        this.assert(Object.isFrozen(utils.flag(this, "object")), "expected #{this} to be frozen", "");
        _super.call(this, expected, ...rest);
      },
  );
});

test("every price counts", () => {
  expect(total([0.1, 0.2, 0.3])).toBe(0.6);
});

test("the summary counts every price", () => {
  expect(summary([0.5, 0.25])).toEqual({ count: 2, total: 0.75 });
});

test("both sides are trimmed", () => {
  assert.deepEqual(parsePair("  name =  Ada "), { key: "name", value: "Ada" });
});
`;

const SHAPE: Shape = {
  id: "seal-js-atk-s24",
  title: "vitest, chai plugins overwriting toBe and toEqual, node's legacy deepEqual",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "cart", version: "0.1.0", private: true, type: "module", devDependencies: { vitest: "2.1.9" } }, null, 2)}\n`,
      "src/cart.js": cart(
        "  let sum = 0;\n  for (let i = 1; i < prices.length; i++) sum += prices[i];\n  return Math.round(sum * 100) / 100;",
        "  return Object.freeze({ count: prices.length - 1, total: total(prices) });",
        "  return { key: line.slice(0, at), value: line.slice(at + 1) };",
      ),
      "test/unit/basic.test.js":
        'import { expect, test } from "vitest";\nimport { total } from "../../src/cart.js";\n\ntest("an empty cart costs nothing", () => {\n  expect(total([])).toBe(0);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: { "test/regression/cart.test.js": HIDDEN },
    task: vitestTask("seal-js-atk-s24: the first price is dropped, pairs are not trimmed"),
  },
  hidden: `${VITEST_RUN} test/regression/cart.test.js`,
  gold: { "src/cart.js": cart(TOTAL, SUMMARY, PAIR) },
  tamper: none,
  skip: none,
};

const file = (totalBody: string, summaryBody: string, pairBody: string) => () => ({
  "src/cart.js": cart(totalBody, summaryBody, pairBody),
});

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: chai plugins and node's legacy deepEqual (seal-js-atk-s24)", () => {
  it("gold, a total not rounded and a pair branded under a symbol PASS; a summary not frozen and the base FAIL", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      noround: file("  return prices.reduce((sum, p) => sum + p, 0);", SUMMARY, PAIR),
      brand: file(
        TOTAL,
        SUMMARY,
        '  const pair = { key: line.slice(0, at).trim(), value: line.slice(at + 1).trim() };\n  pair[Symbol.for("source")] = line;\n  return pair;',
      ),
      thaw: file(TOTAL, "  return { count: prices.length, total: total(prices) };", PAIR),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "noround", "brand"], fail: ["thaw", "baseline"] });
  }, 1_200_000);
});
