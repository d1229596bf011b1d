// The bundled sample tasks (tasks/<id>/) are well-formed without running them: each loads, its
// bundle holds the base commit, its gold.diff applies there and touches no denied path, its hidden
// tests are new files the diff may not write, its image folder has a bookworm-slim Dockerfile that
// keeps the build CA out of the final stage, and the generator reproduces every byte.
// Running the suites in containers is the grader's and the quarantine sweep's end-to-end job.
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type LoadedTask, listTaskIds, loadTask } from "@oracle/spec";
import { makeTempRoot, repoRoot, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const GIT_ENV = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C" };
const LOCKFILES = ["package-lock.json", "requirements.txt", "apt-packages.txt", "go.sum"];
const SHARED_WITH_REPO = ["package.json", "package-lock.json", "requirements.txt"];

async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await run("git", args, { cwd, env: GIT_ENV });
  if (result.code !== 0)
    throw new Error(`git ${args.join(" ")} (in ${cwd}) exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

async function gitSucceeds(cwd: string, ...args: string[]): Promise<boolean> {
  return (await run("git", args, { cwd, env: GIT_ENV })).code === 0;
}

/** Git pathspecs with glob magic: `**` spans folders, `*` does not, as in the task's globs. */
function pathspecs(globs: readonly string[]): string[] {
  return globs.map((glob) => `:(glob)${glob}`);
}

function lines(text: string): string[] {
  return text.split("\n").filter((line) => line !== "");
}

/** Paths of the files under `dir`, relative to it, with forward slashes, sorted. */
function filesUnder(dir: string, prefix = ""): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...filesUnder(dir, path));
    else found.push(path);
  }
  return found.sort();
}

/** The stages of a Dockerfile: the image each FROM names, and the instructions up to the next FROM. */
function dockerfileStages(text: string): { from: string; body: string }[] {
  const stages: { from: string; body: string }[] = [];
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    const from = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)/i.exec(line);
    if (from?.[1] !== undefined) stages.push({ from: from[1], body: "" });
    else if (stages.length > 0) (stages.at(-1) as { body: string }).body += `${line}\n`;
  }
  return stages;
}

const taskIds = await listTaskIds(repoRoot);
const generated = taskIds.filter((id) => existsSync(join(repoRoot, "scripts", "sample-tasks", `${id}.sh`)));

describe("the bundled sample tasks", () => {
  it("are at least three, each made by the generator", () => {
    expect(generated.length).toBeGreaterThanOrEqual(3);
  });

  it("are reproduced byte for byte by scripts/make-sample-tasks.sh", async () => {
    const temp = await makeTempRoot({ images: "images" });
    try {
      const result = await run("bash", [
        join(repoRoot, "scripts", "make-sample-tasks.sh"),
        "--root",
        temp.root,
        ...generated,
      ]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      for (const id of generated) {
        const committed = join(repoRoot, "tasks", id);
        const fresh = join(temp.root, "tasks", id);
        expect(filesUnder(fresh), id).toEqual(filesUnder(committed));
        for (const path of filesUnder(fresh)) {
          expect(
            readFileSync(join(fresh, path)).equals(readFileSync(join(committed, path))),
            `${id}/${path}`,
          ).toBe(true);
        }
      }
    } finally {
      await temp.cleanup();
    }
  });
});

describe.each(taskIds)("task %s", (id) => {
  let loaded: LoadedTask;
  let checkout: string;
  let base: string;
  let cleanup: () => Promise<void> = async () => {};

  beforeAll(async () => {
    loaded = await loadTask(repoRoot, id);
    base = loaded.task.repo.baseCommit;
    const temp = await makeTempRoot();
    cleanup = temp.cleanup;
    checkout = join(temp.root, "checkout");
    if (loaded.mirrorPath !== null) {
      await git(temp.root, "clone", "-q", "--no-checkout", loaded.mirrorPath, checkout);
      await git(checkout, "checkout", "-q", "--detach", base);
    }
  });
  afterAll(() => cleanup());

  it("loads, with a host mirror, hidden tests and a gold diff", () => {
    expect(loaded.task.id).toBe(id);
    expect(loaded.mirrorPath).not.toBeNull();
    expect(loaded.goldDiff).not.toBeNull();
    expect(filesUnder(loaded.hiddenTestsDir).length).toBeGreaterThan(0);
    expect(loaded.task.timeoutSeconds).toBeLessThanOrEqual(300);
  });

  it("has a mirror that git verifies, holding the base commit with some history", async () => {
    const scratch = join(checkout, "..", "verify");
    await git(join(checkout, ".."), "init", "-q", scratch);
    await git(scratch, "bundle", "verify", "-q", loaded.mirrorPath as string);
    expect((await git(checkout, "rev-parse", "HEAD")).trim()).toBe(base);
    expect(Number(await git(checkout, "rev-list", "--count", base))).toBeGreaterThanOrEqual(2);
  });

  it("has existing tests at the base commit that suites.existing.files covers", async () => {
    const covered = lines(
      await git(checkout, "ls-files", "--", ...pathspecs(loaded.task.suites.existing.files)),
    );
    expect(covered.length).toBeGreaterThan(0);
  });

  it("has a gold.diff that applies at the base commit and changes no denied path", async () => {
    const gold = loaded.goldDiff as string;
    await git(checkout, "apply", "--check", gold);
    await git(checkout, "apply", gold);
    try {
      const changed = lines(await git(checkout, "diff", "--name-only"));
      expect(changed.length).toBeGreaterThan(0);
      const denied = lines(
        await git(checkout, "diff", "--name-only", "--", ...pathspecs(loaded.task.diff.deny)),
      );
      expect(denied).toEqual([]);
      const allowed = lines(
        await git(checkout, "diff", "--name-only", "--", ...pathspecs(loaded.task.diff.allow)),
      );
      expect(allowed).toEqual(changed);
    } finally {
      await git(checkout, "checkout", "-q", "--", ".");
    }
  });

  it("has hidden tests that are new at the base commit and that a diff may not write", async () => {
    const hidden = filesUnder(loaded.hiddenTestsDir);
    for (const path of hidden) {
      expect(await gitSucceeds(checkout, "cat-file", "-e", `${base}:${path}`), `${path} exists at base`).toBe(
        false,
      );
    }
    cpSync(loaded.hiddenTestsDir, checkout, { recursive: true });
    try {
      const denied = lines(
        await git(checkout, "ls-files", "--others", "--", ...pathspecs(loaded.task.diff.deny)),
      );
      expect(denied.sort()).toEqual(hidden);
    } finally {
      await git(checkout, "clean", "-fdxq");
    }
  });

  it("names an image folder whose Dockerfile builds FROM debian:bookworm-slim with a lockfile", () => {
    const imageDir = join(repoRoot, "images", loaded.task.image);
    const stages = dockerfileStages(readFileSync(join(imageDir, "Dockerfile"), "utf8"));
    expect(stages.length).toBeGreaterThan(0);
    for (const stage of stages) expect(stage.from).toBe("debian:bookworm-slim");
    expect(
      (stages.at(-1) as { body: string }).body,
      "the build CA must not reach the final stage",
    ).not.toMatch(/oracle-build-ca\.pem/);
    expect(LOCKFILES.filter((name) => existsSync(join(imageDir, name))).length).toBeGreaterThan(0);
  });

  it("shares its dependency manifests with its image folder byte for byte", async () => {
    const imageDir = join(repoRoot, "images", loaded.task.image);
    for (const name of SHARED_WITH_REPO) {
      if (
        !existsSync(join(imageDir, name)) ||
        !(await gitSucceeds(checkout, "cat-file", "-e", `${base}:${name}`))
      )
        continue;
      expect(await git(checkout, "show", `${base}:${name}`), name).toBe(
        readFileSync(join(imageDir, name), "utf8"),
      );
    }
  });
});
