import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseMirrorKey, baseOnlyMirror, MirrorError } from "./base-mirror.js";

const temp = mkdtempSync(join(tmpdir(), "base-mirror-"));
const upstream = join(temp, "upstream");
const FIX = "def add(a, b):\n    return a + b\n";
let base = "";
let earlier = "";
let later = "";
let unreachable = "";

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@oracle.invalid",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@oracle.invalid",
      GIT_AUTHOR_DATE: "2024-01-02T03:04:05Z",
      GIT_COMMITTER_DATE: "2024-01-02T03:04:05Z",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  }).trim();
}

const commit = (file: string, content: string, message: string): string => {
  writeFileSync(join(upstream, file), content);
  git(upstream, ["add", "-A"]);
  git(upstream, ["commit", "-q", "-m", message]);
  return git(upstream, ["rev-parse", "HEAD"]);
};

/** Every object in a repository's store, reachable or not. */
const allObjects = (repo: string) =>
  git(repo, ["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"]).split("\n").sort();

beforeAll(() => {
  execFileSync("mkdir", ["-p", upstream]);
  git(upstream, ["init", "-q", "-b", "main"]);
  earlier = commit("core.py", "def add(a, b):\n    return a - b - 0\n", "earlier");
  git(upstream, ["tag", "-a", "-m", "release", "v0.1"]);
  git(upstream, ["tag", "light-early", earlier]);
  base = commit("core.py", "def add(a, b):\n    return a - b\n", "base");
  git(upstream, ["switch", "-q", "-c", "other"]);
  commit("core.py", `${FIX}# other branch\n`, "fix on a branch");
  git(upstream, ["switch", "-q", "main"]);
  writeFileSync(join(upstream, "core.py"), `${FIX}# stashed\n`);
  git(upstream, ["stash", "-q"]);
  git(upstream, ["update-ref", "refs/pull/1/head", "refs/stash"]);
  later = commit("core.py", FIX, "the fix");
  git(upstream, ["tag", "-a", "-m", "release", "v1.0"]);
  writeFileSync(join(temp, "loose"), `${FIX}# unreachable\n`);
  git(upstream, ["bundle", "create", "-q", join(temp, "repo.bundle"), "--all"]);
  git(temp, ["clone", "-q", "--mirror", upstream, join(temp, "repo.git")]);
  unreachable = git(join(temp, "repo.git"), ["hash-object", "-w", join(temp, "loose")]);
});

afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("baseOnlyMirror", () => {
  it.each(["repo.bundle", "repo.git"])(
    "%s: only the base's history, the earlier tags and one branch",
    async (name) => {
      const root = mkdtempSync(join(temp, "root-"));
      const mirror = join(temp, name);
      if (name === "repo.git") expect(allObjects(mirror)).toContain(unreachable);
      else expect(git(temp, ["bundle", "list-heads", mirror])).toContain(`${later} refs/heads/main`);
      const { path, cached } = await baseOnlyMirror(root, mirror, base);
      expect(cached).toBe(false);
      expect(path.startsWith(join(root, ".oracle", "mirrors"))).toBe(true);
      expect(git(path, ["for-each-ref", "--format=%(refname) %(objectname)"]).split("\n")).toEqual([
        `refs/heads/main ${base}`,
        `refs/tags/light-early ${earlier}`,
        `refs/tags/v0.1 ${git(upstream, ["rev-parse", "v0.1"])}`,
      ]);
      expect(git(path, ["symbolic-ref", "HEAD"])).toBe("refs/heads/main");
      expect(git(path, ["rev-list", "--all"]).split("\n")).toEqual([base, earlier]);
      const reachable = git(path, ["rev-list", "--objects", "--all", "--no-object-names"]).split("\n").sort();
      expect(allObjects(path)).toEqual(reachable);
      expect(allObjects(path)).not.toContain(unreachable);
      expect(allObjects(path)).not.toContain(later);
      expect(readdirSync(path)).not.toContain("logs");
      expect(readdirSync(path)).not.toContain("FETCH_HEAD");
      expect(statSync(path).mode & 0o777).toBe(0o755);
    },
  );

  it("is cached by the mirror's content and the base: a hit, then a new entry when either changes", async () => {
    const root = mkdtempSync(join(temp, "root-"));
    const mirror = join(temp, "repo.bundle");
    const first = await baseOnlyMirror(root, mirror, base);
    const again = await baseOnlyMirror(root, mirror, base);
    expect(again).toEqual({ path: first.path, cached: true });
    const other = await baseOnlyMirror(root, mirror, earlier);
    expect(other.path).not.toBe(first.path);
    expect(git(other.path, ["rev-list", "--all"])).toBe(earlier);
    expect(await baseMirrorKey(join(temp, "repo.git"), base)).not.toBe(await baseMirrorKey(mirror, base));
    expect(readdirSync(join(root, ".oracle", "mirrors")).filter((e) => e.startsWith(".tmp"))).toEqual([]);
  });

  it("hands a relative mirror path to git as the same mirror", async () => {
    const root = mkdtempSync(join(temp, "root-"));
    const made = await baseOnlyMirror(root, relative(process.cwd(), join(temp, "repo.bundle")), base);
    expect(git(made.path, ["rev-list", "--all"]).split("\n")).toEqual([base, earlier]);
  });

  it("a stage left by a grader killed mid-make goes at the next make once it is an hour old, a recent one stays", async () => {
    const root = mkdtempSync(join(temp, "root-"));
    const cache = join(root, ".oracle", "mirrors");
    mkdirSync(join(cache, ".tmp-old"), { recursive: true });
    mkdirSync(join(cache, ".tmp-recent"));
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    utimesSync(join(cache, ".tmp-old"), hourAgo, hourAgo);
    await baseOnlyMirror(root, join(temp, "repo.bundle"), base);
    expect(readdirSync(cache).filter((e) => e.startsWith(".tmp"))).toEqual([".tmp-recent"]);
  });

  it("concurrent graders each get the one complete repository", async () => {
    const root = mkdtempSync(join(temp, "root-"));
    const mirror = join(temp, "repo.git");
    const made = await Promise.all(Array.from({ length: 6 }, () => baseOnlyMirror(root, mirror, base)));
    expect(new Set(made.map((m) => m.path)).size).toBe(1);
    expect(readdirSync(join(root, ".oracle", "mirrors"))).toEqual([made[0]!.path.split("/").pop()]);
    expect(git(made[0]!.path, ["rev-list", "--all"]).split("\n")).toEqual([base, earlier]);
  });

  it("a mirror without the base commit is a MirrorError naming it", async () => {
    const root = mkdtempSync(join(temp, "root-"));
    const missing = "1".repeat(40);
    await expect(baseOnlyMirror(root, join(temp, "repo.bundle"), missing)).rejects.toThrow(MirrorError);
    await expect(baseOnlyMirror(root, join(temp, "repo.bundle"), missing)).rejects.toThrow(missing);
    expect(readdirSync(join(root, ".oracle", "mirrors"))).toEqual([]);
  });
});
