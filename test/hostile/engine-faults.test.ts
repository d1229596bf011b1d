// Engine faults (issue 6) against a real dockerd and registry that this file starts for itself (the
// shared engine is never stopped): the daemon stopped mid-run, the daemon back, the grader SIGKILLed
// mid-run, the registry down. The python-pytest image is built once in the shared engine, loaded into
// the private one, pushed to the private registry, and recorded by that registry's digest.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LABEL, labelFilter } from "@oracle/engine";
import type { GradeResult, RegistryFile } from "@oracle/spec";
import { binPath, containersWithLabel, requireDocker, waitFor } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PY_FIXED } from "./cases.js";
import { type Corpus, expectOutcome, gradeCase, makeCorpus, makeDiff, TASKS, writeFiles } from "./harness.js";
import { PrivateEngine } from "./private-engine.js";

const REGISTRY = `127.0.0.1:${process.env.ORACLE_HOSTILE_REGISTRY_PORT ?? "5077"}`;
let corpus: Corpus;
let engine: PrivateEngine;
/** The gold fix, and the fix behind a 25 s sleep (a run that is still going when the fault hits). */
let gold: Buffer;
let slow: Buffer;

const run = (name: string, diff: Buffer) =>
  gradeCase(corpus, { task: TASKS.py, name, diff, engineSocket: engine.socket });

/** Starts oracle-grade on the slow diff against the private engine; resolves once its container exists. */
async function startSlowGrade(name: string): Promise<{
  child: ChildProcess;
  exited: Promise<{ code: number | null }>;
  resultFile: string;
}> {
  const diffPath = join(corpus.out, `${name}.diff`);
  writeFileSync(diffPath, slow);
  const resultFile = join(corpus.out, `${name}.result.json`);
  const child = spawn(
    binPath("oracle-grade"),
    [
      "--root",
      corpus.root,
      TASKS.py,
      "--diff",
      diffPath,
      "--result",
      resultFile,
      "--log",
      join(corpus.out, `${name}.jsonl`),
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, DOCKER_HOST: `unix://${engine.socket}` } },
  );
  child.stderr!.resume();
  const exited = new Promise<{ code: number | null }>((done) => child.on("close", (code) => done({ code })));
  const log = join(corpus.out, `${name}.jsonl`);
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null)
          throw new Error(`the grader exited ${child.exitCode} before its first suite`);
        return existsSync(log) && readFileSync(log, "utf8").includes('"suite.start"');
      },
      { what: "the grader to reach its first suite", timeoutMs: 120_000 },
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return { child, exited, resultFile };
}

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus({ images: ["python-pytest"] });
  gold = makeDiff(corpus, TASKS.py, (dir) => writeFiles(dir, { "calc/core.py": PY_FIXED }));
  slow = makeDiff(corpus, TASKS.py, (dir) =>
    writeFiles(dir, { "calc/core.py": `import time\ntime.sleep(25)\n\n\n${PY_FIXED}` }),
  );
  engine = await PrivateEngine.start("ohe-", REGISTRY);
  await engine.recordImage(corpus.root, "python-pytest", "hostile");
}, 600_000);

afterAll(async () => {
  await engine?.dispose();
  await corpus?.cleanup();
}, 120_000);

describe("engine faults (a private dockerd and registry)", () => {
  it("the engine works: the fix PASSes from the private registry's digest", async () => {
    const g = await run("private-gold", gold);
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.image.reference).toMatch(new RegExp(`^${REGISTRY}/oracle/python-pytest@sha256:`));
  });

  it("the grader SIGKILLed mid-run: its container stays, the next run removes it by label", async () => {
    const { child, exited } = await startSlowGrade("sigkill");
    const label = labelFilter(LABEL.pid, child.pid!);
    // One container per suite: the existing suite's at least is up.
    expect((await containersWithLabel(label, engine.docker)).length).toBeGreaterThan(0);
    child.kill("SIGKILL");
    await exited;
    expect((await containersWithLabel(label, engine.docker)).length).toBeGreaterThan(0);
    expectOutcome(await run("after-sigkill", gold), "PASS", "PASS");
    expect(await containersWithLabel(label, engine.docker)).toEqual([]);
  });

  it("the registry down, the image in the engine: PASS from the local image of the same digest", async () => {
    await engine.stopRegistry();
    try {
      const g = await run("registry-down", gold);
      expectOutcome(g, "PASS", "PASS");
    } finally {
      await engine.startRegistry();
    }
  });

  it("the registry down, the image nowhere: FAIL IMAGE_NOT_BUILT naming the image and the command", async () => {
    const file = join(corpus.root, "images", "registry.json");
    const saved = readFileSync(file, "utf8");
    const registry = JSON.parse(saved) as RegistryFile;
    const missing = `sha256:${"0".repeat(64)}`;
    const record = registry.images["python-pytest"]!;
    registry.images["python-pytest"] = {
      ...record,
      reference: `${REGISTRY}/oracle/python-pytest@${missing}`,
      digest: missing,
      imageId: `sha256:${"1".repeat(64)}`,
    };
    writeFileSync(file, JSON.stringify(registry));
    await engine.stopRegistry();
    try {
      const g = await run("registry-down-missing", gold);
      expectOutcome(g, "FAIL", "IMAGE_NOT_BUILT");
      expect(g.result.message).toMatch(/python-pytest.*pnpm build-images/);
    } finally {
      writeFileSync(file, saved);
      await engine.startRegistry();
    }
  });

  it("the daemon stopped mid-run: FAIL INFRA_ERROR with the engine's message, the grader exits promptly", async () => {
    const { exited, resultFile } = await startSlowGrade("daemon-stop");
    await engine.stopDaemon("SIGTERM");
    const daemonGone = Date.now();
    const { code } = await exited;
    expect(code).toBe(1);
    const result = JSON.parse(readFileSync(resultFile, "utf8")) as GradeResult;
    expect({ verdict: result.verdict, reason: result.reason }, result.message).toEqual({
      verdict: "FAIL",
      reason: "INFRA_ERROR",
    });
    expect(result.message).toMatch(/engine/);
    // The run's own end (its start + its duration) against the moment the daemon was gone: the
    // cleanup's bound (10 s, packages/grader/README.md), whatever the daemon's shutdown took.
    const returnedMs = Date.parse(result.startedAt) + result.durationMs - daemonGone;
    expect(returnedMs).toBeLessThan(10_000);
    process.stderr.write(
      `daemon stopped mid-run: the run returned ${returnedMs} ms after the daemon was gone: ${result.message}\n`,
    );
  });

  it("the daemon back: the next run PASSes and removes the leftover of the interrupted one", async () => {
    await engine.startDaemon();
    const leftovers = await containersWithLabel(labelFilter(LABEL.component, "grade"), engine.docker);
    const g = await run("daemon-back", gold);
    expectOutcome(g, "PASS", "PASS");
    for (const c of leftovers) {
      expect(await containersWithLabel(labelFilter(LABEL.run, c.Labels[LABEL.run]!), engine.docker)).toEqual(
        [],
      );
    }
    process.stderr.write(`daemon back: ${leftovers.length} leftover container(s) removed by the next run\n`);
  });
});
