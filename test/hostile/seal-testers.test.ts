// jest's expect.addEqualityTesters changes what toEqual means: a tester registered in a setup file
// compares amounts to the cent. Found by an attack review (session 23, finding 10) on a task the sweep
// had judged healthy: a correct total that is not rounded (0.30000000000000004) FAILed on the host's
// exact comparison while jest passes it; the seal is now left to the runner, so it must PASS (and
// a total that drops a price still FAILs, by jest's own comparison).

import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Conformance, goldDiff, grade, makeConformance, type Shape } from "../conformance/shapes.js";
import type { Graded } from "./harness.js";

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
      $schema: "../../packages/spec/task.schema.json",
      description: "seal-testers: the first price is dropped",
      image: "node-jest",
      suites: {
        existing: { command: `${LINK} ${JEST} test/unit ${REPORTERS}`, files: ["test/**", "package.json"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**"] },
      timeoutSeconds: 120,
    },
  },
  hidden: `${LINK} ${JEST} test/regression ${REPORTERS}`,
  gold: { "src/cart.js": cart("Math.round(prices.reduce((sum, p) => sum + p, 0) * 100) / 100") },
  tamper: none,
  skip: none,
};

const file = (body: string) => () => ({ "src/cart.js": cart(body) });

let c: Conformance;

beforeAll(async () => {
  await requireDocker();
  c = await makeConformance([SHAPE]);
}, 1_600_000);

afterAll(async () => {
  await c?.cleanup();
});

const why = (g: Graded): string =>
  `${g.result.reason}: ${g.result.message}\n${g.stderr.split("\n").slice(-25).join("\n")}`;
const outcome = (g: Graded) => ({ verdict: g.result.verdict, reason: g.result.reason });

describe.concurrent("seals: jest's equality testers change toEqual (seal-testers-jest)", () => {
  it("the gold diff and a total that is not rounded PASS; the base and a total still dropping a price FAIL", async () => {
    const [gold, noround, base, drop] = await Promise.all([
      grade(c, SHAPE, "gold", goldDiff(c, SHAPE)),
      grade(c, SHAPE, "noround", file("prices.reduce((sum, p) => sum + p, 0)")),
      grade(c, SHAPE, "baseline"),
      grade(c, SHAPE, "drop", file("prices.slice(0, -1).reduce((sum, p) => sum + p, 0)")),
    ]);
    console.info(`noround: ${noround.result.verdict} ${noround.result.reason}`);
    for (const g of [gold, noround]) expect(outcome(g), why(g)).toEqual({ verdict: "PASS", reason: "PASS" });
    for (const g of [base, drop])
      expect(outcome(g), why(g)).toEqual({ verdict: "FAIL", reason: "TESTS_FAILED" });
  }, 1_200_000);
});
