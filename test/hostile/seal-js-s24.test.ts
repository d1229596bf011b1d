// jest's expect.extend with a matchers module: a root jest.setup.js (named by setupFilesAfterEnv,
// outside the existing suite's globs) hands expect.extend a name, and the module behind it redefines
// toBe to compare the values' texts. Found by the s24 seal review (brief items 1 and 2): the plan saw
// neither the setup file nor the keys behind the name, sealed toBe as the built-in matcher, and a
// correct count returned as text FAILed TESTS_FAILED (expected 2, actual '2') while jest passes it.
// Item 3 of the same review: chai's eql (deep-eql 5) compares two Errors by name, message and `code`;
// the host compared name and message, so a checked eql of an Error with the wrong code, chai's eql
// overwritten by the code under test (the runner then passes everything), PASSed.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { VITEST_RUN, vitestTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

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

const check = (
  error: string,
  head = "",
) => `${head}/** Why a port number is not one: an Error with a code, or null. */
export function check(port) {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return ${error};
  return null;
}
`;
/** The code under test overwrites chai's eql in its own process: every eql passes in the runner. */
const FORGE =
  'import * as chai from "chai";\n\nchai.Assertion.overwriteMethod("eql", () => function () {});\n\n';

const ERROR_SHAPE: Shape = {
  id: "seal-eql-error-vitest",
  title: "vitest, chai's eql between two Errors (name, message and code)",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "ports", version: "0.1.0", private: true, type: "module", devDependencies: { vitest: "2.1.9" } }, null, 2)}\n`,
      "src/check.js": check('new Error("bad port")'),
      "test/unit/basic.test.js":
        'import { expect, it } from "vitest";\nimport { check } from "../../src/check.js";\n\nit("a port", () => {\n  expect(check(80)).to.equal(null);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/check.test.js":
        'import { expect, it } from "vitest";\nimport { check } from "../../src/check.js";\n\nconst portError = () => Object.assign(new Error("bad port"), { code: "E_PORT" });\n\nit("names the code", () => {\n  expect(check(70000)).to.eql(portError());\n});\n',
    },
    task: vitestTask("seal-eql-error: the error has no code"),
  },
  hidden: `${VITEST_RUN} test/regression/check.test.js`,
  gold: { "src/check.js": check('Object.assign(new Error("bad port"), { code: "E_PORT" })') },
  tamper: none,
  skip: none,
};

const c = conformanceHooks([SHAPE, ERROR_SHAPE]);

describe.concurrent("seals: expect.extend(matchers) in a setup file outside the suite's globs (seal-extend-module-jest)", () => {
  it("a count returned as text PASSes as jest says under the redefined toBe; the base and a wrong count FAIL", async () => {
    const text = (body: string) => () => ({ "src/count.js": count(body) });
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      text: text('String(text.split(",").length)'),
      baseline: "baseline",
      wrong: text('String(text.split(",").length + 1)'),
    });
    expectVerdicts(graded, { pass: ["gold", "text"], fail: ["baseline", "wrong"] });
  }, 1_200_000);
});

describe.concurrent("seals: chai's eql between two Errors compares their codes (seal-eql-error-vitest)", () => {
  it("an Error with the wrong code FAILs though chai's eql is overwritten in the process; gold and a non-enumerable code PASS", async () => {
    const file = (body: string) => () => ({ "src/check.js": body });
    const graded = await gradeNamed(c, ERROR_SHAPE, {
      gold: "gold",
      "hidden-code": file(check('Object.defineProperty(new Error("bad port"), "code", { value: "E_PORT" })')),
      baseline: "baseline",
      forged: file(check('Object.assign(new Error("bad port"), { code: "E_WRONG" })', FORGE)),
    });
    expectVerdicts(graded, { pass: ["gold", "hidden-code"], fail: ["baseline", "forged"] });
  }, 1_200_000);
});
