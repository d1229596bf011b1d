import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { GradeDocker } from "./docker.js";
import {
  gradeLabels,
  LEASE_GRACE_MS,
  leaseDeadline,
  leftoverReason,
  pidNamespace,
  removeLeftovers,
} from "./leftovers.js";

const NOW = Date.UTC(2026, 0, 1);
const deadPid = 2 ** 22 + 12345;
const ns = pidNamespace();
const future = String(NOW + 60_000);
const past = String(NOW - 1);

const fakeDocker = (containers: Array<{ id: string; labels: Record<string, string> }>) => {
  const removed: string[] = [];
  const docker = {
    listContainers: async () => containers,
    removeContainer: async (id: string) => {
      removed.push(id);
    },
  } as unknown as GradeDocker;
  return { docker, removed };
};

describe("gradeLabels", () => {
  it("names the run, the grader and its PID namespace, and the lease's deadline", () => {
    const labels = gradeLabels("run-1", "task-a", leaseDeadline(new Date(NOW), 40_000));
    expect(labels).toMatchObject({
      "dev.oracle.run": "run-1",
      "dev.oracle.task": "task-a",
      "dev.oracle.pid": String(process.pid),
      "dev.oracle.deadline": String(NOW + 40_000 + LEASE_GRACE_MS),
    });
    expect(ns).toMatch(/^[0-9a-f-]{36}\.\d+$/);
    expect(labels["dev.oracle.pidns"]).toBe(ns);
  });
});

describe("leftoverReason", () => {
  it("a container past its deadline is a leftover, whoever made it", () => {
    const labels = {
      "dev.oracle.pid": String(process.pid),
      "dev.oracle.pidns": ns!,
      "dev.oracle.deadline": past,
    };
    expect(leftoverReason(labels, NOW)).toBe("its deadline has passed");
    expect(
      leftoverReason({ "dev.oracle.deadline": past, "dev.oracle.host": "elsewhere" }, NOW),
    ).not.toBeNull();
  });

  it("before its deadline: a leftover only when its grader's PID is gone from this very PID namespace", () => {
    const mine = { "dev.oracle.pidns": ns!, "dev.oracle.deadline": future };
    expect(leftoverReason({ ...mine, "dev.oracle.pid": String(deadPid) }, NOW)).toBe("its grader is gone");
    expect(leftoverReason({ ...mine, "dev.oracle.pid": String(process.pid) }, NOW)).toBeNull();
  });

  it("a grader of another PID namespace with the same hostname keeps its containers until the deadline", () => {
    // What the PID check got wrong: the PID names no process here, but the grader lives in its own namespace.
    const labels = {
      "dev.oracle.pid": String(deadPid),
      "dev.oracle.host": hostname(),
      "dev.oracle.pidns": `${ns!.split(".")[0]}.1`,
      "dev.oracle.deadline": future,
    };
    expect(leftoverReason(labels, NOW)).toBeNull();
    expect(
      leftoverReason({ ...labels, "dev.oracle.pidns": `other-boot.${ns!.split(".")[1]}` }, NOW),
    ).toBeNull();
  });

  it("a container without a lease (made before leases) or with a malformed one is left alone", () => {
    expect(
      leftoverReason({ "dev.oracle.pid": String(deadPid), "dev.oracle.host": hostname() }, NOW),
    ).toBeNull();
    expect(leftoverReason({ "dev.oracle.deadline": "soon", "dev.oracle.pidns": ns! }, NOW)).toBeNull();
  });

  it("a PID in this namespace that exits becomes a leftover's", () => {
    const child = spawnSync("true");
    const mine = {
      "dev.oracle.pidns": ns!,
      "dev.oracle.deadline": future,
      "dev.oracle.pid": String(child.pid),
    };
    expect(child.status).toBe(0);
    expect(leftoverReason(mine, NOW)).toBe("its grader is gone");
  });
});

describe("removeLeftovers", () => {
  it("removes only the leftovers, by the engine's list", async () => {
    const { docker, removed } = fakeDocker([
      {
        id: "dead",
        labels: { "dev.oracle.pid": String(deadPid), "dev.oracle.pidns": ns!, "dev.oracle.deadline": future },
      },
      { id: "alive", labels: gradeLabels("r", "t", new Date(NOW + 1000)) },
      {
        id: "other-ns",
        labels: {
          "dev.oracle.pid": String(deadPid),
          "dev.oracle.pidns": "x.1",
          "dev.oracle.deadline": future,
        },
      },
      {
        id: "expired",
        labels: { "dev.oracle.pid": String(deadPid), "dev.oracle.pidns": "x.1", "dev.oracle.deadline": past },
      },
    ]);
    expect(await removeLeftovers(docker, () => NOW)).toEqual(["dead", "expired"]);
    expect(removed).toEqual(["dead", "expired"]);
  });
});
