import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestCase } from "@oracle/spec";

/**
 * For the JS runtime's tests: a minimal jest-like harness on plain node (describe/it/test and
 * expect with toBe/toEqual/toStrictEqual from node:assert), so the runtime runs as it does under a
 * real runner, CommonJS or ESM, without one installed. Returns the tests as a report would list
 * them (`hidden:<file>::<full title>`) and the records written.
 */
const HARNESS = `
const assert = require("node:assert");
const tests = [];
const titles = [];
globalThis.describe = (title, fn) => { titles.push(title); fn(); titles.pop(); };
globalThis.it = globalThis.test = (title, fn) => tests.push({ title: [...titles, title].join(" "), fn });
globalThis.expect = (actual) => ({
  toBe: (expected) => { if (!Object.is(actual, expected)) throw new Error("toBe"); },
  toEqual: (expected) => assert.deepEqual(actual, expected),
  toStrictEqual: (expected) => assert.deepStrictEqual(actual, expected),
  to: { equal: (expected) => { if (actual !== expected) throw new Error("to.equal"); } },
});
module.exports = async (file) => {
  await import(file);
  const results = [];
  for (const t of tests) {
    try { await t.fn(); results.push({ title: t.title, outcome: "passed" }); }
    catch (e) { results.push({ title: t.title, outcome: "failed", message: String(e && e.message) }); }
  }
  return results;
};
`;

export function runNode(
  files: Record<string, string>,
  testFile: string,
  nodeArgs: readonly string[] = [],
): { tests: TestCase[]; records: string } {
  const dir = mkdtempSync(join(tmpdir(), "oracle-seal-js-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    writeFileSync(join(dir, "harness.cjs"), HARNESS);
    const seals = join(dir, "seals.jsonl");
    const out = execFileSync(
      process.execPath,
      [
        ...nodeArgs,
        "-e",
        `require("./harness.cjs")(${JSON.stringify(join(dir, testFile))}).then((r) => process.stdout.write(JSON.stringify(r)))`,
      ],
      { cwd: dir, env: { PATH: process.env.PATH ?? "", ORACLE_SEALS: seals }, encoding: "utf8" },
    );
    const results = JSON.parse(out) as Array<{
      title: string;
      outcome: "passed" | "failed";
      message?: string;
    }>;
    let records = "";
    try {
      records = readFileSync(seals, "utf8");
    } catch {
      records = "";
    }
    return {
      tests: results.map((r) => ({ id: `hidden:${testFile}::${r.title}`, outcome: r.outcome })),
      records,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
