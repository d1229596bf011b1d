import { readlinkSync } from "node:fs";
import { chmod, link, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FilteredDiff } from "../diff/filter.js";
import type { SuiteName } from "../reports/junit.js";
import { copyHiddenTests } from "./copy-hidden.js";

const PREFIX = "oracle-grade-";

/** This process's PID namespace (the inode of /proc/self/ns/pid), or "0" when it cannot be read. */
function pidNamespace(): string {
  try {
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "0";
  } catch {
    return "0";
  }
}

const OWN_NS = pidNamespace();

/**
 * A run's host folder (the diff and the hidden tests each suite's container mounts), named after
 * the grader's PID namespace and pid (`oracle-grade-<ns>-<pid>-XXXXXX`), so that a later grader can
 * tell a dead grader's folder from a live one's: a pid means something only in its own namespace (a
 * grader in a container sharing /tmp has pids of its own; leftovers.ts reasons the same way).
 */
export function makeRunTempDir(parent = tmpdir()): Promise<string> {
  return mkdtemp(join(parent, `${PREFIX}${OWN_NS}-${process.pid}-`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Folders of another namespace or of no pid (an older grader's naming) are removed only past this age; far beyond any run's limit. */
const UNNAMED_AGE_MS = 2 * 24 * 3600 * 1000;

/**
 * Removes the run folders a grader killed mid-run (SIGKILL, OOM, power loss) left behind: those of
 * a pid of this PID namespace that no longer runs. A folder of a live pid is kept whoever owns it now
 * (a reused pid keeps a dead grader's folder until its pid is free again); one of another namespace,
 * or of no pid, only goes when older than any run can be. Returns how many it removed;
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
    const [, ns, pid] = /^oracle-grade-(\d+)-(\d+)-/.exec(name) ?? [];
    const path = join(parent, name);
    try {
      if (ns === OWN_NS && pid !== undefined) {
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

/** Each suite's empty run folder in a run's host folder (a warm pool makes them before the run exists). */
export async function makeSuiteDirs(tempDir: string): Promise<Record<SuiteName, string>> {
  await chmod(tempDir, 0o755);
  const dirs = { existing: join(tempDir, "existing"), hidden: join(tempDir, "hidden") };
  await Promise.all([mkdir(dirs.existing, { mode: 0o755 }), mkdir(dirs.hidden, { mode: 0o755 })]);
  return dirs;
}

/**
 * Fills each suite's (empty) run folder, its container's only view of the host besides the mirror:
 * the filtered diff in both, the hidden tests copied into the hidden suite's, so that no task folder
 * is mounted.
 */
export async function fillSuiteFolders(
  dirs: Record<SuiteName, string>,
  filtered: FilteredDiff | null,
  hiddenTestsDir: string,
): Promise<Record<SuiteName, string>> {
  const copied = copyHiddenTests(hiddenTestsDir, join(dirs.hidden, "tests"));
  if (filtered) {
    await writeFile(join(dirs.existing, "filtered.diff"), filtered.filtered, { mode: 0o644 });
    await link(join(dirs.existing, "filtered.diff"), join(dirs.hidden, "filtered.diff"));
  }
  await copied;
  return dirs;
}

/** Each suite's run folder, made and filled ({@link makeSuiteDirs}, {@link fillSuiteFolders}). */
export async function makeSuiteFolders(
  tempDir: string,
  filtered: FilteredDiff | null,
  hiddenTestsDir: string,
): Promise<Record<SuiteName, string>> {
  return fillSuiteFolders(await makeSuiteDirs(tempDir), filtered, hiddenTestsDir);
}
