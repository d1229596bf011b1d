import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { printable } from "@oracle/cli-kit";
import { connectDocker, dockerEngine } from "@oracle/engine";
import { SEAL_RECORD_FILE } from "@oracle/grader";
import { OracleError } from "@oracle/spec";
import { closeLogger, createSweepLogger } from "../logger.js";
import { plainProgress } from "../progress.js";
import { unsealedWithRules } from "../seals.js";
import { sweep, sweepPaths, sweepStamp } from "../sweep.js";
import type { SweepReport, TaskReport } from "../types.js";

/**
 * `pnpm build-images --only <names>` for the root: builds what is missing or out of date, skips the
 * rest. While another run holds images/registry.json, build-images waits up to `lockWaitSeconds`
 * for it (saying so on stderr). Throws BUILD_FAILED naming the build logs written, or the cause the
 * child printed when it could not run.
 */
export async function buildImages(
  root: string,
  names: readonly string[],
  signal: AbortSignal,
  lockWaitSeconds: number,
  options: { quiet?: boolean } = {},
): Promise<void> {
  const require = createRequire(import.meta.url);
  const bin = join(
    dirname(require.resolve("@oracle/image-builder/package.json")),
    "bin",
    "oracle-build-images.js",
  );
  const env = { ...process.env };
  const hostCa = "/etc/ssl/certs/ca-certificates.crt";
  if (!env.ORACLE_BUILD_CA_FILE) env.ORACLE_BUILD_CA_FILE = hostCa;
  let summary = "";
  // Quiet (new-task --mine): build-images' stderr is kept, and its tail told only when it fails.
  let said = "";
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        bin,
        "--root",
        resolve(root),
        "--only",
        [...new Set(names)].join(","),
        "--lock-wait",
        String(lockWaitSeconds),
        "--json",
      ],
      { env, stdio: ["ignore", "pipe", options.quiet ? "pipe" : process.stderr], signal },
    );
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      said = (said + chunk).slice(-4000);
    });
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      summary += chunk;
    });
    child.on("error", fail);
    child.on("close", (c) => done(c));
  });
  if (code === 0) return;
  const logs = failedBuildLogs(summary);

  throw new OracleError(
    "BUILD_FAILED",
    code === 1
      ? `building the image (${names.join(", ")}) failed`
      : options.quiet
        ? `build-images could not run (exit ${code}): ${said.trim().split("\n").slice(-3).join(" / ")}`
        : `build-images could not run (exit ${code}): its error is printed above`,
    { hint: buildFailedHint(root, names, logs) },
  );
}

/**
 * What to do when an image did not build. A Node image installs its package-lock.json with `npm ci`,
 * which refuses a package.json edited without it (dayjs 99691c5, s24: the trimmed package.json failed
 * `npm ci` with its usage text): the hint says to lock again.
 */
export function buildFailedHint(root: string, names: readonly string[], logs: readonly string[]): string {
  if (logs.length === 0) return "fix what the error above names and run new-task again";
  const locked = [...new Set(names)].filter((name) =>
    existsSync(join(resolve(root), "images", name, "package-lock.json")),
  );
  const relock =
    locked.length > 0
      ? ` (after editing ${locked.map((n) => `images/${n}/package.json`).join(", ")}, run npm install --package-lock-only --ignore-scripts in ${locked.length === 1 ? "that folder" : "each folder"}: the image installs its package-lock.json with npm ci, which refuses a package.json it does not match)`
      : "";
  return `read the build log (${logs.join(", ")}), fix the image folder${relock} and run new-task again`;
}

/** The build logs of the images a build-images --json summary says failed (those it wrote). */
export function failedBuildLogs(summaryJson: string): string[] {
  try {
    const summary = JSON.parse(summaryJson) as { images?: Array<{ status?: string; logFile?: string }> };
    return (summary.images ?? [])
      .filter((image) => image.status === "failed" && typeof image.logFile === "string")
      .map((image) => image.logFile!);
  } catch {
    return [];
  }
}

/** Runs the sweep's checks on the new tasks: baseline and gold, `repeat` times; records the expected tests. */
export async function validateTasks(
  root: string,
  ids: readonly string[],
  repeat: number,
  signal: AbortSignal,
  options: { runIdSuffix?: string; quiet?: boolean } = {},
): Promise<SweepReport> {
  const local = await import("@oracle/grader/grade");
  const docker = connectDocker();
  const runId = `${sweepStamp(new Date())}-new-task${options.runIdSuffix ? `-${options.runIdSuffix}` : ""}`;
  const logger = createSweepLogger(sweepPaths(root, runId).sweepLog);
  const progress = options.quiet
    ? { stop() {} }
    : plainProgress((line) => process.stderr.write(`${printable(line)}\n`));
  try {
    return await sweep({
      root,
      runId,
      tasks: [...ids],
      repeat,
      grade: local.grade,
      logger,
      docker,
      engine: dockerEngine(docker),
      signal,
      progress,
    });
  } finally {
    progress.stop();
    await closeLogger(logger);
  }
}

/**
 * What a task's author reads: healthy with what was recorded, or each flag with what fixes it and the
 * commands that show its runs (a quarantined task is graded only with --allow-quarantined).
 * `sealRecord`: whether tasks/<id>/seals.recorded.json exists, for the line on the seals.
 */
export function describeTask(task: TaskReport, sealRecord?: boolean): string {
  const lines: string[] = [];
  const runs = task.runs.length;
  if (task.status === "healthy") {
    lines.push(
      `tasks/${task.id}: healthy (${runs} runs: the baseline FAILs on its hidden tests, gold.diff PASSes)`,
    );
  } else if (task.status === "infra-error") {
    lines.push(`tasks/${task.id}: not judged: the engine failed (${task.infra.messages.join("; ")})`);
  } else {
    lines.push(`tasks/${task.id}: NOT healthy (quarantined in tasks/quarantine.json):`);
    for (const reason of task.reasons) {
      lines.push(`  ${reason.flag}: ${reason.message}`);
      for (const e of reason.evidence.slice(0, 5)) lines.push(`    ${e}`);
      if (reason.hint) lines.push(`    fix: ${reason.hint}`);
    }
    lines.push(
      `  to see its runs: pnpm grade ${task.id} --baseline --allow-quarantined${task.hasGold ? `, pnpm grade ${task.id} --diff tasks/${task.id}/gold.diff --allow-quarantined` : ""} (a quarantined task is graded only with --allow-quarantined); the sweep's logs: pnpm oracle-log LOG`,
    );
  }
  lines.push(`  expected tests: ${task.expected}`);
  if (task.seals && task.seals.unsealed.length === 0)
    lines.push(`  sealed: ${task.seals.sealed} of ${task.seals.failToPass} FAIL_TO_PASS test(s) strong`);
  else if (task.seals)
    lines.push(
      `  sealed: ${task.seals.sealed} of ${task.seals.failToPass} FAIL_TO_PASS test(s) strong; no strong seal, by the rule of docs/security.md (Sealed expectations) that leaves each so: ${unsealedWithRules(task.seals).join(", ")}${task.seals.failToPass - task.seals.sealed > task.seals.unsealed.length ? ", …" : ""}`,
    );
  else if (sealRecord === false)
    lines.push(
      `  sealed: no seal record written (tasks/${task.id}/${SEAL_RECORD_FILE}): no run sealed a comparison of the hidden tests, so none of its FAIL_TO_PASS tests is sealed (docs/security.md, Sealed expectations)`,
    );
  else if (sealRecord === true)
    lines.push(
      `  sealed: tasks/${task.id}/${SEAL_RECORD_FILE} names no FAIL_TO_PASS test (none is known: the sweep records them from a healthy task's runs)`,
    );
  if (task.unprotected) lines.push("  unprotected: a run had no sentinel (see docs/security.md, Sentinels)");
  return lines.join("\n");
}
