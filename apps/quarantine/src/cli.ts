import { resolve } from "node:path";
import { connectDocker, type Dockerode, dockerEngine } from "@oracle/engine";
import { formatError, isOracleError } from "@oracle/spec";
import { type CliOptions, parseCliArgs, USAGE } from "./args.js";
import { closeLogger, createSweepLogger } from "./logger.js";
import { type ProgressDisplay, plainProgress, ttyProgress } from "./progress.js";
import { reportFiles } from "./report-files.js";
import { sweep, sweepPaths, sweepStamp } from "./sweep.js";
import type { GradeFn, SweepReport } from "./types.js";

/** The exit codes, in one place. */
export const EXIT = { OK: 0, NEW_QUARANTINE: 1, USAGE: 2, CANNOT_RUN: 3, INTERRUPTED: 130 } as const;

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((done) => stream.write(text, () => done()));
}

function chooseProgress(): ProgressDisplay {
  const tty = process.stderr.isTTY && !process.env.CI;
  return tty ? ttyProgress(process.stderr) : plainProgress((line) => process.stderr.write(`${line}\n`));
}

function summary(report: SweepReport): string {
  const c = report.counts;
  const files = reportFiles(report.reportDir);
  const lines = [
    `swept ${c.tasks} tasks (${c.runs} runs): ${c.healthy} healthy, ${c.quarantined} quarantined, ${c.infraError} infra errors`,
  ];
  if (report.newlyQuarantined.length > 0)
    lines.push(`newly quarantined: ${report.newlyQuarantined.join(", ")}`);
  if (report.released.length > 0) lines.push(`released: ${report.released.join(", ")}`);
  if (report.removed.length > 0)
    lines.push(`dropped from the list (task gone): ${report.removed.join(", ")}`);
  lines.push(`reports: ${files.html}`, `         ${files.markdown}`, `         ${files.json}`);
  return `${lines.join("\n")}\n`;
}

/** Ctrl-C (or SIGTERM) aborts the sweep; a second one exits at once. Returns the uninstaller. */
function trapSignals(controller: AbortController): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED);
    process.stderr.write(`\n${signal}: stopping every running grade and removing its container…\n`);
    controller.abort(new DOMException(`interrupted by ${signal}`, "AbortError"));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}

interface Runner {
  grade: GradeFn;
  docker: Dockerode;
}

async function loadRunner(options: CliOptions): Promise<Runner> {
  // Loaded here, not at the top, so that --help and usage errors work even without a built grader;
  // the queue client (BullMQ) only with --queue: @oracle/grader/grade starts in half the time.
  const grade: GradeFn = options.queue
    ? (await import("@oracle/grader")).queueGrade(options.queue)
    : (await import("@oracle/grader/grade")).grade;
  return { grade, docker: connectDocker() };
}

/** One sweep, interrupted by `signal`: its report, or the abort reason thrown once nothing runs. */
async function sweepOnce(options: CliOptions, runner: Runner, signal: AbortSignal): Promise<SweepReport> {
  const root = resolve(options.root);
  const runId = sweepStamp(new Date());
  const logger = createSweepLogger(sweepPaths(root, runId).sweepLog);
  const progress = chooseProgress();
  try {
    return await sweep({
      root,
      runId,
      tasks: options.tasks,
      changed: options.changed || options.watch,
      repeat: options.repeat,
      infraRetries: options.infraRetries,
      grade: runner.grade,
      logger,
      docker: runner.docker,
      // With --queue the grades and their containers are on the workers' hosts, not here.
      engine: options.queue ? undefined : dockerEngine(runner.docker),
      signal,
      progress,
      ...(options.concurrency ? { concurrency: options.concurrency } : {}),
      ...(options.report ? { reportDir: resolve(options.report) } : {}),
    });
  } finally {
    progress.stop();
    await closeLogger(logger);
  }
}

const INTERRUPTED_LINE =
  "interrupted: no grade is left running; tasks/quarantine.json and the reports were not written\n";

async function runSweep(options: CliOptions): Promise<number> {
  const runner = await loadRunner(options);
  const controller = new AbortController();
  const untrap = trapSignals(controller);
  try {
    const report = await sweepOnce(options, runner, controller.signal);
    await write(process.stdout, options.json ? `${JSON.stringify(report, null, 2)}\n` : summary(report));
    return options.failOnNew && report.newlyQuarantined.length > 0 ? EXIT.NEW_QUARANTINE : EXIT.OK;
  } catch (error) {
    if (controller.signal.aborted) {
      await write(process.stderr, INTERRUPTED_LINE);
      return EXIT.INTERRUPTED;
    }
    throw error;
  } finally {
    untrap();
  }
}

/**
 * --watch: a --changed sweep now and after each change of a task folder or images/registry.json, one
 * report per pass; a pass that fails is reported and watching goes on. Ctrl-C interrupts the running
 * pass (its grades stopped, nothing written) and stops: exit 0.
 */
async function runWatch(options: CliOptions): Promise<number> {
  const runner = await loadRunner(options);
  const controller = new AbortController();
  const untrap = trapSignals(controller);
  const { describeChanges, watchSweeps } = await import("./watch.js");
  try {
    await watchSweeps({
      root: resolve(options.root),
      signal: controller.signal,
      onReady: () =>
        process.stderr.write("watching tasks/ and images/registry.json for changes (Ctrl-C to stop)\n"),
      onChange: (changes) => process.stderr.write(`changed: ${describeChanges(changes)}\n`),
      pass: async () => {
        try {
          const report = await sweepOnce(options, runner, controller.signal);
          await write(process.stdout, options.json ? `${JSON.stringify(report)}\n` : summary(report));
        } catch (error) {
          if (controller.signal.aborted) await write(process.stderr, INTERRUPTED_LINE);
          else await write(process.stderr, `${formatError(error)}\n`);
        }
      },
    });
  } finally {
    untrap();
  }
  await write(process.stderr, "stopped watching\n");
  return EXIT.OK;
}

/** The command: argv in, exit code out. Only here are errors turned into exit codes. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    const parsed = parseCliArgs(argv);
    if (parsed.help) {
      await write(process.stdout, USAGE);
      return EXIT.OK;
    }
    return await (parsed.options.watch ? runWatch(parsed.options) : runSweep(parsed.options));
  } catch (error) {
    await write(process.stderr, `${formatError(error)}\n`);
    const usage = isOracleError(error, "USAGE") || isOracleError(error, "FILE_INVALID");
    return usage ? EXIT.USAGE : EXIT.CANNOT_RUN;
  }
}

process.exit(await main(process.argv.slice(2)));
