// History (issue 13, class 6): a task's mirror is normally the whole upstream repository, whose later
// commits hold the fix. Two variants of hostile-py whose mirror holds the fix after the base commit
// (on main, on another branch, under a later tag, in a stash; the bare one also as an unreachable
// blob), and a diff that, at import, looks for the fixed calc/core.py in the checkout's and the
// mirror's history and runs it. The grader hands the tests a repository of the base's history only,
// so the unfixed code runs. docs/security.md ("History") names these cases.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PY_FIXED } from "./cases.js";
import {
  type Corpus,
  expectOutcome,
  FIXTURES,
  type FixtureTask,
  gradeCase,
  makeCorpus,
  makeDiff,
  TASKS,
  writeFiles,
} from "./harness.js";

const BUNDLE = "hostile-py-history-bundle";
const BARE = "hostile-py-history-bare";
/** A bare mirror of the base (and v0.1) alone, plus the fix as an unreachable blob: only an object scan finds it. */
const LOOSE = "hostile-py-history-loose";
let corpus: Corpus;

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH,
      GIT_AUTHOR_NAME: "upstream",
      GIT_AUTHOR_EMAIL: "upstream@oracle.invalid",
      GIT_COMMITTER_NAME: "upstream",
      GIT_COMMITTER_EMAIL: "upstream@oracle.invalid",
      GIT_AUTHOR_DATE: "2024-01-02T03:04:05Z",
      GIT_COMMITTER_DATE: "2024-01-02T03:04:05Z",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  }).trim();
}

/**
 * An upstream repository as a real mirror holds it: v0.1 (annotated) on an earlier commit, the base
 * (the fixture's tree, so the corpus's diffs apply), then the fix on main tagged v1.0, the fix on
 * another branch, and the fix in a stash. Returns the work tree and the base commit.
 */
function makeUpstream(dir: string): string {
  cpSync(join(FIXTURES, TASKS.py, "repo"), dir, { recursive: true });
  git(dir, ["init", "-q", "-b", "main"]);
  writeFileSync(join(dir, "README.md"), "an earlier release\n");
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", "earlier"]);
  git(dir, ["tag", "-a", "-m", "v0.1", "v0.1"]);
  cpSync(join(FIXTURES, TASKS.py, "repo", "README.md"), join(dir, "README.md"));
  git(dir, ["commit", "-q", "-am", "base"]);
  const base = git(dir, ["rev-parse", "HEAD"]);
  git(dir, ["switch", "-q", "-c", "fix-branch"]);
  writeFileSync(join(dir, "calc", "core.py"), `${PY_FIXED}# on a branch\n`);
  git(dir, ["commit", "-q", "-am", "fix on a branch"]);
  git(dir, ["switch", "-q", "main"]);
  writeFileSync(join(dir, "calc", "core.py"), `${PY_FIXED}# in a stash\n`);
  git(dir, ["stash", "-q"]);
  writeFileSync(join(dir, "calc", "core.py"), PY_FIXED);
  git(dir, ["commit", "-q", "-am", "the fix"]);
  git(dir, ["tag", "v1.0"]);
  return base;
}

/** tasks/<id>: hostile-py with `mirror` (made by `place` in the task folder) and `base`. */
function installVariant(id: string, mirror: string, base: string, place: (dir: string) => void): void {
  const dir = join(corpus.root, "tasks", id);
  cpSync(join(corpus.root, "tasks", TASKS.py), dir, { recursive: true });
  rmSync(join(dir, "repo.bundle"));
  place(dir);
  const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
  task.id = id;
  task.repo = { mirror, baseCommit: base };
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(task, null, 2)}\n`);
}

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus({ images: ["python-pytest"] });
  const upstream = join(corpus.root, "work", "upstream");
  mkdirSync(upstream, { recursive: true });
  const base = makeUpstream(upstream);
  installVariant(BUNDLE, "repo.bundle", base, (dir) =>
    git(upstream, ["bundle", "create", "-q", join(dir, "repo.bundle"), "--all"]),
  );
  // An object no ref reaches: the fix as a loose blob.
  const loose = join(corpus.root, "work", "loose.py");
  writeFileSync(loose, `${PY_FIXED}# unreachable\n`);
  installVariant(BARE, "repo.git", base, (dir) => {
    git(upstream, ["clone", "-q", "--mirror", upstream, join(dir, "repo.git")]);
    git(join(dir, "repo.git"), ["hash-object", "-w", loose]);
  });
  installVariant(LOOSE, "repo.git", base, (dir) => {
    git(dir, ["init", "-q", "--bare", "repo.git"]);
    git(upstream, ["push", "-q", join(dir, "repo.git"), `${base}:refs/heads/main`, "refs/tags/v0.1"]);
    git(join(dir, "repo.git"), ["hash-object", "-w", loose]);
  });
}, 1_600_000);

afterAll(async () => {
  await corpus?.cleanup();
});

/**
 * calc/core.py that, at import, runs the first fixed calc/core.py it finds in the history of the
 * checkout and of /oracle/mirror: with "refs", calc/core.py of every commit of every ref and reflog
 * (git log --all, git show); with "objects", every blob in the object store, unreachable ones too.
 * The needle is assembled at run time: the planted file itself is in the checkout's store (the
 * prep's snapshots) and must not match.
 */
const historyThief = (avenue: "refs" | "objects") => `import os
import subprocess

NEEDLE = b"return a " + b"+ b"
AVENUE = "${avenue}"


def _git(repo, *args):
    return subprocess.run(["git", "-c", "safe.directory=*", "-C", repo, *args], capture_output=True).stdout


def _later_fix():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for repo in (here, "/oracle/mirror"):
        for sha in [] if AVENUE != "refs" else _git(repo, "log", "--all", "--reflog", "--format=%H").split():
            source = _git(repo, "show", sha.decode() + ":calc/core.py")
            if NEEDLE in source:
                return source
        if AVENUE != "objects":
            continue
        objects = _git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
        for line in objects.splitlines():
            sha, kind = line.split()
            if kind == b"blob":
                source = _git(repo, "cat-file", "blob", sha.decode())
                if NEEDLE in source:
                    return source
    return None


FOUND = _later_fix()
if FOUND is not None:
    exec(compile(FOUND, "history", "exec"))
else:
    def add(a, b):
        return a - b


    def double(x):
        return x * 2
`;

/** The fix only when the checkout's tags are exactly the earlier one (what a version tool sees). */
const TAGS_PROBE = `import os
import subprocess

_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAGS = subprocess.run(["git", "-C", _here, "tag"], capture_output=True, text=True).stdout.split()
DESCRIBED = subprocess.run(["git", "-C", _here, "describe", "--tags"], capture_output=True, text=True).stdout


def add(a, b):
    if TAGS == ["v0.1"] and DESCRIBED.startswith("v0.1-1-g"):
        return a + b
    return a - b


def double(x):
    return x * 2
`;

const grade = (task: string, name: string, files: Record<string, string>) =>
  gradeCase(corpus, {
    task: task as FixtureTask,
    name,
    diff: makeDiff(corpus, TASKS.py, (dir) => writeFiles(dir, files)),
  });

describe("history: the tests see the base commit's history only", () => {
  it.each([
    [
      BUNDLE,
      "refs",
      "a bundle of every ref (later main, a branch, a tag, a stash), git log --all + git show",
    ],
    [BARE, "refs", "a bare repository of the same refs, git log --all + git show"],
    [BARE, "objects", "the same, every object in the store"],
    [LOOSE, "objects", "a bare repository of the base and an unreachable blob, every object in the store"],
  ] as const)(
    "%s (%s), %s: the fix read from later history -> FAIL TESTS_FAILED",
    async (task, avenue, _what) => {
      const g = await grade(task, `${task}-${avenue}`, { "calc/core.py": historyThief(avenue) });
      expectOutcome(g, "FAIL", "TESTS_FAILED");
      // The planted module imported and ran (the existing suite passes on add(5, 0)); only the fix is missing.
      expect(g.result.suites.existing?.status).toBe("PASS");
      expect(g.result.message).toMatch(/^hidden suite/);
    },
  );

  it.each([BUNDLE, BARE, LOOSE])("%s: the gold fix PASSes", async (task) => {
    expectOutcome(await grade(task, `${task}-gold`, { "calc/core.py": PY_FIXED }), "PASS", "PASS");
  });

  it("the tag at or before the base survives for version tools, the later one does not -> PASS", async () => {
    const g = await grade(BUNDLE, "history-tags", { "calc/core.py": TAGS_PROBE });
    expectOutcome(g, "PASS", "PASS");
  });

  it("the base-only repository is cached under .oracle/mirrors and holds nothing after the base", async () => {
    const cache = join(corpus.root, ".oracle", "mirrors");
    const repos = execFileSync("ls", [cache], { encoding: "utf8" }).split("\n").filter(Boolean);
    expect(repos.filter((r) => r.endsWith(".git"))).toHaveLength(3);
    for (const repo of repos.filter((r) => r.endsWith(".git"))) {
      const dir = join(cache, repo);
      const tags = git(dir, ["tag"]);
      expect(tags).toBe("v0.1");
      expect(git(dir, ["for-each-ref", "--format=%(refname)"]).split("\n")).toEqual([
        "refs/heads/main",
        "refs/tags/v0.1",
      ]);
      expect(git(dir, ["log", "--all", "--format=%s"]).split("\n")).toEqual(["base", "earlier"]);
    }
  });
});
