import { formatError, isOracleError } from "@oracle/spec";
import { invocationCwd } from "../cli-options.js";
import { grade } from "../grade.js";
import type { BatchExecutor } from "../prediction/executor.js";
import { queueExecutor } from "../queue/queue-executor.js";
import { BATCH_HELP, type BatchCliOptions, parseBatchArgs } from "./cli-options.js";
import { localExecutor } from "./executor.js";
import { type BatchOutcome, gradeBatch } from "./grade-batch.js";
import { type BatchProgress, plainBatchProgress, ttyBatchProgress } from "./progress.js";
import { renderSummary } from "./summary.js";

const warn = (message: string) => process.stderr.write(`warn: ${message}\n`);

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
  if (options.queueUrl) return queueExecutor({ queueUrl: options.queueUrl, warn, ...shared });
  return localExecutor({ root: options.root, grade, concurrency: options.concurrency, ...shared });
}

function report(outcome: BatchOutcome, json: boolean): void {
  process.stderr.write(`${renderSummary(outcome.summary)}\n`);
  process.stderr.write(`results: ${outcome.resultsFile}\nsummary: ${outcome.summaryFile}\n`);
  process.stderr.write(`SWE-bench report: ${outcome.sweBenchReportFile}\n`);
  if (json)
    process.stdout.write(`${JSON.stringify({ batchId: outcome.batchId, ...outcome.summary }, null, 2)}\n`);
}

/** Exit code of a finished batch: 0 when every prediction is graded or quarantined, else 1. */
export function batchExitCode(outcome: BatchOutcome): number {
  const s = outcome.summary;
  return s.missing === 0 && s.infraErrors.count === 0 && s.errors.count === 0 ? 0 : 1;
}

/** `oracle-grade --batch …`: exit codes as in BATCH_HELP. */
export async function batchMain(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  let signalled: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = signal;
    process.stderr.write(`\n${signal}: stopping the running grades and removing their containers…\n`);
    controller.abort(Object.assign(new Error(`interrupted by ${signal}`), { name: "AbortError" }));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    if (argv.includes("--help") || argv.includes("-h")) {
      process.stderr.write(`${BATCH_HELP}\n`);
      return 0;
    }
    const options = parseBatchArgs(argv, invocationCwd(process.env, process.cwd()));
    const progress = chooseProgress();
    const outcome = await gradeBatch({
      root: options.root,
      predictionsFile: options.predictionsFile,
      ...(options.outDir ? { outDir: options.outDir } : {}),
      executor: executorFor(options),
      cache: options.cache,
      ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
      allowQuarantined: options.allowQuarantined,
      allowUnvalidated: options.allowUnvalidated,
      signal: controller.signal,
      onEvent: (event) => progress.onEvent(event),
    });
    progress.finish();
    report(outcome, options.json);
    if (outcome.interrupted) {
      process.stderr.write("interrupted: results so far are kept; rerun with the same --out to resume\n");
      return signalled === "SIGTERM" ? 143 : 130;
    }
    return batchExitCode(outcome);
  } catch (error) {
    process.stderr.write(`${formatError(error)}\n`);
    return isOracleError(error) && error.code !== "INTERNAL" && error.code !== "INFRA_ERROR" ? 2 : 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
