import { formatError } from "@oracle/spec";
import { wantsHelp } from "./command-line.js";
import { EXIT, exitCodeFor, signalExitCode } from "./exit-codes.js";
import { invocationCwd } from "./invocation.js";
import { printable } from "./printable.js";
import { withRoot } from "./root-hints.js";
import { type SignalTrap, type TrapOptions, trapSignals } from "./signals.js";

/** Where a command was started from. */
export interface Invocation {
  /** Where relative paths on the command line start: the user's folder (see {@link invocationCwd}). */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** What a running command gets besides its options. */
export interface RunContext {
  /** Aborted at the first SIGINT/SIGTERM: stop, remove what was made, return or throw. */
  signal: AbortSignal;
  /** The signal that aborted {@link RunContext.signal}, if one did. */
  interruptedBy(): NodeJS.Signals | undefined;
  /** Where the command writes its output (the process's own, or a local grader's client: oracle-grade --serve). */
  io: Pick<CommandIo, "stdout" | "stderr">;
}

/**
 * One oracle command. {@link runCommand} runs it: `--help` on stdout (exit 0), argv parsed, signals
 * trapped, the run's exit code returned, and an error printed on stderr with its exit code.
 */
export interface Command<O> {
  /** As a user types it, e.g. `oracle-grade`; the hint of every usage error names it. */
  name: string;
  /** The root package.json script that runs it (`pnpm grade`): INIT_CWD counts only under it. */
  pnpmScript: string;
  /** The `--help` text. */
  help: string;
  /** argv to options; throws a USAGE error (see parseCommandLine) on a bad command line. */
  parse(argv: readonly string[], invocation: Invocation): O;
  /** Runs and returns the exit code of its outcome (0 or 1); deep errors are thrown. */
  run(options: O, context: RunContext): Promise<number>;
  /** The stderr line at the first signal (default `SIGINT: stopping…`). */
  stopping?: (signal: NodeJS.Signals) => string;
  /** The stderr line when the run throws after a signal: what was and was not written. */
  interrupted?: string;
  /**
   * The `--root DIR` the user gave, as an absolute path (undefined when the root was found from the
   * working folder): the printed error's hints then carry it ({@link withRoot}).
   */
  rootGiven?: (options: O) => string | undefined;
}

/** The process a command runs in; a test gives its own. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** How SIGINT and SIGTERM reach the run (default {@link trapSignals}: this process's own). */
  trap?: (options: TrapOptions) => SignalTrap;
}

/** Writes `text` and resolves once the stream took it (before an exit, nothing is lost). */
export function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((done) => stream.write(text, () => done()));
}

const withNewline = (text: string) => (text.endsWith("\n") ? text : `${text}\n`);

/**
 * Runs `command` on argv and returns its exit code (docs/reference.md, "Exit codes"): 0 for `--help`
 * (printed on stdout); the run's own code; 128+n when it throws after signal n; else the error on
 * stderr and {@link exitCodeFor} it. Only here is an error turned into an exit code.
 */
export async function runCommand<O>(
  command: Command<O>,
  argv: readonly string[],
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() },
): Promise<number> {
  if (wantsHelp(argv)) {
    await write(io.stdout, withNewline(command.help));
    return EXIT.OK;
  }
  let root: string | undefined;
  const trap = (io.trap ?? trapSignals)({
    stderr: io.stderr,
    ...(command.stopping ? { message: command.stopping } : {}),
  });
  try {
    const options = command.parse(argv, {
      cwd: invocationCwd(io.env, io.cwd, command.pnpmScript),
      env: io.env,
    });
    root = command.rootGiven?.(options);
    return await command.run(options, {
      signal: trap.signal,
      interruptedBy: trap.received,
      io: { stdout: io.stdout, stderr: io.stderr },
    });
  } catch (error) {
    const signal = trap.received();
    if (signal !== undefined) {
      if (command.interrupted) await write(io.stderr, withNewline(command.interrupted));
      return signalExitCode(signal);
    }
    // An error may quote a file, a report or a dataset row: shown, never obeyed by the terminal.
    await write(io.stderr, `${printable(withRoot(formatError(error), root))}\n`);
    return exitCodeFor(error);
  } finally {
    trap.dispose();
  }
}
