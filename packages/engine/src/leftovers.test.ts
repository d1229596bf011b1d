import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { ContainerFound } from "./engine.js";
import { gradeLabels, LABEL } from "./labels.js";
import { pidNamespace } from "./lease.js";
import { GRADE_CONTAINERS, type LeftoverEngine, leftoverReason, removeLeftovers } from "./leftovers.js";

const NOW = Date.UTC(2026, 0, 1);
const deadPid = 2 ** 22 + 12345;
const ns = pidNamespace();
const future = String(NOW + 60_000);
const past = String(NOW - 1);
const { pid: PID, pidns: PIDNS, deadline: DEADLINE, host: HOST } = LABEL;

/** An engine holding `containers`; `refuse` ids fail to be removed, `hang` makes every call hang. */
function fakeEngine(containers: ContainerFound[], behaviour: { refuse?: string[]; hang?: boolean } = {}) {
  const removed: string[] = [];
  const asked: string[][] = [];
  const hang = new Promise<never>(() => undefined);
  const engine: LeftoverEngine = {
    listContainers: async (labels) => {
      asked.push(labels);
      return behaviour.hang ? hang : containers;
    },
    removeContainer: async (id) => {
      if (behaviour.refuse?.includes(id)) throw Object.assign(new Error("refused"), { statusCode: 500 });
      removed.push(id);
    },
  };
  return { engine, removed, asked };
}

describe("leftoverReason", () => {
  it("a container past its deadline is a leftover, whoever made it", () => {
    const labels = {
      [PID]: String(process.pid),
      [PIDNS]: ns!,
      [DEADLINE]: past,
    };
    expect(leftoverReason(labels, NOW)).toBe("its deadline has passed");
    expect(leftoverReason({ [DEADLINE]: past, [HOST]: "elsewhere" }, NOW)).not.toBeNull();
  });

  it("before its deadline: a leftover only when its grader's PID is gone from this very PID namespace", () => {
    const mine = { [PIDNS]: ns!, [DEADLINE]: future };
    expect(leftoverReason({ ...mine, [PID]: String(deadPid) }, NOW)).toBe("its grader is gone");
    expect(leftoverReason({ ...mine, [PID]: String(process.pid) }, NOW)).toBeNull();
  });

  it("this process's own container is a leftover only once the caller says all its runs have ended", () => {
    const own = { [PIDNS]: ns!, [DEADLINE]: future, [PID]: String(process.pid) };
    expect(leftoverReason(own, NOW, { ownRunsEnded: true })).toBe("its run has ended");
    expect(leftoverReason({ ...own, [PIDNS]: "other-boot.1" }, NOW, { ownRunsEnded: true })).toBeNull();
  });

  it("a grader of another PID namespace with the same hostname keeps its containers until the deadline", () => {
    // What the PID check got wrong: the PID names no process here, but the grader lives in its own namespace.
    const labels = {
      [PID]: String(deadPid),
      [HOST]: hostname(),
      [PIDNS]: `${ns!.split(".")[0]}.1`,
      [DEADLINE]: future,
    };
    expect(leftoverReason(labels, NOW)).toBeNull();
    expect(leftoverReason({ ...labels, [PIDNS]: `other-boot.${ns!.split(".")[1]}` }, NOW)).toBeNull();
  });

  it("a container without a lease (made before leases) or with a malformed one is left alone", () => {
    expect(leftoverReason({ [PID]: String(deadPid), [HOST]: hostname() }, NOW)).toBeNull();
    expect(leftoverReason({ [DEADLINE]: "soon", [PIDNS]: ns! }, NOW)).toBeNull();
  });

  it("a PID in this namespace that exits becomes a leftover's", () => {
    const child = spawnSync("true");
    const mine = {
      [PIDNS]: ns!,
      [DEADLINE]: future,
      [PID]: String(child.pid),
    };
    expect(child.status).toBe(0);
    expect(leftoverReason(mine, NOW)).toBe("its grader is gone");
  });
});

describe("removeLeftovers", () => {
  const dead = { id: "dead", labels: { [PID]: String(deadPid), [PIDNS]: ns!, [DEADLINE]: future } };
  const alive = { id: "alive", labels: gradeLabels("r", "t", new Date(NOW + 1000)) };
  const otherNs = { id: "other-ns", labels: { [PID]: String(deadPid), [PIDNS]: "x.1", [DEADLINE]: future } };
  const expired = { id: "expired", labels: { [PID]: String(deadPid), [PIDNS]: "x.1", [DEADLINE]: past } };

  it("removes only the leftovers among the grader's containers, found by the project's labels", async () => {
    const { engine, removed, asked } = fakeEngine([dead, alive, otherNs, expired]);
    expect(await removeLeftovers(engine, { now: () => NOW })).toEqual(["dead", "expired"]);
    expect(removed).toEqual(["dead", "expired"]);
    expect(asked).toEqual([["dev.oracle.project=oracle", "dev.oracle.component=grade"]]);
    expect(GRADE_CONTAINERS).toEqual(asked[0]);
  });

  it("once this process's runs have ended, its own containers are leftovers too", async () => {
    const { engine } = fakeEngine([dead, alive, otherNs]);
    expect(await removeLeftovers(engine, { now: () => NOW, ownRunsEnded: true })).toEqual(["dead", "alive"]);
  });

  it("a container the engine refuses to remove is left for next time; the others still go", async () => {
    const { engine, removed } = fakeEngine([dead, expired], { refuse: ["dead"] });
    expect(await removeLeftovers(engine, { now: () => NOW })).toEqual(["expired"]);
    expect(removed).toEqual(["expired"]);
  });

  it("an engine that does not answer fails with DOCKER_UNAVAILABLE within the bound", async () => {
    const { engine } = fakeEngine([dead], { hang: true });
    const started = Date.now();
    await expect(removeLeftovers(engine, { now: () => NOW, timeoutMs: 50 })).rejects.toMatchObject({
      code: "DOCKER_UNAVAILABLE",
      message: expect.stringContaining("within 0.05 s"),
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
