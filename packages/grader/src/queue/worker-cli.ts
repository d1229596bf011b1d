import { type Command, type RunContext, runCommand } from "@oracle/cli-kit";
import winston from "winston";
import { loadSigningKey } from "../attest/keys.js";
import { grade } from "../grade.js";
import { redactQueueUrl } from "./connection.js";
import { startWorker } from "./worker.js";
import { parseWorkerArgs, WORKER_HELP, type WorkerCliOptions } from "./worker-cli-options.js";

function workerLogger(): winston.Logger {
  return winston.createLogger({
    level: "info",
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.printf(
        ({ timestamp, level, message }) => `${timestamp} ${level === "info" ? "" : `${level}: `}${message}`,
      ),
    ),
    defaultMeta: { component: "grade" },
    transports: [new winston.transports.Console({ stderrLevels: ["error", "warn", "info", "debug"] })],
  });
}

/** Runs until the first signal, which closes the worker: exit 0. */
async function runWorker(options: WorkerCliOptions, { signal }: RunContext): Promise<number> {
  const logger = workerLogger();
  const signingKey = loadSigningKey();
  const worker = await startWorker({ ...options, grade, logger, signingKey });
  logger.info(
    `worker ${worker.name}: queue ${redactQueueUrl(options.queueUrl)}, concurrency ${options.concurrency}, root ${options.root}`,
  );
  // An enqueuer on another host counts these answers only with this key in its trust list.
  logger.info(
    `signing answers with key ${signingKey.keyid.slice(0, 12)} (${signingKey.file}); enqueuers elsewhere need its public half: oracle-key > worker.pem, then --trust-key worker.pem`,
  );
  const close = () => void worker.close();
  if (signal.aborted) close();
  else signal.addEventListener("abort", close, { once: true });
  await worker.closed;
  logger.info("worker stopped");
  return 0;
}

/** The oracle-worker command. Runs until SIGINT/SIGTERM. */
export const workerCommand: Command<WorkerCliOptions> = {
  name: "oracle-worker",
  pnpmScript: "oracle-worker",
  help: WORKER_HELP,
  parse: (argv, at) => parseWorkerArgs(argv, at.cwd),
  run: runWorker,
  stopping: (signal) =>
    `${new Date().toISOString()} ${signal}: stopping; running grades are aborted and their jobs put back`,
};

/** Runs `oracle-worker …` and returns its exit code. */
export function main(argv: readonly string[]): Promise<number> {
  return runCommand(workerCommand, argv);
}
