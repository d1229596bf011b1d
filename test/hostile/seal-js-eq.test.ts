// Sealed expectations where the host's JavaScript equality did not follow the runner's, found by an
// attack review (session 22) on tasks the sweep had judged healthy. Finding 10: node's legacy
// assert.deepEqual tells an array hole from an undefined item, the host did not, so code that leaves
// holes PASSed while mocha fails the test; the attack must FAIL. Finding 21: vitest's toStrictEqual
// compares constructors, the host compared prototypes, so a correct fix returning an object made by
// Object.create(FLAGS) FAILed; it must PASS.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { VITEST_RUN, vitestTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});
const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";
const MOCHA_JUNIT = `--reporter mocha-junit-reporter --reporter-option mochaFile="$ORACLE_JUNIT"`;

const PACKAGE = `${JSON.stringify(
  {
    name: "slots",
    version: "0.1.0",
    private: true,
    type: "module",
    devDependencies: { mocha: "10.8.2", "mocha-junit-reporter": "2.2.1" },
  },
  null,
  2,
)}\n`;

const slots = (
  body: string,
) => `/** An array of n slots holding values[i] at each index i given, undefined elsewhere. */
export function slots(n, values) {
${body}
}
`;

const test = (title: string, body: string) => `import assert from "node:assert";
import { slots } from "../../src/slots.js";

describe("slots", () => {
  it("${title}", () => {
    ${body}
  });
});
`;

const SHAPE: Shape = {
  id: "seal-js-eq-mocha",
  title: "mocha, node's legacy assert.deepEqual against an array literal with undefined items",
  from: {
    repo: {
      "package.json": PACKAGE,
      "src/slots.js": slots("  return [];"),
      "test/unit/basic.test.js": test("has no slots for n = 0", "assert.deepEqual(slots(0, {}), []);"),
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/slots.test.js": test(
        "puts each value at its index",
        'assert.deepEqual(slots(3, { 1: "b" }), [undefined, "b", undefined]);',
      ),
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "seal-js-eq: slots() returns no slots",
      image: "node-mocha",
      suites: {
        existing: { command: `${LINK} node_modules/.bin/mocha ${MOCHA_JUNIT} test/unit`, files: ["test/**"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**"] },
      timeoutSeconds: 120,
    },
  },
  hidden: `${LINK} node_modules/.bin/mocha ${MOCHA_JUNIT} test/regression/slots.test.js`,
  gold: { "src/slots.js": slots("  return Array.from({ length: n }, (_, i) => values[i]);") },
  tamper: none,
  skip: none,
};

const flags = (create: string, bare: string) => `/** What every result of flags() can do. */
const FLAGS = {
  has(name) {
    return Object.prototype.hasOwnProperty.call(this, name);
  },
};

/** The --name=value flags of argv, as an object of strings (a bare --name is "true"). */
export function flags(argv) {
  const out = ${create};
  for (const arg of argv) {
    const m = /^--([^=]+)=(.*)$/.exec(arg);
    if (m) out[m[1]] = m[2];${bare}
  }
  return out;
}
`;
const BARE = '\n    else if (arg.startsWith("--")) out[arg.slice(2)] = "true";';
const flagsTest = (title: string, body: string) => `import { test, expect } from "vitest";
import { flags } from "../../src/flags.js";

test("${title}", () => {
  ${body}
});
`;

const FLAGS_SHAPE: Shape = {
  id: "seal-js-eq-vitest",
  title: "vitest toStrictEqual against an object literal",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "flags", version: "0.1.0", private: true, type: "module", devDependencies: { vitest: "2.1.9" } }, null, 2)}\n`,
      "src/flags.js": flags("{}", ""),
      "test/unit/basic.test.js": flagsTest("no flags", "expect(flags([])).toStrictEqual({});"),
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/flags.test.js": flagsTest(
        "a bare flag is true",
        'expect(flags(["--verbose", "--level=3"])).toStrictEqual({ verbose: "true", level: "3" });',
      ),
    },
    task: vitestTask("seal-js-eq: a bare --name flag is dropped"),
  },
  hidden: `${VITEST_RUN} test/regression/flags.test.js`,
  gold: { "src/flags.js": flags("{}", BARE) },
  tamper: none,
  skip: none,
};

const file = (body: string) => () => ({ "src/slots.js": slots(body) });

const c = conformanceHooks([SHAPE, FLAGS_SHAPE]);

describe.concurrent("seals: node's legacy deepEqual and array holes (seal-js-eq-mocha)", () => {
  it("the gold diff and a fix that fills its array PASS; the base FAILs", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      filled: file(
        "  const out = new Array(n).fill(undefined);\n  for (const k of Object.keys(values)) out[k] = values[k];\n  return out;",
      ),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "filled"], fail: ["baseline"] });
  }, 1_200_000);

  it("array-holes: new Array(n) set by index leaves holes, which node's deepEqual counts -> FAIL TESTS_FAILED", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      holes: file(
        "  const out = new Array(n);\n  for (const k of Object.keys(values)) out[k] = values[k];\n  return out;",
      ),
    });
    expectVerdicts(graded, { pass: [], fail: ["holes"] });
  }, 1_200_000);
});

describe.concurrent("seals: vitest's toStrictEqual compares constructors (seal-js-eq-vitest)", () => {
  it("the gold diff and a fix whose object is made by Object.create(FLAGS) PASS; the base FAILs", async () => {
    const graded = await gradeNamed(c, FLAGS_SHAPE, {
      gold: "gold",
      proto: () => ({ "src/flags.js": flags("Object.create(FLAGS)", BARE) }),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "proto"], fail: ["baseline"] });
  }, 1_200_000);
});
