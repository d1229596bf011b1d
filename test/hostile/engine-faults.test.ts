// Engine faults (issue 6) against a real dockerd and registry that this file starts for itself (the
// shared engine is never stopped): the daemon stopped mid-run, the daemon back, the grader SIGKILLed
// mid-run, the registry down. The python-pytest image is built once in the shared engine, loaded into
// the private one, pushed to the private registry, and recorded by that registry's digest.
//
// Leftover leases (issue 13, class 5) share the private engine (it was a file of its own that started
// one more: ~40 s of CI for its set-up alone): a grader in another PID namespace with the same
// hostname must keep its live containers when another grader starts, so graders of other checkouts
// on the shared engine cannot touch the run. The first grader runs under `unshare --pid` with its PID
// set to a number no process of the host has; its existing suite waits until the test releases it,
// after a second grader (the host's namespace) has started, looked for leftovers and finished.
// docs/security.md ("Leftover containers") names it. They run after the faults, once the daemon is
// back and no leftover is in the engine: a lease that stays (before its deadline) would otherwise be
// a leftover the daemon-back case expects gone.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { LABEL, labelFilter, projectLabels } from "@oracle/engine";
import type { GradeResult, RegistryFile } from "@oracle/spec";
import { binPath, containersWithLabel, requireDocker, waitFor } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PY_FIXED } from "./cases.js";
import { type Corpus, expectOutcome, gradeCase, makeCorpus, makeDiff, TASKS, writeFiles } from "./harness.js";
import { PrivateEngine } from "./private-engine.js";

const REGISTRY = `127.0.0.1:${process.env.ORACLE_HOSTILE_REGISTRY_PORT ?? "5077"}`;
const INNER = "hostile-py-lease";
/** The inner grader's PID in its namespace: above the host's pid_max, so no host process has it. */
const INNER_PID = 3_999_991;
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
  const dir = join(corpus.root, "tasks", INNER);
  cpSync(join(corpus.root, "tasks", TASKS.py), dir, { recursive: true });
  const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
  writeFileSync(join(dir, "task.json"), `${JSON.stringify({ ...task, id: INNER }, null, 2)}\n`);
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

/** The fix, whose existing suite waits (up to 25 s) for the release file in its own run folder (written from the host). */
const HELD = `import os
import time

if not os.path.isdir(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "checks")):
    for _ in range(250):
        if os.path.exists("/oracle/run/release"):
            break
        time.sleep(0.1)


${PY_FIXED}`;

describe("leftover leases", () => {
  it("a live grader in another PID namespace, same hostname, PID dead here: its container survives another grader's start", async () => {
    const out = corpus.out;
    const diffPath = join(out, "held.diff");
    writeFileSync(
      diffPath,
      makeDiff(corpus, TASKS.py, (d) => writeFiles(d, { "calc/core.py": HELD })),
    );
    const resultFile = join(out, "inner.result.json");
    const logFile = join(out, "inner.jsonl");
    const args = ["--root", corpus.root, INNER, "--diff", diffPath, "--result", resultFile, "--log", logFile];
    const script = `echo ${INNER_PID - 1} > /proc/sys/kernel/ns_last_pid && "$0" "$@"`;
    const child = spawn(
      "unshare",
      ["--pid", "--fork", "--mount-proc", "sh", "-c", script, binPath("oracle-grade"), ...args],
      {
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, DOCKER_HOST: `unix://${engine.socket}` },
      },
    );
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    const label = labelFilter(LABEL.task, INNER);
    await waitFor(
      () => {
        try {
          return readFileSync(logFile, "utf8").includes('"suite.start"');
        } catch {
          return false;
        }
      },
      { what: "the inner grader's existing suite to start", timeoutMs: 60_000, detail: () => stderr },
    );
    const [inner] = await containersWithLabel(label, engine.docker);
    expect(inner?.Labels[LABEL.pid]).toBe(String(INNER_PID));
    expect(inner?.Labels[LABEL.host]).toBe(hostname());
    expect(() => process.kill(INNER_PID, 0)).toThrow();

    const outer = await run("outer", gold);
    expectOutcome(outer, "PASS", "PASS");
    expect(outer.stderr).not.toMatch(/removed \d+ leftover/);
    expect(
      readFileSync(logFile, "utf8"),
      "the inner grader's existing suite ended before the outer grader was done",
    ).not.toContain('"suite.exit"');
    // One container per suite: the existing suite's (held) and the hidden suite's (prepared, waiting).
    const held = await containersWithLabel(`${label}`, engine.docker);
    expect(held.length).toBeGreaterThan(0);
    const existing = held.find((c) => c.Labels[LABEL.suite] === "existing");
    const runDir = existing?.Mounts.find((m) => m.Destination === "/oracle/run")?.Source;
    expect(runDir, "the existing suite's run folder").toBeTruthy();
    writeFileSync(join(runDir!, "release"), "");
    expect(await exited, stderr).toBe(0);
    const result = JSON.parse(readFileSync(resultFile, "utf8")) as GradeResult;
    expect({ verdict: result.verdict, reason: result.reason }, result.message).toEqual({
      verdict: "PASS",
      reason: "PASS",
    });
    expect(await containersWithLabel(label, engine.docker)).toEqual([]);
  });
  it("a container past its deadline goes at the next grader's start whoever made it; one before it, of another namespace, stays", async () => {
    const image = (
      JSON.parse(readFileSync(join(corpus.root, "images", "registry.json"), "utf8")) as RegistryFile
    ).images["python-pytest"]!.reference;
    const make = (name: string, deadline: number) =>
      engine.docker.createContainer({
        Image: image,
        Cmd: ["true"],
        Labels: {
          ...projectLabels("grade"),
          [LABEL.run]: `lease-${name}`,
          [LABEL.pid]: String(INNER_PID),
          [LABEL.pidns]: "another-boot.4026530000",
          [LABEL.deadline]: String(deadline),
        },
      });
    await make("expired", Date.now() - 1000);
    await make("current", Date.now() + 3_600_000);
    const g = await run("after-lease", gold);
    expectOutcome(g, "PASS", "PASS");
    expect(await containersWithLabel(labelFilter(LABEL.run, "lease-expired"), engine.docker)).toEqual([]);
    expect(await containersWithLabel(labelFilter(LABEL.run, "lease-current"), engine.docker)).toHaveLength(1);
  });
});
