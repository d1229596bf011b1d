// jest's expect.extend with a matchers module: a root jest.setup.js (named by setupFilesAfterEnv,
// outside the existing suite's globs) hands expect.extend a name, and the module behind it redefines
// toBe to compare the values' texts. Found by the s24 seal review (brief items 1 and 2): the plan saw
// neither the setup file nor the keys behind the name, sealed toBe as the built-in matcher, and a
// correct count returned as text FAILed TESTS_FAILED (expected 2, actual '2') while jest passes it.

import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Conformance, goldDiff, grade, makeConformance, type Shape } from "../conformance/shapes.js";
import type { Graded } from "./harness.js";

const none = () => ({});
const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";
const JEST = `JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false --coverage=false`;
const REPORTERS = "--reporters=default --reporters=jest-junit";

const count = (body: string) => `/** How many comma-separated items the text holds. */
function count(text) {
  return ${body};
}
module.exports = { count };
`;

const SHAPE: Shape = {
  id: "seal-extend-module-jest",
  title: "jest toBe redefined by a matchers module that a root setup file hands to expect.extend",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "count", version: "0.1.0", private: true, jest: { setupFilesAfterEnv: ["<rootDir>/jest.setup.js"] } }, null, 2)}\n`,
      "src/count.js": count('text.split(",").length - 1'),
      "jest.setup.js":
        '// Project matchers: counts may come back as text.\nconst matchers = require("./test/support/matchers");\nexpect.extend(matchers);\n',
      "test/support/matchers.js":
        'module.exports = {\n  toBe(received, expected) {\n    const pass = String(received) === String(expected);\n    return { pass, message: () => String(received) + " is not " + String(expected) };\n  },\n};\n',
      "test/unit/basic.test.js":
        'test("the package", () => {\n  expect(require("../../package.json").name).toBe("count");\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/count.test.js":
        'const { count } = require("../../src/count");\n\ntest("counts every item", () => {\n  expect(count("a,b")).toBe(2);\n});\n',
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      image: "node-jest",
      description: "seal-extend-module: the count is one short",
      suites: {
        // The setup file is not one of the existing suite's files.
        existing: { command: `${LINK} ${JEST} test/unit ${REPORTERS}`, files: ["test/**", "package.json"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**"] },
      timeoutSeconds: 120,
    },
  },
  hidden: `${LINK} ${JEST} test/regression ${REPORTERS}`,
  gold: { "src/count.js": count('text.split(",").length') },
  tamper: none,
  skip: none,
};

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

describe.concurrent("seals: expect.extend(matchers) in a setup file outside the suite's globs (seal-extend-module-jest)", () => {
  it("a count returned as text PASSes as jest says under the redefined toBe; the base and a wrong count FAIL", async () => {
    const text = (body: string) => () => ({ "src/count.js": count(body) });
    const [gold, asText, base, wrong] = await Promise.all([
      grade(c, SHAPE, "gold", goldDiff(c, SHAPE)),
      grade(c, SHAPE, "text", text('String(text.split(",").length)')),
      grade(c, SHAPE, "baseline"),
      grade(c, SHAPE, "wrong", text('String(text.split(",").length + 1)')),
    ]);
    console.info(`extend-module text: ${asText.result.verdict} ${asText.result.reason}`);
    for (const g of [gold, asText]) expect(outcome(g), why(g)).toEqual({ verdict: "PASS", reason: "PASS" });
    for (const g of [base, wrong])
      expect(outcome(g), why(g)).toEqual({ verdict: "FAIL", reason: "TESTS_FAILED" });
  }, 1_200_000);
});
