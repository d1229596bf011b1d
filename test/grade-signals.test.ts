// oracle-grade and the life of its container: SIGTERM and SIGINT mid-run remove it before the
// grader exits (128+n, no tests_hash line); after a SIGKILL the container is left behind, and the
// next grader's start removes it by label. Real engine, built CLI, a temporary root.
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { loadTask } from "@oracle/spec";
import { binPath, containersWithLabel, makeTempRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TASK = "calc-node";
let root = "";
let cleanup: () => Promise<void> = async () => undefined;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Starts a grade and resolves once its container exists. */
async function startGrade(): Promise<{
  child: ChildProcess;
  exited: Promise<{ code: number | null; stdout: string }>;
}> {
  const gold = (await loadTask(root, TASK)).goldDiff!;
  const child = spawn(binPath("oracle-grade"), ["--root", root, TASK, "--diff", gold], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.resume();
  const exited = new Promise<{ code: number | null; stdout: string }>((done) =>
    child.on("close", (code) => done({ code, stdout })),
  );
  for (let i = 0; i < 200; i += 1) {
    if ((await containersWithLabel(`dev.oracle.pid=${child.pid}`)).length > 0) return { child, exited };
    await sleep(50);
  }
  child.kill("SIGKILL");
  throw new Error("the grader's container never appeared");
}

beforeAll(async () => {
  await requireDocker();
  ({ root, cleanup } = await makeTempRoot({ [`tasks/${TASK}`]: `tasks/${TASK}`, images: "images" }));
  rmSync(join(root, "images", ".registry.lock"), { recursive: true, force: true });
  rmSync(join(root, "images", ".registry.lock.owner"), { force: true });
  const built = await run(
    binPath("oracle-build-images"),
    ["--root", root, "--no-push", "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "node-mocha"],
    { timeoutMs: 1_500_000 },
  );
  if (built.code !== 0) throw new Error(`oracle-build-images failed: ${built.stderr}`);
}, 1_600_000);

afterAll(async () => {
  await cleanup();
});

describe("oracle-grade interrupted", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "%s: the container is removed, then the grader exits %d without a tests_hash line",
    async (signal, code) => {
      const { child, exited } = await startGrade();
      const pid = child.pid!;
      child.kill(signal);
      const result = await exited;
      expect(result.code).toBe(code);
      expect(result.stdout).toBe("");
      expect(await containersWithLabel(`dev.oracle.pid=${pid}`)).toEqual([]);
    },
  );

  it("SIGKILL leaves the container; the next grader's start removes it by label", async () => {
    const { child, exited } = await startGrade();
    const pid = child.pid!;
    child.kill("SIGKILL");
    await exited;
    expect((await containersWithLabel(`dev.oracle.pid=${pid}`)).length).toBe(1);
    const next = await run(binPath("oracle-grade"), ["--root", root, TASK, "--baseline"], {
      timeoutMs: 120_000,
    });
    expect(next.code).toBe(1);
    // Any grader starting on this host removes it (others may run beside this test): it must be gone.
    if (!/removed \d+ leftover container/.test(next.stderr))
      console.warn("the leftover was removed by another grader's start");
    expect(await containersWithLabel(`dev.oracle.pid=${pid}`)).toEqual([]);
  });
});
