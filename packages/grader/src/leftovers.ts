import { hostname } from "node:os";
import type { GradeDocker } from "./docker.js";

/** Labels every grade container carries. */
export function gradeLabels(runId: string, task: string): Record<string, string> {
  return {
    "dev.oracle.project": "oracle",
    "dev.oracle.component": "grade",
    "dev.oracle.run": runId,
    "dev.oracle.task": task,
    "dev.oracle.pid": String(process.pid),
    "dev.oracle.host": hostname(),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes grade containers left by graders that no longer run on this host (killed, crashed):
 * those whose `dev.oracle.pid` names no live process. Containers of live graders are untouched.
 * Returns the ids removed.
 */
export async function removeLeftovers(docker: GradeDocker): Promise<string[]> {
  const found = await docker.listContainers(["dev.oracle.project=oracle", "dev.oracle.component=grade"]);
  const removed: string[] = [];
  for (const container of found) {
    const pid = Number(container.labels["dev.oracle.pid"]);
    if (container.labels["dev.oracle.host"] !== hostname()) continue;
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
    await docker.removeContainer(container.id).catch(() => undefined);
    removed.push(container.id);
  }
  return removed;
}
