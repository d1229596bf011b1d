#!/usr/bin/env node
// Benchmark of batch grading on the sample tasks. By default: a batch at --concurrency C against the
// floor run N times at concurrency C (the floor: the protocol by hand, bench-grade's one `docker run`
// per prediction, lib/floor.mjs), as a throughput ratio from one run (in the order --only gives).
// Also, with --only: local concurrency 1 vs 2, and two queue workers (oracle-worker, concurrency 1 each,
// real redis-server) vs local concurrency 2. Every batch grades the same predictions with --no-cache
// into its own --out. Prints wall time, throughput, the mean grade time, the queue's overhead per job,
// and where the time of a grade goes (the steps the oracle log times). Uses the built CLIs: run
// `pnpm build` first.
// `--only floor,batch,nopool` adds the same batch with --no-pool (no warm pool) to the same run.
// `--rounds R` runs the selected configurations R times, the order rotated by one each round (floor,
// batch, nopool; then batch, nopool, floor; ...): whichever runs first meets a colder page cache and
// engine, so a single order favours or handicaps one of them. Each round prints its own figures, then
// the ratios of every round side by side with their median.
//   node scripts/bench-batch.mjs [--n 50] [--concurrency 2] [--only floor,batch,nopool,local1,local2,queue] [--rounds 1] [--keep]
import { spawn, spawnSync } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadTask, runFloor } from "./lib/floor.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(repo, "node_modules", ".bin", name);
const { values } = parseArgs({
  options: {
    n: { type: "string", default: "50" },
    concurrency: { type: "string", default: "2" },
    only: { type: "string", default: "floor,batch" },
    rounds: { type: "string", default: "1" },
    keep: { type: "boolean" },
  },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a whole number");
const n = Number(values.n);
const only = new Set(values.only.split(","));
const concurrency = Number(values.concurrency);
if (!Number.isInteger(n) || n < 1) throw new Error("--n must be a whole number");
if (!Number.isInteger(concurrency) || concurrency < 1)
  throw new Error("--concurrency must be a whole number");

const NOOP = `diff --git a/ORACLE_NOTE.txt b/ORACLE_NOTE.txt
new file mode 100644
--- /dev/null
+++ b/ORACLE_NOTE.txt
@@ -0,0 +1 @@
+not a fix
`;
// semver-go compiles on every run (~3x the others): it gets a fifth of the predictions.
const MIX = ["calc-node", "freebusy-py", "calc-node", "freebusy-py", "semver-go"];

async function writePredictions(root, file) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const task = MIX[i % MIX.length];
    const diff = i % 2 === 0 ? await readFile(join(root, "tasks", task, "gold.diff"), "utf8") : NOOP;
    lines.push(JSON.stringify({ id: `b${String(i).padStart(3, "0")}`, task, diff }));
  }
  await writeFile(file, `${lines.join("\n")}\n`);
}

function runToEnd(command, args, logFile) {
  const started = Date.now();
  const out = openSync(logFile, "a");
  const child = spawn(command, args, { stdio: ["ignore", "pipe", out] });
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  return new Promise((done) => child.on("exit", (code) => done({ code, stdout, ms: Date.now() - started })));
}

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

async function startRedis(dir) {
  const port = await freePort();
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--appendonly",
    "yes",
    "--save",
    "",
  ];
  const child = spawn("redis-server", [...args, "--logfile", "redis.log"], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    if (
      spawnSync("redis-cli", ["-p", String(port), "ping"])
        .stdout?.toString()
        .includes("PONG")
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `redis://127.0.0.1:${port}`, child };
}

/** Sums the step timings of every graded line's oracle log: where the time of a grade goes. */
function stepTimes(resultsFile) {
  const steps = {};
  let runs = 0;
  for (const text of readFileSync(resultsFile, "utf8").trim().split("\n")) {
    const line = JSON.parse(text);
    if (!line.log || !existsSync(line.log)) continue;
    const match = [...readFileSync(line.log, "utf8").matchAll(/"timings":(\{[^}]*\})/g)].pop();
    if (!match) continue;
    runs += 1;
    for (const [step, ms] of Object.entries(JSON.parse(match[1]))) steps[step] = (steps[step] ?? 0) + ms;
  }
  return { runs, steps };
}

async function batch(name, root, preds, extra, round = 1) {
  const out = join(root, `out-${name}-${round}`);
  const log = join(root, `${name}-${round}.log`);
  // The samples are not swept here: count them anyway (the figures are about speed, not health).
  const args = [
    "--batch",
    preds,
    "--out",
    out,
    "--root",
    root,
    "--no-cache",
    "--json",
    "--allow-unvalidated",
    ...extra,
  ];
  process.stderr.write(`bench: ${name}: oracle-grade ${args.join(" ")}\n`);
  const result = await runToEnd(bin("oracle-grade"), args, log);
  if (result.code !== 0) throw new Error(`${name}: oracle-grade exited ${result.code}; see ${log}`);
  const summary = JSON.parse(result.stdout);
  return { name, wallMs: result.ms, summary, ...stepTimes(join(out, "results.jsonl")) };
}

/** The floor: each prediction's protocol by hand (one `docker run`, lib/floor.mjs), `concurrency` at a time. */
async function floorBatch(root, preds) {
  const diffs = join(root, "floor-diffs");
  await mkdir(diffs, { recursive: true });
  const lines = readFileSync(preds, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const jobs = [];
  for (const p of lines) {
    const file = join(diffs, `${p.id}.diff`);
    await writeFile(file, p.diff);
    jobs.push({ loaded: loadTask(root, p.task), file });
  }
  process.stderr.write(`bench: floor: ${jobs.length} docker runs, ${concurrency} at a time\n`);
  const started = Date.now();
  const runs = [];
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const j = jobs[next++];
      runs.push(await runFloor(j.loaded, j.file));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const wallMs = Date.now() - started;
  const pass = runs.filter((r) => r.code === 0).length;
  const gradeSeconds = runs.reduce((a, r) => a + r.ms, 0) / 1000;
  return {
    name: "floor",
    wallMs,
    summary: { done: runs.length, gradeSeconds, overall: { pass, graded: runs.length } },
    runs: 0,
    steps: {},
  };
}

function workerProcess(root, url, name) {
  const linked = bin("oracle-worker");
  const [command, pre] = existsSync(linked)
    ? [linked, []]
    : [process.execPath, [join(repo, "packages/grader/bin/oracle-worker.js")]];
  const out = openSync(join(root, `${name}.log`), "a");
  return spawn(command, [...pre, "--queue", url, "--concurrency", "1", "--root", root], {
    stdio: ["ignore", out, out],
  });
}

async function queueBatch(root, preds, round) {
  const redis = await startRedis(
    await mkdir(join(root, "redis"), { recursive: true }).then(() => join(root, "redis")),
  );
  const workers = [workerProcess(root, redis.url, "worker-1"), workerProcess(root, redis.url, "worker-2")];
  try {
    return await batch("queue", root, preds, ["--queue", redis.url], round);
  } finally {
    for (const w of workers) w.kill("SIGTERM");
    await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r() : w.on("exit", r)))));
    redis.child.kill("SIGTERM");
    await new Promise((r) => (redis.child.exitCode !== null ? r() : redis.child.on("exit", r)));
  }
}

/** Each round's throughput ratios (wall of the one over the wall of the other), with the median. */
function roundsSummary(walls) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const pairs = [
    ["batch", "floor"],
    ["nopool", "floor"],
    ["batch", "nopool"],
  ].filter(([a, b]) => walls[0][a] !== undefined && walls[0][b] !== undefined);
  console.log(`\n${walls.length} rounds, order rotated each round:`);
  for (const [a, b] of pairs) {
    const ratios = walls.map((w) => w[b] / w[a]);
    console.log(
      `${a} vs ${b}: throughput ${ratios.map((r) => r.toFixed(2)).join(", ")} (median ${median(ratios).toFixed(2)}x ${b}'s)`,
    );
  }
}

function report(runs) {
  const s = (ms) => `${(ms / 1000).toFixed(1)}s`;
  const rows = runs.map((r) => {
    const perGrade = (r.summary.gradeSeconds / r.summary.done).toFixed(1);
    const rate = ((r.summary.done / r.wallMs) * 60000).toFixed(1);
    return `${r.name.padEnd(8)} wall ${s(r.wallMs).padStart(7)}  ${rate.padStart(5)} predictions/min  mean grade ${perGrade}s  pass ${r.summary.overall.pass}/${r.summary.overall.graded}`;
  });
  console.log(`\n${n} predictions (${MIX.join(", ")} cycled; gold and no-op diffs alternating), --no-cache`);
  for (const row of rows) console.log(row);
  const get = (name) => runs.find((r) => r.name === name);
  const [l1, l2, q] = [get("local1"), get("local2"), get("queue")];
  const [floor, b, np] = [get("floor"), get("batch"), get("nopool")];
  if (floor && b)
    console.log(
      `batch vs floor at concurrency ${concurrency}: throughput ${(floor.wallMs / b.wallMs).toFixed(2)}x the floor's (batch ${s(b.wallMs)}, floor ${s(floor.wallMs)}; goal >= 1.0x)`,
    );
  if (floor && np)
    console.log(
      `batch --no-pool vs floor at concurrency ${concurrency}: throughput ${(floor.wallMs / np.wallMs).toFixed(2)}x the floor's (batch ${s(np.wallMs)})`,
    );
  if (b && np)
    console.log(`batch (pool) vs --no-pool: throughput ${(np.wallMs / b.wallMs).toFixed(2)}x --no-pool's`);
  if (l1 && l2) console.log(`local concurrency 2 vs 1: ${(l1.wallMs / l2.wallMs).toFixed(2)}x faster`);
  if (l2 && q)
    console.log(
      `queue (2 workers) vs local concurrency 2: ${((q.wallMs - l2.wallMs) / n / 1000).toFixed(2)}s more per job`,
    );
  for (const r of runs) {
    if (r.runs === 0) continue;
    const total = Object.values(r.steps).reduce((a, b) => a + b, 0);
    const parts = Object.entries(r.steps)
      .sort(([, a], [, b]) => b - a)
      .map(([step, ms]) => `${step} ${((ms / total) * 100).toFixed(0)}%`);
    console.log(
      `${r.name}: where a grade's time goes (${r.runs} oracle logs, mean ${s(total / Math.max(1, r.runs))}): ${parts.join(", ")}`,
    );
  }
}

const root = await mkdtemp(join(tmpdir(), "oracle-bench-"));
try {
  await cp(join(repo, "tasks"), join(root, "tasks"), { recursive: true });
  await cp(join(repo, "images"), join(root, "images"), { recursive: true });
  const ca = ["--ca-file", "/etc/ssl/certs/ca-certificates.crt"];
  const build = await runToEnd(bin("oracle-build-images"), ["--root", root, ...ca], join(root, "build.log"));
  if (build.code !== 0) throw new Error(`oracle-build-images failed; see ${root}/build.log`);
  const preds = join(root, "predictions.jsonl");
  await writePredictions(root, preds);
  const C = String(concurrency);
  const configs = {
    floor: () => floorBatch(root, preds),
    batch: (r) => batch("batch", root, preds, ["--concurrency", C], r),
    nopool: (r) => batch("nopool", root, preds, ["--concurrency", C, "--no-pool"], r),
    local1: (r) => batch("local1", root, preds, ["--concurrency", "1"], r),
    local2: (r) => batch("local2", root, preds, ["--concurrency", "2"], r),
    queue: (r) => queueBatch(root, preds, r),
  };
  const chosen = [...only].filter((name) => name in configs);
  const walls = [];
  for (let round = 1; round <= rounds; round++) {
    // Rotated by one each round: every configuration runs first, in the middle and last in turn.
    const shift = (round - 1) % chosen.length;
    const order = [...chosen.slice(shift), ...chosen.slice(0, shift)];
    process.stderr.write(`bench: round ${round} of ${rounds}: ${order.join(", ")}\n`);
    const runs = [];
    for (const name of order) runs.push(await configs[name](round));
    console.log(
      `\nround ${round} (order ${order.join(", ")}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")})`,
    );
    report(runs);
    walls.push(Object.fromEntries(runs.map((r) => [r.name, r.wallMs])));
  }
  if (rounds > 1) roundsSummary(walls);
} finally {
  if (values.keep) console.log(`kept ${root}`);
  else await rm(root, { recursive: true, force: true });
}
