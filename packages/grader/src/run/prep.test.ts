import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BOOT, driverScript, scriptInput, shellQuote } from "./driver-script.js";
import { assignPath, imageMirrorCheck, prepScript, utf8Path } from "./prep.js";

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
  };

  it("is valid sh", () => {
    execFileSync("sh", ["-n", "-c", prepScript(plan)]);
  });

  it("checks before it applies, never with fuzz, --reject or --unsafe-paths", () => {
    const script = prepScript(plan);
    expect(script.indexOf("git apply --check")).toBeLessThan(script.indexOf("git apply /oracle"));
    expect(script).not.toMatch(/--reject|--unsafe-paths|-C\d|patch -/);
  });

  it("lists what git changed only when asked (the first suite's prep)", () => {
    expect(prepScript(plan)).toContain("git diff --name-only -z");
    const second = prepScript({ ...plan, list: false });
    expect(second).not.toMatch(/git diff|git add|write-tree|git reset/);
    expect(second.indexOf("git apply --check")).toBeLessThan(second.indexOf("git apply /oracle"));
  });

  it("resets, then copies the hidden tests only for the hidden suite", () => {
    expect(prepScript(plan)).toContain("cp -R /oracle/run/tests/. /work/repo/");
    expect(prepScript({ ...plan, hiddenFiles: null })).not.toContain("/oracle/run/tests");
    expect(prepScript({ ...plan, applyDiff: false })).not.toContain("git apply");
  });
});

describe("driverScript", () => {
  const prep = (hidden: boolean) =>
    prepScript({
      baseCommit: "a".repeat(40),
      mirror: "/oracle/mirror",
      applyDiff: true,
      reset: [],
      hiddenFiles: hidden ? ["tests/test_h.py"] : null,
      reportDir: `/oracle/report/${hidden ? "hidden" : "existing"}`,
      list: !hidden,
    });
  const env: Array<[string, string]> = [["GREETING", "it's $HOME"]];
  const plan = (suite: "existing" | "hidden") => ({
    suite,
    command: `pytest --junitxml="$ORACLE_JUNIT" 'it''s'`,
    prep: prep(suite === "hidden"),
    env,
    report: `/oracle/report/${suite}/junit.xml`,
    maxReportBytes: 1024,
    gated: suite === "hidden",
  });
  const scripts = { existing: driverScript(plan("existing")), hidden: driverScript(plan("hidden")) };

  // Syntax only: the driver SIGKILLs every process the user may signal, so it never runs on the host.
  it("is valid sh, and so is the boot script", () => {
    execFileSync("sh", ["-n", "-c", scripts.existing]);
    execFileSync("sh", ["-n", "-c", scripts.hidden]);
    execFileSync("sh", ["-n", "-c", BOOT[2]!]);
  });

  it("comes on stdin to an execute-only copy of sh, whose command line names nothing of it", () => {
    expect(BOOT[2]).toContain("install -m 0111 /bin/sh /tmp/.oracle-driver-sh");
    expect(BOOT[2]).toContain(
      `exec /tmp/.oracle-driver-sh -c 'IFS= read -r n && s=$(head -c "$n") && eval "$s"'`,
    );
    expect(BOOT.join(" ")).not.toMatch(/pytest|oracle\/run|ORACLE_JUNIT/);
    const input = scriptInput(scripts.hidden);
    const newline = input.indexOf(10);
    expect(Number(input.subarray(0, newline).toString())).toBe(input.length - newline - 1);
    // The boot line really reads exactly that many bytes and runs them, leaving the rest of stdin.
    const out = execFileSync("sh", ["-c", `IFS= read -r n && s=$(head -c "$n") && eval "$s"; cat`], {
      input: Buffer.concat([scriptInput("printf 'ran:'\n"), Buffer.from("rest")]),
    }).toString();
    expect(out).toBe("ran:rest");
  });

  it("checks itself before anything else, then prints its nonce before the prep", () => {
    for (const script of Object.values(scripts)) {
      const check = script.indexOf("oracle:unsafe boot");
      expect(check).toBeGreaterThan(0);
      expect(script.indexOf("/proc/1/environ")).toBeGreaterThan(check);
      expect(script.indexOf("oracle:nonce")).toBeGreaterThan(script.indexOf("/proc/1/environ"));
      expect(script.indexOf("oracle:nonce")).toBeLessThan(script.indexOf("git clone"));
      expect(script).not.toMatch(/[0-9a-f]{48}/);
    }
  });

  it("spares only itself, PID 1, in the kill loop, reaps what it killed, and checks itself again after it", () => {
    for (const script of Object.values(scripts)) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
      expect(script).toContain("case ${p#/proc/} in 1) continue;; esac");
      expect(script).toContain("kill -KILL -1 2>/dev/null; jobs > /dev/null");
      const kill = script.indexOf("kill -KILL -1");
      expect(script.indexOf("oracle:unsafe after-", kill)).toBeGreaterThan(kill);
      expect(script.indexOf("oracle:unsafe after-", kill)).toBeLessThan(script.indexOf("oracle:report"));
    }
  });

  it("runs one suite: prep, (the go-ahead), suite, kill loop, end markers, report", () => {
    for (const suite of ["existing", "hidden"] as const) {
      const script = scripts[suite];
      const other = suite === "existing" ? "hidden" : "existing";
      expect(script).not.toContain(`oracle:suite ${other}`);
      const at = (text: string, from = 0) => script.indexOf(text, from);
      const clone = at("git clone");
      const go = at('IFS= read -r go; [ "$go" = run ] || exit 0');
      const suiteLine = at(`oracle:suite ${suite}`);
      const kill = at("kill -KILL -1", suiteLine);
      const end = at(":end %s", kill);
      const report = at(`oracle:report ${suite} ok`, end);
      expect(clone).toBeGreaterThanOrEqual(0);
      if (suite === "hidden") {
        expect(go).toBeGreaterThan(clone);
        expect(suiteLine).toBeGreaterThan(go);
      } else expect(go).toBe(-1);
      expect(suiteLine).toBeGreaterThan(clone);
      expect(kill).toBeGreaterThan(suiteLine);
      expect(end).toBeGreaterThan(kill);
      expect(report).toBeGreaterThan(end);
    }
  });

  it("closes stdin (the script's pipe) for the prep and the suite", () => {
    for (const script of Object.values(scripts)) {
      expect(script).toContain(') < /dev/null > "$d/out" 2> "$d/err"');
      expect(script).toContain(") 2>&3 3>&- < /dev/null");
    }
  });

  it("exports the task's env quoted, exactly", () => {
    const value = "it's $HOME `x` \\ \n";
    const out = execFileSync("sh", ["-c", `export V=${shellQuote(value)}; printf '%s' "$V"`]).toString();
    expect(out).toBe(value);
    expect(scripts.existing).toContain("export GREETING='it'\\''s $HOME'");
  });
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
