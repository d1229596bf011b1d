import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileSha256, folderDigest } from "../image/fingerprint-cache.js";

/**
 * The repository the suites are given instead of the task's mirror: only the base commit, its
 * ancestors, and the tags whose target is at or before it (for version tools), on one branch
 * `main`. A real mirror is the whole upstream repository, whose later commits, branches, tags and
 * stashes hold the fix; none of it (nor any unreachable object, nor a reflog) reaches this one,
 * because it is filled by a fetch of those refs alone into a fresh bare repository.
 *
 * Cached under `<root>/.oracle/mirrors/<key>.git`, the key being the mirror's content digest and
 * the base commit; made in a temporary folder beside it and renamed into place, so concurrent
 * graders never see a half-made one (the first rename wins, the others use it).
 */

/** The mirror cannot give the base commit: the run is CHECKOUT_FAILED. */
export class MirrorError extends Error {}

/** Bump when the way the repository is made changes: old cache entries are then not used. */
const FORMAT = "oracle-base-mirror/1";
export const BASE_BRANCH = "main";

/** git with no system or user config and no inherited GIT_* variables (a grader run from a hook). */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("GIT_")) env[name] = value;
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_TERMINAL_PROMPT: "0" };
}

const QUIET = ["-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.hooksPath=/dev/null"];

function git(cwd: string, args: string[], input?: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = execFile(
      "git",
      [...QUIET, ...args],
      { cwd, env: gitEnv(), maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error) fail(new MirrorError(`git ${args[0]} failed: ${stderr.trim() || error.message}`));
        else done(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** SHA-256 of the mirror's content: the bundle's bytes, or every file of a bare repository. */
export async function mirrorDigest(mirror: string): Promise<string> {
  const info = await stat(mirror);
  return info.isDirectory() ? `dir:${await folderDigest(mirror)}` : `file:${await fileSha256(mirror)}`;
}

/** The cache key of a mirror's base-only repository. */
export async function baseMirrorKey(mirror: string, baseCommit: string): Promise<string> {
  const digest = await mirrorDigest(mirror);
  return createHash("sha256").update(`${FORMAT}\0${digest}\0${baseCommit}`).digest("hex");
}

/** Fills `target` (a fresh bare repository) with the base's history and earlier tags of `mirror`. */
async function fillBaseOnly(mirror: string, baseCommit: string, stage: string, target: string) {
  const full = join(stage, "full.git");
  await git(stage, ["init", "-q", "--bare", "--template=", full]);
  await git(full, ["fetch", "-q", "--no-tags", "--", mirror, "+refs/*:refs/*"]);
  const base = await git(full, ["rev-parse", "--verify", "-q", `${baseCommit}^{commit}`]).catch(() => "");
  if (base.trim() !== baseCommit)
    throw new MirrorError(`the mirror does not hold the base commit ${baseCommit}`);
  const refs = (await git(full, ["for-each-ref", "--format=%(refname)"])).split("\n").filter(Boolean);
  const tags = new Set(
    (await git(full, ["for-each-ref", `--merged=${baseCommit}`, "--format=%(refname)", "refs/tags"]))
      .split("\n")
      .filter(Boolean),
  );
  const deletes = refs.filter((ref) => !tags.has(ref)).map((ref) => `delete ${ref}\n`);
  await git(full, ["update-ref", "--stdin"], deletes.join(""));
  await git(full, ["update-ref", `refs/heads/${BASE_BRANCH}`, baseCommit]);
  await git(stage, ["init", "-q", "--bare", "--template=", `--initial-branch=${BASE_BRANCH}`, target]);
  await git(target, ["fetch", "-q", "--no-tags", "--", full, "+refs/*:refs/*"]);
  await rm(join(target, "FETCH_HEAD"), { force: true });
}

/** Stages older than this were left by a grader killed mid-make (a run's limit is far shorter). */
const STALE_STAGE_MS = 60 * 60 * 1000;

async function removeStaleStages(cache: string): Promise<void> {
  for (const name of await readdir(cache).catch(() => [])) {
    if (!name.startsWith(".tmp-")) continue;
    const info = await stat(join(cache, name)).catch(() => null);
    if (info && Date.now() - info.mtimeMs > STALE_STAGE_MS)
      await rm(join(cache, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Everything readable by the suites' user (the repository is bind-mounted read-only). */
async function makeReadable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) await chmod(path, 0o755);
    else if (entry.isFile()) await chmod(path, 0o644);
  }
}

/**
 * The host path of the base-only repository of `mirror` (a git bundle or bare repository) at
 * `baseCommit`, made on first use and cached by content. Throws MirrorError when the mirror cannot
 * give the base commit.
 */
export async function baseOnlyMirror(
  root: string,
  mirrorPath: string,
  baseCommit: string,
): Promise<{ path: string; cached: boolean }> {
  const mirror = resolve(mirrorPath);
  const cache = join(root, ".oracle", "mirrors");
  const path = join(cache, `${await baseMirrorKey(mirror, baseCommit)}.git`);
  if (
    await stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    )
  )
    return { path, cached: true };
  await mkdir(cache, { recursive: true });
  await removeStaleStages(cache);
  const stage = join(cache, `.tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
  await mkdir(stage);
  try {
    const made = join(stage, "base.git");
    await fillBaseOnly(mirror, baseCommit, stage, made);
    await makeReadable(made);
    try {
      await rename(made, path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another grader renamed its copy first: the same content, use it.
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
    }
    return { path, cached: false };
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}
