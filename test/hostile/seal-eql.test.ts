// chai's eql / deep.equal under vitest (deep-eql 5) counts the enumerable keys an object inherits
// (`for…in`); the seal runtime recorded own keys only. Found by an attack review (session 23,
// findings 2 and 3) on tasks the sweep had judged healthy: code whose unwanted key is inherited from
// the prototype it builds on PASSed while vitest fails the test (it must FAIL), and a correct fix
// that builds on a defaults prototype FAILed while vitest passes it (it must PASS).

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { VITEST_RUN, vitestTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const config = (body: string) => `export const DEFAULTS = { verbose: false, level: 3 };

/** The options a run uses: the known ones given, over the defaults; unknown ones are dropped. */
export function config(opts) {
${body}
}
`;

const configTest = (title: string, body: string) => `import { test, expect } from "vitest";
import { config } from "../../src/config.js";

test("${title}", () => {
  ${body}
});
`;

const SHAPE: Shape = {
  id: "seal-eql-vitest",
  title: "vitest, chai's eql against an object literal",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "cfg", version: "0.1.0", private: true, type: "module", devDependencies: { vitest: "2.1.9" } }, null, 2)}\n`,
      "src/config.js": config("  return { ...DEFAULTS, ...opts };"),
      "test/unit/basic.test.js": configTest(
        "no options",
        "expect(config({})).to.eql({ verbose: false, level: 3 });",
      ),
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/config.test.js": configTest(
        "drops unknown options",
        'expect(config({ verbose: true, colour: "red" })).to.eql({ verbose: true, level: 3 });',
      ),
    },
    task: vitestTask("seal-eql: unknown options are kept"),
  },
  hidden: `${VITEST_RUN} test/regression/config.test.js`,
  gold: {
    "src/config.js": config(
      "  const out = { ...DEFAULTS };\n  for (const k of Object.keys(DEFAULTS)) if (k in opts) out[k] = opts[k];\n  return out;",
    ),
  },
  tamper: none,
  skip: none,
};

const file = (body: string) => () => ({ "src/config.js": config(body) });

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: chai's eql counts inherited enumerable keys (seal-eql-vitest)", () => {
  it("the gold diff and a fix that sets the given options on Object.create(DEFAULTS) PASS; the base FAILs", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      proto: file(
        "  const out = Object.create(DEFAULTS);\n  for (const k of Object.keys(opts)) if (k in DEFAULTS) out[k] = opts[k];\n  return out;",
      ),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "proto"], fail: ["baseline"] });
  }, 1_200_000);

  it("inherited-leak: the known keys set on Object.create(opts), the unknown one still inherited -> FAIL TESTS_FAILED", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      leak: file(
        "  const out = Object.create(opts);\n  for (const [k, v] of Object.entries(DEFAULTS)) out[k] = k in opts ? opts[k] : v;\n  return out;",
      ),
    });
    expectVerdicts(graded, { pass: [], fail: ["leak"] });
  }, 1_200_000);
});
