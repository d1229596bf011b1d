// A jest environment the seal plan did not see (brief s26 sealjs3, items 1 and 2). package.json's
// jest config names a repository preset (`preset: "./jest-preset.js"`), and the preset names a
// repository test environment that loosens Object.is in the tests' global object, which jest's toBe
// calls: there, a count returned as text ('2') passes `toBe(2)`. The plan read neither the preset
// nor the environment and sealed toBe as jest's own: a correct count returned as text FAILed
// TESTS_FAILED while jest passes it (main df7005e). The environment is now a setup module the
// planner cannot read (unsealed.setup-module), and the runner decides.
//
// And an assert patched through another name (brief s26 sealjs3, item 3): a mocha task whose
// .mocharc.json requires test/setup/strict.js, outside the existing suite's globs, which makes the
// one assert object strict through a global alias (`global.verify = require("assert"); verify.equal
// = verify.strictEqual`). The grep for setup files and the reader saw only names ending in assert:
// the hidden `assert.equal(count(…), 4)` was sealed as node's loose `==`, and a count returned as
// text PASSed while mocha fails it (main df7005e).

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});
const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";
const JEST = `JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false --coverage=false`;
const REPORTERS = "--reporters=default --reporters=jest-junit";

const words = (body: string) => `/** How many words, separated by spaces. */
function count(text) {
  return ${body};
}

module.exports = { count };
`;
const COUNT = 'text.split(" ").filter((word) => word !== "").length';

const SHAPE: Shape = {
  id: "seal-js-preset-env",
  title: "jest: a repository preset names an environment that loosens Object.is",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "words", version: "0.1.0", private: true, jest: { preset: "./jest-preset.js" } }, null, 2)}\n`,
      "jest-preset.js": 'module.exports = { testEnvironment: "./test/loose-env.js" };\n',
      "test/loose-env.js":
        '// Counts come from text fields as often as from code: the digits and the number they spell are the same.\nconst { TestEnvironment } = require("jest-environment-node");\n\nmodule.exports = class LooseEnvironment extends TestEnvironment {\n  constructor(config, context) {\n    super(config, context);\n    const is = this.global.Object.is;\n    this.global.Object.is = (a, b) => is(a, b) || (typeof a !== typeof b && a == b);\n  }\n};\n',
      "src/words.js": words('text.split(" ").length'),
      "test/unit/basic.test.js":
        'const { count } = require("../../src/words");\n\ntest("one word", () => {\n  expect(count("word")).toBe(1);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/count.test.js":
        'const { count } = require("../../src/words");\n\ntest("a run of spaces separates two words", () => {\n  expect(count("two  words")).toBe(2);\n});\n',
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      image: "node-jest",
      description: "seal-js-preset-env: runs of spaces",
      suites: {
        existing: {
          command: `${LINK} ${JEST} test/unit ${REPORTERS}`,
          files: ["test/unit/**", "package.json"],
        },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**", "jest-preset.js", "package.json"] },
      timeoutSeconds: 300,
    },
  },
  hidden: `${LINK} ${JEST} test/regression ${REPORTERS}`,
  gold: { "src/words.js": words(COUNT) },
  tamper: none,
  skip: none,
};

// The same environment named only in a config the commands give by `--config` (brief s27 jsfix, item
// 1): jest.ci.js is no config name the oracle looked for, so the plan sealed toBe as jest's own and a
// correct count returned as text FAILed TESTS_FAILED while jest passes it (main 9b6c13b). The config
// a command names is now read like the others (setup-modules.ts commandConfig).
const CONFIG_FLAG: Shape = {
  id: "seal-js-config-flag",
  title: "jest: an environment that loosens Object.is, named only in a config given by --config",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "words", version: "0.1.0", private: true }, null, 2)}\n`,
      "jest.ci.js": 'module.exports = { testEnvironment: "./test/loose-env.js" };\n',
      "test/loose-env.js": (SHAPE.from as { repo: Record<string, string> }).repo["test/loose-env.js"]!,
      "src/words.js": words('text.split(" ").length'),
      "test/unit/basic.test.js":
        'const { count } = require("../../src/words");\n\ntest("one word", () => {\n  expect(count("word")).toBe(1);\n});\n',
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/count.test.js":
        'const { count } = require("../../src/words");\n\ntest("a run of spaces separates two words", () => {\n  expect(count("two  words")).toBe(2);\n});\n',
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      image: "node-jest",
      description: "seal-js-config-flag: runs of spaces",
      suites: {
        existing: {
          command: `${LINK} ${JEST} --config jest.ci.js test/unit ${REPORTERS}`,
          files: ["test/unit/**"],
        },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**", "jest.ci.js", "package.json"] },
      timeoutSeconds: 300,
    },
  },
  hidden: `${LINK} ${JEST} --config jest.ci.js test/regression ${REPORTERS}`,
  gold: { "src/words.js": words(COUNT) },
  tamper: none,
  skip: none,
};

const MOCHA_JUNIT = `--reporter mocha-junit-reporter --reporter-option mochaFile="$ORACLE_JUNIT"`;
const mochaTest = (title: string, body: string) => `const assert = require("assert");
const { count } = require("../../src/words");

describe("count", () => {
  it("${title}", () => {
    ${body}
  });
});
`;

const STRICT: Shape = {
  id: "seal-js-assert-alias",
  title: "mocha: a required setup file makes assert.equal strict through a global alias",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "words", version: "0.1.0", private: true, devDependencies: { mocha: "10.8.2", "mocha-junit-reporter": "2.2.1" } }, null, 2)}\n`,
      ".mocharc.json": `${JSON.stringify({ require: ["test/setup/strict.js"] }, null, 2)}\n`,
      "test/setup/strict.js":
        '// Loose equality hides type bugs: every equal is strict here.\nglobal.verify = require("assert");\nverify.equal = verify.strictEqual;\n',
      "src/words.js": words('text.split(" ").length'),
      "test/unit/basic.test.js": mochaTest("counts a word", 'assert.ok(count("word") > 0);'),
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/count.test.js": mochaTest(
        "counts runs of spaces once",
        'assert.equal(count("the  quick   brown fox"), 4);',
      ),
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      image: "node-mocha",
      description: "seal-js-assert-alias: runs of spaces",
      suites: {
        existing: {
          command: `${LINK} node_modules/.bin/mocha ${MOCHA_JUNIT} test/unit`,
          files: ["test/unit/**"],
        },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**", ".mocharc.json", "package.json"] },
      timeoutSeconds: 120,
    },
  },
  hidden: `${LINK} node_modules/.bin/mocha ${MOCHA_JUNIT} test/regression/count.test.js`,
  gold: { "src/words.js": words(COUNT) },
  tamper: none,
  skip: none,
};

const c = conformanceHooks([SHAPE, STRICT, CONFIG_FLAG]);

describe.concurrent("seals: a jest environment from a repository preset (seal-js-preset-env)", () => {
  it("gold and a count returned as text PASS (jest passes both in that environment); a count of 3 and the base FAIL", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      "count-text": () => ({ "src/words.js": words(`String(${COUNT})`) }),
      "count-wrong": () => ({ "src/words.js": words(`${COUNT} + 1`) }),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "count-text"], fail: ["count-wrong", "baseline"] });
  }, 1_200_000);
  it("mocha, assert.equal made strict through a global alias: gold PASSes; a count returned as text and the base FAIL", async () => {
    const graded = await gradeNamed(c, STRICT, {
      gold: "gold",
      "count-text": () => ({ "src/words.js": words(`String(${COUNT})`) }),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold"], fail: ["count-text", "baseline"] });
  }, 1_200_000);
  it("jest --config jest.ci.js naming that environment: gold and a count returned as text PASS; a count of 3 FAILs", async () => {
    const graded = await gradeNamed(c, CONFIG_FLAG, {
      gold: "gold",
      "count-text": () => ({ "src/words.js": words(`String(${COUNT})`) }),
      "count-wrong": () => ({ "src/words.js": words(`${COUNT} + 1`) }),
    });
    expectVerdicts(graded, { pass: ["gold", "count-text"], fail: ["count-wrong"] });
  }, 1_200_000);
});
