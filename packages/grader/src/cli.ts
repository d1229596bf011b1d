import { formatError, isOracleError, writeJsonAtomic } from "@oracle/spec";
import winston from "winston";
import { isBatchInvocation } from "./batch/cli-options.js";
import { type CliOptions, HELP, invocationCwd, parseCliArgs } from "./cli-options.js";
import { failureOutput } from "./failure-output.js";
import { grade } from "./grade.js";
import { validationLine } from "./health.js";

function humanLogger(): winston.Logger {
  const plain = !process.stderr.isTTY;
  return winston.createLogger({
    level: "info",
    format: winston.format.printf(({ level, message }) =>
      level === "info" || plain
        ? `${level === "info" ? "" : `${level}: `}${message}`
        : `\x1b[33m${level}:\x1b[0m ${message}`,
    ),
    transports: [new winston.transports.Console({ stderrLevels: ["error", "warn", "info", "debug"] })],
  });
}

async function gradeFromCli(options: CliOptions, signal: AbortSignal): Promise<number> {
  const result = await grade({
    root: options.root,
    task: options.task,
    mode: options.mode,
    ...(options.diffPath ? { diff: { path: options.diffPath } } : {}),
    ...(options.logFile ? { logFile: options.logFile } : {}),
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined,
    signal,
    logger: humanLogger(),
  });
  if (options.resultFile) await writeJsonAtomic(options.resultFile, result);
  process.stderr.write(failureOutput(result));
  const note = validationLine(result.task, {
    state: result.validation ?? "never",
    changed: result.validationChanged ?? [],
  });
  if (note) process.stderr.write(`${note}\n`);
  process.stdout.write(`tests_hash=${result.testsHash}\n`);
  return result.verdict === "PASS" ? 0 : 1;
}

/** The oracle-grade command: exit 0 PASS, 1 FAIL, 2 no run, 128+n on SIGINT/SIGTERM. */
export async function main(argv: readonly string[]): Promise<number> {
  if (isBatchInvocation(argv)) {
    // Loaded only for --batch: the queue client is heavy and a single grade must start fast.
    const { batchMain } = await import("./batch/cli.js");
    return batchMain(argv);
  }
  const controller = new AbortController();
  let signalled: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = signal;
    process.stderr.write(`${signal}: stopping, removing the container\n`);
    controller.abort(Object.assign(new Error(`interrupted by ${signal}`), { name: "AbortError" }));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const options = parseCliArgs(argv, invocationCwd(process.env, process.cwd()));
    if (options.help) {
      process.stderr.write(`${HELP}\n`);
      return 0;
    }
    return await gradeFromCli(options, controller.signal);
  } catch (error) {
    if (signalled) return signalled === "SIGINT" ? 130 : 143;
    process.stderr.write(`${formatError(error)}\n`);
    return isOracleError(error) && error.code !== "INTERNAL" && error.code !== "INFRA_ERROR" ? 2 : 1;
  }
}

const code = await main(process.argv.slice(2));
// Everything is written by now (stdout and stderr are synchronous on pipes and files here, the log
// and the result are closed): exit at once rather than wait for idle sockets to close.
process.exit(code);
