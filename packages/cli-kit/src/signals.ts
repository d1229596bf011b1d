import { abortError } from "./abort.js";
import { signalExitCode } from "./exit-codes.js";

const TRAPPED = ["SIGINT", "SIGTERM"] as const;

/** SIGINT and SIGTERM turned into an AbortSignal; see {@link trapSignals}. */
export interface SignalTrap {
  /** Aborted, with an AbortError, at the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The first signal received, if one was. */
  received(): NodeJS.Signals | undefined;
  /** Removes the handlers: a later signal has its default effect again. */
  dispose(): void;
}

export interface TrapOptions {
  /** The line written to stderr at the first signal (default `SIGINT: stopping…`). */
  message?: (signal: NodeJS.Signals) => string;
  /** Where the lines go (default process.stderr). */
  stderr?: NodeJS.WritableStream;
}

/**
 * The first SIGINT or SIGTERM aborts the returned signal, so that the command stops what runs and
 * removes what it made (containers), then exits; a second one exits at once with 128 + its number,
 * for a user who would rather leave leftovers (found and removed by label later) than wait.
 */
export function trapSignals(options: TrapOptions = {}): SignalTrap {
  const stderr = options.stderr ?? process.stderr;
  const message = options.message ?? ((signal: NodeJS.Signals) => `${signal}: stopping…`);
  const controller = new AbortController();
  let first: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first !== undefined) {
      stderr.write(`\n${signal} again: exiting at once\n`);
      process.exit(signalExitCode(signal));
    }
    first = signal;
    stderr.write(`\n${message(signal)}\n`);
    controller.abort(abortError(`interrupted by ${signal}`));
  };
  for (const name of TRAPPED) process.on(name, onSignal);
  return {
    signal: controller.signal,
    received: () => first,
    dispose: () => {
      for (const name of TRAPPED) process.off(name, onSignal);
    },
  };
}
