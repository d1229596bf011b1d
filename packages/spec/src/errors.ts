import { z } from "zod";

/**
 * The closed catalogue of error codes. A code never changes meaning once used; docs/reference.md lists them.
 * Deep code throws an {@link OracleError}; only a CLI entry turns it into a message and an exit code.
 */
export const ERROR_CODES = {
  USAGE: "The command line is wrong: an unknown flag, a missing argument, a bad value.",
  TASK_INVALID: "A task file is missing, unreadable or does not match the task schema.",
  TASK_NOT_FOUND: "No task folder of that id under the root's tasks/.",
  TASK_QUARANTINED: "The task is on tasks/quarantine.json; grading it needs --allow-quarantined.",
  FILE_INVALID: "A file the oracle reads (registry, quarantine list, predictions) does not match its schema.",
  IMAGE_INVALID: "An images/<name>/ folder has no Dockerfile or an unusable lockfile.",
  LOCKFILE_OUT_OF_SYNC: "An npm package-lock.json does not match its package.json.",
  IMAGE_NOT_BUILT: "The task's image has no recorded digest, or the record is stale or gone.",
  BUILD_FAILED: "docker build failed; the message names the step.",
  PUSH_FAILED: "Pushing an image to the registry failed.",
  REGISTRY_LOCKED: "Another build-images run holds images/registry.json.",
  DOCKER_UNAVAILABLE: "The Docker engine does not answer.",
  DIFF_UNREADABLE: "The diff file cannot be read.",
  LOG_INVALID: "A file given to oracle-log is missing, unreadable or not an oracle log.",
  KEY_INVALID: "A signing or public key file is unreadable, not PEM, or not ed25519.",
  RESULT_UNVERIFIED:
    "A result line the gate reads is unsigned, signed by a key it does not trust, changed after signing, or signed for another batch.",
  BATCHES_DIFFER:
    "The gate's two batches graded a task on different inputs (task content, image digest, grader version or limit).",
  INFRA_ERROR: "The engine or the host failed during a run; not the diff's fault.",
  INTERNAL: "A bug in the oracle. Please report it with the log.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ErrorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

export interface OracleErrorOptions {
  /** What the user can do about it. */
  hint?: string;
  cause?: unknown;
}

/**
 * Marks every OracleError, whichever copy of this module made it: the bundled oracle-grade CLI carries
 * its own copy, and errors also come from the packages it leaves out, so `instanceof` would miss them.
 */
const ORACLE_ERROR = Symbol.for("@oracle/spec:OracleError");

/** An error with a stable code, a message that says what happened, and a hint that says what to do. */
export class OracleError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  declare readonly [ORACLE_ERROR]: true;

  constructor(code: ErrorCode, message: string, options: OracleErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "OracleError";
    this.code = code;
    this.hint = options.hint;
  }
}
Object.defineProperty(OracleError.prototype, ORACLE_ERROR, { value: true });

/** Whether `error` is an OracleError (of `code`, when given), also one made by another copy of this module. */
export function isOracleError(error: unknown, code?: ErrorCode): error is OracleError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Partial<OracleError>)[ORACLE_ERROR] === true &&
    (code === undefined || (error as OracleError).code === code)
  );
}

/** One or more lines for a person: `error CODE: message` and, when there is one, `hint: ...`. */
export function formatError(error: unknown): string {
  if (isOracleError(error)) {
    const lines = [`error ${error.code}: ${error.message}`];
    if (error.hint) lines.push(`hint: ${error.hint}`);
    return lines.join("\n");
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return `error INTERNAL: ${message}`;
}
