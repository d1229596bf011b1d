import { describe, expect, it } from "vitest";
import { type Random, seededRandom } from "../random.js";
import type { Canon } from "./canon.js";
import { holds, render } from "./equality.js";
import { judgeSeals } from "./judge.js";
import { COMPARISONS, type ComparisonKind } from "./kinds.js";
import type { SealSite } from "./plan.js";
import { type Form, type SealLanguage, VOCABULARY, vocabularyProblem } from "./vocabulary.js";

/** One sealed site of a language's comparison, its expected value on the host. */
function planOf(kind: ComparisonKind, expected: Canon | undefined) {
  const test = { file: "t", entry: "t::test_one" };
  const site: SealSite = {
    key: "0.0",
    test,
    line: 3,
    kind,
    ...(expected ? { expected } : {}),
    source: "assert f() == 11",
    strength: "strong",
  };
  return { sites: [site], tests: [{ test, keys: ["0.0"] }] };
}
const passed = [{ id: "hidden:t::test_one", outcome: "passed" as const }];
const line = (v: unknown, side = 0) => `${JSON.stringify({ k: "0.0", s: side, v })}\n`;

// A forger writes a record the runtime never writes: a node missing its field, a tag of the host's
// literals, text where the runtime writes a number. Before vocabulary.ts the first ones made the
// host's equality throw (the grade ended INTERNAL, no verdict) and the others were read as values.
const FORGED: Array<{ kind: ComparisonKind; expected: Canon; value: unknown }> = [
  { kind: "py.eq", expected: { t: "int", v: "11" }, value: { t: "int" } },
  { kind: "py.eq", expected: { t: "int", v: "11" }, value: { t: "int", v: "11" } },
  { kind: "py.eq", expected: { t: "float", d: "1.5" }, value: { t: "float", x: "0x1.8p+999999999" } },
  { kind: "py.eq", expected: { t: "str", v: "a" }, value: { t: "str", v: "a", cp: [97] } },
  { kind: "py.approx", expected: { t: "float", d: "1.5" }, value: { t: "decimal", v: "1E+999999999" } },
  { kind: "py.eq", expected: { t: "list", v: [] }, value: { t: "list", v: [{ t: "int", x: 1 }] } },
  { kind: "js.toEqual", expected: { t: "num", v: "11" }, value: { t: "num" } },
  { kind: "js.strict", expected: { t: "num", v: "11" }, value: { t: "num", v: "11.0" } },
  {
    kind: "js.toEqual",
    expected: { t: "arr", proto: "Array", v: [], props: [], syms: [] },
    value: { t: "arr", v: [] },
  },
  { kind: "go.eq", expected: { t: "const", c: "int", v: "11" }, value: { t: "const", c: "int", v: "11" } },
  { kind: "go.eq", expected: { t: "const", c: "int", v: "11" }, value: { t: "int", ty: "int", k: "int" } },
  {
    kind: "go.deepEqual",
    expected: { t: "const", c: "int", v: "11" },
    value: { t: "slice", ty: "[]int", v: [] },
  },
];

describe("seal records: only what the runtime writes is read", () => {
  for (const forged of FORGED)
    it(`${forged.kind} ${JSON.stringify(forged.value).slice(0, 60)}: SEAL_RECORDS_INCONSISTENT, naming the test`, () => {
      const plan = planOf(forged.kind, forged.expected);
      const judged = judgeSeals(plan, line(forged.value), passed);
      expect(judged.inconsistent).toMatch(
        /^seal record 1 \(0\.0\) is not a value the seal runtime writes: value/,
      );
      expect(judged.inconsistentTest).toBe("t::test_one");
    });

  it("a checked comparison's expected side is read under the same vocabulary", () => {
    const plan = planOf("py.eq", undefined);
    plan.sites[0]!.strength = "checked";
    const judged = judgeSeals(plan, line({ t: "int", x: "0xb" }) + line({ t: "int" }, 1), passed);
    expect(judged.inconsistent).toMatch(/value: a "int" without "x"/);
  });

  it("a record of the vocabulary is judged as before", () => {
    const plan = planOf("py.eq", { t: "int", v: "11" });
    expect(judgeSeals(plan, line({ t: "int", x: "0xb" }), passed).inconsistent).toBeNull();
    expect(judgeSeals(plan, line({ t: "int", x: "0xc" }), passed).tests[0]!.outcome).toBe("failed");
  });
});

/** A tree drawn from a language's vocabulary: every tag, every field it needs, some it may carry. */
function draw(language: SealLanguage, random: Random, depth = 0, item = false): Canon {
  const { tags, common } = VOCABULARY[language];
  const names = Object.keys(tags);
  const leafy = depth >= 3;
  const pick = <T>(xs: readonly T[]): T => xs[random.int(0, xs.length)]!;
  const allowed = names.filter(
    (n) => (item || !tags[n]!.itemOnly) && !(leafy && Object.values(tags[n]!.need ?? {}).some(nested)),
  );
  const tag = pick(allowed);
  const form = tags[tag]!;
  const node: Canon = { t: tag };
  for (const [name, f] of Object.entries(form.need ?? {})) node[name] = value(f);
  for (const [name, f] of Object.entries(form.may ?? {}))
    if (random.int(0, 2) === 0 && !(leafy && nested(f))) node[name] = value(f);
  if (form.oneOf && !form.oneOf.some((n) => n in node))
    node[form.oneOf[0]] = value(form.may![form.oneOf[0]]!);
  if (form.oneOf?.every((n) => n in node)) delete node[form.oneOf[1]];
  for (const name of form.unlessNil ?? []) {
    if (node.nil === true) delete node[name];
    else if (!(name in node)) node[name] = value(form.may![name]!);
  }
  for (const [name, f] of Object.entries(common)) if (random.int(0, 4) === 0) node[name] = value(f);
  return node;

  function nested(f: Form): boolean {
    return [
      "node",
      "nodes",
      "items",
      "nodesOrUnknown",
      "pairs",
      "named",
      "namedOrUnknown",
      "symbols",
    ].includes(f.k);
  }
  function items<T>(make: () => T): T[] {
    return Array.from({ length: random.int(0, 4) }, make);
  }
  function value(f: Form): unknown {
    const sub = () => draw(language, random, depth + 1);
    switch (f.k) {
      case "text":
        return pick(f.samples);
      case "bool":
        return random.int(0, 2) === 1;
      case "count":
        return random.int(0, 5);
      case "counts":
        return items(() => random.int(0, 4));
      case "scalar":
        return pick([0, 3, "x", true, null]);
      case "node":
        return sub();
      case "nodes":
        return items(sub);
      case "items":
        return items(() => draw(language, random, depth + 1, true));
      case "nodesOrUnknown":
        return random.int(0, 3) === 0 ? "?" : items(sub);
      case "pairs":
        return items(() => [sub(), sub()]);
      case "named":
        return items(() => [pick(["a", "b", "x"]), sub()]);
      case "namedOrUnknown":
        return random.int(0, 3) === 0 ? "?" : items(() => [pick(["a", "b", "x"]), sub()]);
      case "symbols":
        return items(() => [pick(["s", ""]), random.int(0, 3), sub()]);
    }
  }
}

/** Expected values as the host's literal readers write them (python/js/go literal.ts), for sealed comparisons. */
const LITERALS: Record<SealLanguage, Canon[]> = {
  python: [
    { t: "int", v: "11" },
    { t: "float", d: "1.5" },
    { t: "complex", re: "0", im: "2" },
    { t: "str", v: "a" },
    { t: "bytes", v: "61" },
    { t: "none" },
    { t: "bool", v: true },
    { t: "list", v: [{ t: "int", v: "1" }] },
    { t: "tuple", v: [] },
    {
      t: "dict",
      v: [
        [
          { t: "str", v: "a" },
          { t: "int", v: "1" },
        ],
      ],
    },
    { t: "set", v: [{ t: "int", v: "1" }] },
  ],
  js: [
    { t: "num", v: "11" },
    { t: "num", v: "NaN" },
    { t: "bigint", v: "3" },
    { t: "str", v: "a" },
    { t: "null" },
    { t: "undefined" },
    { t: "bool", v: false },
    { t: "arr", proto: "Array", v: [{ t: "num", v: "1" }], props: [], syms: [] },
    { t: "obj", proto: "Object", tag: "[object Object]", props: [["a", { t: "num", v: "1" }]], syms: [] },
  ],
  go: [
    { t: "const", c: "int", v: "11" },
    { t: "const", c: "float", v: "1.5" },
    { t: "const", c: "string", x: "61" },
    { t: "const", c: "bool", v: true },
    { t: "const", c: "nil" },
    { t: "lit", ty: "[]int", k: "slice", v: [{ t: "const", c: "int", v: "1" }] },
  ],
};

const OPTIONS: Partial<Record<ComparisonKind, Array<Record<string, number | boolean | null>>>> = {
  "py.approx": [{}, { rel: 1e-6, abs: 1e-12, nanOk: true }],
  "py.almost": [{}, { places: 3 }, { delta: 0.5 }],
  "js.toEqual": [{}, { jest: true }, { vitest: true }],
  "js.toStrictEqual": [{}, { jest: true }, { vitest: true }],
};

describe("the host's equality and rendering are total over the vocabulary", () => {
  const COUNT = Number(process.env.ORACLE_VOCABULARY_COUNT ?? 400);
  for (const language of ["python", "js", "go"] as const) {
    it(`${language}: ${COUNT} drawn trees, every comparison against drawn and literal values, never throw`, () => {
      const random = seededRandom(Number(process.env.ORACLE_VOCABULARY_SEED ?? 29));
      const kinds = (Object.keys(COMPARISONS) as ComparisonKind[]).filter(
        (k) => COMPARISONS[k].language === language,
      );
      for (let n = 0; n < COUNT; n++) {
        const actual = draw(language, random);
        expect(vocabularyProblem(language, actual)).toBeNull();
        const others = [draw(language, random), LITERALS[language][n % LITERALS[language].length]!];
        for (const kind of kinds)
          for (const options of OPTIONS[kind] ?? [{}])
            for (const expected of others) {
              const run = () => {
                holds({ kind, options }, actual, expected);
                render(kind, actual);
              };
              expect(
                run,
                `${kind} ${JSON.stringify(options)}\n${JSON.stringify(actual)}\n${JSON.stringify(expected)}`,
              ).not.toThrow();
            }
      }
    });
  }
});
