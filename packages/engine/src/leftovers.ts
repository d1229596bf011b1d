import { OracleError } from "@oracle/spec";
import type { Engine } from "./engine.js";
import { LABEL, labelFilter, PROJECT } from "./labels.js";
import { isAlive, pidNamespace } from "./lease.js";
import { DOCKER_UNAVAILABLE_HINT } from "./ping.js";
import { raceSignal } from "./signals.js";

/** What the leftover rule asks of the engine. */
export type LeftoverEngine = Pick<Engine, "listContainers" | "removeContainer">;

/** The bound of one look-up and removal: the grader waits for it before it makes its container. */
export const LEFTOVERS_TIMEOUT_MS = 15_000;

/** The containers the rule looks at, found by these labels: the grader's, and nothing else. */
export const GRADE_CONTAINERS: readonly string[] = [
  labelFilter(LABEL.project, PROJECT),
  labelFilter(LABEL.component, "grade"),
];

export interface LeftoverOptions {
  /** The clock the deadlines are read against (default `Date.now`). */
  now?: () => number;
  /**
   * Every run this process started has ended (a sweep after its grades settled): a container that
   * names this very process is then a leftover too. Default false: this process may be using it.
   */
  ownRunsEnded?: boolean;
  /** Bound of the whole look-up and removal (default {@link LEFTOVERS_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/**
 * Why a grade container is a leftover of a dead run, or null when a grader may still be using it.
 * Certain in three cases only: its deadline has passed; or its grader ran in this very PID namespace
 * (same boot, same namespace) and that PID is gone; or its grader is this process and the caller
 * says all its runs have ended. A PID of another namespace says nothing (the same number may be a
 * live grader there, whatever the hostname), and a container without a deadline label (made before
 * leases) is left alone.
 */
export function leftoverReason(
  labels: Record<string, string>,
  now: number,
  options: Pick<LeftoverOptions, "ownRunsEnded"> = {},
): string | null {
  const deadline = Number(labels[LABEL.deadline]);
  if (Number.isFinite(deadline) && deadline > 0 && now > deadline) return "its deadline has passed";
  const pid = Number(labels[LABEL.pid]);
  const ns = pidNamespace();
  if (ns === null || labels[LABEL.pidns] !== ns || !Number.isInteger(pid) || pid <= 0) return null;
  if (pid === process.pid) return options.ownRunsEnded ? "its run has ended" : null;
  return isAlive(pid) ? null : "its grader is gone";
}

/**
 * Removes the grade containers that no grader can still be using ({@link leftoverReason}): those of
 * killed or crashed graders, at once in the same PID namespace, by their deadline anywhere else. Only
 * containers carrying the grader's labels ({@link GRADE_CONTAINERS}) are looked at. One the engine
 * refuses to remove is left for the next time. Returns the ids removed; fails with
 * DOCKER_UNAVAILABLE when the engine has not listed and removed them within the bound.
 */
export async function removeLeftovers(
  engine: LeftoverEngine,
  options: LeftoverOptions = {},
): Promise<string[]> {
  const { now = Date.now, timeoutMs = LEFTOVERS_TIMEOUT_MS } = options;
  const signal = AbortSignal.timeout(timeoutMs);
  const removed: string[] = [];
  try {
    const found = await raceSignal(engine.listContainers([...GRADE_CONTAINERS], signal), signal);
    for (const container of found) {
      if (leftoverReason(container.labels, now(), options) === null) continue;
      const gone = await raceSignal(engine.removeContainer(container.id, signal), signal).then(
        () => true,
        (error: unknown) => {
          if (signal.aborted) throw error;
          return false;
        },
      );
      if (gone) removed.push(container.id);
    }
    return removed;
  } catch (cause) {
    if (!signal.aborted) throw cause;
    throw new OracleError(
      "DOCKER_UNAVAILABLE",
      `the Docker engine did not list and remove leftover containers within ${timeoutMs / 1000} s (${removed.length} removed)`,
      { cause, hint: DOCKER_UNAVAILABLE_HINT },
    );
  }
}
