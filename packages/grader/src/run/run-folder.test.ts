import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeRunTempDir, removeOrphanRunDirs } from "./run-folder.js";

let parent: string;
beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), "oracle-run-dirs-test-"));
});
afterEach(() => rm(parent, { recursive: true, force: true }));

/** The pid of a process that has exited (and was reaped). */
function deadPid(): number {
  const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

describe("removeOrphanRunDirs", () => {
  it("removes the folders of graders of this PID namespace that no longer run, and keeps live and foreign ones", async () => {
    const own = await makeRunTempDir(parent);
    const ns = /oracle-grade-(\d+)-/.exec(own)![1];
    const dead = join(parent, `oracle-grade-${ns}-${deadPid()}-abc123`);
    const parentPid = join(parent, `oracle-grade-${ns}-${process.ppid}-def456`);
    // A grader in another PID namespace: its pid is dead here, but it may well be running.
    const otherNs = join(parent, `oracle-grade-1-${deadPid()}-ghi789`);
    const oldUnnamed = join(parent, "oracle-grade-Xy12Zq");
    const newUnnamed = join(parent, "oracle-grade-Ab34Cd");
    const other = join(parent, "something-else-1");
    for (const dir of [dead, parentPid, otherNs, oldUnnamed, newUnnamed, other])
      await mkdir(join(dir, "hidden"), { recursive: true });
    const old = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    await utimes(oldUnnamed, old, old);
    expect(await removeOrphanRunDirs(parent)).toBe(2);
    expect((await readdir(parent)).sort()).toEqual(
      [own, parentPid, otherNs, newUnnamed, other].map((d) => d.slice(parent.length + 1)).sort(),
    );
  });

  it("says 0 for a parent that does not exist", async () => {
    expect(await removeOrphanRunDirs(join(parent, "missing"))).toBe(0);
  });
});
