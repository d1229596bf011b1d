import type { FilteredDiff } from "../diff/filter.js";
import type { RunLog } from "../log/oracle-log.js";
import type { SuiteName } from "../reports/junit.js";
import { applyLines, checkApplied, listLines, snapshotLines } from "./apply-diff.js";
import { checkoutLines } from "./checkout.js";
import type { DriverSandbox } from "./container-config.js";
import { hiddenLines } from "./copy-hidden.js";
import type { DriverRecord } from "./driver-output.js";
import { OOM_KILL_LINE, PREP_EXIT, PREP_FAIL_PREFIX } from "./driver-protocol.js";
import { appendLines, resetLines } from "./reset-existing.js";
import type { RunOutcome } from "./run-scope.js";
import { type RunnerGuard, runnerGuardLines } from "./runner-guard.js";
import { printfFormat } from "./shell.js";

/**
 * The prep of one suite's container, run by its driver as the test user before any test code exists:
 * prepare the checkout (checkout.ts), apply the filtered diff (apply-diff.ts), reset the existing
 * suite (reset-existing.ts), copy the hidden tests (copy-hidden.ts), make a fresh report folder. Its
 * exit code says which step failed (PREP_EXIT); {@link judgePrep} reads what it did.
 */
export interface PrepPlan {
  baseCommit: string;
  /** Path of the mirror inside the container. */
  mirror: string;
  /** The mirror is the image's (the grader could not make it base-only): check that it is. */
  mirrorInImage?: boolean;
  /** Whether a filtered diff is mounted at the sandbox's `paths.diff`. */
  applyDiff: boolean;
  /** Binary-string paths reset to the base commit after the diff is applied. */
  reset: string[];
  /** Hidden test files (relative, UTF-8) copied in; null for the existing suite. */
  hiddenFiles: string[] | null;
  reportDir: string;
  /**
   * List what git changed (stdout, after the base commit's time: NUL-separated paths) for the
   * grader to compare with the filter. The existing suite's prep does; the hidden suite's applies
   * the same diff to the same commit in a fresh clone, so it skips the index snapshots and the listing.
   */
  list: boolean;
  /** Where the runner loads its own code at start-up; checked after the diff in list mode (runner-guard.ts). */
  runnerGuard?: RunnerGuard | null;
  /** Sentinel text appended to existing-suite test files (relative, UTF-8) after the reset (existing-sentinels.ts). */
  appends?: ReadonlyArray<{ path: string; text: string }>;
  /** Where the script runs: a suite's container in production. */
  sandbox: DriverSandbox;
}

/** `fail <code> <why>`: the reason on stderr, and the cgroup's OOM count too (a git killed at the memory limit is OUT_OF_MEMORY, not a bad diff). */
const failFunction = (sandbox: DriverSandbox): string =>
  `fail() { code=$1; shift; printf ${printfFormat(`${PREP_FAIL_PREFIX}%s\n`)} "$*" >&2; grep -h '^oom_kill ' ${sandbox.oomFiles.join(" ")} 2>/dev/null >&2; exit "$code"; }`;

/**
 * The image's home seed (PATHS.homeSeed), when it has one, copied into the run's HOME: a cache the
 * image built (Go's), read and written by the runner as if it had made it. Each container gets its
 * own copy, before any code of the diff or the tests exists, so nothing one suite writes there
 * reaches the other, and the image's copy is read-only.
 */
export function homeSeedLines(sandbox: DriverSandbox): string[] {
  const { home, homeSeed } = sandbox.paths;
  return [
    `if [ -d '${homeSeed}' ]; then cp -R '${homeSeed}/.' '${home}/' || fail ${PREP_EXIT.home} "cannot copy the image's ${homeSeed} into HOME"; fi`,
  ];
}

/** The prep script of one suite (the driver runs it in a subshell). */
export function prepScript(plan: PrepPlan): string {
  const { sandbox } = plan;
  const lines = ["set -u", failFunction(sandbox), ...homeSeedLines(sandbox), ...checkoutLines(plan)];
  if (plan.list) lines.push(...snapshotLines());
  if (plan.applyDiff) lines.push(...applyLines(sandbox.paths.diff));
  if (plan.list) lines.push(...listLines());
  lines.push(...resetLines(plan.reset), ...appendLines(plan.appends ?? []));
  if (plan.list && plan.applyDiff && plan.runnerGuard)
    lines.push(...runnerGuardLines(plan.runnerGuard, { shadow: PREP_EXIT.shadow, guard: PREP_EXIT.guard }));
  lines.push(
    ...(plan.hiddenFiles ? hiddenLines(plan.hiddenFiles, sandbox) : []),
    `mkdir -p '${plan.reportDir}' || fail ${PREP_EXIT.stepDir} "cannot make the report folder"`,
    "exit 0",
  );
  return `${lines.join("\n")}\n`;
}

/** The reason a failed prep gives the run (exit codes: PREP_EXIT; an OOM kill in it wins). */
export function prepFailure(code: number | null, stderr: string, oomKillsBefore: number): RunOutcome {
  const oomKills = Number(OOM_KILL_LINE.exec(stderr)?.[1] ?? "0");
  const detail = stderr
    .trim()
    .split("\n")
    .filter((line) => !line.startsWith("oom_kill "))
    .slice(-12)
    .join("\n");
  if (oomKills > oomKillsBefore)
    return {
      reason: "OUT_OF_MEMORY",
      message: `the prep step was OOM-killed at the memory limit: ${detail}`,
    };
  if (code === PREP_EXIT.applyCheck || code === PREP_EXIT.apply)
    return { reason: "DIFF_DOES_NOT_APPLY", message: detail };
  if (code === PREP_EXIT.shadow) return { reason: "DIFF_SHADOWS_RUNNER", message: detail };
  if (code === PREP_EXIT.checkout) return { reason: "CHECKOUT_FAILED", message: detail };
  if (code === PREP_EXIT.reset || code === PREP_EXIT.hidden)
    return { reason: "DIFF_DOES_NOT_APPLY", message: detail };
  return { reason: "INFRA_ERROR", message: `prep step failed (exit ${code}): ${detail}` };
}

/** What a suite's driver reported, as the judges read it. */
export interface DriverReport {
  suite: SuiteName;
  record: DriverRecord;
  /** The container's exit code. */
  exitCode: number | null;
}

/**
 * Judges a suite's prep: the run's reason when it failed or (the existing suite's) git changed other
 * files than the filter kept; throws when the driver stopped or ended before the suite started.
 */
export function judgePrep(
  driver: DriverReport,
  filtered: FilteredDiff | null,
  log: RunLog,
): RunOutcome | null {
  const { suite, record } = driver;
  const why = () => record.protocolError ?? `exit code ${driver.exitCode}`;
  if (record.unsafe) throw new Error(`the ${suite} suite's driver refused to go on: ${record.unsafe}`);
  const prep = record.prep[suite];
  if (!prep) throw new Error(`the driver ended before the ${suite} suite's prep was done (${why()})`);
  const stderr = prep.failed ? `${PREP_FAIL_PREFIX}${prep.failed}` : prep.stderr.toString("utf8");
  log.event("prep.done", { suite, exitCode: prep.exitCode, stderr });
  if (prep.exitCode !== 0) return prepFailure(prep.exitCode, stderr, 0);
  if (suite === "existing") {
    const stop = checkApplied(filtered, prep.stdout, log, suite);
    if (stop) return stop;
  }
  if (!record.started[suite]) throw new Error(`the ${suite} suite did not start after its prep (${why()})`);
  return null;
}
