// JS sealed comparisons a setup file changes, found by an attack review (session 25, findings 4 and
// 6) on tasks the sweep had judged healthy. One vitest task, whose config names two setup files
// outside the existing suite's globs: one sets chai 5's `config.deepEqual` (money compared to the
// cent, chai's documented comparator), the other makes node's `assert.equal` strict
// (`assert.equal = assert.strictEqual`, common in old mocha suites). Before the fixes a correct split
// whose last share carries float noise FAILed (the host's deep-eql), and a word count returned as
// text PASSed (the host's loose `==`, where the suite's assert is strict).

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { VITEST_RUN, vitestTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const bill = (body: string) => `/** Splits an amount between n people; the shares add up to the amount. */
export function split(amount, n) {
${body}
}
`;
const count = (body: string) => `/** The number of words in a text. */
export function count(text) {
${body}
}
`;

const SPLIT =
  "  const cents = Math.round(amount * 100);\n  const share = Math.floor(cents / n);\n  return Array.from({ length: n }, (_, i) => (i === n - 1 ? cents - share * (n - 1) : share) / 100);";
const COUNT = "  return text.split(/\\s+/).filter(Boolean).length;";

const HIDDEN = `import assert from "node:assert";
import { expect, test } from "vitest";
import { split } from "../../src/bill.js";
import { count } from "../../src/count.js";

test("shares are whole cents, the last takes the rest", () => {
  expect(split(4, 3)).to.eql([1.33, 1.33, 1.34]);
});

test("runs of spaces separate words once", () => {
  assert.equal(count("the  quick   brown fox"), 4);
});
`;

const SHAPE: Shape = {
  id: "seal-js-s25-atk",
  title: "vitest, setup files setting chai's config.deepEqual and a strict assert.equal",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "bill", version: "0.1.0", private: true, type: "module", devDependencies: { vitest: "2.1.9" } }, null, 2)}\n`,
      "vitest.config.js":
        'import { defineConfig } from "vitest/config";\n\nexport default defineConfig({\n  test: { setupFiles: ["./setup/money.js", "./setup/strict.js"] },\n});\n',
      "setup/money.js":
        'import { chai } from "vitest";\n\n// Money is compared to the cent (chai\'s documented config.deepEqual comparator).\nchai.config.deepEqual = (expected, actual) =>\n  chai.util.eql(expected, actual, {\n    comparator: (e, a) => (typeof e === "number" ? typeof a === "number" && Math.abs(a - e) < 0.005 : null),\n  });\n',
      "setup/strict.js":
        'import assert from "node:assert";\n\n// Loose equality hides type bugs: every equal is strict here.\nassert.equal = assert.strictEqual;\n',
      "src/bill.js": bill("  return Array.from({ length: n }, () => amount / n);"),
      "src/count.js": count('  return text.split(" ").length;'),
      "test/unit/basic.test.js":
        'import { expect, test } from "vitest";\nimport { split } from "../../src/bill.js";\n\ntest("one person pays everything", () => {\n  expect(split(12.5, 1)).to.eql([12.5]);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: { "test/regression/fix.test.js": HIDDEN },
    task: vitestTask("seal-js-s25-atk: shares are not whole cents, runs of spaces count as words", [
      "test/**",
      "setup/**",
      "vitest.config.js",
    ]),
  },
  hidden: `${VITEST_RUN} test/regression/fix.test.js`,
  gold: { "src/bill.js": bill(SPLIT), "src/count.js": count(COUNT) },
  tamper: none,
  skip: none,
};

const files = (splitBody: string, countBody: string) => () => ({
  "src/bill.js": bill(splitBody),
  "src/count.js": count(countBody),
});

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: setup files that change chai's eql and node's assert.equal (seal-js-s25-atk)", () => {
  it("gold and a split with float noise in its last share PASS; a count returned as text and the base FAIL", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      rest: files(
        "  const share = Math.floor((amount / n) * 100) / 100;\n  return [...Array.from({ length: n - 1 }, () => share), amount - share * (n - 1)];",
        COUNT,
      ),
      text: files(SPLIT, '  return String(text.split(" ").filter((w) => w !== "").length);'),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "rest"], fail: ["text", "baseline"] });
  }, 1_200_000);
});
