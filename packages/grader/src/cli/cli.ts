import { runCommand } from "@oracle/cli-kit";
import { isBatchInvocation } from "../batch/cli-options.js";
import { isServeInvocation } from "../serve/serve-options.js";
import { gradeCommand } from "./grade-command.js";

export { gradeCommand, gradeCommandWith } from "./grade-command.js";

/**
 * The oracle-grade command: one grade, or `--batch`. The bin exits with the code returned at once,
 * without waiting for idle sockets: everything is written by then (the log and the result are closed).
 */
export async function main(argv: readonly string[]): Promise<number> {
  if (isServeInvocation(argv)) {
    // A long-running local grader for this root: the bin's client reaches it (serve/server.ts).
    const { serveMain } = await import("../serve/server.js");
    return serveMain(argv);
  }
  if (isBatchInvocation(argv)) {
    // Loaded only for --batch: the queue client is heavy and a single grade must start fast.
    const { batchMain } = await import("../batch/cli.js");
    return batchMain(argv);
  }
  return runCommand(gradeCommand, argv);
}
