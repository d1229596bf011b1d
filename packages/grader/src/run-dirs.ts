import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "oracle-grade-";

/**
 * A run's host folder (the diff and the hidden tests each suite's container mounts), named after
 * the grader's pid so that a later grader can tell a dead grader's folder from a live one's.
 */
export function makeRunTempDir(parent = tmpdir()): Promise<string> {
  return mkdtemp(join(parent, `${PREFIX}${process.pid}-`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Folders of no pid (an older grader's naming) are removed only past this age; far beyond any run's limit. */
const UNNAMED_AGE_MS = 2 * 24 * 3600 * 1000;

/**
 * Removes the run folders a grader killed mid-run (SIGKILL, OOM, power loss) left behind: those of
 * a pid that no longer runs on this host. A folder of a live pid is kept whoever owns it now (a
 * reused pid keeps a dead grader's folder until its pid is free again). Returns how many it removed;
 * never throws (another grader may remove the same folder at the same moment).
 */
export async function removeOrphanRunDirs(parent = tmpdir(), now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = (await readdir(parent)).filter((n) => n.startsWith(PREFIX));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const pid = /^oracle-grade-(\d+)-/.exec(name)?.[1];
    const path = join(parent, name);
    try {
      if (pid !== undefined) {
        if (Number(pid) === process.pid || alive(Number(pid))) continue;
      } else if (now - (await stat(path)).mtimeMs < UNNAMED_AGE_MS) continue;
      await rm(path, { recursive: true, force: true });
      removed += 1;
    } catch {
      // Gone already, or not ours to remove: nothing to do.
    }
  }
  return removed;
}
