import { resolve } from "node:path";
import { type Command, type CommandLineSpec, parseCommandLine, runCommand, write } from "@oracle/cli-kit";
import { z } from "zod";
import { HEAD_LINES, TAIL_LINES } from "./coalesce.js";
import { addEvent, emptyView, MAX_TESTS_SHOWN } from "./log-view.js";
import { readRunLog } from "./read-log.js";
import { renderRun } from "./render.js";

export const LOG_HELP = `Usage: oracle-log FILE
       pnpm oracle-log FILE

Prints an oracle log (the JSON-lines file grade writes under logs/grade/) for people: the run's
task, image and sentinel; what the diff filter dropped; each step with its timing; each suite's
command, its output joined into lines (the first ${HEAD_LINES} and last ${TAIL_LINES} lines of each stream), its exit
and its tests (at most ${MAX_TESTS_SHOWN} per suite); warnings; and the verdict with its tests_hash.

Options:
  -h, --help   show this help

Exit codes: 0 printed, 2 bad arguments or a file that is missing, unreadable or not an oracle log,
3 a bug.`;

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const LOG_LINE = {
  command: "oracle-log",
  flags: {},
  positionals: { field: "file", name: "FILE" },
  schema: z.strictObject({ file: z.string({ error: "name the log file" }).min(1, "name the log file") }),
} satisfies CommandLineSpec<z.ZodType>;

/** The oracle-log command line: one file, resolved against `cwd`. */
export function parseLogArgs(argv: readonly string[], cwd: string): { file: string } {
  return { file: resolve(cwd, parseCommandLine(LOG_LINE, argv).file) };
}

/** Reads `file` and returns the account. */
export async function viewLog(file: string): Promise<string> {
  const view = emptyView();
  const summary = await readRunLog(file, (event) => addEvent(view, event));
  view.badLines = summary.badLines;
  return renderRun(view, file);
}

/** The oracle-log command: exit 0 printed, 2 a bad command line or file. */
export const logCommand: Command<{ file: string }> = {
  name: "oracle-log",
  pnpmScript: "oracle-log",
  help: LOG_HELP,
  parse: (argv, at) => parseLogArgs(argv, at.cwd),
  run: async ({ file }) => {
    await write(process.stdout, await viewLog(file));
    return 0;
  },
};

/** Runs `oracle-log …` and returns its exit code. */
export function main(argv: readonly string[]): Promise<number> {
  return runCommand(logCommand, argv);
}
