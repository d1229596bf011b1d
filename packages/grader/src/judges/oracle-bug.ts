import { isOracleError, OracleError } from "@oracle/spec";

/**
 * The host's judgement of a run (the report read, the sentinels checked, the seals' records held to
 * their expected values, the expected tests) is the oracle's own code over what the run collected:
 * an exception there is a bug in the oracle. It is neither the engine's fault (INFRA_ERROR, which a
 * batch and the sweep retry and count apart) nor the diff's (a FAIL): the grade ends with the error
 * INTERNAL (exit 3) and no verdict, and its log says where the judge failed.
 */
export function judging<T>(what: string, judge: () => T): T {
  try {
    return judge();
  } catch (error) {
    throw judgeBug(what, error);
  }
}

/** `error`, thrown while judging `what`, as the oracle's own error (an OracleError stays as it is). */
export function judgeBug(what: string, error: unknown): OracleError {
  if (isOracleError(error)) return error;
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new OracleError("INTERNAL", `the oracle failed while judging ${what}: ${text}`, {
    hint: "a bug in the oracle, not the diff's nor the engine's: report it with the run's log (pnpm oracle-log LOG)",
    cause: error,
  });
}

/** Whether a run's failure is the oracle's own bug (INTERNAL), which no run's outcome may stand for. */
export const isOracleBug = (error: unknown): boolean => isOracleError(error, "INTERNAL");
