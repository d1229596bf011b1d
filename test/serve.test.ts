// `oracle-grade --serve`, the local grader (packages/grader/src/serve/), end to end on the real
// engine: a grade the bin hands to it prints, writes and exits exactly as one in process, the next
// grade of a task runs in the containers it made ahead, and nothing of it is left after a SIGTERM;
// after a SIGKILL the next grade's start removes its containers, the client grades in process past
// the stale socket, and the next --serve replaces it. A socket path not this user's is refused.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Dockerode, LABEL, labelFilter } from "@oracle/engine";
import type { GradeResult } from "@oracle/spec";
import { binPath, containersWithLabel, makeTempRoot, requireDocker, run, waitFor } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, readLog, startProcess } from "./fixtures/batch/harness.js";

const GRADE = binPath("oracle-grade");
const CA = "/etc/ssl/certs/ca-certificates.crt";
const TASK = "calc-node";
/** Five grades in the first case: minutes on a loaded 2-core machine. */
const CASE_MS = 3_600_000;

let docker: Dockerode;
let temp: { root: string; cleanup: () => Promise<void> };
let socket = "";

beforeAll(async () => {
  docker = await requireDocker();
  temp = await makeTempRoot({
    "tasks/calc-node": "tasks/calc-node",
    "images/node-mocha": "images/node-mocha",
  });
  socket = join(temp.root, ".oracle", "serve.sock");
  // The cases compare verdicts: the task's 90 s limit is passed on a machine kept busy (load 50 on 2
  // cores), so this copy gets a limit no load reaches; the server's slots are made for it.
  const taskFile = join(temp.root, "tasks", TASK, "task.json");
  const task = JSON.parse(readFileSync(taskFile, "utf8")) as { timeoutSeconds: number };
  writeFileSync(taskFile, JSON.stringify({ ...task, timeoutSeconds: 900 }, null, 2));
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", CA, "--only", "node-mocha"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
});

/** Every server a case started: one a failed case leaves running is stopped (SIGTERM) before the root goes. */
const servers: ReturnType<typeof startProcess>[] = [];

afterAll(async () => {
  for (const server of servers) {
    server.kill("SIGTERM");
    await exited(server);
  }
  await temp?.cleanup();
});

const grade = (name: string, ...args: string[]) =>
  run(GRADE, ["--root", temp.root, TASK, ...args, "--result", join(temp.root, `${name}.json`)], {
    timeoutMs: 1_000_000,
  });

/** The oracle log a grade's stderr names, and the pid its start event records. */
function logOf(stderr: string): { text: string; pid: number } {
  const path = /^log: (.*)$/m.exec(stderr)?.[1];
  if (!path) throw new Error(`no log line in:\n${stderr}`);
  const text = readFileSync(path, "utf8");
  const start = text.split("\n").find((l) => l.includes('"start"'));
  return { text, pid: (JSON.parse(start!) as { pid: number }).pid };
}

/** What two grades of the same inputs share: the result without its times, run, log and signature. */
function comparable(name: string): unknown {
  const result = JSON.parse(readFileSync(join(temp.root, `${name}.json`), "utf8")) as GradeResult &
    Record<string, unknown>;
  const {
    startedAt: _s,
    durationMs: _d,
    logPath: _l,
    timings: _t,
    attestation: _a,
    runId: _r,
    ...rest
  } = result;
  return JSON.parse(
    JSON.stringify(rest, (key, value) => (key === "durationMs" || key === "timeSeconds" ? 0 : value)),
  );
}

/** stderr without the one line that names each run's own log file. */
const account = (stderr: string) => stderr.replace(/^log: .*$/m, "log: <the run's log>");

function startServer(name: string) {
  const log = join(temp.root, `${name}.log`);
  const server = startProcess(GRADE, ["--serve", "--root", temp.root], log);
  servers.push(server);
  const ready = waitFor(() => readLog(log).includes("serving "), {
    what: "the local grader to listen",
    timeoutMs: 60_000,
    detail: () => readLog(log),
  });
  return { server, pid: server.pid!, log, ready };
}

/** The run folders a grader of pid `pid` made (run-folder.ts names them after it). */
const runDirsOf = async (pid: number) =>
  (await readdir(tmpdir())).filter((n) => new RegExp(`^oracle-grade-\\d+-${pid}-`).test(n));

describe("oracle-grade --serve", () => {
  it(
    "grades gold and baseline as in process, the second grade in containers made ahead; a SIGTERM leaves nothing",
    async () => {
      const gold = join(temp.root, "tasks", TASK, "gold.diff");
      const inGold = await grade("in-gold", "--diff", gold);
      const inBase = await grade("in-base", "--baseline");
      expect([inGold.code, inBase.code]).toEqual([0, 1]);

      const { server, pid, log, ready } = startServer("serve-1");
      await ready;
      const served = [
        await grade("served-gold-1", "--diff", gold),
        await grade("served-gold-2", "--diff", gold),
        await grade("served-base", "--baseline"),
      ];
      for (const out of served) expect(logOf(out.stderr).pid, readLog(log)).toBe(pid);
      const [gold1, gold2, base] = served as [(typeof served)[0], (typeof served)[0], (typeof served)[0]];
      for (const [inProcess, viaServer, names] of [
        [inGold, gold1, ["in-gold", "served-gold-1"]],
        [inGold, gold2, ["in-gold", "served-gold-2"]],
        [inBase, base, ["in-base", "served-base"]],
      ] as const) {
        expect(viaServer.code).toBe(inProcess.code);
        expect(viaServer.stdout).toBe(inProcess.stdout);
        expect(account(viaServer.stderr)).toBe(account(inProcess.stderr));
        expect(comparable(names[1])).toEqual(comparable(names[0]));
      }
      // The first grade made its own containers; the next ones ran in those the server made ahead.
      expect(logOf(gold1.stderr).text).toContain('"container.create"');
      for (const out of [gold2, base]) {
        const text = logOf(out.stderr).text;
        expect(text.match(/"step":"container\.warm"/g) ?? []).toHaveLength(2);
        expect(text).not.toContain('"container.create"');
      }
      // A task's next grade is ready: two started containers of the server's.
      const label = labelFilter(LABEL.pid, pid);
      await waitFor(async () => (await containersWithLabel(label, docker)).length === 2, {
        what: "the next grade's two containers",
        timeoutMs: 120_000,
      });

      server.kill("SIGTERM");
      expect(await exited(server), readLog(log)).toBe(143);
      expect(await containersWithLabel(label, docker)).toEqual([]);
      expect(await runDirsOf(pid)).toEqual([]);
      await expect(readFile(socket)).rejects.toThrow(/ENOENT/);
    },
    CASE_MS,
  );

  it(
    "after a SIGKILL the client grades in process past the stale socket, which the next --serve replaces",
    async () => {
      const first = startServer("serve-2");
      await first.ready;
      await grade("warm-up", "--baseline");
      const label = labelFilter(LABEL.pid, first.pid);
      await waitFor(async () => (await containersWithLabel(label, docker)).length === 2, {
        what: "the next grade's two containers",
        timeoutMs: 120_000,
      });
      first.server.kill("SIGKILL");
      await exited(first.server);
      expect(readdirSync(join(temp.root, ".oracle"))).toContain("serve.sock");

      const after = await grade("after-kill", "--baseline");
      expect(after.code, after.stderr).toBe(1);
      expect(logOf(after.stderr).pid).toBe(after.pid);
      // Its start removed the killed server's containers.
      expect(await containersWithLabel(label, docker)).toEqual([]);
      expect(await runDirsOf(first.pid)).toEqual([]);

      const second = startServer("serve-3");
      await second.ready;
      const served = await grade("served-again", "--baseline");
      expect(logOf(served.stderr).pid).toBe(second.pid);
      second.server.kill("SIGTERM");
      expect(await exited(second.server), readLog(second.log)).toBe(143);
    },
    CASE_MS,
  );

  it(
    "refuses a socket path that is not this user's socket",
    async () => {
      await mkdir(join(temp.root, ".oracle"), { recursive: true });
      await rm(socket, { force: true });
      writeFileSync(socket, "not a socket\n");
      const out = await run(GRADE, ["--serve", "--root", temp.root], { timeoutMs: 60_000 });
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/is not a socket of this user's; not replacing it/);
      expect(readFileSync(socket, "utf8")).toBe("not a socket\n");
      // The client does not take it for one either: the grade runs in process.
      const graded = await grade("past-a-file", "--baseline");
      expect(logOf(graded.stderr).pid).toBe(graded.pid);
    },
    CASE_MS,
  );
});
