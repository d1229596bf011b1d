// What the red-team and seal cases (redteam*.test.ts, the files that grade conformance shapes) say
// about their grades: why one came out as it did, its outcome, a tally of verdicts, and a grader that
// runs two at a time.
import { expect } from "vitest";
import type { Graded } from "./harness.js";

/** The reason, the message and the tail of stderr: an assertion's message. */
export const why = (g: Graded): string =>
  `${g.result.reason}: ${g.result.message}\n${g.stderr.split("\n").slice(-25).join("\n")}`;

/** A grade's verdict and reason, the pair the cases compare. */
export const outcome = (g: Graded) => ({ verdict: g.result.verdict, reason: g.result.reason });

/** `2× PASS PASS, 1× FAIL TESTS_FAILED`: what a case prints of its grades. */
export function tally(graded: Graded[]): string {
  const counts = new Map<string, number>();
  for (const g of graded) {
    const key = `${g.result.verdict} ${g.result.reason ?? ""}`.trim();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n}× ${k}`).join(", ");
}

/** Grades `n` times, two at a time (the machine has two cores). */
export async function repeat(n: number, one: (i: number) => Promise<Graded>): Promise<Graded[]> {
  const out: Graded[] = [];
  for (let i = 0; i < n; i += 2) out.push(...(await Promise.all([i, i + 1].filter((j) => j < n).map(one))));
  return out;
}

/**
 * Named grades' verdicts, printed, then checked: each of `pass` PASSes, each of `fail` FAILs with
 * `reason` (TESTS_FAILED unless given).
 */
export function expectVerdicts(
  graded: Record<string, Graded>,
  want: { pass: readonly string[]; fail: readonly string[]; reason?: string },
): void {
  for (const [name, g] of Object.entries(graded))
    console.info(`${name}: ${g.result.verdict} ${g.result.reason}`);
  for (const name of want.pass)
    expect(outcome(graded[name]!), why(graded[name]!)).toEqual({ verdict: "PASS", reason: "PASS" });
  for (const name of want.fail)
    expect(outcome(graded[name]!), why(graded[name]!)).toEqual({
      verdict: "FAIL",
      reason: want.reason ?? "TESTS_FAILED",
    });
}
