import { formatError, isOracleError } from "@oracle/spec";
import winston from "winston";
import { grade } from "../grade.js";
import { redactQueueUrl } from "./connection.js";
import { startWorker } from "./worker.js";
import { parseWorkerArgs, WORKER_HELP } from "./worker-cli-options.js";

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

/** The oracle-worker command. Runs until SIGINT/SIGTERM. */
export async function workerMain(argv: readonly string[]): Promise<number> {
  try {
    const options = parseWorkerArgs(
      argv,
      process.env.INIT_CWD && process.env.npm_lifecycle_event === "oracle-worker"
        ? process.env.INIT_CWD
        : process.cwd(),
    );
    if (options.help) {
      process.stderr.write(`${WORKER_HELP}\n`);
      return 0;
    }
    const logger = workerLogger();
    const worker = await startWorker({ ...options, grade, logger });
    logger.info(
      `worker ${worker.name}: queue ${redactQueueUrl(options.queueUrl)}, concurrency ${options.concurrency}, root ${options.root}`,
    );
    const stop = (signal: NodeJS.Signals) => {
      logger.info(`${signal}: stopping; running grades are aborted and their jobs put back`);
      void worker.close();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    await worker.closed;
    logger.info("worker stopped");
    return 0;
  } catch (error) {
    process.stderr.write(`${formatError(error)}\n`);
    return isOracleError(error, "USAGE") ? 2 : 1;
  }
}

const code = await workerMain(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), 2000).unref();
