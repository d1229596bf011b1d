import { type Command, printable, type RunContext, runCommand, withRoot } from "@oracle/cli-kit";
import { writeJsonAtomic } from "@oracle/spec";
import { loadSigningKey } from "../attest/keys.js";
import { signResult } from "../attest/result.js";
import { isBatchInvocation } from "../batch/cli-options.js";
import { grade } from "../grade.js";
import type { HumanLog } from "../log/oracle-log.js";
import { validationLine } from "../task/health.js";
import { type CliOptions, HELP, parseCliArgs } from "./cli-options.js";
import { failureOutput } from "./failure-output.js";

/** What grade prints on stderr: messages, failures and notes; a command a hint names carries the --root given. */
function humanLogger(root: string | undefined): HumanLog {
  const plain = !process.stderr.isTTY;
  const line = (level: "info" | "warn", message: string) => {
    // A message quotes test ids, a report's text, a suite's output: shown inert (printable).
    const text = printable(withRoot(String(message), root));
    const shown =
      level === "info" || plain
        ? `${level === "info" ? "" : `${level}: `}${text}`
        : `\x1b[33m${level}:\x1b[0m ${text}`;
    process.stderr.write(`${shown}\n`);
  };
  return { info: (message) => line("info", message), warn: (message) => line("warn", message) };
}

async function gradeFromCli(options: CliOptions, { signal }: RunContext): Promise<number> {
  const result = await grade({
    root: options.root,
    task: options.task,
    mode: options.mode,
    ...(options.diffPath ? { diff: { path: options.diffPath } } : {}),
    ...(options.logFile ? { logFile: options.logFile } : {}),
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined,
    signal,
    logger: humanLogger(options.rootGiven),
  });
  // The --result file is signed whole with the installation's key: oracle-verify checks it.
  if (options.resultFile) await writeJsonAtomic(options.resultFile, signResult(result, loadSigningKey()));
  process.stderr.write(printable(withRoot(failureOutput(result), options.rootGiven)));
  const note = validationLine(result.task, {
    state: result.validation ?? "never",
    changed: result.validationChanged ?? [],
  });
  if (note) process.stderr.write(`${withRoot(note, options.rootGiven)}\n`);
  process.stdout.write(`tests_hash=${result.testsHash}\n`);
  return result.verdict === "PASS" ? 0 : 1;
}

/** `oracle-grade TASK …`: one grade; exit codes in HELP. */
export const gradeCommand: Command<CliOptions> = {
  name: "oracle-grade",
  pnpmScript: "grade",
  rootGiven: (options) => options.rootGiven,
  help: HELP,
  parse: (argv, at) => parseCliArgs(argv, at.cwd),
  run: gradeFromCli,
  stopping: (signal) => `${signal}: stopping, removing the container`,
};

/**
 * The oracle-grade command: one grade, or `--batch`. The bin exits with the code returned at once,
 * without waiting for idle sockets: everything is written by then (the log and the result are closed).
 */
export async function main(argv: readonly string[]): Promise<number> {
  if (isBatchInvocation(argv)) {
    // Loaded only for --batch: the queue client is heavy and a single grade must start fast.
    const { batchMain } = await import("../batch/cli.js");
    return batchMain(argv);
  }
  return runCommand(gradeCommand, argv);
}
