// A command run in a child process by signals.test.ts: it says "ready" on stdout, waits for the
// trap's abort, and then either cleans up and throws the abort reason (argv[2] "cleanup") or never
// finishes its clean-up ("stuck"), so that only a second signal can end it.
import { runCommand } from "../run-command.js";

const code = await runCommand(
  {
    name: "trap-child",
    pnpmScript: "trap-child",
    help: "Usage: trap-child (cleanup | stuck)",
    parse: (argv) => argv[0] ?? "cleanup",
    stopping: (signal) => `${signal}: stopping the child`,
    interrupted: "interrupted: cleaned up",
    run: async (mode, { signal }) => {
      const keepAlive = setInterval(() => undefined, 1 << 30);
      const aborted = new Promise((done) => signal.addEventListener("abort", done, { once: true }));
      process.stdout.write("ready\n");
      await aborted;
      if (mode === "stuck") await new Promise(() => undefined);
      clearInterval(keepAlive);
      const reason = signal.reason as Error;
      process.stdout.write(`cleaned up after ${reason.name}: ${reason.message}\n`);
      throw reason;
    },
  },
  process.argv.slice(2),
);
process.exit(code);
