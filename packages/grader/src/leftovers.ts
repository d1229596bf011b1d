import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import type { GradeDocker } from "./docker.js";

/**
 * How long after a run's wall-clock limit its container is certainly a leftover. The grader kills
 * and removes its container within about 10 s of the limit (supervise.ts's bounded waits); the rest
 * is room for a loaded host and for clocks of graders sharing one engine that disagree a little.
 */
export const LEASE_GRACE_MS = 60_000;

let namespace: string | null | undefined;
/**
 * This process's PID namespace, named so that no other live namespace on any host has the same name:
 * the kernel's boot id and the namespace's inode (unique among live namespaces of one kernel).
 * Null where /proc does not tell.
 */
export function pidNamespace(): string | null {
  if (namespace === undefined) {
    try {
      const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
      const ns = readlinkSync("/proc/self/ns/pid");
      namespace = /^pid:\[\d+\]$/.test(ns) && boot ? `${boot}.${ns.slice(5, -1)}` : null;
    } catch {
      namespace = null;
    }
  }
  return namespace;
}

/**
 * Labels every grade container carries: the run, and its lease. `dev.oracle.deadline` (epoch ms)
 * is when the run is certainly over: its wall-clock limit plus {@link LEASE_GRACE_MS}.
 * `dev.oracle.pid` and `dev.oracle.pidns` name the grader, so that a grader of the same PID
 * namespace can tell at once that it died.
 */
export function gradeLabels(runId: string, task: string, deadline: Date): Record<string, string> {
  const ns = pidNamespace();
  return {
    "dev.oracle.project": "oracle",
    "dev.oracle.component": "grade",
    "dev.oracle.run": runId,
    "dev.oracle.task": task,
    "dev.oracle.pid": String(process.pid),
    "dev.oracle.host": hostname(),
    "dev.oracle.deadline": String(deadline.getTime()),
    ...(ns ? { "dev.oracle.pidns": ns } : {}),
  };
}

/** The deadline label of a run that started at `startedAt` with a `timeoutMs` limit. */
export const leaseDeadline = (startedAt: Date, timeoutMs: number): Date =>
  new Date(startedAt.getTime() + timeoutMs + LEASE_GRACE_MS);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Why a grade container is a leftover, or null when its grader may still be using it. Certain in
 * two cases only: its deadline has passed, or its grader ran in this very PID namespace (same boot,
 * same namespace) and that PID is gone. A PID in another namespace says nothing (the same number may
 * be a live grader there, whatever the hostname), and a container without a deadline label (made
 * before leases) is left alone.
 */
export function leftoverReason(labels: Record<string, string>, now: number): string | null {
  const deadline = Number(labels["dev.oracle.deadline"]);
  if (Number.isFinite(deadline) && deadline > 0 && now > deadline) return "its deadline has passed";
  const pid = Number(labels["dev.oracle.pid"]);
  const ns = pidNamespace();
  if (ns === null || labels["dev.oracle.pidns"] !== ns || !Number.isInteger(pid) || pid <= 0) return null;
  return isAlive(pid) ? null : "its grader is gone";
}

/**
 * Removes grade containers that no grader can still be using ({@link leftoverReason}): killed or
 * crashed graders' containers, at once in the same PID namespace, by their deadline anywhere else.
 * Returns the ids removed.
 */
export async function removeLeftovers(docker: GradeDocker, now: () => number = Date.now): Promise<string[]> {
  const found = await docker.listContainers(["dev.oracle.project=oracle", "dev.oracle.component=grade"]);
  const removed: string[] = [];
  for (const container of found) {
    if (leftoverReason(container.labels, now()) === null) continue;
    await docker.removeContainer(container.id).catch(() => undefined);
    removed.push(container.id);
  }
  return removed;
}
