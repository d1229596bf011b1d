// oracle-log as a user runs it: a real grade's log (pytest, in a container) printed for people, and
// exit 2 with a message for a file that is not a log.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, makeTempRoot, repoRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let root = "";
let cleanup: () => Promise<void> = async () => undefined;
const oracleLog = (...args: string[]) => run(binPath("oracle-log"), args, { timeoutMs: 30_000 });

beforeAll(async () => {
  await requireDocker();
  ({ root, cleanup } = await makeTempRoot({
    "tasks/freebusy-py": "tasks/freebusy-py",
    images: "images",
  }));
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", root, "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "--only", "python-pytest"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
});

afterAll(async () => {
  await cleanup();
});

describe("oracle-log", () => {
  it("prints a graded run: steps, suites' output in lines, tests and the verdict", async () => {
    const log = join(root, "run.jsonl");
    const diff = join(repoRoot, "tasks/freebusy-py/gold.diff");
    const graded = await run(
      binPath("oracle-grade"),
      ["--root", root, "freebusy-py", "--diff", diff, "--log", log],
      {
        timeoutMs: 120_000,
      },
    );
    expect(graded.code, graded.stderr).toBe(0);
    const out = await oracleLog(log);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^oracle log .*\ntask freebusy-py {2}mode grade/);
    expect(out.stdout).toMatch(/\n {2}suite\.hidden +\d+ ms/);
    // One line of progress (the sentinels' must-fail tests show as F), not one per character.
    expect(out.stdout).toMatch(/\n {2}\| [.F]+ +\[100%\]\n/);
    expect(out.stdout).toContain("    passed hidden:tests.regression.test_contained_meetings::");
    expect(out.stdout).toContain(
      `verdict: PASS (PASS) both suites ran and passed\n${graded.stdout.trim()} over`,
    );
  });

  it("exits 2 naming the problem for a missing file or one that is not a log", async () => {
    const missing = await oracleLog(join(root, "nope.jsonl"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/LOG_INVALID: .*nope\.jsonl: cannot read the oracle log: no such file/);
    const diff = join(root, "x.diff");
    writeFileSync(diff, "diff --git a/x b/x\n");
    const notLog = await oracleLog(diff);
    expect(notLog.code).toBe(2);
    expect(notLog.stderr).toMatch(/LOG_INVALID: .*x\.diff: not an oracle log: line 1/);
    expect((await oracleLog("--help")).stdout).toMatch(/^Usage: oracle-log FILE/);
  });
});
