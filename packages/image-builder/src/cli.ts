import { type Command, type RunContext, runCommand, withRoot } from "@oracle/cli-kit";
import { formatError } from "@oracle/spec";
import winston from "winston";
import { type BuildSummary, buildImages } from "./build-images.js";
import { type CliOptions, HELP, parseCliArgs } from "./cli-options.js";
import { createProgressReporter, describeSummary } from "./progress.js";
import { describeNewDigest } from "./stale-tasks.js";

function createLogger(tty: boolean): winston.Logger {
  const level = process.env.ORACLE_LOG_LEVEL ?? "warn";
  const format = tty
    ? winston.format.combine(winston.format.colorize(), winston.format.simple())
    : winston.format.combine(winston.format.timestamp(), winston.format.json());
  const stderrLevels = ["error", "warn", "info", "http", "verbose", "debug", "silly"];
  return winston.createLogger({
    level,
    format,
    transports: [new winston.transports.Console({ stderrLevels })],
  });
}

function printSummary(summary: BuildSummary, options: CliOptions): void {
  if (options.json) process.stdout.write(`${JSON.stringify(summary, null, options.watch ? undefined : 2)}\n`);
  process.stderr.write(`${describeSummary(summary)}\n`);
  for (const changed of summary.newDigests)
    process.stderr.write(`${withRoot(describeNewDigest(changed), options.rootGiven)}\n`);
}

/** --watch: rebuilds as images/ changes until Ctrl-C, which ends it with exit 0. */
async function runWatch(
  options: CliOptions,
  common: Parameters<typeof buildImages>[0],
  signal: AbortSignal,
): Promise<number> {
  const { watchImages } = await import("./watch.js");
  await watchImages({
    ...common,
    signal,
    onSummary: (summary) => printSummary(summary, options),
    onError: (error) => process.stderr.write(`${formatError(error)}\n`),
    onReady: () => process.stderr.write("watching images/ for changes (Ctrl-C to stop)\n"),
    onChange: (names) => process.stderr.write(`changed: ${names.join(", ")}\n`),
  });
  process.stderr.write("stopped watching\n");
  return 0;
}

async function runBuild(options: CliOptions, { signal }: RunContext): Promise<number> {
  const tty = Boolean(process.stderr.isTTY) && !process.env.CI;
  const common = {
    root: options.root,
    only: options.only,
    force: options.force,
    registry: options.registry,
    caFile: options.caFile,
    buildTimeoutMs: options.buildTimeoutMs,
    lockWaitMs: options.lockWaitMs,
    onLockWait: (holder: string, waitMs: number) =>
      process.stderr.write(
        `waiting for images/registry.json: another build-images run holds its lock (${holder}); waiting up to ${Math.round(waitMs / 1000)} s (--lock-wait)\n`,
      ),
    logger: createLogger(tty),
    reporter: createProgressReporter(process.stderr, tty),
  };
  if (options.watch) return runWatch(options, common, signal);
  const summary = await buildImages({ ...common, signal });
  printSummary(summary, options);
  return summary.ok ? 0 : 1;
}

/** The oracle-build-images command; exit codes in HELP. */
export const buildImagesCommand: Command<CliOptions> = {
  name: "oracle-build-images",
  pnpmScript: "build-images",
  rootGiven: (options) => options.rootGiven,
  help: HELP,
  parse: (argv, at) => parseCliArgs(argv, at.env, at.cwd),
  run: runBuild,
  stopping: (signal) => `${signal}: stopping the build`,
  interrupted: "interrupted: the images built before are recorded",
};

/** Runs `oracle-build-images …` and returns its exit code. */
export function main(argv: readonly string[]): Promise<number> {
  return runCommand(buildImagesCommand, argv);
}
