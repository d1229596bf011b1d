// Attacks on sealed expectations where the host's JavaScript equality did not follow the runner's.
// Found by an attack review (session 22, finding 10) on a task the sweep had judged healthy: node's
// legacy assert.deepEqual tells an array hole from an undefined item, the host did not, so code that
// leaves holes PASSed while mocha fails the test. The attack must FAIL; correct fixes must PASS.

import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Conformance, goldDiff, grade, makeConformance, type Shape } from "../conformance/shapes.js";
import type { Graded } from "./harness.js";

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

const file = (body: string) => () => ({ "src/slots.js": slots(body) });

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

describe.concurrent("seals: node's legacy deepEqual and array holes (seal-js-eq-mocha)", () => {
  it("the gold diff and a fix that fills its array PASS; the base FAILs", async () => {
    const [gold, filled, base] = await Promise.all([
      grade(c, SHAPE, "gold", goldDiff(c, SHAPE)),
      grade(
        c,
        SHAPE,
        "filled",
        file(
          "  const out = new Array(n).fill(undefined);\n  for (const k of Object.keys(values)) out[k] = values[k];\n  return out;",
        ),
      ),
      grade(c, SHAPE, "baseline"),
    ]);
    for (const g of [gold, filled]) expect(outcome(g), why(g)).toEqual({ verdict: "PASS", reason: "PASS" });
    expect(outcome(base), why(base)).toEqual({ verdict: "FAIL", reason: "TESTS_FAILED" });
  }, 1_200_000);

  it("array-holes: new Array(n) set by index leaves holes, which node's deepEqual counts -> FAIL TESTS_FAILED", async () => {
    const g = await grade(
      c,
      SHAPE,
      "holes",
      file(
        "  const out = new Array(n);\n  for (const k of Object.keys(values)) out[k] = values[k];\n  return out;",
      ),
    );
    console.info(`array-holes: ${g.result.verdict} ${g.result.reason}`);
    expect(outcome(g), why(g)).toEqual({ verdict: "FAIL", reason: "TESTS_FAILED" });
  }, 1_200_000);
});
