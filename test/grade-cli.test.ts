// oracle-grade's contract where no container is needed: exit 2 only when no run happened (usage,
// unknown/invalid/quarantined task, unreadable diff) with a message on stderr and nothing on stdout;
// exit 1 and a tests_hash line for runs that fail early (garbage diff, image not built, stale image);
// `pnpm grade` as a user types it prints nothing but the tests_hash line; on a FAIL in a container,
// stderr shows the end of the failing suite's own output, bounded and unable to drive the terminal.
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { GradeResult } from "@oracle/spec";
import { binPath, makeTempRoot, repoRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const EMPTY_HASH = "tests_hash=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n";
let root = "";
let cleanup: () => Promise<void> = async () => undefined;
const grade = (...args: string[]) =>
  run(binPath("oracle-grade"), ["--root", root, ...args], { timeoutMs: 120_000 });

beforeAll(async () => {
  ({ root, cleanup } = await makeTempRoot({
    "tasks/calc-node": "tasks/calc-node",
    "images/node-mocha": "images/node-mocha",
  }));
  writeFileSync(join(root, "garbage.diff"), "not a diff\n");
});

afterAll(async () => {
  await cleanup();
});

describe("oracle-grade: no run happened (exit 2)", () => {
  it.each([
    [["calc-node"], /USAGE.*exactly one of --diff FILE or --baseline/s],
    [["calc-node", "--baseline", "--timeout", "soon"], /USAGE/],
    [["no-such-task", "--baseline"], /TASK_NOT_FOUND/],
    [["calc-node", "--diff", "/nonexistent.diff"], /DIFF_UNREADABLE/],
  ])("%j", async (args, message) => {
    const out = await grade(...args);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(message);
  });

  it("an invalid task names the file and the field", async () => {
    mkdirSync(join(root, "tasks", "broken", "hidden-tests"), { recursive: true });
    writeFileSync(
      join(root, "tasks", "broken", "task.json"),
      JSON.stringify({ id: "broken", image: "node-mocha" }),
    );
    const out = await grade("broken", "--baseline");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/TASK_INVALID: tasks\/broken\/task.json: repo: Required/);
  });

  it("a quarantined task names its reasons, and runs with --allow-quarantined", async () => {
    const now = new Date().toISOString();
    const reasons = [{ flag: "FLAKY", message: "flips between runs", evidence: [] }];
    writeFileSync(
      join(root, "tasks", "quarantine.json"),
      JSON.stringify({ version: 1, tasks: { "calc-node": { reasons, firstSeen: now, lastChecked: now } } }),
    );
    const refused = await grade("calc-node", "--baseline");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/TASK_QUARANTINED.*FLAKY: flips between runs/s);
    const allowed = await grade("calc-node", "--diff", join(root, "garbage.diff"), "--allow-quarantined");
    expect(allowed.code).toBe(1);
    expect(allowed.stdout).toBe(EMPTY_HASH);
    writeFileSync(join(root, "tasks", "quarantine.json"), JSON.stringify({ version: 1, tasks: {} }));
  });
});

describe("oracle-grade: runs that fail early (exit 1, one tests_hash line)", () => {
  it("garbage: DIFF_INVALID", async () => {
    const out = await grade(
      "calc-node",
      "--diff",
      join(root, "garbage.diff"),
      "--result",
      join(root, "r.json"),
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toBe(EMPTY_HASH);
    expect(out.stderr).toMatch(/FAIL \(DIFF_INVALID\)/);
  });

  it("no recorded image: IMAGE_NOT_BUILT naming the command to run", async () => {
    const out = await grade("calc-node", "--baseline");
    expect(out.code).toBe(1);
    expect(out.stdout).toBe(EMPTY_HASH);
    expect(out.stderr).toMatch(/IMAGE_NOT_BUILT.*pnpm build-images/);
  });

  it("a stale image (its folder changed since the recorded build): IMAGE_NOT_BUILT", async () => {
    const built = await run(
      binPath("oracle-build-images"),
      ["--root", root, "--no-push", "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "node-mocha"],
      { timeoutMs: 1_500_000 },
    );
    expect(built.code, built.stderr).toBe(0);
    appendFileSync(join(root, "images", "node-mocha", "Dockerfile"), "\nENV ORACLE_STALE=1\n");
    const out = await grade("calc-node", "--baseline");
    expect(out.code).toBe(1);
    expect(out.stdout).toBe(EMPTY_HASH);
    expect(out.stderr).toMatch(/IMAGE_NOT_BUILT.*stale.*pnpm build-images/);
  }, 1_600_000);
});

describe("pnpm grade", () => {
  it("prints only the tests_hash line on stdout", async () => {
    const out = await run(
      "pnpm",
      ["grade", "--root", root, "calc-node", "--diff", join(root, "garbage.diff")],
      { cwd: repoRoot, timeoutMs: 120_000 },
    );
    expect(out.code).toBe(1);
    expect(out.stdout).toBe(EMPTY_HASH);
  });
});

describe("oracle-grade: a FAIL shows the failing suite's own output", () => {
  let noisyRoot = "";
  let noisyCleanup: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    await requireDocker();
    ({ root: noisyRoot, cleanup: noisyCleanup } = await makeTempRoot({
      "tasks/calc-node": "tasks/calc-node",
      "images/node-mocha": "images/node-mocha",
    }));
    cpSync(join(noisyRoot, "tasks", "calc-node"), join(noisyRoot, "tasks", "bad-flag"), { recursive: true });
    const file = join(noisyRoot, "tasks", "bad-flag", "task.json");
    const task = JSON.parse(readFileSync(file, "utf8"));
    task.id = "bad-flag";
    // A runner that refuses its command line, after a long stdout with a terminal title escape in it
    // and a long stderr (the engine copies the two streams apart: stderr's end may come last).
    task.suites.hidden.command =
      "seq 1 5000; printf '\\033]0;owned\\007\\033[2J'; seq 1 100000 >&2; echo \"error: unknown option '--ci'\" >&2; exit 1";
    writeFileSync(file, JSON.stringify(task));
    const built = await run(
      binPath("oracle-build-images"),
      ["--root", noisyRoot, "--no-push", "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "node-mocha"],
      { timeoutMs: 1_500_000 },
    );
    expect(built.code, built.stderr).toBe(0);
  }, 1_600_000);

  afterAll(async () => {
    await noisyCleanup();
  });

  it("prints the tail of the hidden suite's stderr and stdout (40 lines at most), and keeps it in the result", async () => {
    const resultFile = join(noisyRoot, "result.json");
    const out = await run(
      binPath("oracle-grade"),
      ["--root", noisyRoot, "bad-flag", "--baseline", "--result", resultFile],
      { timeoutMs: 240_000 },
    );
    expect(out.code, out.stderr).toBe(1);
    expect(out.stdout).toMatch(/^tests_hash=[0-9a-f]{64}\n$/);
    // The code under test printed an OSC title and a clear-screen: neither reaches the terminal.
    expect(out.stderr).not.toContain("\u001b");
    expect(out.stderr).toContain("hidden suite's stderr, last 40 lines:\n  | 99962\n");
    expect(out.stderr).toContain("  | 100000\n  | error: unknown option '--ci'\n");
    const stdoutTail = out.stderr.split("hidden suite's stdout, last 40 lines:\n")[1]?.split("\n") ?? [];
    expect(stdoutTail[0]).toBe("  | 4961");
    expect(stdoutTail[39]).toBe("  | 5000");
    expect(out.stderr).not.toContain("  | 4960\n");
    expect(out.stderr).not.toContain("existing suite's");
    const result = JSON.parse(readFileSync(resultFile, "utf8")) as GradeResult;
    expect(result.suites.hidden).toMatchObject({ status: "FAIL", reason: "REPORT_MISSING" });
    expect(result.suites.hidden.output.tail?.stderr.split("\n").slice(-2)).toEqual([
      "100000",
      "error: unknown option '--ci'",
    ]);
    expect(result.suites.existing.status).toBe("PASS");
  }, 240_000);
});
