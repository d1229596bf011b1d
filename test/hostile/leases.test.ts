// Leftover leases (issue 13, class 5): a grader in another PID namespace with the same hostname
// must keep its live containers when another grader starts. Against a private dockerd and registry
// (private-engine.ts), so that graders of other checkouts on the shared engine cannot touch the run.
// The first grader runs under `unshare --pid` with its PID set to a number no process of the host has;
// its existing suite waits until the test releases it, after a second grader (the host's namespace)
// has started, looked for leftovers and finished. docs/security.md ("Leftover containers") names it.
import { spawn } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { LABEL, labelFilter, projectLabels } from "@oracle/engine";
import type { GradeResult, RegistryFile } from "@oracle/spec";
import { binPath, containersWithLabel, requireDocker, waitFor } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PY_FIXED } from "./cases.js";
import { type Corpus, expectOutcome, gradeCase, makeCorpus, makeDiff, TASKS, writeFiles } from "./harness.js";
import { PrivateEngine } from "./private-engine.js";

const REGISTRY = `127.0.0.1:${process.env.ORACLE_LEASES_REGISTRY_PORT ?? "5079"}`;
const INNER = "hostile-py-lease";
/** The inner grader's PID in its namespace: above the host's pid_max, so no host process has it. */
const INNER_PID = 3_999_991;
let corpus: Corpus;
let engine: PrivateEngine;

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus({ images: ["python-pytest"] });
  const dir = join(corpus.root, "tasks", INNER);
  cpSync(join(corpus.root, "tasks", TASKS.py), dir, { recursive: true });
  const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
  writeFileSync(join(dir, "task.json"), `${JSON.stringify({ ...task, id: INNER }, null, 2)}\n`);
  engine = await PrivateEngine.start("ohl-", REGISTRY);
  await engine.recordImage(corpus.root, "python-pytest", "leases");
}, 600_000);

afterAll(async () => {
  await engine?.dispose();
  await corpus?.cleanup();
}, 120_000);

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

    const outer = await gradeCase(corpus, {
      task: TASKS.py,
      name: "outer",
      diff: makeDiff(corpus, TASKS.py, (d) => writeFiles(d, { "calc/core.py": PY_FIXED })),
      engineSocket: engine.socket,
    });
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
    const g = await gradeCase(corpus, {
      task: TASKS.py,
      name: "after-lease",
      diff: makeDiff(corpus, TASKS.py, (d) => writeFiles(d, { "calc/core.py": PY_FIXED })),
      engineSocket: engine.socket,
    });
    expectOutcome(g, "PASS", "PASS");
    expect(await containersWithLabel(labelFilter(LABEL.run, "lease-expired"), engine.docker)).toEqual([]);
    expect(await containersWithLabel(labelFilter(LABEL.run, "lease-current"), engine.docker)).toHaveLength(1);
  });
});
