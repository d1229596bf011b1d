import * as nodeAssert from "node:assert";
import * as nodeStrict from "node:assert/strict";
import { createRequire } from "node:module";
import { beforeAll, chai, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { sealPython } from "../python/seal.js";
import { seededRandom } from "../random.js";
import {
  goModule,
  goPairs,
  goTests,
  type JsFile,
  jsAssertion,
  jsModule,
  jsPairs,
  jsTests,
  type Pair,
  pythonModule,
  pythonPairs,
  pythonTests,
  TESTIFY_EQUAL,
} from "../testing/eqdiff.js";
import { runGo } from "../testing/run-go.js";
import { runNode } from "../testing/run-node.js";
import { runPytest } from "../testing/run-pytest.js";
import { judgeSeals } from "./judge.js";
import { planSeals } from "./seal-run.js";

/**
 * The host's equality against the runners' own, differentially (testing/eqdiff.ts): seeded pairs
 * of (expected literal, actual value), each one test of one comparison, run as written by the real
 * runner on the host and sealed (the runner, then the host's judge). Every sealed test whose two
 * outcomes differ is a disagreement: a false FAIL (the runner passed it, the host did not) fails a
 * correct fix; a false PASS passes a wrong one. Wide: ORACLE_EQDIFF_SEED and ORACLE_EQDIFF_COUNT.
 */
const SEED = Number(process.env.ORACLE_EQDIFF_SEED ?? 27);
const COUNT = Number(process.env.ORACLE_EQDIFF_COUNT ?? 300);
/** Each language's time: two minutes, more for a wide run (under load a pair takes up to ~0.2 s). */
const TIMEOUT = Math.max(120_000, COUNT * 300);
/** Pairs per runner invocation. */
const BATCH = 400;

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["python", "javascript", "go"]);
});

interface Disagreement {
  pair: Pair;
  runner: string;
  host: string;
  message?: string | undefined;
}

/**
 * Disagreements the oracle keeps on purpose, by class: each a correct fix it FAILs, said so in
 * docs/security.md. A JS Proxy is never plain data (its traps answer every read: the runtime does
 * not run them), even one with no traps.
 */
const KNOWN: Array<[string, (d: Disagreement) => boolean]> = [
  ["a JS Proxy (VALUE_NOT_PLAIN_DATA)", (d) => d.runner === "passed" && /new Proxy\(/.test(d.pair.actual)],
];

/** The disagreements no known class explains; the wide run's numbers on the console. */
function unexplained(
  language: string,
  ran: number,
  sealed: number,
  found: Disagreement[],
  passed: number,
): Disagreement[] {
  const known = KNOWN.map(([name, is]) => [name, found.filter(is).length] as const).filter(([, n]) => n > 0);
  const rest = found.filter((d) => !KNOWN.some(([, is]) => is(d)));
  if (process.env.ORACLE_EQDIFF_COUNT)
    console.log(
      `${language}: ${ran} pairs, ${sealed} sealed (${passed} the runner passed), ${rest.filter((d) => d.runner === "passed").length} false FAIL, ${rest.filter((d) => d.runner !== "passed").length} false PASS; known: ${known.map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`,
    );
  return rest;
}

describe("the host's equality against the runner's, differentially", () => {
  it(
    `python: pytest 7 and unittest as written vs sealed (seed ${SEED}, ${COUNT} pairs)`,
    () => {
      const random = seededRandom(SEED);
      const pairs = pythonPairs(random, COUNT);
      const found: Disagreement[] = [];
      let sealed = 0;
      let passed = 0;
      for (let start = 0; start < pairs.length; start += BATCH) {
        const batch = pairs.slice(start, start + BATCH);
        const path = "tests/test_eq.py";
        const text = pythonTests(batch);
        const calc = pythonModule(batch);
        const plan = sealPython(parsers, { path, text, index: 0 })!;
        // One pytest for both: the file as written beside the sealed one (which alone writes records).
        const written = "tests/test_written.py";
        const both = runPytest({ "calc.py": calc, [path]: plan.text, [written]: text }, [path, written]);
        const ran = { tests: both.tests.filter((t) => t.id.includes("test_written")) };
        const run = { ...both, tests: both.tests.filter((t) => !t.id.includes("test_written")) };
        expect(ran.tests.length + run.tests.length).toBe(2 * batch.length);
        const judged = judgeSeals(plan, run.records, run.tests);
        expect(judged.inconsistent).toBeNull();
        const n = (id: string) => Number(id.split("::").pop()!.replace("test_", ""));
        const real = new Map(ran.tests.map((t) => [n(t.id), t.outcome]));
        const host = new Map(judged.tests.map((t) => [n(t.id), t]));
        const sealedTests = new Set(plan.tests.map((t) => n(t.test.entry)));
        sealed += sealedTests.size;
        for (const i of sealedTests) {
          const [r, h] = [real.get(i), host.get(i)];
          expect(r !== undefined && h !== undefined, `test ${i} in both runs`).toBe(true);
          if (r === "passed") passed++;
          if ((r === "passed") !== (h?.outcome === "passed"))
            found.push({ pair: batch[i]!, runner: String(r), host: String(h?.outcome), message: h?.message });
        }
      }
      expect(unexplained("python", pairs.length, sealed, found, passed)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    `js: vitest's expect, node:assert and chai as written vs sealed (seed ${SEED}, ${COUNT} pairs)`,
    () => {
      const random = seededRandom(SEED + 1);
      const pairs = jsPairs(random, COUNT);
      const found: Disagreement[] = [];
      let sealed = 0;
      let passed = 0;
      for (let start = 0; start < pairs.length; start += BATCH) {
        const batch = pairs.slice(start, start + BATCH);
        const lib = jsModule(batch);
        // The runner's verdict, in this process: vitest's expect (its chai too), node's assert, chai.
        const module = { exports: [] as Array<() => unknown> };
        new Function("module", "exports", "require", lib)(
          module,
          module.exports,
          createRequire(import.meta.url),
        );
        const fns = module.exports;
        const real = new Map<number, string>();
        batch.forEach((pair, i) => {
          const scope = {
            expect,
            assert: pair.file === "strict" ? nodeStrict : pair.file === "chai" ? chai.assert : nodeAssert,
          };
          const chaiScope = { expect: chai.expect, assert: chai.assert };
          const { expect: e, assert: a } = pair.file === "chai" ? chaiScope : scope;
          try {
            new Function(
              "expect",
              "assert",
              "lib",
              `${jsAssertion(pair.file, pair.form, `lib[${i}]()`, pair.expected)};`,
            )(e, a, fns);
            real.set(i, "passed");
          } catch {
            real.set(i, "failed");
          }
        });
        // The sealed files, run on node (their comparisons are all the seals'), judged on the host.
        for (const file of ["vitest", "assert", "strict", "chai"] as const satisfies readonly JsFile[]) {
          const mine = batch.flatMap((p, i) => (p.file === file ? [[i, p] as const] : []));
          if (mine.length === 0) continue;
          const path = `test/${file}.test.js`;
          const plan = planSeals(parsers, [{ path, text: jsTests(file, mine) }], {
            framework: file === "vitest" ? "vitest" : "mocha",
          });
          const run = runNode(
            {
              "src/lib.js": lib,
              [path]: plan.files[0]!.text,
              "node_modules/chai/index.js": "module.exports = { expect() {}, assert: {} };\n",
            },
            path,
          );
          const judged = judgeSeals(plan, run.records, run.tests);
          expect(judged.inconsistent).toBeNull();
          const n = (id: string) => Number(id.split("case ").pop());
          const host = new Map(judged.tests.map((t) => [n(t.id), t]));
          for (const { test } of plan.tests) {
            const i = n(test.entry);
            sealed++;
            const [r, h] = [real.get(i), host.get(i)];
            expect(r !== undefined && h !== undefined, `test ${i} in both runs`).toBe(true);
            if (r === "passed") passed++;
            if ((r === "passed") !== (h?.outcome === "passed"))
              found.push({
                pair: batch[i]!,
                runner: String(r),
                host: String(h?.outcome),
                message: h?.message,
              });
          }
        }
      }
      expect(unexplained("js", pairs.length, sealed, found, passed)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    `go: reflect.DeepEqual, testify's Equal and == as written vs sealed (seed ${SEED}, ${COUNT} pairs)`,
    () => {
      const random = seededRandom(SEED + 2);
      const pairs = goPairs(random, COUNT);
      const found: Disagreement[] = [];
      let sealed = 0;
      let passed = 0;
      for (let start = 0; start < pairs.length; start += BATCH) {
        const batch = pairs.slice(start, start + BATCH);
        const text = goTests(batch);
        const path = "calc/calc_test.go";
        const plan = planSeals(parsers, [{ path, text }]);
        const module = {
          "go.mod":
            "module example.com\n\ngo 1.16\n\nrequire github.com/stretchr/testify v1.8.0\n\nreplace github.com/stretchr/testify => ./testify\n",
          "testify/go.mod": "module github.com/stretchr/testify\n\ngo 1.16\n",
          "testify/assert/assert.go": TESTIFY_EQUAL,
          "calc/calc.go": goModule(batch),
        };
        const ran = runGo({ ...module, [path]: text }, "calc");
        const run = runGo(
          {
            ...module,
            [path]: plan.files[0]!.text,
            ...Object.fromEntries(plan.added.map((a) => [a.path, a.text])),
          },
          "calc",
        );
        expect(ran.tests.length, ran.output.slice(0, 2000)).toBe(batch.length);
        expect(run.tests.length, run.output.slice(0, 2000)).toBe(batch.length);
        const judged = judgeSeals(plan, run.records, run.tests);
        expect(judged.inconsistent).toBeNull();
        // A report's id ends `::TestN`; a plan's entry is `TestN`.
        const n = (id: string) => Number(/Test(\d+)$/.exec(id)?.[1]);
        const real = new Map(ran.tests.map((t) => [n(t.id), t.outcome]));
        const host = new Map(judged.tests.map((t) => [n(t.id), t]));
        for (const { test } of plan.tests) {
          const i = n(test.entry);
          sealed++;
          const [r, h] = [real.get(i), host.get(i)];
          expect(r !== undefined && h !== undefined, `test ${i} in both runs`).toBe(true);
          if (r === "passed") passed++;
          if ((r === "passed") !== (h?.outcome === "passed"))
            found.push({ pair: batch[i]!, runner: String(r), host: String(h?.outcome), message: h?.message });
        }
      }
      expect(unexplained("go", pairs.length, sealed, found, passed)).toEqual([]);
    },
    TIMEOUT,
  );
});
