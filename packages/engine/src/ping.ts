import { OracleError } from "@oracle/spec";
import type { Dockerode } from "./load.js";
import { raceSignal } from "./signals.js";

/** How long the engine has to answer a ping: a frozen daemon must not hang a command at its start. */
export const PING_TIMEOUT_MS = 15_000;

/** What to do when the engine does not answer; the one hint every command gives. */
export const DOCKER_UNAVAILABLE_HINT =
  "start it (bash scripts/setup.sh on the oracle machine) or set DOCKER_HOST";

/**
 * Resolves when the engine answers; fails with DOCKER_UNAVAILABLE (the engine's own error as the
 * cause, and how to start it as the hint) when it does not, or not within {@link PING_TIMEOUT_MS}.
 */
export async function pingEngine(
  docker: Pick<Dockerode, "ping">,
  timeoutMs = PING_TIMEOUT_MS,
): Promise<void> {
  try {
    await raceSignal(docker.ping(), AbortSignal.timeout(timeoutMs));
  } catch (cause) {
    const why =
      cause instanceof DOMException && cause.name === "TimeoutError"
        ? `no answer within ${timeoutMs / 1000} s`
        : (cause as Error).message;
    throw new OracleError("DOCKER_UNAVAILABLE", `the Docker engine does not answer (${why})`, {
      cause,
      hint: DOCKER_UNAVAILABLE_HINT,
    });
  }
}
