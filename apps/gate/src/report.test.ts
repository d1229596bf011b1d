import { describe, expect, it } from "vitest";
import { decide, type GateParameters } from "./decide.js";
import { exclusionGroups, renderHtml, renderMarkdown, renderText } from "./report.js";
import { batch, type Sample, tasks, testKey } from "./testing/batches.js";

const key = testKey();
const P: GateParameters = {
  mode: "superiority",
  margin: 0,
  alpha: 0.05,
  maxInfra: 0.05,
  resamples: 2_000,
  seed: 1,
  allowUnvalidated: false,
  allowMissing: true,
};

/** 8 compared tasks; 7 quarantined on both sides, 2 unvalidated on both, 1 the image could not run. */
function report() {
  const c: Sample[] = [
    ...tasks("t", 8, "PASS"),
    ...tasks("q", 7, "TASK_QUARANTINED"),
    ...tasks("u", 2, "PASS", { validation: "never" }),
    { task: "img", reason: "IMAGE_NOT_BUILT" },
  ];
  const i: Sample[] = [
    ...tasks("t", 8, "TESTS_FAILED"),
    ...tasks("q", 7, "TASK_QUARANTINED"),
    ...tasks("u", 2, "TESTS_FAILED", { validation: "never" }),
    { task: "img", reason: "IMAGE_NOT_BUILT" },
  ];
  return decide({ candidate: batch(c, key), incumbent: batch(i, key), parameters: P, graderVersion: "test" });
}

describe("tasks left out, grouped by why", () => {
  it("one group per reason, in order of first appearance, each with its tasks", () => {
    const r = report();
    expect(r.excluded).toHaveLength(10);
    expect(exclusionGroups(r)).toEqual([
      {
        why: "candidate: the task could not run (IMAGE_NOT_BUILT); incumbent: the task could not run (IMAGE_NOT_BUILT)",
        tasks: ["img"],
      },
      {
        why: "candidate: quarantined; incumbent: quarantined",
        tasks: ["q0", "q1", "q2", "q3", "q4", "q5", "q6"],
      },
      {
        why: "candidate: not validated when graded (never); incumbent: not validated when graded (never)",
        tasks: ["u0", "u1"],
      },
    ]);
  });

  it("the terminal, gate.md and gate.html say each reason once, with its count and tasks", () => {
    const r = report();
    const text = renderText(r, []);
    expect(text).toContain("  left out: 10 task(s):\n");
    expect(text).toContain(
      "    candidate: quarantined; incumbent: quarantined: 7 task(s): q0, q1, q2, q3, q4, …\n",
    );
    expect(text.match(/quarantined; incumbent: quarantined/g)).toHaveLength(1);
    const md = renderMarkdown(r, "/batches/out");
    expect(md).toContain(
      "- `candidate: quarantined; incumbent: quarantined`: 7 task(s): `q0`, `q1`, `q2`, `q3`, `q4`, `q5`, `q6`",
    );
    expect(md.match(/quarantined; incumbent: quarantined/g)).toHaveLength(1);
    const html = renderHtml(r, "/batches/out");
    expect(html).toContain(
      "<li>candidate: quarantined; incumbent: quarantined: 7 task(s): q0, q1, q2, q3, q4, q5, q6</li>",
    );
  });
});
