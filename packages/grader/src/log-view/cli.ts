import { parseArgs } from "node:util";
import { formatError, isOracleError, OracleError } from "@oracle/spec";
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

Exit codes: 0 printed, 2 bad arguments or a file that is missing, unreadable or not an oracle log.`;

/** The oracle-log command line: one file, or --help. */
export function parseLogArgs(argv: readonly string[]): { help: true } | { help: false; file: string } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { help: { type: "boolean", short: "h" } },
      allowPositionals: true,
    });
  } catch (cause) {
    throw new OracleError("USAGE", (cause as Error).message, { hint: "see oracle-log --help" });
  }
  if (parsed.values.help) return { help: true };
  const [file, ...rest] = parsed.positionals;
  if (!file || rest.length > 0)
    throw new OracleError("USAGE", file ? "give one log file" : "name the log file", {
      hint: "see oracle-log --help",
    });
  return { help: false, file };
}

/** Reads `file` and returns the account. */
export async function viewLog(file: string): Promise<string> {
  const view = emptyView();
  const summary = await readRunLog(file, (event) => addEvent(view, event));
  view.badLines = summary.badLines;
  return renderRun(view, file);
}

/** The oracle-log command: exit 0 printed, 2 otherwise. */
export async function logMain(argv: readonly string[]): Promise<number> {
  try {
    const options = parseLogArgs(argv);
    if (options.help) {
      process.stdout.write(`${LOG_HELP}\n`);
      return 0;
    }
    process.stdout.write(await viewLog(options.file));
    return 0;
  } catch (error) {
    process.stderr.write(`${formatError(error)}\n`);
    return isOracleError(error) ? 2 : 70;
  }
}
