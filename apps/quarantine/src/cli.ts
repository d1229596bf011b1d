import { type Command, EXIT, printable, type RunContext, runCommand, write } from "@oracle/cli-kit";
import { connectDocker, type Dockerode, dockerEngine } from "@oracle/engine";
import { formatError } from "@oracle/spec";
import { type CliOptions, HELP, parseCliArgs } from "./args.js";
import { closeLogger, createSweepLogger } from "./logger.js";
import { type ProgressDisplay, plainProgress, ttyProgress } from "./progress.js";
import { reportFiles } from "./report-files.js";
import { ruleCounts } from "./seals.js";
import { sweep, sweepPaths, sweepStamp } from "./sweep.js";
import type { GradeFn, SweepReport } from "./types.js";

function chooseProgress(): ProgressDisplay {
  const tty = process.stderr.isTTY && !process.env.CI;
  return tty
    ? ttyProgress(process.stderr)
    : plainProgress((line) => process.stderr.write(`${printable(line)}\n`));
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
  if (c.unsealedByRule)
    lines.push(
      `FAIL_TO_PASS tests with no strong seal, by rule (docs/security.md, Sealed expectations): ${ruleCounts(c.unsealedByRule)}`,
    );
  const resealed = report.staleSealRecords ?? [];
  if (resealed.length > 0)
    lines.push(
      `re-swept because their seal record was made for another seal plan (the oracle changed since): ${resealed.length} (${resealed.join(", ")})`,
    );
  lines.push(`reports: ${files.html}`, `         ${files.markdown}`, `         ${files.json}`);
  return `${printable(lines.join("\n"))}\n`;
}

interface Runner {
  grade: GradeFn;
  docker: Dockerode;
}

async function loadRunner(options: CliOptions): Promise<Runner> {
  // Loaded here, not at the top, so that --help and usage errors work even without a built grader;
  // the queue client (BullMQ) only with --queue: @oracle/grader/grade starts in half the time.
  const grade: GradeFn = options.queue
    ? (await import("@oracle/grader")).queueGrade(options.queue, { trustKeys: options.trustKey })
    : (await import("@oracle/grader/grade")).grade;
  return { grade, docker: connectDocker() };
}

/** One sweep, interrupted by `signal`: its report, or the abort reason thrown once nothing runs. */
async function sweepOnce(options: CliOptions, runner: Runner, signal: AbortSignal): Promise<SweepReport> {
  const root = options.root;
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
      ...(options.report ? { reportDir: options.report } : {}),
    });
  } finally {
    progress.stop();
    await closeLogger(logger);
  }
}

const INTERRUPTED_LINE =
  "interrupted: no grade is left running; tasks/quarantine.json and the reports were not written\n";

async function runSweep(options: CliOptions, { signal }: RunContext): Promise<number> {
  const runner = await loadRunner(options);
  const report = await sweepOnce(options, runner, signal);
  await write(process.stdout, options.json ? `${JSON.stringify(report, null, 2)}\n` : summary(report));
  return options.failOnNew && report.newlyQuarantined.length > 0 ? EXIT.FAIL : EXIT.OK;
}

/**
 * --watch: a --changed sweep now and after each change of a task folder or images/registry.json, one
 * report per pass; a pass that fails is reported and watching goes on. Ctrl-C interrupts the running
 * pass (its grades stopped, nothing written) and stops: exit 0.
 */
async function runWatch(options: CliOptions, { signal }: RunContext): Promise<number> {
  const runner = await loadRunner(options);
  const { describeChanges, watchSweeps } = await import("./watch.js");
  await watchSweeps({
    root: options.root,
    signal,
    onReady: () =>
      process.stderr.write("watching tasks/ and images/registry.json for changes (Ctrl-C to stop)\n"),
    onChange: (changes) => process.stderr.write(`changed: ${describeChanges(changes)}\n`),
    pass: async () => {
      try {
        const report = await sweepOnce(options, runner, signal);
        await write(process.stdout, options.json ? `${JSON.stringify(report)}\n` : summary(report));
      } catch (error) {
        if (signal.aborted) await write(process.stderr, INTERRUPTED_LINE);
        else await write(process.stderr, `${formatError(error)}\n`);
      }
    },
  });
  await write(process.stderr, "stopped watching\n");
  return EXIT.OK;
}

/** The oracle-quarantine-sweep command; exit codes in HELP. */
export const sweepCommand: Command<CliOptions> = {
  name: "oracle-quarantine-sweep",
  pnpmScript: "quarantine-sweep",
  rootGiven: (options) => options.rootGiven,
  help: HELP,
  parse: (argv, at) => parseCliArgs(argv, at.cwd),
  run: (options, context) => (options.watch ? runWatch(options, context) : runSweep(options, context)),
  stopping: (signal) => `${signal}: stopping every running grade and removing its container…`,
  interrupted: INTERRUPTED_LINE,
};

/** Runs `oracle-quarantine-sweep …` and returns its exit code. */
export function main(argv: readonly string[]): Promise<number> {
  return runCommand(sweepCommand, argv);
}
