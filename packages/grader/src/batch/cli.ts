import {
  type Command,
  printable,
  type RunContext,
  runCommand,
  signalExitCode,
  withRoot,
} from "@oracle/cli-kit";
import { grade } from "../grade.js";
import type { BatchExecutor } from "../prediction/executor.js";
import { queueExecutor } from "../queue/queue-executor.js";
import { BATCH_HELP, type BatchCliOptions, parseBatchArgs } from "./cli-options.js";
import { localExecutor } from "./executor.js";
import { type BatchOutcome, gradeBatch } from "./grade-batch.js";
import { type BatchProgress, plainBatchProgress, ttyBatchProgress } from "./progress.js";
import { renderSummary } from "./summary.js";

const warn = (message: string) => process.stderr.write(`warn: ${printable(message)}\n`);

function chooseProgress(): BatchProgress {
  return process.stderr.isTTY && !process.env.CI
    ? ttyBatchProgress(process.stderr)
    : plainBatchProgress((line) => process.stderr.write(`${line}\n`));
}

function executorFor(options: BatchCliOptions): BatchExecutor {
  const shared = {
    infraRetries: options.infraRetries,
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined,
  };
  if (options.queueUrl)
    return queueExecutor({ queueUrl: options.queueUrl, warn, trustKeys: options.trustKeys, ...shared });
  return localExecutor({
    root: options.root,
    grade,
    concurrency: options.concurrency,
    pool: options.pool,
    warn,
    ...shared,
  });
}

function report(outcome: BatchOutcome, options: BatchCliOptions): void {
  process.stderr.write(`${printable(withRoot(renderSummary(outcome.summary), options.rootGiven))}\n`);
  process.stderr.write(`results: ${outcome.resultsFile}\nsummary: ${outcome.summaryFile}\n`);
  process.stderr.write(`SWE-bench report: ${outcome.sweBenchReportFile}\n`);
  if (options.json)
    process.stdout.write(`${JSON.stringify({ batchId: outcome.batchId, ...outcome.summary }, null, 2)}\n`);
}

/** Exit code of a finished batch: 0 when every prediction is graded or quarantined, else 1. */
export function batchExitCode(outcome: BatchOutcome): number {
  const s = outcome.summary;
  return s.missing === 0 && s.infraErrors.count === 0 && s.errors.count === 0 ? 0 : 1;
}

async function runBatch(options: BatchCliOptions, context: RunContext): Promise<number> {
  const progress = chooseProgress();
  const outcome = await gradeBatch({
    root: options.root,
    predictionsFile: options.predictionsFile,
    ...(options.outDir ? { outDir: options.outDir } : {}),
    executor: executorFor(options),
    cache: options.cache,
    trustKeys: options.trustKeys,
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined,
    allowUnvalidated: options.allowUnvalidated,
    signal: context.signal,
    onEvent: (event) => progress.onEvent(event),
  });
  progress.finish();
  report(outcome, options);
  if (outcome.interrupted) {
    process.stderr.write("interrupted: results so far are kept; rerun with the same --out to resume\n");
    return signalExitCode(context.interruptedBy() ?? "SIGINT");
  }
  return batchExitCode(outcome);
}

/** `oracle-grade --batch …`: exit codes as in BATCH_HELP. */
export const batchCommand: Command<BatchCliOptions> = {
  name: "oracle-grade --batch",
  pnpmScript: "grade",
  help: BATCH_HELP,
  parse: (argv, at) => parseBatchArgs(argv, at.cwd),
  run: runBatch,
  rootGiven: (options) => options.rootGiven,
  stopping: (signal) => `${signal}: stopping the running grades and removing their containers…`,
};

/** Runs `oracle-grade --batch …` and returns its exit code. */
export function batchMain(argv: readonly string[]): Promise<number> {
  return runCommand(batchCommand, argv);
}
