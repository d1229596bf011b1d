import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { GradeDocker } from "./docker.js";
import { removeLeftovers } from "./leftovers.js";

describe("removeLeftovers", () => {
  it("removes grade containers of dead graders on this host only", async () => {
    const removed: string[] = [];
    const deadPid = 2 ** 22 + 12345;
    const docker = {
      listContainers: async () => [
        { id: "dead", labels: { "dev.oracle.pid": String(deadPid), "dev.oracle.host": hostname() } },
        { id: "alive", labels: { "dev.oracle.pid": String(process.pid), "dev.oracle.host": hostname() } },
        { id: "elsewhere", labels: { "dev.oracle.pid": String(deadPid), "dev.oracle.host": "other-host" } },
      ],
      removeContainer: async (id: string) => {
        removed.push(id);
      },
    } as unknown as GradeDocker;
    expect(await removeLeftovers(docker)).toEqual(["dead"]);
    expect(removed).toEqual(["dead"]);
  });
});
