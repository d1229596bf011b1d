// The conformance set (issue 14): one small task per shape a real task is written in, each graded
// end to end against the real engine (see shapes.ts): gold PASS, baseline FAIL, in-process
// tampering FAIL, skipped hidden tests FAIL, and (Go) forged output FAIL. The shapes' tasks leave
// `framework` out, so the oracle reads the runner from the command; every shape is protected (its
// sentinel is collected at gold). Grades run four at a time.

import { describe, expect, it } from "vitest";
import type { Graded } from "../hostile/harness.js";
import { why } from "../hostile/measure.js";
import { conformanceHooks, goldDiff, grade } from "./shapes.js";
import { SHAPES } from "./table.js";

/** A development loop may grade some shapes only: ORACLE_CONFORMANCE_ONLY=id,id (CI grades all). */
const ONLY = process.env.ORACLE_CONFORMANCE_ONLY?.split(",");
const CHOSEN = ONLY ? SHAPES.filter((s) => ONLY.includes(s.id)) : SHAPES;

const c = conformanceHooks(CHOSEN);

function expectFail(g: Graded): void {
  expect(g.result.verdict, why(g)).toBe("FAIL");
}

describe.concurrent("conformance: every shape", () => {
  for (const shape of CHOSEN) {
    it(`${shape.id}: ${shape.title}`, async () => {
      const runs: Promise<[string, Graded]>[] = [
        grade(c, shape, "gold", goldDiff(c, shape)).then((g) => ["gold", g]),
        grade(c, shape, "baseline").then((g) => ["baseline", g]),
        grade(c, shape, "tamper", shape.tamper).then((g) => ["tamper", g]),
        grade(c, shape, "skip", shape.skip).then((g) => ["skip", g]),
      ];
      if (shape.forge) runs.push(grade(c, shape, "forge", shape.forge).then((g) => ["forge", g]));
      const graded = Object.fromEntries(await Promise.all(runs)) as Record<string, Graded>;
      // One line per shape in the run's output: what each grade said.
      console.info(
        `${shape.id}: ${Object.entries(graded)
          .map(([k, g]) => `${k}=${g.result.reason}`)
          .join(" ")}`,
      );
      const gold = graded.gold as Graded;
      expect({ verdict: gold.result.verdict, reason: gold.result.reason }, why(gold)).toEqual({
        verdict: "PASS",
        reason: "PASS",
      });
      // Protected: the pair collected, or a strong seal.
      const strong = gold.result.seals?.ran?.strong ?? 0;
      if (gold.result.sentinel?.state !== "collected")
        expect(strong, `${why(gold)}\nneither the pair collected nor a strong seal`).toBeGreaterThan(0);
      else expect(gold.result.sentinel, why(gold)).toMatchObject({ state: "collected", required: true });
      if (shape.pair)
        expect(gold.result.sentinel, why(gold)).toMatchObject({ state: "collected", required: true });
      const baseline = graded.baseline as Graded;
      expect({ verdict: baseline.result.verdict, reason: baseline.result.reason }, why(baseline)).toEqual({
        verdict: "FAIL",
        reason: "TESTS_FAILED",
      });
      for (const attack of ["tamper", "skip", "forge"]) {
        const g = graded[attack];
        if (g !== undefined) expectFail(g);
      }
      // A hang guard: the shapes' grades share one queue of four, so a shape's own time includes
      // waiting for the others' grades (on a loaded machine, more than the 180 s default).
    }, 1_200_000);
  }
});
