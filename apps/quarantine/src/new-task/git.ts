import { execFile } from "node:child_process";
import { OracleError } from "@oracle/spec";

/**
 * Git on the host, for making tasks. Every call ignores the user's and the system's git
 * configuration (hooks, aliases, diff drivers), so a task comes out the same on every machine.
 */
const ENV = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  LC_ALL: "C",
};

export function git(cwd: string, args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<string>((done, fail) => {
    const child = execFile(
      "git",
      ["-c", "core.hooksPath=/dev/null", "-c", "core.quotePath=false", ...args],
      { cwd, env: { ...ENV, ...options.env }, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (error) {
          const message = stderr.trim().split("\n").slice(-3).join("\n") || error.message;
          fail(new Error(`git ${args[0]}: ${message}`));
        } else done(stdout);
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** The full sha of a revision, or a USAGE error naming it. */
export async function resolveCommit(repo: string, rev: string, what: string): Promise<string> {
  try {
    return (await git(repo, ["rev-parse", "--verify", "--end-of-options", `${rev}^{commit}`])).trim();
  } catch {
    throw new OracleError("USAGE", `${what}: '${rev}' is not a commit of ${repo}`, {
      hint: "give a commit sha, branch or tag that git log shows in that repository",
    });
  }
}

/** Checks that `repo` is a git repository (work tree or bare). */
export async function checkRepo(repo: string, what: string): Promise<void> {
  try {
    await git(repo, ["rev-parse", "--git-dir"]);
  } catch {
    throw new OracleError("USAGE", `${what}: ${repo} is not a git repository`, {
      hint: "give the path of a local clone (git clone URL DIR)",
    });
  }
}

export interface ChangedFile {
  status: "A" | "M" | "D" | "T";
  path: string;
}

/** The files `to` changes against `from`, renames as a delete plus an add. */
export async function changedFiles(repo: string, from: string, to: string): Promise<ChangedFile[]> {
  const out = await git(repo, ["diff", "--no-renames", "--name-status", "-z", from, to]);
  const parts = out.split("\0").filter((p) => p !== "");
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    files.push({ status: parts[i]!.charAt(0) as ChangedFile["status"], path: parts[i + 1]! });
  }
  return files;
}

/** Every file path of a commit's tree. */
export async function treeFiles(repo: string, commit: string): Promise<string[]> {
  const out = await git(repo, ["ls-tree", "-r", "-z", "--name-only", commit]);
  return out.split("\0").filter((p) => p !== "");
}

/** A file's bytes at a commit. */
export function showFile(repo: string, commit: string, path: string): Promise<Buffer> {
  return new Promise((done, fail) => {
    execFile(
      "git",
      ["cat-file", "blob", `${commit}:${path}`],
      { cwd: repo, env: ENV, encoding: "buffer", maxBuffer: 256 * 1024 * 1024 },
      (error, stdout) =>
        error ? fail(new Error(`git cat-file ${commit}:${path}: ${error.message}`)) : done(stdout),
    );
  });
}

/**
 * Many files' bytes at a commit, in one `git cat-file --batch`: a path the commit lacks (or one with a
 * newline, which the batch's line protocol cannot name) is left out of the map.
 */
export function showFiles(
  repo: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, Buffer>> {
  const asked = paths.filter((p) => !p.includes("\n"));
  return new Promise((done, fail) => {
    const child = execFile(
      "git",
      ["cat-file", "--batch"],
      { cwd: repo, env: ENV, encoding: "buffer", maxBuffer: 512 * 1024 * 1024 },
      (error, stdout) => {
        if (error) return fail(new Error(`git cat-file --batch: ${error.message}`));
        const files = new Map<string, Buffer>();
        let at = 0;
        for (const path of asked) {
          const eol = stdout.indexOf(10, at);
          if (eol < 0) break;
          const header = stdout.subarray(at, eol).toString("utf8");
          at = eol + 1;
          const m = / blob (\d+)$/.exec(header);
          if (m === null) continue; // "<name> missing", or not a blob
          const size = Number(m[1]);
          files.set(path, stdout.subarray(at, at + size));
          at += size + 1;
        }
        done(files);
      },
    );
    child.stdin?.end(asked.map((p) => `${commit}:${p}\n`).join(""));
  });
}

/** The unified diff `from..to` limited to `paths` (binary changes included). */
export async function diffOf(repo: string, from: string, to: string, paths: string[]): Promise<string> {
  if (paths.length === 0) return "";
  return git(repo, [
    "diff",
    "--no-renames",
    "--binary",
    "--no-color",
    "--no-ext-diff",
    from,
    to,
    "--",
    ...paths.map(literal),
  ]);
}

/** A pathspec that matches exactly this path (no globbing). */
export function literal(path: string): string {
  return `:(literal)${path}`;
}

export async function commitSubject(repo: string, commit: string): Promise<string> {
  return (await git(repo, ["log", "-1", "--format=%s", commit])).trim();
}

/** The parents of a commit. */
export async function parents(repo: string, commit: string): Promise<string[]> {
  const line = (await git(repo, ["rev-list", "--parents", "-n", "1", commit])).trim();
  return line.split(" ").slice(1);
}

/** A blob's bytes by its object id, from a git directory. */
export function catBlob(gitDir: string, oid: string): Promise<Buffer> {
  return new Promise((done, fail) => {
    execFile(
      "git",
      ["--git-dir", gitDir, "cat-file", "blob", oid],
      { env: ENV, encoding: "buffer", maxBuffer: 256 * 1024 * 1024 },
      (error, stdout) => (error ? fail(new Error(`git cat-file ${oid}: ${error.message}`)) : done(stdout)),
    );
  });
}
