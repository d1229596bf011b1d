// jest's expect when it is not the runner's (brief s25 sealjs2, item 2; task wrap-jest). A root
// jest.setup.js (named by setupFilesAfterEnv, outside the existing suite's globs) rebinds the global
// expect to a wrapper that reads decimal digits as the number they spell; a hidden file takes its
// expect from a helper module whose toEqual is toStrictEqual. The plan sealed both as jest's own
// matchers: a correct count returned as text ('2') FAILed TESTS_FAILED while jest passes it, and a
// parse that keeps an empty field as `b: undefined` PASSed while jest fails it (main 2fd0b0e).

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});
const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";
const JEST = `JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false --coverage=false`;
const REPORTERS = "--reporters=default --reporters=jest-junit";

const fields = (countBody: string, keepBody: string) => `/** How many words, separated by spaces. */
function count(text) {
  return ${countBody};
}

/** The key=value fields of a record, separated by semicolons; an empty field is left out. */
function parse(text) {
  const out = {};
  for (const part of text.split(";")) {
    const [key, value] = part.split("=");
    ${keepBody}
  }
  return out;
}

module.exports = { count, parse };
`;
const COUNT = 'text.split(" ").filter((word) => word !== "").length';
const KEEP = 'if (value !== undefined && value !== "") out[key] = value;';

const SHAPE: Shape = {
  id: "seal-js-alias",
  title: "jest: a setup file rebinds the global expect, a hidden file takes a helper's expect",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "fields", version: "0.1.0", private: true, jest: { setupFilesAfterEnv: ["<rootDir>/jest.setup.js"] } }, null, 2)}\n`,
      "src/fields.js": fields('text.split(" ").length', "out[key] = value;"),
      "jest.setup.js":
        '// Counts come from text fields as often as from code: a count given as decimal digits is the number it spells.\nconst builtin = expect;\nglobalThis.expect = Object.assign(\n  (actual, ...rest) => builtin(typeof actual === "string" && /^\\d+$/.test(actual) ? Number(actual) : actual, ...rest),\n  builtin,\n);\n',
      "test/support/strict.js":
        'const { expect: jestExpect } = require("@jest/globals");\n\n// Records are compared strictly: a key holding undefined is a key.\nfunction expect(actual) {\n  const matchers = jestExpect(actual);\n  return Object.assign(Object.create(matchers), { toEqual: (expected) => matchers.toStrictEqual(expected) });\n}\n\nmodule.exports = { expect };\n',
      "test/unit/basic.test.js":
        'const { count } = require("../../src/fields");\n\ntest("one word", () => {\n  expect(count("word")).toBe(1);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/count.test.js":
        'const { count } = require("../../src/fields");\n\ntest("a run of spaces separates two words", () => {\n  expect(count("two  words")).toBe(2);\n});\n',
      "test/regression/parse.test.js":
        'const { parse } = require("../../src/fields");\nconst { expect } = require("../support/strict");\n\ntest("an empty field is left out", () => {\n  expect(parse("a=1;b=")).toEqual({ a: "1" });\n});\n',
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      image: "node-jest",
      description: "seal-js-alias: runs of spaces, empty fields",
      suites: {
        // jest.setup.js is not one of the existing suite's files.
        existing: {
          command: `${LINK} ${JEST} test/unit ${REPORTERS}`,
          files: ["test/unit/**", "package.json"],
        },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**"] },
      timeoutSeconds: 300,
    },
  },
  hidden: `${LINK} ${JEST} test/regression ${REPORTERS}`,
  gold: { "src/fields.js": fields(COUNT, KEEP) },
  tamper: none,
  skip: none,
};

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: an expect that is not jest's own (seal-js-alias)", () => {
  it("gold and a count returned as text PASS (jest passes both); a parse keeping b: undefined and the base FAIL", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      "count-text": () => ({ "src/fields.js": fields(`String(${COUNT})`, KEEP) }),
      "parse-undef": () => ({
        "src/fields.js": fields(COUNT, 'out[key] = value === "" ? undefined : value;'),
      }),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "count-text"], fail: ["parse-undef", "baseline"] });
  }, 1_200_000);
});
