import { OracleError } from "@oracle/spec";
import type { SweepReport } from "../types.js";
import { brokenTests, goldHiddenFailures, hiddenBroken, leaveOut, someOf } from "./broken.js";
import { type FromFixOptions, planFromFix } from "./from-fix.js";
import type { TaskPlan } from "./make.js";
import { nearFix, suiteTooLarge } from "./narrow.js";
import { buildWriteValidate, type PipelineOptions } from "./pipeline.js";

/**
 * new-task's next tries after a validation that is not healthy, for `--fix` and each `--mine`
 * candidate alike: the existing suite narrowed to the files next to the fix when it is too large,
 * without the existing tests broken at the base or flaky, without the hidden tests that fail whatever
 * the diff. Each says what it did through `say`.
 */

/** What made the task: planFromFix's options besides new-task's own next tries. */
export type FixInput = Omit<FromFixOptions, "existingOnly" | "leaveOut" | "hiddenLeaveOut"> & {
  /**
   * Existing tests an earlier candidate of a --mine run left out (flaky, or failing at its base in
   * every run), left out of the plan already, and the existing command before that: kept out when
   * new-task leaves more out.
   */
  earlier?: { ids: readonly string[]; command: string };
};

/** The task planned again for a next try: the user's options, its id, and what the try changes. */
const replan = (
  { earlier: _, ...input }: FixInput,
  id: string,
  change: Pick<FromFixOptions, "existingOnly" | "leaveOut" | "hiddenLeaveOut">,
) => planFromFix({ ...input, id, ...change });

/** A next try's plan validated, over the folder the try before wrote. */
const validateAgain = (input: FixInput, plan: TaskPlan, pipeline: PipelineOptions) =>
  buildWriteValidate(input.root, [plan], { ...pipeline, force: true });

/** A validated plan, and the options of planFromFix that made it (besides the user's). */
export interface Tried {
  plan: TaskPlan;
  report: SweepReport;
  options: Pick<FromFixOptions, "existingOnly" | "leaveOut">;
  /** The existing tests left out, by why (a --mine report's reason names them). */
  left?: LeftOut;
}

/** The tests new-task left out of a task's suites, by why. */
export interface LeftOut {
  /** Failed at the base commit and with gold.diff alike, in every run. */
  broken: string[];
  /** Failed in some runs and passed in others of the same kind. */
  flaky: string[];
  /** Left out before validation: an earlier candidate of a --mine run left them out. */
  earlier: string[];
  /** The base version of a fix's own test that the fix rewrote. */
  rewritten: string[];
  /** Hidden tests that fail whatever the diff. */
  hidden: string[];
}

/**
 * `--fix`, when validation says the existing suite is too large (its report passed a cap, or it ran
 * past the limit): the task again with the existing suite's test files next to the fix (narrow.ts),
 * validated again. The report as it was when nothing is near, or the narrowing would keep them all.
 */
async function narrowed(
  input: FixInput,
  made: TaskPlan,
  report: SweepReport,
  pipeline: PipelineOptions,
  say: (line: string) => void,
): Promise<Tried> {
  const task = report.tasks.find((t) => t.id === made.id);
  const large = task && task.status === "quarantined" ? suiteTooLarge(task) : null;
  if (large === null) return { plan: made, report, options: {} };
  // A timeout is named as one, with the limit a loaded machine may need raised instead.
  const why = large.timeout ? `it timed out: ${large.why}` : large.why;
  const limit = large.timeout
    ? ` (when only the machine's load made it time out, raise timeoutSeconds in tasks/${made.id}/task.json instead and run pnpm quarantine-sweep --tasks ${made.id} --repeat 2)`
    : "";
  const existing = ((made.task.suites as { existing: { files: string[] } }).existing.files ?? []).filter(
    (p) => !p.includes("*"),
  );
  const code = [...made.goldDiff.matchAll(/^diff --git a\/(.+?) b\//gm)].map((m) => m[1]!);
  const near = nearFix(
    made.framework,
    existing,
    code,
    made.hidden.map((h) => h.path),
  );
  if (near.length === 0 || near.length >= existing.length) {
    say(
      `note: the existing suite is too large (${why}), and new-task found no smaller set of its test files next to the fix: narrow suites.existing.command in tasks/${made.id}/task.json${limit}`,
    );
    return { plan: made, report, options: {} };
  }
  say(
    `note: the existing suite is too large (${why}): narrowed to the ${near.length} of its ${existing.length} test files next to the fix (${near.slice(0, 5).join(", ")}${near.length > 5 ? ", …" : ""}); validating again${limit}`,
  );
  const again = await replan(input, made.id, { existingOnly: near });
  return {
    plan: again.plan,
    report: await validateAgain(input, again.plan, pipeline),
    options: { existingOnly: near },
  };
}

/**
 * `--fix`, when validation quarantined the task and some existing tests fail at the base commit and
 * with gold.diff alike (broken.ts): the task again without them, validated again, saying which. When
 * the existing suite is the base version of the fix's own test files, the tests that fail only with
 * gold.diff (the fix rewrote them) are left out too. Any other existing test that fails only with
 * gold.diff is named: the fix breaks it (a real GOLD_FAILS). Tests that fail in some runs and pass in
 * others (flaky) are left out too, named apart: they would fail a correct diff.
 */
async function withoutBroken(
  input: FixInput,
  before: Tried,
  pipeline: PipelineOptions,
  say: (line: string) => void,
): Promise<Tried> {
  const { plan: first, report: firstReport } = before;
  const suite = (first.task.suites as { existing: { files: string[]; command: string } }).existing;
  const files = suite.files.filter((p) => !p.includes("*"));
  const hidden = new Set(first.hidden.map((h) => h.path));
  const ownBase = files.some((p) => hidden.has(p));
  const earlier = input.earlier?.ids ?? [];
  const left: string[] = [...earlier];
  const why: LeftOut = { broken: [], flaky: [], earlier: [...earlier], rewritten: [], hidden: [] };
  let report = firstReport;
  let tried: Tried = before;
  // A file that fails to import stops pytest's whole run before any test: what else fails at the
  // base shows only in the next round.
  for (let round = 0; round < 3; round++) {
    const task = report.tasks.find((t) => t.id === first.id);
    if (task?.status !== "quarantined") return tried;
    const broken = await brokenTests(input.root, task);
    if (broken === null) return tried;
    const rewritten = ownBase ? broken.goldOnly : [];
    if (!ownBase && broken.goldOnly.length > 0)
      say(
        `note: gold.diff fails ${broken.goldOnly.length} existing test${broken.goldOnly.length === 1 ? "" : "s"} that pass at the base commit (${someOf(broken.goldOnly)}): the fix breaks ${broken.goldOnly.length === 1 ? "it" : "them"}, or ${broken.goldOnly.length === 1 ? "it tests" : "they test"} what it changed; a task needs a fix that keeps them passing (a real GOLD_FAILS)`,
      );
    const atBase = broken.atBase.filter((id) => !left.includes(id));
    const flaky = broken.flaky.filter((id) => !left.includes(id) && !atBase.includes(id));
    const rewrote = rewritten.filter((id) => !left.includes(id) && !flaky.includes(id));
    const ids = [...atBase, ...flaky, ...rewrote];
    if (ids.length === 0) return tried;
    const importFailed = atBase.some((id) => id.startsWith("existing:::"));
    if (broken.passedAtBase === 0 && !importFailed) {
      say(
        `note: every test of the existing suite fails at the base commit in this image (${someOf(atBase)}): new-task leaves none out; read the log the finding lists`,
      );
      return tried;
    }
    const { leave, unplaced } = leaveOut(
      first.framework,
      files,
      [...left, ...ids],
      input.earlier?.command ?? suite.command,
    );
    if (unplaced.length > 0) {
      say(
        `note: ${atBase.length + flaky.length} existing test${atBase.length + flaky.length === 1 ? " fails" : "s fail"} at the base commit and with gold.diff alike${flaky.length > 0 ? `, or in some runs only (flaky: ${someOf(flaky, 3)})` : ""} (${someOf([...atBase, ...flaky])}), but new-task cannot leave ${someOf(unplaced, 3)} out of a ${first.framework} command: leave ${unplaced.length === 1 ? "it" : "them"} out of suites.existing.command in tasks/${first.id}/task.json and run pnpm quarantine-sweep --tasks ${first.id} --repeat 2`,
      );
      return tried;
    }
    if (leave.files.length >= files.length) return tried;
    if (atBase.length > 0)
      say(
        `note: ${atBase.length} existing test${atBase.length === 1 ? " fails" : "s fail"} at the base commit in this image, before any diff, and with gold.diff alike (not because of the fix; read why in ${task.runs.find((r) => r.mode === "baseline")?.log ?? "the baseline run's log"}): left out of the existing suite: ${someOf(atBase)}`,
      );
    if (flaky.length > 0)
      say(
        `note: ${flaky.length} existing test${flaky.length === 1 ? "" : "s"} failed in some of the validation's ${broken.runs} runs and passed in others of the same kind (flaky, whatever the diff: a test that times itself fails when the machine is loaded; a flaky test would fail a correct diff): left out of the existing suite: ${someOf(flaky)}`,
      );
    if (rewrote.length > 0)
      say(
        `note: ${rewrote.length} test${rewrote.length === 1 ? "" : "s"} of the base version of the fix's test files ${rewrote.length === 1 ? "fails" : "fail"} only with gold.diff (the fix rewrote ${rewrote.length === 1 ? "it" : "them"}; the hidden suite runs the new version): left out of the existing suite: ${someOf(rewrote)}`,
      );
    left.push(...ids);
    say(`validating ${first.id} again without ${ids.length === 1 ? "it" : "them"}`);
    const again = await replan(input, first.id, { existingOnly: files, leaveOut: leave }).catch(
      (error: unknown) => {
        if (!(error instanceof OracleError)) throw error;
        say(
          `note: without them the existing suite would run nothing (${error.message}): tasks/${first.id}/ stays as validated`,
        );
        return null;
      },
    );
    if (again === null) return tried;
    report = await validateAgain(input, again.plan, pipeline);
    why.broken.push(...atBase);
    why.flaky.push(...flaky);
    why.rewritten.push(...rewrote);
    tried = {
      plan: again.plan,
      report,
      options: { existingOnly: files, leaveOut: leave },
      left: {
        ...why,
        broken: [...why.broken],
        flaky: [...why.flaky],
        rewritten: [...why.rewritten],
      },
    };
  }
  return tried;
}

/**
 * `--fix`, when validation says GOLD_FAILS and every hidden test gold.diff fails fails at the base
 * commit too, in every run (wcwidth 4c91403: `test_package_version` reads the installed package's
 * version, and the image installs nothing of the repository): such a test can be neither
 * FAIL_TO_PASS nor PASS_TO_PASS, so the task again without it, validated again, saying which and why.
 * Never when gold.diff fails a hidden test the base passes (the fix breaks it), nor when the fix's
 * regression tests would be all left out: nothing gold passes that the base fails would be left.
 */
async function withoutHiddenBroken(
  input: FixInput,
  tried: Tried,
  pipeline: PipelineOptions,
  say: (line: string) => void,
): Promise<Tried> {
  const { plan: made, report } = tried;
  const task = report.tasks.find((t) => t.id === made.id);
  if (!task?.reasons.some((r) => r.flag === "GOLD_FAILS")) return tried;
  const broken = await hiddenBroken(input.root, task);
  if (broken === null || broken.everywhere.length === 0 || broken.goldOnly.length > 0) return tried;
  const n = broken.everywhere.length;
  if (broken.failToPass.length === 0) return tried;
  const command = (made.task.suites as { hidden: { command: string } }).hidden.command;
  const { leave, unplaced } = leaveOut(
    made.framework,
    made.hidden.map((h) => h.path),
    broken.everywhere,
    command,
  );
  const gold = await goldHiddenFailures(input.root, task);
  const why = `${n === 1 ? "fails" : "fail"} at the base commit and with gold.diff alike, in every run${gold?.error ? ` (the first error: ${gold.error})` : ""}, so ${n === 1 ? "it is" : "they are"} neither FAIL_TO_PASS nor PASS_TO_PASS`;
  if (unplaced.length > 0 || leave.files.length > 0 || leave.flags.length === 0) {
    say(
      `note: hidden test${n === 1 ? "" : "s"} ${someOf(broken.everywhere)} ${why}; new-task cannot leave ${someOf([...unplaced, ...leave.files], 3)} out of a ${made.framework} command: leave ${n === 1 ? "it" : "them"} out of suites.hidden.command in tasks/${made.id}/task.json and run pnpm quarantine-sweep --tasks ${made.id} --repeat 2`,
    );
    return tried;
  }
  say(
    `note: hidden test${n === 1 ? "" : "s"} ${someOf(broken.everywhere)} ${why}: left out of the hidden suite (${broken.failToPass.length} test${broken.failToPass.length === 1 ? "" : "s"} that gold.diff passes and the base does not remain: ${someOf(broken.failToPass, 3)}); validating ${made.id} again`,
  );
  const again = await replan(input, made.id, { ...tried.options, hiddenLeaveOut: leave.flags });
  return {
    plan: again.plan,
    report: await validateAgain(input, again.plan, pipeline),
    options: tried.options,
    left: {
      ...(tried.left ?? { broken: [], flaky: [], earlier: [], rewritten: [] }),
      hidden: [...broken.everywhere],
    },
  };
}

/**
 * new-task's next tries after the first validation of a task made from a fix commit (`--fix`, and
 * each `--mine` candidate): narrowed, without existing tests broken at the base or flaky, without
 * hidden tests that fail whatever the diff. The last validation's report, and what was left out.
 */
export async function repair(
  input: FixInput,
  made: TaskPlan,
  report: SweepReport,
  pipeline: PipelineOptions,
  say: (line: string) => void,
): Promise<{ plan: TaskPlan; report: SweepReport; left: LeftOut }> {
  const near = await narrowed(input, made, report, pipeline, say);
  const tried = await withoutBroken(input, near, pipeline, say);
  const last = await withoutHiddenBroken(input, tried, pipeline, say);
  return {
    plan: last.plan,
    report: last.report,
    left: last.left ?? {
      broken: [],
      flaky: [],
      earlier: [...(input.earlier?.ids ?? [])],
      rewritten: [],
      hidden: [],
    },
  };
}
