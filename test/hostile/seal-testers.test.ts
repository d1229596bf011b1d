// jest's expect.addEqualityTesters changes what toEqual means: a tester registered in a setup file
// compares amounts to the cent. Found by an attack review (session 23, finding 10) on a task the sweep
// had judged healthy: a correct total that is not rounded (0.30000000000000004) FAILed on the host's
// exact comparison while jest passes it; the seal is now left to the runner, so it must PASS (and
// a total that drops a price still FAILs, by jest's own comparison). expect.extend redefining toBe
// in a setup file is the same shape (the review's suggested twin): a count returned as text must PASS.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});
const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";
const JEST = `JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false --coverage=false`;
const REPORTERS = "--reporters=default --reporters=jest-junit";

const cart = (body: string) => `/** The total of the prices, in euros. */
function total(prices) {
  return ${body};
}
module.exports = { total };
`;

const TASK = {
  $schema: "../../packages/spec/task.schema.json",
  image: "node-jest",
  suites: {
    existing: { command: `${LINK} ${JEST} test/unit ${REPORTERS}`, files: ["test/**", "package.json"] },
    hidden: { command: "" },
  },
  diff: { allow: ["**"], deny: ["test/**"] },
  timeoutSeconds: 120,
};

const SHAPE: Shape = {
  id: "seal-testers-jest",
  title: "jest toEqual under an equality tester registered in a setup file",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "cart", version: "0.1.0", private: true, jest: { setupFilesAfterEnv: ["<rootDir>/test/setup.js"] } }, null, 2)}\n`,
      "src/cart.js": cart("prices.slice(1).reduce((sum, p) => sum + p, 0)"),
      "test/setup.js":
        '// Amounts are compared to the cent.\nexpect.addEqualityTesters([\n  (a, b) => (typeof a === "number" && typeof b === "number" ? Math.abs(a - b) < 0.005 : undefined),\n]);\n',
      "test/unit/basic.test.js":
        'const { total } = require("../../src/cart");\n\ntest("no prices", () => {\n  expect(total([])).toEqual(0);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/cart.test.js":
        'const { total } = require("../../src/cart");\n\ntest("every price counts", () => {\n  expect(total([0.1, 0.2])).toEqual(0.3);\n});\n',
    },
    task: {
      ...TASK,
      description: "seal-testers: the first price is dropped",
    },
  },
  hidden: `${LINK} ${JEST} test/regression ${REPORTERS}`,
  gold: { "src/cart.js": cart("Math.round(prices.reduce((sum, p) => sum + p, 0) * 100) / 100") },
  tamper: none,
  skip: none,
};

const count = (body: string) => `/** How many comma-separated items the text holds. */
function count(text) {
  return ${body};
}
module.exports = { count };
`;

/** The same shape for a matcher a setup file redefines: toBe compares the values' texts. */
const EXTEND_SHAPE: Shape = {
  id: "seal-extend-jest",
  title: "jest toBe redefined through expect.extend in a setup file",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "count", version: "0.1.0", private: true, jest: { setupFilesAfterEnv: ["<rootDir>/test/setup.js"] } }, null, 2)}\n`,
      "src/count.js": count('text.split(",").length - 1'),
      "test/setup.js":
        '// Counts may come back as text.\nexpect.extend({\n  toBe(received, expected) {\n    const pass = String(received) === String(expected);\n    return { pass, message: () => String(received) + " is not " + String(expected) };\n  },\n});\n',
      "test/unit/basic.test.js":
        'test("the package", () => {\n  expect(require("../../package.json").name).toBe("count");\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/count.test.js":
        'const { count } = require("../../src/count");\n\ntest("counts every item", () => {\n  expect(count("a,b")).toBe(2);\n});\n',
    },
    task: {
      ...TASK,
      description: "seal-extend: the count is one short",
    },
  },
  hidden: `${LINK} ${JEST} test/regression ${REPORTERS}`,
  gold: { "src/count.js": count('text.split(",").length') },
  tamper: none,
  skip: none,
};

const file = (body: string) => () => ({ "src/cart.js": cart(body) });

const c = conformanceHooks([SHAPE, EXTEND_SHAPE]);

describe.concurrent("seals: jest's equality testers change toEqual (seal-testers-jest)", () => {
  it("the gold diff and a total that is not rounded PASS; the base and a total still dropping a price FAIL", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      noround: file("prices.reduce((sum, p) => sum + p, 0)"),
      baseline: "baseline",
      drop: file("prices.slice(0, -1).reduce((sum, p) => sum + p, 0)"),
    });
    expectVerdicts(graded, { pass: ["gold", "noround"], fail: ["baseline", "drop"] });
  }, 1_200_000);
});

describe.concurrent("seals: a matcher redefined through expect.extend (seal-extend-jest)", () => {
  it("a count returned as text PASSes as jest says under the redefined toBe; the base and a wrong count FAIL", async () => {
    const text = (body: string) => () => ({ "src/count.js": count(body) });
    const graded = await gradeNamed(c, EXTEND_SHAPE, {
      gold: "gold",
      text: text('String(text.split(",").length)'),
      baseline: "baseline",
      wrong: text('text.split(",").length + 1'),
    });
    expectVerdicts(graded, { pass: ["gold", "text"], fail: ["baseline", "wrong"] });
  }, 1_200_000);
});
