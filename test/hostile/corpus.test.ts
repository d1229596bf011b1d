// The hostile corpus (issue 6), against the real engine and the built oracle-grade: hostile diffs,
// hostile code at run time, forged results. Every case states its verdict and reason; gradeCase
// checks what all must hold (no container left, no host file changed, grader RSS < 200 MB).
// docs/security.md names each case and the defence it exercises.
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  JS_FIXED,
  JS_FORGE_AT_EXIT,
  JS_OUTPUT,
  JS_PATCH_RUNNER,
  PY_FIXED,
  PY_FORGE_HOOK,
  PY_GOLD,
  PY_PRELUDE,
  RAW,
} from "./cases.js";
import {
  type Corpus,
  collected,
  expectOutcome,
  fixtureTask,
  type Graded,
  gradeCase,
  makeCorpus,
  makeDiff,
  suiteOutput,
  TASKS,
  writeFiles,
} from "./harness.js";

let corpus: Corpus;
const started = Date.now();
const figures: string[] = [];

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus();
}, 1_600_000);

afterAll(async () => {
  figures.push(`corpus wall time ${Math.round((Date.now() - started) / 1000)} s`);
  process.stderr.write(`hostile corpus: ${figures.join("; ")}\n`);
  if (process.env.ORACLE_HOSTILE_KEEP) process.stderr.write(`kept ${corpus?.root}\n`);
  else await corpus?.cleanup();
});

const py = (name: string, diff: Buffer | string, timeoutSeconds?: number): Promise<Graded> =>
  gradeCase(corpus, {
    task: TASKS.py,
    name,
    diff: Buffer.isBuffer(diff) ? diff : Buffer.from(diff, "latin1"),
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
  });
const pyFiles = (files: Record<string, string | Buffer>) =>
  makeDiff(corpus, TASKS.py, (dir) => writeFiles(dir, files));
/** The fix plus hostile code that runs when a test imports calc.core. */
const pyPlanted = (prelude: string) => pyFiles({ "calc/core.py": `${prelude}\n\n${PY_FIXED}` });
/** `count` new one-line files under `folder`, as git writes them (made as text: git on 50,000 files is slow). */
const newFiles = (folder: string, count: number): string =>
  Array.from({ length: count }, (_, i) => {
    const path = `${folder}/${String(i).padStart(5, "0")}.txt`;
    return `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+${i}\n`;
  }).join("");
const droppedWhy = (g: Graded) => g.result.diff?.dropped.map((d) => `${d.path}: ${d.why}`) ?? [];

// The diffs' cases run at once (vitest's maxConcurrency, 5): each outcome is the diff's, decided before
// or while it applies, and each case has its own files under out/; one after the other they left the
// machine waiting on container starts. The run-time cases (bombs, output, timeouts) stay one at a time;
// the forged results' cases run at once too (each forgery is its own diff's, synchronised in its own
// containers by pipes, not by time).
describe.concurrent("hostile diffs", () => {
  it("'../' paths: dropped, nothing written outside -> PASS on the rest", async () => {
    const g = await py("dotdot", RAW.dotdot);
    expectOutcome(g, "PASS", "PASS");
    expect(droppedWhy(g).join("\n")).toMatch(/escapes the repository/);
    expect(droppedWhy(g)).toHaveLength(2);
    expect(existsSync("/tmp/oracle-hostile-dotdot.txt")).toBe(false);
  });

  it("absolute paths: a rename from /etc is dropped; '+++ /tmp/x' lands inside the checkout -> PASS", async () => {
    const g = await py("absolute", RAW.absolute);
    expectOutcome(g, "PASS", "PASS");
    expect(droppedWhy(g).join("\n")).toMatch(/absolute path/);
    expect(existsSync("/tmp/oracle-hostile-absolute.txt")).toBe(false);
  });

  it(".git/ in any letter case (and .git., GIT~1) -> FAIL DIFF_EMPTY_AFTER_FILTER", async () => {
    const g = await py("dot-git", RAW.dotGit);
    expectOutcome(g, "FAIL", "DIFF_EMPTY_AFTER_FILTER");
    expect(droppedWhy(g).every((d) => d.endsWith("path inside .git/"))).toBe(true);
    expect(droppedWhy(g)).toHaveLength(5);
  });

  it("a symlink out of the tree and a write through it: symlinks dropped -> PASS on the rest", async () => {
    const g = await py("symlink", RAW.symlink);
    expectOutcome(g, "PASS", "PASS");
    expect(droppedWhy(g).filter((d) => /symlink mode 120000/.test(d))).toHaveLength(2);
  });

  it("a gitlink (submodule) -> dropped, PASS on the rest", async () => {
    const g = await py("gitlink", RAW.gitlink);
    expectOutcome(g, "PASS", "PASS");
    expect(droppedWhy(g).join("\n")).toMatch(/gitlink/);
  });

  it("a setuid mode change -> git keeps only 100755 (nosuid mounts, no-new-privileges anyway), PASS", async () => {
    const g = await py("setuid", RAW.setuid);
    expectOutcome(g, "PASS", "PASS");
  });

  it("executable mode changes -> applied (nosuid, non-root), PASS", async () => {
    const g = await py("exec-mode", RAW.execMode);
    expectOutcome(g, "PASS", "PASS");
  });

  it("a binary patch of a new file -> applied, PASS", async () => {
    const g = await py("binary", pyFiles({ "calc/core.py": PY_FIXED, "calc/blob.bin": randomBytes(4096) }));
    expectOutcome(g, "PASS", "PASS");
  });

  it("a binary patch of a test file -> dropped by the deny list, FAIL DIFF_EMPTY_AFTER_FILTER", async () => {
    const g = await py("binary-test", pyFiles({ "tests/test_core.py": Buffer.from([0, 1, 2, 255, 0]) }));
    expectOutcome(g, "FAIL", "DIFF_EMPTY_AFTER_FILTER");
  });

  it("CRLF line endings on an LF file -> FAIL DIFF_DOES_NOT_APPLY", async () => {
    const gold = pyFiles({ "calc/core.py": PY_FIXED });
    const g = await py("crlf", gold.toString("latin1").replace(/\n/g, "\r\n"));
    expectOutcome(g, "FAIL", "DIFF_DOES_NOT_APPLY");
  });

  it("a 100 MB diff -> FAIL DIFF_INVALID without reading it, RSS bounded", async () => {
    const path = join(corpus.out, "huge.diff");
    const fd = openSync(path, "w");
    writeSync(fd, "diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n");
    const line = `+${"x".repeat(1023)}\n`;
    const block = line.repeat(1024);
    writeSync(fd, `@@ -0,0 +1,${100 * 1024} @@\n`);
    for (let i = 0; i < 100; i += 1) writeSync(fd, block);
    closeSync(fd);
    const g = await gradeCase(corpus, { task: TASKS.py, name: "huge", diffPath: path });
    expectOutcome(g, "FAIL", "DIFF_INVALID");
    figures.push(`100 MB diff: ${Math.round(g.maxRssKb / 1024)} MB RSS`);
    rmSync(path);
  });

  it("a 16 MB diff (one file, just under the limit) + fix -> parsed and applied, PASS, RSS < 200 MB", async () => {
    const line = `+${"y".repeat(1023)}\n`;
    const lines = 16_000;
    const big = `diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,${lines} @@\n${line.repeat(lines)}`;
    const g = await py("sixteen-mb", `${big}${PY_GOLD}`);
    expectOutcome(g, "PASS", "PASS");
    figures.push(`16 MB diff: ${Math.round(g.maxRssKb / 1024)} MB RSS`);
  });

  it("a diff touching 50,000 files -> FAIL DIFF_INVALID before parsing (more than 10,000 sections)", async () => {
    const g = await py("fifty-thousand", `${newFiles("bulk", 50_000)}${PY_GOLD}`);
    expectOutcome(g, "FAIL", "DIFF_INVALID");
    expect(g.result.message).toMatch(/50001 files, more than the grader parses/);
    figures.push(`50,000 files: ${Math.round(g.ms / 1000)} s, ${Math.round(g.maxRssKb / 1024)} MB RSS`);
  });

  it("a diff touching 10,000 files (the limit, in a denied folder) -> parsed, dropped, PASS on the fix", async () => {
    const g = await py("ten-thousand", `${newFiles("tests/bulk", 9_999)}${PY_GOLD}`);
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.diff?.dropped).toHaveLength(9_999);
    figures.push(`10,000 files: ${Math.round(g.ms / 1000)} s, ${Math.round(g.maxRssKb / 1024)} MB RSS`);
  });

  it("non-UTF-8 file names -> applied byte for byte, PASS", async () => {
    const diff = makeDiff(corpus, TASKS.py, (dir) => {
      writeFiles(dir, { "calc/core.py": PY_FIXED });
      const name = Buffer.concat([Buffer.from(join(dir, "calc/")), Buffer.from([0xff, 0xfe, 0x41])]);
      const fd = openSync(name, "w");
      writeSync(fd, "latin\n");
      closeSync(fd);
    });
    expect(diff.toString("latin1")).toContain('"b/calc/\\377\\376A"');
    const g = await py("non-utf8", diff);
    expectOutcome(g, "PASS", "PASS");
  });

  it("renaming a source file into the test tree -> dropped, FAIL DIFF_EMPTY_AFTER_FILTER", async () => {
    const g = await py("rename-into-tests", RAW.renameIntoTests);
    expectOutcome(g, "FAIL", "DIFF_EMPTY_AFTER_FILTER");
  });

  it("a file at a hidden test's path -> default deny, FAIL DIFF_EMPTY_AFTER_FILTER", async () => {
    const g = await py(
      "hidden-path",
      pyFiles({ "checks/test_hidden.py": "def test_add_positive():\n    pass\n" }),
    );
    expectOutcome(g, "FAIL", "DIFF_EMPTY_AFTER_FILTER");
  });

  it("a file at a hidden test's path, no default deny -> overwritten by the hidden test, FAIL TESTS_FAILED", async () => {
    const diff = pyFiles({ "checks/test_hidden.py": "def test_add_positive():\n    pass\n" });
    const g = await gradeCase(corpus, { task: TASKS.pyOpen, name: "hidden-path-open", diff });
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(g.result.suites.hidden.tests.map((t) => `${t.outcome} ${t.id}`)).toContain(
      "failed hidden:checks.test_hidden::test_add_positive",
    );
  });

  it("a planted conftest.py, no default deny -> applied, but the must-fail sentinel passes: FAIL REPORT_INCONSISTENT", async () => {
    const diff = pyFiles({ "checks/conftest.py": PY_FORGE_HOOK });
    const g = await gradeCase(corpus, { task: TASKS.pyOpen, name: "conftest-open", diff });
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
  });

  it("a *.dist-info registering a pytest11 plugin -> default deny, FAIL TESTS_FAILED", async () => {
    const g = await py(
      "dist-info",
      pyFiles({
        "forge-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: forge\nVersion: 1.0\n",
        "forge-1.0.dist-info/entry_points.txt": "[pytest11]\nforge = calc.forge\n",
        "calc/forge.py": PY_FORGE_HOOK,
      }),
    );
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(droppedWhy(g).filter((d) => /default deny/.test(d))).toHaveLength(2);
  });

  it("conftest.py (root and beside the hidden tests), sitecustomize.py, *.pth -> default deny, FAIL DIFF_EMPTY_AFTER_FILTER", async () => {
    const g = await py(
      "python-hooks",
      pyFiles({
        "conftest.py": PY_FORGE_HOOK,
        "checks/conftest.py": PY_FORGE_HOOK,
        "sitecustomize.py": "import calc\n",
        "usercustomize.py": "import calc\n",
        "calc/forge.pth": "import calc.core\n",
      }),
    );
    expectOutcome(g, "FAIL", "DIFF_EMPTY_AFTER_FILTER");
    expect(droppedWhy(g).every((d) => /default deny/.test(d))).toBe(true);
  });

  it("runner config loading a planted plugin (pytest.ini, pyproject, setup.cfg, tox.ini) -> config dropped, FAIL TESTS_FAILED", async () => {
    const addopts = "addopts = -p calc.forge\n";
    const g = await py(
      "runner-config",
      pyFiles({
        "pytest.ini": `[pytest]\n${addopts}`,
        "tox.ini": `[pytest]\n${addopts}`,
        "setup.cfg": `[tool:pytest]\n${addopts}`,
        "pyproject.toml": `[tool.pytest.ini_options]\naddopts = "-p calc.forge"\n`,
        "calc/forge.py": PY_FORGE_HOOK,
      }),
    );
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(droppedWhy(g).filter((d) => /default deny/.test(d))).toHaveLength(4);
  });

  it("deleting the existing tests -> denied, FAIL DIFF_EMPTY_AFTER_FILTER", async () => {
    const g = await py("delete-tests", RAW.deleteTests);
    expectOutcome(g, "FAIL", "DIFF_EMPTY_AFTER_FILTER");
  });

  it("an empty diff file -> FAIL DIFF_EMPTY_AFTER_FILTER", async () => {
    const g = await py("empty", "");
    expectOutcome(g, "FAIL", "DIFF_EMPTY_AFTER_FILTER");
  });

  it("an empty new file beside the fix -> applied, PASS", async () => {
    const g = await py("empty-file", pyFiles({ "calc/core.py": PY_FIXED, "calc/empty.py": "" }));
    expectOutcome(g, "PASS", "PASS");
  });

  it("garbage bytes -> FAIL DIFF_INVALID", async () => {
    const g = await py("garbage", randomBytes(64 * 1024));
    expectOutcome(g, "FAIL", "DIFF_INVALID");
  });

  it("mocha config and a package.json script -> default deny, FAIL TESTS_FAILED", async () => {
    const diff = makeDiff(corpus, TASKS.node, (dir) =>
      writeFiles(dir, {
        ".mocharc.yml": "require: src/forge.js\n",
        "package.json": '{ "name": "hostile-node", "private": true, "scripts": { "test": "true" } }\n',
        "src/forge.js": JS_PATCH_RUNNER,
      }),
    );
    const g = await gradeCase(corpus, { task: TASKS.node, name: "node-config", diff });
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(droppedWhy(g).filter((d) => /default deny/.test(d))).toHaveLength(2);
  });
});

describe("hostile tests at run time", () => {
  it("the network: only lo, nothing reachable -> PASS (the payload exits if anything answers)", async () => {
    expectOutcome(await py("network", pyPlanted(PY_PRELUDE.network)), "PASS", "PASS");
  });

  it("a fork bomb holding the output open: fork fails at the pids limit, the kill loop leaves nothing -> PASS", async () => {
    const g = await py("fork-bomb", pyPlanted(PY_PRELUDE.forkBomb));
    // The bomb is full before the tests run and is killed after the runner exits: the tests of the
    // fix ran and passed, so PASS is the honest verdict.
    expectOutcome(g, "PASS", "PASS");
    const pids = String(fixtureTask(TASKS.py).resources.pids);
    for (const suite of ["existing", "hidden"] as const) {
      const evidence =
        /oracle-fork-bomb: fork failed with (\w+) in pid \d+; pids\.current=(\w+) pids\.max=(\w+)/.exec(
          suiteOutput(g, suite),
        );
      expect(evidence?.slice(1), `${suite}: the bomb's evidence in its suite's output`).toEqual([
        "EAGAIN",
        pids,
        pids,
      ]);
      expect(collected(g, suite)?.kill, `${suite}: the kill loop`).toMatchObject({ survivors: 0 });
    }
    figures.push(`fork bomb: ${g.result.reason}, kill rounds ${collected(g, "existing")?.kill?.rounds}`);
  });

  it("a memory bomb -> FAIL OUT_OF_MEMORY", async () => {
    expectOutcome(await py("memory-bomb", pyPlanted(PY_PRELUDE.memoryBomb)), "FAIL", "OUT_OF_MEMORY");
  });

  it("filling the disk: bounded by the tmpfs sizes and the memory limit -> FAIL", async () => {
    const g = await py("disk-fill", pyPlanted(PY_PRELUDE.diskFill));
    expect(g.result.verdict).toBe("FAIL");
    figures.push(`disk fill: ${g.result.reason}`);
  });

  it("128 MiB of output -> counted and bounded, PASS, grader RSS < 200 MB", async () => {
    const diff = makeDiff(corpus, TASKS.node, (dir) =>
      writeFiles(dir, { "src/add.js": `${JS_OUTPUT}\n${JS_FIXED}` }),
    );
    // What is asserted is the count, the bound and the grader's memory, not a speed: the run's limit is
    // the fixture's 120 s (CI under load 45-50 took more than its former 40 s, alone 31 s), and the
    // test's is above the grader's bound (the limit + 10 s of cleanup).
    const g = await gradeCase(corpus, { task: TASKS.node, name: "output", diff });
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.suites.existing.output.bytes).toBeGreaterThanOrEqual(128 * 1024 * 1024);
    expect(g.result.suites.existing.output.truncated).toBe(true);
    expect(g.result.suites.hidden.output.bytes).toBeLessThan(1024 * 1024);
    expect(g.log.length).toBeLessThan(4 * 1024 * 1024);
    figures.push(`128 MiB output: ${Math.round(g.maxRssKb / 1024)} MB grader RSS`);
  }, 300_000);

  it("a SIGTERM-ignoring, double-forking process past the timeout -> FAIL TIMEOUT, nothing survives", async () => {
    const g = await py("sigterm-double-fork", pyPlanted(PY_PRELUDE.sigtermDoubleFork), 10);
    expectOutcome(g, "FAIL", "TIMEOUT");
    // The run's own account: its limit, then the bounded cleanup (the limit + 10 s at most).
    expect(g.result.durationMs).toBeGreaterThanOrEqual(10_000);
    expect(g.result.durationMs).toBeLessThan(10_000 + 10_000);
    figures.push(`timeout 10 s: the run returned after ${(g.result.durationMs / 1000).toFixed(1)} s`);
  });

  it("writing to the read-only mounts and the root -> refused, PASS (the payload exits if a write works)", async () => {
    expectOutcome(await py("read-only", pyPlanted(PY_PRELUDE.readOnlyMounts)), "PASS", "PASS");
  });

  it("the environment holds no host secret (a canary in the grader's env) -> PASS", async () => {
    const g = await py("secrets", pyPlanted(PY_PRELUDE.secrets));
    expectOutcome(g, "PASS", "PASS");
    expect(g.log).not.toContain("hunter2");
  });
});

describe.concurrent("forged results", () => {
  it("the report rewritten at exit (atexit + exit 0) -> must-fail sentinel passes, FAIL REPORT_INCONSISTENT", async () => {
    const g = await py(
      "forge-at-exit",
      pyFiles({ "calc/core.py": `${PY_PRELUDE.forgeReportAtExit}\n\n${RAW_BUG}` }),
    );
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
  });

  it("the report rewritten by a process outliving the runner -> its exit code contradicts it, FAIL REPORT_INCONSISTENT", async () => {
    // double() broken too: the existing suite fails, and the rewritten report is caught by the existing
    // suite's sentinels (its must-fail shown passed) or, without them, by its runner's exit code.
    const bugs = RAW_BUG.replace("return x * 2", "return x * 3");
    const g = await py(
      "forge-later",
      pyFiles({ "calc/core.py": `${PY_PRELUDE.forgeReportLater}\n\n${bugs}` }),
    );
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    expect(g.result.message).toMatch(
      /^existing suite: (runner exited 1 but its report says all passed|the report contradicts the oracle's sentinels)/,
    );
  });

  it("a suite reading the driver's nonce (environ, memory) to forge the end of its suite -> refused, FAIL TESTS_FAILED", async () => {
    const g = await py(
      "forge-driver-output",
      pyFiles({ "calc/core.py": `${PY_PRELUDE.forgeDriverOutput}\n\n${RAW_BUG}` }),
    );
    // The driver runs from an execute-only copy of sh: not dumpable, so the test user can read
    // neither its environ nor its memory, and the nonce that ends a suite stays secret.
    expectOutcome(g, "FAIL", "TESTS_FAILED");
  });

  it("files the existing suite leaves in each writable place (dotfiles, a dangling link, an unwritable folder) are gone before the hidden one -> FAIL TESTS_FAILED", async () => {
    const fixedIfCarried = `def add(a, b):\n    return a + b if _CARRIED else a - b\n\n\ndef double(x):\n    return x * 2\n`;
    const g = await py(
      "carry-over",
      pyFiles({ "calc/core.py": `${PY_PRELUDE.carryOver}\n\n${fixedIfCarried}` }),
    );
    // The existing suite passed, so the planting (which raises if it cannot write) happened.
    expect(g.result.suites.existing.status).toBe("PASS");
    expectOutcome(g, "FAIL", "TESTS_FAILED");
  });

  it("the code under test SIGKILLing the oracle's driver -> it is PID 1 of its container: not delivered, the run goes on, PASS on the fix", async () => {
    const g = await py("kill-driver", pyFiles({ "calc/core.py": `${PY_PRELUDE.killDriver}\n\n${PY_FIXED}` }));
    expectOutcome(g, "PASS", "PASS");
  });

  it("pytest patched in-process (every report passed) -> FAIL REPORT_INCONSISTENT", async () => {
    const g = await py(
      "forge-pytest",
      pyFiles({ "calc/core.py": `${PY_PRELUDE.patchRunner}\n\n${RAW_BUG}` }),
    );
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
  });

  it("mocha patched in-process (failures emitted as passes) -> FAIL REPORT_INCONSISTENT", async () => {
    const diff = makeDiff(corpus, TASKS.node, (dir) =>
      writeFiles(dir, { "src/add.js": `${JS_PATCH_RUNNER}\n${JS_BUG}` }),
    );
    const g = await gradeCase(corpus, { task: TASKS.node, name: "forge-mocha", diff });
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
  });

  it("mocha's report rewritten on exit -> FAIL REPORT_INCONSISTENT", async () => {
    const diff = makeDiff(corpus, TASKS.node, (dir) =>
      writeFiles(dir, { "src/add.js": `${JS_FORGE_AT_EXIT}\n${JS_BUG}` }),
    );
    const g = await gradeCase(corpus, { task: TASKS.node, name: "forge-mocha-exit", diff });
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
  });

  it("honest fixes still pass with the sentinels in place (python and node)", async () => {
    expectOutcome(await py("gold-py", pyFiles({ "calc/core.py": PY_FIXED })), "PASS", "PASS");
    const diff = makeDiff(corpus, TASKS.node, (dir) => writeFiles(dir, { "src/add.js": JS_FIXED }));
    const g = await gradeCase(corpus, { task: TASKS.node, name: "gold-node", diff });
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.testIds.some((id) => /sentinel|must/i.test(id))).toBe(false);
  });
});

/** The base commit's (wrong) add, kept so that only a forgery can make the hidden test pass. */
const RAW_BUG = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return x * 2\n";
const JS_BUG = '"use strict";\n\nexports.add = (a, b) => a - b;\n';
