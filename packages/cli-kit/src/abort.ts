/**
 * The project's one kind of AbortError: the platform's own (`DOMException` named "AbortError"), the
 * kind `AbortSignal.abort()`, fetch and `node:timers/promises` throw, so that one check knows them all.
 */
export function abortError(message: string): DOMException {
  return new DOMException(message, "AbortError");
}

/** Whether `error` is an AbortError: ours, the platform's, or one from a library that names its error so. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}
