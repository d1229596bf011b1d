import { rm } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { isOracleBug } from "../judges/oracle-bug.js";
import type { RunLog } from "../log/oracle-log.js";
import { RunClosed, type RunOutcome, type RunScope } from "./run-scope.js";

/**
 * The clean-up's bounded waits, in ms: the kill of the containers, the wait for the steps to settle
 * (shorter when there are containers to remove) and each container's removal. Together they keep a
 * timed-out run within its limit + 10 s even when the engine hangs.
 */
export const CLEANUP_BOUNDS = { kill: 2500, settle: 2500, settleWithContainers: 1500, remove: 5000 };

/** The run's wall-clock limit and the caller's abort signal. */
export interface Limit {
  startedAt: Date;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** The clean-up's bounds (tests make them short). */
  bounds?: typeof CLEANUP_BOUNDS;
}

type Ending =
  | { kind: "done"; outcome: RunOutcome }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" }
  | { kind: "abort" };

/** `work`'s value, or undefined once `ms` passed without it settling (it goes on, unawaited). */
export async function within<T>(ms: number, work: Promise<T>): Promise<T | undefined> {
  const settled = new AbortController();
  try {
    // Not ref'd: a bound alone does not keep the grader alive.
    const expired = sleep(ms, undefined, { signal: settled.signal, ref: false }).catch(() => undefined);
    return await Promise.race([work, expired]);
  } finally {
    settled.abort();
  }
}

/** The first of: the work's end, the deadline, the caller's abort. */
async function firstEnding(work: Promise<RunOutcome>, limit: Limit): Promise<Ending> {
  const settled = new AbortController();
  const stop = limit.signal ? AbortSignal.any([settled.signal, limit.signal]) : settled.signal;
  const remaining = Math.max(0, limit.timeoutMs - (Date.now() - limit.startedAt.getTime()));
  // The deadline's timer keeps the grader alive until it fires, whatever the engine's sockets do.
  const deadline = sleep(remaining, "timeout" as const, { signal: stop }).catch(() => "abort" as const);
  try {
    return await Promise.race<Ending>([
      work.then(
        (outcome) => ({ kind: "done", outcome }),
        (error: unknown) => ({ kind: "error", error }),
      ),
      deadline.then((kind) => ({ kind })),
    ]);
  } finally {
    settled.abort();
  }
}

/** Bounded waits: the steps settle, each container is removed, the run folder goes. */
async function cleanUp(scope: RunScope, work: Promise<unknown>, log: RunLog, bounds: typeof CLEANUP_BOUNDS) {
  const settle = scope.containers.length > 0 ? bounds.settleWithContainers : bounds.settle;
  await within(
    settle,
    work.catch(() => undefined),
  );
  await Promise.all(
    scope.containers.map(async (container) => {
      const removed = await within(
        bounds.remove,
        container.remove().then(
          () => true,
          (error: Error) => {
            log.warn(`could not remove container ${container.id}: ${error.message}`);
            return false;
          },
        ),
      );
      log.event("container.removed", { id: container.id, removed: removed === true });
    }),
  );
  // A step that has not settled within its bound (planting the hidden files on a loaded machine) may
  // still write into the folder: rm then meets a folder that is not empty (ENOTEMPTY, seen when an
  // abort came while the sentinels were planned). It retries, and a folder it still cannot remove is
  // warned of, never put in place of the run's outcome or the abort's reason; a later grader removes
  // it (run-folder.ts removeOrphanRunDirs).
  if (scope.folder)
    await rm(scope.folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }).catch(
      (error: Error) => log.warn(`could not remove the run folder ${scope.folder}: ${error.message}`),
    );
}

/**
 * Runs `run` under the run's one wall-clock deadline and the caller's abort signal; whichever way it
 * ends, closes the scope, kills its containers (deadline, abort), removes them and the run folder.
 * Returns the run's outcome (TIMEOUT past the deadline, INFRA_ERROR when it threw); rejects with the
 * signal's reason when aborted, and with the oracle's own error when its judge failed (INTERNAL).
 */
export async function withinLimit(
  scope: RunScope,
  limit: Limit,
  log: RunLog,
  run: () => Promise<RunOutcome>,
): Promise<RunOutcome> {
  const bounds = limit.bounds ?? CLEANUP_BOUNDS;
  const work = run();
  const ending = await firstEnding(work, limit);
  scope.close();
  if (ending.kind === "timeout" || ending.kind === "abort") {
    const kills = scope.containers.map((container) => container.kill().catch(() => undefined));
    await within(bounds.kill, Promise.all(kills));
  }
  await cleanUp(scope, work, log, bounds);
  if (ending.kind === "abort") {
    log.warn("aborted: the container was removed");
    throw limit.signal?.reason ?? new Error("aborted");
  }
  // The oracle's own bug (a judge that threw: oracle-bug.ts) is no outcome of the run: not an
  // INFRA_ERROR to retry, not a FAIL of the diff. The grade rejects with it (INTERNAL, exit 3).
  if (ending.kind === "error" && isOracleBug(ending.error)) {
    log.warn(`no verdict: ${(ending.error as Error).message}`);
    throw ending.error;
  }
  return endingOutcome(ending, limit.timeoutMs);
}

function endingOutcome(ending: Exclude<Ending, { kind: "abort" }>, timeoutMs: number): RunOutcome {
  if (ending.kind === "done") return ending.outcome;
  if (ending.kind === "timeout")
    return {
      reason: "TIMEOUT",
      message: `the run passed its ${timeoutMs / 1000} s limit; the container was killed`,
    };
  if (ending.error instanceof RunClosed) return { reason: "INFRA_ERROR", message: "the run was closed" };
  return { reason: "INFRA_ERROR", message: engineFailureMessage(ending.error) };
}

/** The daemon gone (socket missing, refused, connection cut) says so; anything else is named as it is. */
export function engineFailureMessage(error: unknown): string {
  const text = (error as Error)?.message ?? String(error);
  const code = (error as NodeJS.ErrnoException)?.code ?? "";
  if (/ENOENT|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up/.test(`${code} ${text}`))
    return `engine or host failure: the Docker engine stopped answering mid-run (${text}); the container could not be removed, the next run removes it`;
  return `engine or host failure: ${text}`;
}
