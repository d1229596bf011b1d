import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestCase } from "@oracle/spec";
import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { judgeSeals } from "../seal/judge.js";
import { planSeals } from "../seal/seal-run.js";

/**
 * Table-declared tests (js/table.ts, rules.ts `seal.table`) under the real vitest: each row's
 * title as vitest names it is the plan's entry, each row's key reaches its seal through the row,
 * and a row the code gets wrong fails that row's test alone, on the host.
 */
let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["typescript"]);
});

const TEST = `import { camel, ms, spell } from "./lib";

type Result = { camel: string; upper: string };
const tests: [string, Result][] = [
  ["a b", { camel: "aB", upper: "A B" }],
  ["x y z", { camel: "xYZ", upper: "X Y Z" }],
];

describe("change case", () => {
  for (const [input, result] of tests) {
    it(input, () => {
      expect(camel(input)).toEqual(result.camel);
      expect(input.toUpperCase()).toBe(result.upper);
    });
  }
  it.each([["1s", 1000], ["2m", 120000]])("parses %s (row %#)", (s, want) => {
    expect(ms(s)).toBe(want);
  });
  [[1, "one"], [2, "two"]].forEach(([n, word]) => it(\`spells \${n}\`, () => expect(spell(n as number)).toBe(word)));
});
`;
const CORRECT = `export const camel = (s: string) => s.split(" ").map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w)).join("");
export const ms = (s: string) => Number(s.slice(0, -1)) * (s.endsWith("m") ? 60000 : 1000);
export const spell = (n: number) => ["zero", "one", "two"][n];
`;
/** Correct too, another way. */
const OTHER = `export function camel(s: string) { return s.replace(/ (.)/g, (_, c: string) => c.toUpperCase()); }
export function ms(s: string) { const units: Record<string, number> = { s: 1e3, m: 6e4 }; return parseInt(s, 10) * units[s.at(-1)!]!; }
export function spell(n: number) { return n === 1 ? "one" : n === 2 ? "two" : "?"; }
`;
const WRONG_ROW = CORRECT.replace("60000", "6000");

function vitest(files: Record<string, string>): { tests: TestCase[]; records: string } {
  const dir = mkdtempSync(join(tmpdir(), "oracle-seal-table-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const bin = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
    const seals = join(dir, "seals.jsonl");
    try {
      execFileSync(
        process.execPath,
        [bin, "run", "--root", dir, "--globals", "--reporter=json", `--outputFile=${join(dir, "out.json")}`],
        { cwd: dir, env: { PATH: process.env.PATH ?? "", ORACLE_SEALS: seals }, stdio: "pipe" },
      );
    } catch {
      // A failing test exits 1; the report says which.
    }
    const report = JSON.parse(readFileSync(join(dir, "out.json"), "utf8")) as {
      testResults: Array<{
        assertionResults: Array<{ ancestorTitles: string[]; title: string; status: string }>;
      }>;
    };
    const tests = report.testResults.flatMap((f) =>
      f.assertionResults.map(
        (a): TestCase => ({
          id: `hidden:src/case.test.ts::${[...a.ancestorTitles, a.title].join(" ")}`,
          outcome: a.status === "passed" ? "passed" : "failed",
        }),
      ),
    );
    let records = "";
    try {
      records = readFileSync(seals, "utf8");
    } catch {}
    return { tests, records };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function grade(lib: string, test = TEST) {
  const plan = planSeals(parsers, [{ path: "src/case.test.ts", text: test }], { framework: "vitest" });
  const run = vitest({ "src/lib.ts": lib, "src/case.test.ts": plan.files[0]!.text });
  return { plan, run, judged: judgeSeals(plan, run.records, run.tests) };
}

describe("JS tables under the real vitest", () => {
  it("a correct fix and another correct fix: every row's seals matched, every row's title is the plan's", {
    timeout: 60_000,
  }, () => {
    for (const lib of [CORRECT, OTHER]) {
      const { plan, run, judged } = grade(lib);
      const entries = plan.tests.map((t) => `hidden:src/case.test.ts::${t.test.entry}`);
      expect(run.tests.map((t) => t.id).sort()).toEqual(entries.sort());
      expect(plan.sites).toHaveLength(8);
      expect(judged.inconsistent).toBeNull();
      expect(new Set(Object.values(judged.sites))).toEqual(new Set(["matched"]));
      expect(judged.tests.map((t) => t.outcome)).toEqual(Array(6).fill("passed"));
    }
  });

  it("a fix wrong in one row only: vitest passes it (the row holds a key, not the value), the host fails that row's test alone", {
    timeout: 60_000,
  }, () => {
    const { run, judged } = grade(WRONG_ROW);
    expect(run.tests.every((t) => t.outcome === "passed")).toBe(true);
    const failed = judged.tests.filter((t) => t.outcome === "failed");
    expect(failed.map((t) => t.id)).toEqual(["hidden:src/case.test.ts::change case parses 2m (row 1)"]);
    expect(failed[0]!.message).toContain("expected: 120000\n  actual:   12000");
    expect(judged.inconsistent).toBeNull();
  });

  it("code that swaps a row's key cell for a value it answers with (Array.prototype.forEach patched as it loads): vitest passes, the records do not add up", {
    timeout: 60_000,
  }, () => {
    const FORGER = `${CORRECT.replace('["zero", "one", "two"][n]', '"forged"')}
const forEach = Array.prototype.forEach;
Array.prototype.forEach = function (this: unknown[], fn: (...a: unknown[]) => void, self?: unknown) {
  const swap = (row: unknown) =>
    Array.isArray(row) ? row.map((c) => (c && typeof c === "object" && "__oracleKey" in c ? "forged" : c)) : row;
  return forEach.call(this, (row: unknown, i: number, all: unknown[]) => fn(swap(row), i, all), self);
};
`;
    const { run, judged } = grade(FORGER);
    // vitest's own .each reads its rows through forEach too: those rows' tests fail in the runner.
    expect(run.tests.filter((t) => t.id.includes("spells")).map((t) => t.outcome)).toEqual([
      "passed",
      "passed",
    ]);
    expect(judged.inconsistent).toMatch(
      /change case spells 1: the runner reports 1 passing run\(s\), but 0 wrote all of the test's seal records/,
    );
  });
});

/** unjs/ufo's shape (test/encoding.test.ts, cut down): a table in its suite's body, each row bound whole, titled `t.input.toString()`. */
const UFO = `import { describe, expect, test } from "vitest";
import { encodeQueryValue, withBase, withTrailingSlash } from "./lib";

describe("encodeQueryValue", () => {
  const tests = [
    { input: "hello world", out: "hello+world" },
    { input: true, out: "true" },
    { input: 42, out: "42" },
    { input: ["apple", "banana"], out: "apple,banana" },
    { input: String.raw\`a+b\\c\`, out: "a%2Bb%5Cc" },
  ];

  for (const t of tests) {
    test(t.input.toString(), () => {
      expect(encodeQueryValue(t.input.toString())).toStrictEqual(t.out);
    });
  }
});

describe("withBase", () => {
  const tests = [
    { base: '/a"b', input: 7, out: '/a"b/7' },
    { base: "x\\ty\\\\", input: null, out: "x\\ty\\\\/null" },
    { base: "é", input: true, out: "é/true" },
  ];

  for (const t of tests) {
    test(JSON.stringify(t.base) + " + " + JSON.stringify(t.input), () => {
      expect(withBase(t.input, t.base)).toBe(t.out);
    });
  }
});

describe("withTrailingSlash", () => {
  const tests = {
    bar: "bar/",
    "/foo?123": "/foo/?123",
  };

  for (const input in tests) {
    test(input, () => {
      expect(withTrailingSlash(input)).toBe(tests[input]);
    });
  }
});
`;
const UFO_LIB = `export const encodeQueryValue = (s: string) =>
  s.replace(/[+\\\\ ]/g, (c) => (c === " " ? "+" : c === "+" ? "%2B" : "%5C"));
export const withBase = (input: unknown, base: string) => \`\${base}/\${input}\`;
export const withTrailingSlash = (s: string) => (s.includes("?") ? s.replace("?", "/?") : \`\${s}/\`);
`;

describe("ufo's tables under the real vitest", () => {
  it("every row's title is the plan's (toString of a string, a boolean, a number, an array, String.raw; JSON.stringify; an object's keys), a correct fix passes, one wrong row fails alone", {
    timeout: 60_000,
  }, () => {
    const { plan, run, judged } = grade(UFO_LIB, UFO);
    const entries = plan.tests.map((t) => `hidden:src/case.test.ts::${t.test.entry}`);
    expect(plan.sites).toHaveLength(10);
    expect(entries).toContain('hidden:src/case.test.ts::withBase "x\\ty\\\\" + null');
    expect(run.tests.map((t) => t.id).sort()).toEqual(entries.sort());
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(Array(10).fill("passed"));
    const wrong = grade(UFO_LIB.replace('"%5C"', '"%5c"'), UFO);
    expect(wrong.run.tests.every((t) => t.outcome === "passed")).toBe(true);
    expect(wrong.judged.tests.filter((t) => t.outcome === "failed").map((t) => t.id)).toEqual([
      "hidden:src/case.test.ts::encodeQueryValue a+b\\c",
    ]);
  });

  it("code that hands the loop rows of its own (Array.prototype[Symbol.iterator] patched as it loads): vitest passes, the records do not add up", {
    timeout: 60_000,
  }, () => {
    const FORGER = `export const encodeQueryValue = (_s: string) => "forged";
export const withBase = (_input: unknown, _base: string) => "forged";
export const withTrailingSlash = (_s: string) => "forged";
const iterate = Array.prototype[Symbol.iterator];
Array.prototype[Symbol.iterator] = function (this: unknown[]) {
  const rows = [...iterate.call(this)].map((row) =>
    row && typeof row === "object" && "out" in row ? { ...row, out: "forged" } : row,
  );
  return iterate.call(rows);
};
`;
    const { run, judged } = grade(FORGER, UFO);
    expect(run.tests.length).toBe(10);
    expect(run.tests.every((t) => t.outcome === "passed")).toBe(true);
    expect(judged.inconsistent).toMatch(
      /encodeQueryValue hello world: the runner reports 1 passing run\(s\), but 0 wrote all/,
    );
  });
});
