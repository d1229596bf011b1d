import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareApplied } from "./apply-diff.js";
import { imageMirrorCheck } from "./checkout.js";
import { CONTAINER_SANDBOX } from "./container-config.js";
import { prepScript } from "./prep.js";
import { assignPath, shellQuote, utf8Path } from "./shell.js";

// What the prep does is tested by running it in the driver (driver-contract.test.ts); here, the
// shell words it is made of, what it never does, and the image mirror check against real git.

/** Runs the assignment in sh and returns the variable's bytes, hex-encoded. */
const bytesInSh = (path: string) =>
  execFileSync("sh", [
    "-c",
    `${assignPath("p", path)}; printf '%s' "$p" | od -An -tx1 | tr -d ' \\n'`,
  ]).toString();

describe("assignPath", () => {
  it.each([
    ["plain", "src/a-b_c.d/x.py"],
    ["a space", "my file.txt"],
    ["a single quote", "it's.txt"],
    ["shell syntax", "$(touch pwned)`x`;|&.txt"],
    ["a percent sign", "100%.txt"],
    ["a trailing newline", "name\n"],
    ["a leading dash", "-rf"],
    ["non-UTF-8 bytes", "caf\xe9\xff"],
    ["UTF-8", utf8Path("café/ü.py")],
  ])("gives sh the exact bytes of a path with %s", (_name, path) => {
    expect(bytesInSh(path)).toBe(Buffer.from(path, "latin1").toString("hex"));
  });
});

describe("prepScript", () => {
  const plan = {
    baseCommit: "a".repeat(40),
    mirror: "/oracle/mirror",
    applyDiff: true,
    reset: ["tests/t.py"],
    hiddenFiles: ["tests/regression/test_h.py"],
    reportDir: "/oracle/report/hidden",
    list: true,
    sandbox: CONTAINER_SANDBOX,
  };

  it("checks before it applies, never with fuzz, --reject or --unsafe-paths", () => {
    const script = prepScript(plan);
    expect(script.indexOf("git apply --check")).toBeLessThan(script.indexOf("git apply /oracle"));
    expect(script).not.toMatch(/--reject|--unsafe-paths|-C\d|patch -/);
  });

  it("lists what git changed only when asked (the first suite's prep)", () => {
    const second = prepScript({ ...plan, list: false });
    expect(second).not.toMatch(/git diff|git add|write-tree|git reset/);
  });
});

describe("shellQuote", () => {
  it("gives sh the exact value", () => {
    const value = "it's $HOME `x` \\ \n";
    const out = execFileSync("sh", ["-c", `export V=${shellQuote(value)}; printf '%s' "$V"`]).toString();
    expect(out).toBe(value);
  });
});

describe("compareApplied", () => {
  it("accepts exactly the expected paths", () => expect(compareApplied(["a", "b"], ["b", "a"])).toBeNull());
  it("names paths git changed that the filter did not keep", () =>
    expect(compareApplied(["a"], ["a", ".git/x"])).toMatch(/did not keep: \.git\/x/));
  it("names paths git skipped", () =>
    expect(compareApplied(["a", "b"], ["a"])).toMatch(/did not change .*: b/));
});

describe("imageMirrorCheck", () => {
  const temp = mkdtempSync(join(tmpdir(), "image-mirror-"));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));
  const env = {
    PATH: process.env.PATH,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@oracle.invalid",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@oracle.invalid",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, { cwd, env, encoding: "utf8" }).trim();
  let n = 0;
  /** A bare mirror with an earlier annotated tag and the base on main, changed by `extra`; the check's exit code and stderr in a clone of it at the base. */
  const check = (extra: (work: string, bare: string) => void): { status: number | null; stderr: string } => {
    const dir = join(temp, String(n++));
    const work = join(dir, "work");
    mkdirSync(work, { recursive: true });
    git(work, "init", "-q", "-b", "main");
    writeFileSync(join(work, "a.txt"), "one\n");
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "earlier");
    git(work, "tag", "-a", "-m", "v0.1", "v0.1");
    writeFileSync(join(work, "a.txt"), "two\n");
    git(work, "commit", "-q", "-am", "base");
    const base = git(work, "rev-parse", "HEAD");
    const bare = join(dir, "mirror.git");
    extra(work, bare);
    if (!existsSync(bare)) git(dir, "clone", "-q", "--mirror", work, bare);
    const checkout = join(dir, "checkout");
    git(dir, "clone", "-q", "--no-checkout", "--no-hardlinks", bare, checkout);
    git(checkout, "checkout", "-q", "--detach", base);
    const script = [
      `fail() { code=$1; shift; printf '%s\\n' "$*" >&2; exit "$code"; }`,
      ...imageMirrorCheck(),
      "exit 0",
    ].join("\n");
    const ran = spawnSync("sh", ["-c", script], { cwd: checkout, env, encoding: "utf8" });
    return { status: ran.status, stderr: ran.stderr };
  };
  const laterCommit = (work: string) => {
    writeFileSync(join(work, "a.txt"), "the fix\n");
    git(work, "commit", "-q", "-am", "fix");
  };

  it("passes the base's history with an earlier annotated tag", () => {
    expect(check(() => undefined)).toEqual({ status: 0, stderr: "" });
  });

  it.each([
    ["a later commit on main", laterCommit],
    [
      "another branch",
      (work: string) => {
        git(work, "switch", "-q", "-c", "other");
        laterCommit(work);
        git(work, "switch", "-q", "main");
        git(work, "reset", "-q", "--hard", "HEAD");
      },
    ],
    [
      "a later tag",
      (work: string) => {
        laterCommit(work);
        git(work, "tag", "v1.0");
        git(work, "reset", "-q", "--hard", "HEAD~1");
      },
    ],
    [
      "a tag of a blob",
      (work: string) => {
        const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], {
          cwd: work,
          env,
          input: "the fix\n",
        });
        git(work, "tag", "fix-blob", blob.toString().trim());
      },
    ],
  ])("refuses %s as CHECKOUT_FAILED's exit code, saying what a mirror may hold", (_name, extra) => {
    const { status, stderr } = check(extra);
    expect(status).toBe(10);
    expect(stderr).toMatch(
      /after the base commit.*may hold only the base commit, its ancestors and tags at or before it/,
    );
  });

  it.each([
    [
      "a stash",
      (work: string, bare: string) => {
        git(join(work, ".."), "clone", "-q", "--mirror", work, bare);
        git(
          bare,
          "update-ref",
          "refs/stash",
          git(bare, "commit-tree", "-p", "HEAD", "-m", "stash", git(bare, "rev-parse", "HEAD^{tree}")),
        );
      },
    ],
    [
      "an unreachable blob",
      (work: string, bare: string) => {
        git(join(work, ".."), "clone", "-q", "--mirror", work, bare);
        execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: bare, env, input: "the fix\n" });
      },
    ],
  ])("refuses %s that no branch or tag reaches", (_name, extra) => {
    const { status, stderr } = check(extra);
    expect(status).toBe(10);
    expect(stderr).toMatch(/no branch or tag reaches/);
  });
});
