import { constants } from "node:os";
import { type ErrorCode, isOracleError } from "@oracle/spec";

/**
 * The exit codes of every oracle command, documented once in docs/reference.md, "Exit codes". A command's
 * own outcome is 0 or 1; an error that stops it picks 2 or 3 by its code ({@link exitCodeFor}); a
 * signal that interrupts it gives 128 + the signal's number ({@link signalExitCode}).
 */
export const EXIT = {
  /** PASS, or the command did what it was asked. */
  OK: 0,
  /** FAIL, or the command ran and its outcome is negative (a build failed, a task is not healthy). */
  FAIL: 1,
  /** Nothing ran: the command line or an input (task, file, diff, log) is wrong. */
  USAGE: 2,
  /** Nothing ran, or not to the end: the engine or the host failed, or the oracle has a bug. */
  CANNOT_RUN: 3,
  /** The gate: the batches cannot decide (infrastructure noise, too few comparable tasks); regrade. */
  INCONCLUSIVE: 3,
} as const;

/**
 * Which exit code an error that stops a command gives: its input's fault (2) or not (3). A Record over
 * every code, so that a new error code cannot be added without deciding.
 */
const EXIT_BY_ERROR: Record<ErrorCode, typeof EXIT.USAGE | typeof EXIT.CANNOT_RUN> = {
  USAGE: EXIT.USAGE,
  TASK_INVALID: EXIT.USAGE,
  TASK_NOT_FOUND: EXIT.USAGE,
  TASK_QUARANTINED: EXIT.USAGE,
  FILE_INVALID: EXIT.USAGE,
  KEY_INVALID: EXIT.USAGE,
  RESULT_UNVERIFIED: EXIT.USAGE,
  BATCHES_DIFFER: EXIT.USAGE,
  IMAGE_INVALID: EXIT.USAGE,
  LOCKFILE_OUT_OF_SYNC: EXIT.USAGE,
  IMAGE_NOT_BUILT: EXIT.USAGE,
  DIFF_UNREADABLE: EXIT.USAGE,
  LOG_INVALID: EXIT.USAGE,
  BUILD_FAILED: EXIT.CANNOT_RUN,
  PUSH_FAILED: EXIT.CANNOT_RUN,
  REGISTRY_LOCKED: EXIT.CANNOT_RUN,
  DOCKER_UNAVAILABLE: EXIT.CANNOT_RUN,
  INFRA_ERROR: EXIT.CANNOT_RUN,
  INTERNAL: EXIT.CANNOT_RUN,
};

/** The exit code of a command stopped by `error`: 2 for a bad command line or input, 3 for anything else. */
export function exitCodeFor(error: unknown): typeof EXIT.USAGE | typeof EXIT.CANNOT_RUN {
  return isOracleError(error) ? EXIT_BY_ERROR[error.code] : EXIT.CANNOT_RUN;
}

/** 128 + the signal's number, as a shell reports a process the signal ended: SIGINT 130, SIGTERM 143. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}
