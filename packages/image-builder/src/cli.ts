import { formatError, isOracleError } from "@oracle/spec";
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
  for (const changed of summary.newDigests) process.stderr.write(`${describeNewDigest(changed)}\n`);
}

async function runWatch(options: CliOptions, common: Parameters<typeof buildImages>[0]): Promise<number> {
  const controller = new AbortController();
  const stop = () => controller.abort(Object.assign(new Error("stopped"), { name: "AbortError" }));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const { watchImages } = await import("./watch.js");
  await watchImages({
    ...common,
    signal: controller.signal,
    onSummary: (summary) => printSummary(summary, options),
    onError: (error) => process.stderr.write(`${formatError(error)}\n`),
    onReady: () => process.stderr.write("watching images/ for changes (Ctrl-C to stop)\n"),
    onChange: (names) => process.stderr.write(`changed: ${names.join(", ")}\n`),
  });
  process.stderr.write("stopped watching\n");
  return 0;
}

/** The CLI: parses argv, runs, prints, and returns the exit code (0 ok, 1 a build failed, 2 usage). */
export async function main(argv: readonly string[]): Promise<number> {
  let options: CliOptions;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    process.stderr.write(`${formatError(error)}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const tty = Boolean(process.stderr.isTTY) && !process.env.CI;
  const common = {
    root: options.root,
    only: options.only,
    force: options.force,
    registry: options.registry,
    caFile: options.caFile,
    buildTimeoutMs: options.buildTimeoutMs,
    logger: createLogger(tty),
    reporter: createProgressReporter(process.stderr, tty),
  };
  try {
    if (options.watch) return await runWatch(options, common);
    const summary = await buildImages(common);
    printSummary(summary, options);
    return summary.ok ? 0 : 1;
  } catch (error) {
    process.stderr.write(`${formatError(error)}\n`);
    return isOracleError(error, "USAGE") ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
