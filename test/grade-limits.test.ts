// oracle-grade's run-time limits against the real engine: only `lo` inside the container, the
// process user is not root, 128 MiB of suite output stays bounded in the grader's memory and in the
// oracle log, and an OOM kill fails the run with OUT_OF_MEMORY. Tasks are variants of the samples.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LABEL, labelFilter } from "@oracle/engine";
import type { GradeResult } from "@oracle/spec";
import { binPath, containersWithLabel, makeTempRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let root = "";
let cleanup: () => Promise<void> = async () => undefined;

/** tasks/<id> as a copy of a sample task whose existing command is prefixed, with other changes. */
function variant(from: string, id: string, prefix: string, extra: Record<string, unknown> = {}): void {
  cpSync(join(root, "tasks", from), join(root, "tasks", id), { recursive: true });
  const file = join(root, "tasks", id, "task.json");
  const task = JSON.parse(readFileSync(file, "utf8"));
  task.suites.existing.command = `${prefix} ${task.suites.existing.command}`;
  writeFileSync(file, JSON.stringify({ ...task, id, ...extra }));
}

async function baseline(task: string): Promise<{ result: GradeResult; stderr: string; maxRssKb: number }> {
  const resultFile = join(root, `${task}-result.json`);
  const out = await run(
    "/usr/bin/time",
    ["-f", "maxrss=%M", binPath("oracle-grade"), "--root", root, task, "--baseline", "--result", resultFile],
    { timeoutMs: 300_000 },
  );
  expect(out.stdout).toMatch(/^tests_hash=[0-9a-f]{64}\n$/);
  const result = JSON.parse(readFileSync(resultFile, "utf8")) as GradeResult;
  const runId = (JSON.parse(readFileSync(result.logPath, "utf8").split("\n")[0]!) as { run: string }).run;
  expect(await containersWithLabel(labelFilter(LABEL.run, runId))).toEqual([]);
  return { result, stderr: out.stderr, maxRssKb: Number(/maxrss=(\d+)/.exec(out.stderr)?.[1]) };
}

beforeAll(async () => {
  await requireDocker();
  ({ root, cleanup } = await makeTempRoot({
    "tasks/calc-node": "tasks/calc-node",
    "tasks/freebusy-py": "tasks/freebusy-py",
    images: "images",
  }));
  rmSync(join(root, "images", ".registry.lock"), { recursive: true, force: true });
  rmSync(join(root, "images", ".registry.lock.owner"), { force: true });
  const built = await run(
    binPath("oracle-build-images"),
    [
      "--root",
      root,
      "--no-push",
      "--ca-file",
      "/etc/ssl/certs/ca-certificates.crt",
      "node-mocha",
      "python-pytest",
    ],
    { timeoutMs: 1_500_000 },
  );
  if (built.code !== 0) throw new Error(`oracle-build-images failed: ${built.stderr}`);
}, 1_600_000);

afterAll(async () => {
  await cleanup();
});

describe("oracle-grade limits", () => {
  it("suites see only lo and run as uid 1000 (else the runner's exit makes the run fail)", async () => {
    variant(
      "calc-node",
      "only-lo",
      '[ "$(ls /sys/class/net)" = lo ] && [ "$(id -u)" = 1000 ] && [ ! -w / ] || exit 9;',
    );
    const { result } = await baseline("only-lo");
    // The runner exits 0, never the variant's 9. The command substitutes a command's output before
    // the runner, so the oracle cannot prove which files it runs and plants no pair there.
    expect(result.suites.existing.status).toBe("PASS");
    expect(result.suites.existing.sentinel?.state).toBe("none");
    expect(result.suites.existing.sentinel?.note).toMatch(/substitutes the output of another command/);
    expect(result.suites.existing.exitCode).not.toBe(9);
  });

  it("128 MiB of output: counted, bounded in the log, grader RSS under 200 MB", async () => {
    variant("calc-node", "loud", "head -c 134217728 /dev/zero | tr '\\0' x;");
    const { result, maxRssKb } = await baseline("loud");
    expect(result.suites.existing.status).toBe("PASS");
    expect(result.suites.existing.output.bytes).toBeGreaterThanOrEqual(134_217_728);
    expect(result.suites.existing.output.truncated).toBe(true);
    expect(readFileSync(result.logPath).length).toBeLessThan(4 * 1024 * 1024);
    expect(maxRssKb).toBeGreaterThan(0);
    expect(maxRssKb).toBeLessThan(200 * 1024);
  });

  it("a host mirror that is a bare repository owned by another uid", async () => {
    variant("calc-node", "bare-mirror", "");
    const dir = join(root, "tasks", "bare-mirror");
    execFileSync("git", ["clone", "-q", "--bare", join(dir, "repo.bundle"), join(dir, "repo.git")]);
    rmSync(join(dir, "repo.bundle"));
    const file = join(dir, "task.json");
    const task = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...task, repo: { ...task.repo, mirror: "repo.git" } }));
    const { result } = await baseline("bare-mirror");
    expect(result.suites.existing.status).toBe("PASS");
    expect(result.suites.hidden.status).toBe("FAIL");
  });

  it("3,000 hidden files: a hidden suite's driver script above execve's 128 KiB argument limit still runs (it comes on stdin)", async () => {
    variant("freebusy-py", "many-hidden", "true;");
    const data = join(root, "tasks", "many-hidden", "hidden-tests", "tests", "regression", "data");
    mkdirSync(data, { recursive: true });
    for (let i = 0; i < 3000; i += 1)
      writeFileSync(join(data, `fixture-${String(i).padStart(5, "0")}.txt`), `${i}\n`);
    const { result } = await baseline("many-hidden");
    const log = readFileSync(result.logPath, "utf8");
    const script = JSON.parse(
      log.split("\n").find((line) => line.includes('"driver.script"') && line.includes('"suite":"hidden"'))!,
    ) as { script: string };
    expect(Buffer.byteLength(script.script)).toBeGreaterThan(128 * 1024);
    expect(result.suites.existing.status).toBe("PASS");
    expect(result.suites.hidden.reason).toBe("TESTS_FAILED");
  });

  it("a memory bomb: FAIL OUT_OF_MEMORY even when the runner carries on", async () => {
    variant("freebusy-py", "hungry", 'python3 -c "a = bytearray(600 * 1024 * 1024)";', {
      resources: { memoryMb: 128, cpus: 1, pids: 128 },
    });
    const { result } = await baseline("hungry");
    expect(result.reason).toBe("OUT_OF_MEMORY");
    expect(result.suites.existing.reason).toBe("OUT_OF_MEMORY");
  });
});
