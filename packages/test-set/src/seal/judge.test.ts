import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { sealPython } from "../python/seal.js";
import { judgeSeals } from "./judge.js";

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["python"]);
});

const HIDDEN = `from calc import add, sub


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(3, 2) == 1
`;

describe("judgeSeals: tests whose records do not add up", () => {
  it("names every such test's keys, not only the first's (the sweep leaves them all out in one round)", () => {
    const plan = sealPython(parsers, { path: "tests/test_calc.py", text: HIDDEN, index: 0 })!;
    expect(plan.tests).toHaveLength(2);
    // Both tests passed and neither wrote a record (a test that clears the environment, say).
    const report = ["test_add", "test_sub"].map((name) => ({
      id: `hidden:tests.test_calc::${name}`,
      outcome: "passed" as const,
    }));
    const judged = judgeSeals(plan, "", report);
    expect(judged.inconsistent).toMatch(/passing run\(s\), but 0 wrote all of the test's seal records/);
    expect(judged.inconsistentTest).toBe(plan.tests[0]!.test.entry);
    expect(judged.inconsistentKeys?.sort()).toEqual(plan.tests.flatMap((t) => t.keys).sort());
  });
});
