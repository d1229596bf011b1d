import { join, relative } from "node:path";
import { type Command, EXIT, printable, type RunContext, runCommand, withRoot, write } from "@oracle/cli-kit";
import { OracleError } from "@oracle/spec";
import { formatDuration } from "../summary.js";
import type { SweepReport } from "../types.js";
import { HELP, type NewTaskOptions, parseNewTaskArgs } from "./args.js";
import { brokenTests, goldHiddenFailures, hiddenBroken, leaveOut, someOf } from "./broken.js";
import { type FromFixOptions, planFromFix } from "./from-fix.js";
import { treeFiles } from "./git.js";
import type { ImageChoice } from "./image.js";
import { refuseExisting, type TaskPlan } from "./make.js";
import { mine, yieldLine } from "./mine.js";
import { missingInRuns, missingLine, ownPythonModules } from "./missing.js";
import { nearFix, suiteTooLarge } from "./narrow.js";
import { buildWriteValidate, type PipelineOptions, writeAll } from "./pipeline.js";
import { planDataset } from "./swebench.js";
import { shellQuote } from "./templates.js";
import { describeTask } from "./validate.js";

/**
 * new-task's output quotes the repository (paths, commit subjects, test ids): shown inert. A command
 * it names carries the --root the user gave.
 */
let rootGiven: string | undefined;
const say = (line: string) => process.stderr.write(`${printable(withRoot(line, rootGiven))}\n`);

async function plan(
  options: NewTaskOptions,
  root: string,
): Promise<{ plans: TaskPlan[]; images: ImageChoice[] }> {
  if (options.swebench) {
    return planDataset({
      root,
      dataset: options.swebench,
      repos: options.repos!,
      ...(options.image ? { image: options.image } : {}),
      ...(options.framework ? { framework: options.framework } : {}),
    });
  }
  const made = await planFromFix({
    root,
    repo: options.repo!,
    fix: options.fix!,
    tests: options.tests,
    ...(options.id ? { id: options.id } : {}),
    ...(options.image ? { image: options.image } : {}),
    ...(options.framework ? { framework: options.framework } : {}),
  });
  return { plans: [made.plan], images: [made.image] };
}

/**
 * `--fix`, when validation says the existing suite is too large (its report passed a cap, or it ran
 * past the limit): the task again with the existing suite's test files next to the fix (narrow.ts),
 * validated again. The report as it was when nothing is near, or the narrowing would keep them all.
 */
async function narrowed(
  options: NewTaskOptions,
  root: string,
  made: TaskPlan,
  report: SweepReport,
  pipeline: PipelineOptions,
): Promise<Tried> {
  const task = report.tasks.find((t) => t.id === made.id);
  const why = task && task.status === "quarantined" ? suiteTooLarge(task) : null;
  if (why === null) return { plan: made, report, options: {} };
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
      `note: the existing suite is too large (${why}), and new-task found no smaller set of its test files next to the fix: narrow suites.existing.command in tasks/${made.id}/task.json`,
    );
    return { plan: made, report, options: {} };
  }
  say(
    `note: the existing suite is too large (${why}): narrowed to the ${near.length} of its ${existing.length} test files next to the fix (${near.slice(0, 5).join(", ")}${near.length > 5 ? ", …" : ""}); validating again`,
  );
  const again = await planFromFix({
    root,
    repo: options.repo!,
    fix: options.fix!,
    tests: options.tests,
    id: made.id,
    ...(options.image ? { image: options.image } : {}),
    ...(options.framework ? { framework: options.framework } : {}),
    existingOnly: near,
  });
  return {
    plan: again.plan,
    report: await buildWriteValidate(root, [again.plan], { ...pipeline, force: true }),
    options: { existingOnly: near },
  };
}

/**
 * `--fix`, when validation quarantined the task and some existing tests fail at the base commit and
 * with gold.diff alike (broken.ts): the task again without them, validated again, saying which. When
 * the existing suite is the base version of the fix's own test files, the tests that fail only with
 * gold.diff (the fix rewrote them) are left out too. Any other existing test that fails only with
 * gold.diff is named: the fix breaks it (a real GOLD_FAILS).
 */
/** A validated plan, and the options of planFromFix that made it (besides the user's). */
interface Tried {
  plan: TaskPlan;
  report: SweepReport;
  options: Pick<FromFixOptions, "existingOnly" | "leaveOut">;
}

async function withoutBroken(
  options: NewTaskOptions,
  root: string,
  before: Tried,
  pipeline: PipelineOptions,
): Promise<Tried> {
  const { plan: first, report: firstReport } = before;
  const suite = (first.task.suites as { existing: { files: string[]; command: string } }).existing;
  const files = suite.files.filter((p) => !p.includes("*"));
  const hidden = new Set(first.hidden.map((h) => h.path));
  const ownBase = files.some((p) => hidden.has(p));
  const left: string[] = [];
  let report = firstReport;
  let tried: Tried = before;
  // A file that fails to import stops pytest's whole run before any test: what else fails at the
  // base shows only in the next round.
  for (let round = 0; round < 3; round++) {
    const task = report.tasks.find((t) => t.id === first.id);
    if (task?.status !== "quarantined") return tried;
    const broken = await brokenTests(root, task);
    if (broken === null) return tried;
    const rewritten = ownBase ? broken.goldOnly : [];
    if (!ownBase && broken.goldOnly.length > 0)
      say(
        `note: gold.diff fails ${broken.goldOnly.length} existing test${broken.goldOnly.length === 1 ? "" : "s"} that pass at the base commit (${someOf(broken.goldOnly)}): the fix breaks ${broken.goldOnly.length === 1 ? "it" : "them"}, or ${broken.goldOnly.length === 1 ? "it tests" : "they test"} what it changed; a task needs a fix that keeps them passing (a real GOLD_FAILS)`,
      );
    const atBase = broken.atBase.filter((id) => !left.includes(id));
    const ids = [...atBase, ...rewritten.filter((id) => !left.includes(id))];
    if (ids.length === 0) return tried;
    const importFailed = atBase.some((id) => id.startsWith("existing:::"));
    if (broken.passedAtBase === 0 && !importFailed) {
      say(
        `note: every test of the existing suite fails at the base commit in this image (${someOf(atBase)}): new-task leaves none out; read the log the finding lists`,
      );
      return tried;
    }
    const { leave, unplaced } = leaveOut(first.framework, files, [...left, ...ids], suite.command);
    if (unplaced.length > 0) {
      say(
        `note: ${atBase.length} existing test${atBase.length === 1 ? " fails" : "s fail"} at the base commit and with gold.diff alike (${someOf(atBase)}), but new-task cannot leave ${someOf(unplaced, 3)} out of a ${first.framework} command: leave ${unplaced.length === 1 ? "it" : "them"} out of suites.existing.command in tasks/${first.id}/task.json and run pnpm quarantine-sweep --tasks ${first.id} --repeat 2`,
      );
      return tried;
    }
    if (leave.files.length >= files.length) return tried;
    if (atBase.length > 0)
      say(
        `note: ${atBase.length} existing test${atBase.length === 1 ? " fails" : "s fail"} at the base commit in this image, before any diff, and with gold.diff alike (not because of the fix; read why in ${task.runs.find((r) => r.mode === "baseline")?.log ?? "the baseline run's log"}): left out of the existing suite: ${someOf(atBase)}`,
      );
    if (rewritten.length > 0)
      say(
        `note: ${rewritten.length} test${rewritten.length === 1 ? "" : "s"} of the base version of the fix's test files ${rewritten.length === 1 ? "fails" : "fail"} only with gold.diff (the fix rewrote ${rewritten.length === 1 ? "it" : "them"}; the hidden suite runs the new version): left out of the existing suite: ${someOf(rewritten)}`,
      );
    left.push(...ids);
    say(`validating ${first.id} again without ${ids.length === 1 ? "it" : "them"}`);
    const again = await planFromFix({
      root,
      repo: options.repo!,
      fix: options.fix!,
      tests: options.tests,
      id: first.id,
      ...(options.image ? { image: options.image } : {}),
      ...(options.framework ? { framework: options.framework } : {}),
      existingOnly: files,
      leaveOut: leave,
    }).catch((error: unknown) => {
      if (!(error instanceof OracleError)) throw error;
      say(
        `note: without them the existing suite would run nothing (${error.message}): tasks/${first.id}/ stays as validated`,
      );
      return null;
    });
    if (again === null) return tried;
    report = await buildWriteValidate(root, [again.plan], { ...pipeline, force: true });
    tried = { plan: again.plan, report, options: { existingOnly: files, leaveOut: leave } };
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
  options: NewTaskOptions,
  root: string,
  tried: Tried,
  pipeline: PipelineOptions,
): Promise<SweepReport> {
  const { plan: made, report } = tried;
  const task = report.tasks.find((t) => t.id === made.id);
  if (!task?.reasons.some((r) => r.flag === "GOLD_FAILS")) return report;
  const broken = await hiddenBroken(root, task);
  if (broken === null || broken.everywhere.length === 0 || broken.goldOnly.length > 0) return report;
  const n = broken.everywhere.length;
  if (broken.failToPass.length === 0) return report;
  const command = (made.task.suites as { hidden: { command: string } }).hidden.command;
  const { leave, unplaced } = leaveOut(
    made.framework,
    made.hidden.map((h) => h.path),
    broken.everywhere,
    command,
  );
  const gold = await goldHiddenFailures(root, task);
  const why = `${n === 1 ? "fails" : "fail"} at the base commit and with gold.diff alike, in every run${gold?.error ? ` (the first error: ${gold.error})` : ""}, so ${n === 1 ? "it is" : "they are"} neither FAIL_TO_PASS nor PASS_TO_PASS`;
  if (unplaced.length > 0 || leave.files.length > 0 || leave.flags.length === 0) {
    say(
      `note: hidden test${n === 1 ? "" : "s"} ${someOf(broken.everywhere)} ${why}; new-task cannot leave ${someOf([...unplaced, ...leave.files], 3)} out of a ${made.framework} command: leave ${n === 1 ? "it" : "them"} out of suites.hidden.command in tasks/${made.id}/task.json and run pnpm quarantine-sweep --tasks ${made.id} --repeat 2`,
    );
    return report;
  }
  say(
    `note: hidden test${n === 1 ? "" : "s"} ${someOf(broken.everywhere)} ${why}: left out of the hidden suite (${broken.failToPass.length} test${broken.failToPass.length === 1 ? "" : "s"} that gold.diff passes and the base does not remain: ${someOf(broken.failToPass, 3)}); validating ${made.id} again`,
  );
  const again = await planFromFix({
    root,
    repo: options.repo!,
    fix: options.fix!,
    tests: options.tests,
    id: made.id,
    ...(options.image ? { image: options.image } : {}),
    ...(options.framework ? { framework: options.framework } : {}),
    ...tried.options,
    hiddenLeaveOut: leave.flags,
  });
  return buildWriteValidate(root, [again.plan], { ...pipeline, force: true });
}

/**
 * gold.diff failing hidden tests: which, whether they fail at the base too, and the first error, so
 * the user sees a fix that does not pass in this image (jmespath.py c501751: its code calls
 * `random.sample(dict.keys())`, which Python 3.11 rejects) without reading the log.
 */
async function sayGoldFails(root: string, id: string, report: SweepReport) {
  const task = report.tasks.find((t) => t.id === id);
  if (!task?.reasons.some((r) => r.flag === "GOLD_FAILS")) return;
  const gold = await goldHiddenFailures(root, task);
  if (gold === null) return;
  const n = gold.failed.length;
  say(
    `note: gold.diff fails ${n} hidden test${n === 1 ? "" : "s"} (${someOf(gold.failed, 3)})${gold.atBaseToo.length > 0 ? `, ${gold.atBaseToo.length === n ? (n === 1 ? "which fails" : "all of which fail") : `${gold.atBaseToo.length} of which fail`} at the base commit too` : ""}${gold.error ? `; the first error: ${gold.error}` : ""} (${gold.log}): when that error comes from the image (its Python, Node or Go, or a package version) and not from the tests, the fix does not pass in this image, and a task needs one it passes in (--image NAME)`,
  );
}

/** The modules the validation's runs could not import, each with what brings it into the image (missing.ts). */
async function sayMissing(options: NewTaskOptions, root: string, made: TaskPlan, report: SweepReport) {
  const task = report.tasks.find((t) => t.id === made.id);
  if (task === undefined || task.status === "healthy") return;
  const again = `pnpm new-task --repo ${shellQuote(options.repo!)} --fix ${shellQuote(options.fix!)}${options.id ? ` --id ${shellQuote(options.id)}` : ""}`;
  const own = ownPythonModules(await treeFiles(made.mirror.repo, made.mirror.base));
  for (const m of await missingInRuns(root, made.framework, task))
    say(`note: ${missingLine(made.framework, m, made.image, again, own)}`);
}

/** `--mine`: every commit's outcome in the report, the yield on stdout (or the report with --json). */
async function runMine(options: NewTaskOptions, signal: AbortSignal): Promise<number> {
  const { report, dir } = await mine({
    root: options.root,
    repo: options.mine!,
    ...(options.since ? { since: options.since } : {}),
    limit: options.limit ?? 200,
    jobs: options.jobs ?? 1,
    tests: options.tests,
    ...(options.framework ? { framework: options.framework } : {}),
    ...(options.image ? { image: options.image } : {}),
    repeat: options.repeat,
    lockWait: options.lockWait,
    signal,
    say,
    ...(process.stderr.isTTY ? { tty: process.stderr } : {}),
  });
  const where = relative(options.root, dir) || dir;
  const line = `yield: ${yieldLine(report.yield)}; ${formatDuration(report.seconds * 1000)}; report: ${where}/report.md`;
  if (options.json) {
    await write(
      process.stdout,
      `${JSON.stringify({ ...report, report: join(dir, "report.json") }, null, 2)}\n`,
    );
    say(line);
  } else await write(process.stdout, `${printable(line)}\n`);
  return report.finished ? EXIT.OK : EXIT.FAIL;
}

async function run(options: NewTaskOptions, { signal }: RunContext): Promise<number> {
  const root = options.root;
  rootGiven = options.rootGiven;
  if (options.mine) return runMine(options, signal);
  const started = Date.now();
  // An existing folder is refused before anything is made (nothing half-written).
  const { plans, images } = await plan(options, root);
  for (const image of images) for (const note of image.notes) say(`note: ${note}`);
  for (const p of plans) for (const warning of p.warnings) say(`warning: ${warning}`);
  const ids = plans.map((p) => p.id);
  for (const id of ids) await refuseExisting(root, id, options.force);
  if (!options.validate) {
    await writeAll(root, plans, options.force, say);
    say(`not validated: run pnpm quarantine-sweep --tasks ${ids.join(" ")} --repeat 2`);
    if (options.json)
      await write(
        process.stdout,
        `${JSON.stringify({ tasks: plans.map((p) => ({ id: p.id, status: "not-validated" })) }, null, 2)}\n`,
      );
    return EXIT.OK;
  }
  const pipeline = { force: options.force, repeat: options.repeat, lockWait: options.lockWait, signal, say };
  let report = await buildWriteValidate(root, plans, pipeline);
  if (!options.swebench) {
    await sayMissing(options, root, plans[0]!, report);
    const made = await narrowed(options, root, plans[0]!, report, pipeline);
    const tried = await withoutBroken(options, root, made, pipeline);
    report = await withoutHiddenBroken(options, root, tried, pipeline);
    await sayGoldFails(root, made.plan.id, report);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const lines = report.tasks.map((t) => withRoot(describeTask(t), rootGiven));
  const healthy = report.tasks.filter((t) => t.status === "healthy").length;
  lines.push(`${healthy} of ${report.tasks.length} healthy in ${seconds} s; report: ${report.reportDir}`);
  if (options.json) {
    const tasks = report.tasks.map((t) => ({
      id: t.id,
      dir: `tasks/${t.id}`,
      status: t.status,
      reasons: t.reasons,
      expected: t.expected,
      unprotected: t.unprotected,
    }));
    await write(
      process.stdout,
      `${JSON.stringify({ tasks, seconds: Number(seconds), report: report.reportDir }, null, 2)}\n`,
    );
    say(lines.join("\n"));
  } else await write(process.stdout, `${printable(lines.join("\n"))}\n`);
  return healthy === report.tasks.length ? EXIT.OK : EXIT.FAIL;
}

/** The oracle-new-task command; exit codes in HELP. */
export const newTaskCommand: Command<NewTaskOptions> = {
  name: "oracle-new-task",
  pnpmScript: "new-task",
  rootGiven: (options) => options.rootGiven,
  help: HELP,
  parse: (argv, at) => parseNewTaskArgs(argv, at.cwd),
  run,
  stopping: (signal) => `${signal}: stopping every running grade and removing its container…`,
  interrupted: "interrupted: no grade is left running",
};

/** Runs `oracle-new-task …` and returns its exit code. */
export function main(argv: readonly string[]): Promise<number> {
  return runCommand(newTaskCommand, argv);
}
