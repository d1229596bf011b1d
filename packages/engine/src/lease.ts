import { readFileSync, readlinkSync } from "node:fs";

/**
 * How long after a run's wall-clock limit its container is certainly a leftover. The grader kills
 * and removes its container within about 10 s of the limit (its bounded waits); the rest is room for
 * a loaded host and for clocks of graders sharing one engine that disagree a little.
 */
export const LEASE_GRACE_MS = 60_000;

/** The deadline label of a run that started at `startedAt` with a `timeoutMs` limit. */
export const leaseDeadline = (startedAt: Date, timeoutMs: number): Date =>
  new Date(startedAt.getTime() + timeoutMs + LEASE_GRACE_MS);

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

/** Whether a process of this PID namespace has `pid` (EPERM: it does, and belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
