import { type Command, printable, type RunContext, withRoot } from "@oracle/cli-kit";
import { writeJsonAtomic } from "@oracle/spec";
import { loadSigningKey } from "../attest/keys.js";
import { signResult } from "../attest/result.js";
import { grade } from "../grade.js";
import type { GradeOptions } from "../grade-options.js";
import type { HumanLog } from "../log/oracle-log.js";
import { validationLine } from "../task/health.js";
import { type CliOptions, HELP, parseCliArgs } from "./cli-options.js";
import { failureOutput } from "./failure-output.js";

/** What grade prints on stderr: messages, failures and notes; a command a hint names carries the --root given. */
function humanLogger(root: string | undefined, stderr: NodeJS.WritableStream): HumanLog {
  const plain = !(stderr as { isTTY?: boolean }).isTTY;
  const line = (level: "info" | "warn", message: string) => {
    // A message quotes test ids, a report's text, a suite's output: shown inert (printable).
    const text = printable(withRoot(String(message), root));
    const shown =
      level === "info" || plain
        ? `${level === "info" ? "" : `${level}: `}${text}`
        : `\x1b[33m${level}:\x1b[0m ${text}`;
    stderr.write(`${shown}\n`);
  };
  return { info: (message) => line("info", message), warn: (message) => line("warn", message) };
}

/** What a local grader adds to a grade of its client's (serve/server.ts): the containers it made ahead. */
export type GradeExtras = (options: CliOptions) => Promise<Pick<GradeOptions, "warm" | "prepared">>;

async function gradeFromCli(
  options: CliOptions,
  { signal, io }: RunContext,
  extras?: GradeExtras,
): Promise<number> {
  const { stdout, stderr } = io;
  const result = await grade({
    ...(extras ? await extras(options) : {}),
    root: options.root,
    task: options.task,
    mode: options.mode,
    ...(options.diffPath ? { diff: { path: options.diffPath } } : {}),
    ...(options.logFile ? { logFile: options.logFile } : {}),
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined,
    signal,
    logger: humanLogger(options.rootGiven, stderr),
  });
  // The --result file is signed whole with the installation's key: oracle-verify checks it.
  if (options.resultFile) await writeJsonAtomic(options.resultFile, signResult(result, loadSigningKey()));
  stderr.write(printable(withRoot(failureOutput(result), options.rootGiven)));
  const note = validationLine(result.task, {
    state: result.validation ?? "never",
    changed: result.validationChanged ?? [],
  });
  if (note) stderr.write(`${withRoot(note, options.rootGiven)}\n`);
  stdout.write(`tests_hash=${result.testsHash}\n`);
  return result.verdict === "PASS" ? 0 : 1;
}

/** `oracle-grade TASK …`: one grade; exit codes in HELP. A local grader passes its `extras`. */
export const gradeCommandWith = (extras?: GradeExtras): Command<CliOptions> => ({
  name: "oracle-grade",
  pnpmScript: "grade",
  rootGiven: (options) => options.rootGiven,
  help: HELP,
  parse: (argv, at) => parseCliArgs(argv, at.cwd),
  run: (options, context) => gradeFromCli(options, context, extras),
  stopping: (signal) => `${signal}: stopping, removing the container`,
});

export const gradeCommand: Command<CliOptions> = gradeCommandWith();
