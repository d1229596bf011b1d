import { OracleError } from "@oracle/spec";
import type Docker from "dockerode";

/** The little the sweep itself asks of the Docker engine; the grader does the rest. */
export interface SweepEngine {
  /** Throws DOCKER_UNAVAILABLE when the engine does not answer. */
  ping(): Promise<void>;
  /** Force-removes containers this process created that are still there; returns their ids. */
  removeLeftovers(): Promise<string[]>;
}

/** The engine behind dockerode. Leftovers are found by the labels the grader puts on its containers. */
export function dockerEngine(docker: Docker, pid: number = process.pid): SweepEngine {
  return {
    async ping() {
      try {
        await docker.ping();
      } catch (cause) {
        throw new OracleError(
          "DOCKER_UNAVAILABLE",
          `the Docker engine does not answer (${(cause as Error).message})`,
          {
            hint: "start it with: bash scripts/setup.sh",
            cause,
          },
        );
      }
    },
    async removeLeftovers() {
      const label = ["dev.oracle.project=oracle", `dev.oracle.pid=${pid}`];
      const containers = await docker.listContainers({ all: true, filters: { label } });
      for (const info of containers) {
        await docker
          .getContainer(info.Id)
          .remove({ force: true, v: true })
          .catch((error: { statusCode?: number }) => {
            if (error.statusCode !== 404 && error.statusCode !== 409) throw error;
          });
      }
      return containers.map((info) => info.Id);
    },
  };
}
