#!/usr/bin/env node
// Benchmark: oracle-grade's wall time on a task's gold diff against the floor, the same steps done by
// a plain shell script with the docker CLI (docker run --rm --network none ..., a fresh clone + apply
// per suite, the hidden tests copied in, both suites). Paired runs in alternating order, medians.
// Usage: node scripts/bench-grade.mjs [--root DIR] [--task calc-node] [--runs 5] [--serve]
// --serve: a local grader (oracle-grade --serve) is started once for the root, and each grade goes
// through the client to it, as a user's would while one runs; it is stopped (SIGTERM) at the end.
// Needs built images recorded in <root>/images/registry.json (pnpm build-images) and the built grader.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { floorArgs, loadTask } from "./lib/floor.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    root: { type: "string", default: repo },
    task: { type: "string", default: "calc-node" },
    runs: { type: "string", default: "5" },
    serve: { type: "boolean", default: false },
  },
});
const root = resolve(values.root);
const runs = Number(values.runs);
const loaded = loadTask(root, values.task);
const rootBin = join(repo, "node_modules", ".bin", "oracle-grade");
const grader = existsSync(rootBin) ? rootBin : join(repo, "packages", "grader", "bin", "oracle-grade.js");
const gold = join(loaded.taskDir, "gold.diff");

function floor() {
  return spawnSync("docker", floorArgs(loaded, gold), { stdio: ["ignore", "ignore", "pipe"] });
}

function oracle() {
  const started = process.hrtime.bigint();
  const result = spawnSync(grader, ["--root", root, values.task, "--diff", gold], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (server) serverReady();
  return { ...result, ms };
}

/**
 * With --serve: waits (untimed) until the server's containers for the next grade run, so that their
 * create and start do not overlap the floor's run that follows and the figures compare steady states.
 */
function serverReady() {
  for (const started = Date.now(); Date.now() - started < 60_000; ) {
    const ps = spawnSync(
      "docker",
      ["ps", "-q", "--filter", `label=dev.oracle.pid=${server.pid}`, "--filter", "status=running"],
      { encoding: "utf8" },
    );
    if (ps.stdout.trim().split("\n").filter(Boolean).length >= 2) return;
    spawnSync("sleep", ["0.1"]);
  }
}

function timed(fn) {
  const started = process.hrtime.bigint();
  const result = fn();
  return { ms: result.ms ?? Number(process.hrtime.bigint() - started) / 1e6, code: result.status };
}

/** Starts the local grader and resolves once it listens; the grades below then go through it. */
function startServer() {
  const server = spawn(grader, ["--serve", "--root", root], { stdio: ["ignore", "ignore", "pipe"] });
  let said = "";
  return new Promise((done, fail) => {
    server.stderr.setEncoding("utf8").on("data", (chunk) => {
      said += chunk;
      if (said.includes("serving ")) done(server);
    });
    server.once("exit", (code) => fail(new Error(`oracle-grade --serve exited ${code}:\n${said}`)));
  });
}

const server = values.serve ? await startServer() : null;
const loadBefore = loadavg();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const oracleMs = [];
const floorMs = [];
oracle(); // warm the image and the page cache (with --serve, the server's next containers too)
for (let i = 0; i < runs; i += 1) {
  const pair =
    i % 2 === 0
      ? [
          ["oracle", oracle],
          ["floor", floor],
        ]
      : [
          ["floor", floor],
          ["oracle", oracle],
        ];
  for (const [name, fn] of pair) {
    const { ms, code } = timed(fn);
    (name === "oracle" ? oracleMs : floorMs).push(ms);
    process.stderr.write(`run ${i + 1} ${name}: ${(ms / 1000).toFixed(2)} s (exit ${code})\n`);
  }
}
if (server) {
  const stopped = new Promise((done) => server.once("exit", done));
  server.kill("SIGTERM");
  await stopped;
}
const summary = {
  task: values.task,
  runs,
  grader,
  serve: values.serve,
  load: [loadBefore, loadavg()].map((l) => l.map((x) => Number(x.toFixed(2)))),
  oracleMedianMs: Math.round(median(oracleMs)),
  floorMedianMs: Math.round(median(floorMs)),
};
summary.ratio = Number((summary.oracleMedianMs / summary.floorMedianMs).toFixed(3));
// Each pair ran back to back, so its ratio cancels most of the machine's drift between pairs.
const pairRatios = oracleMs.map((ms, i) => ms / floorMs[i]);
summary.pairRatios = pairRatios.map((r) => Number(r.toFixed(3)));
summary.medianPairRatio = Number(median(pairRatios).toFixed(3));
process.stdout.write(`${JSON.stringify(summary)}\n`);
