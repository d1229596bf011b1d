#!/usr/bin/env node
// Benchmark of `oracle-quarantine-sweep`: the same sweep of 8 fixture tasks (10 grades) at
// --concurrency 1 and 2, in pairs whose order alternates (1,2 then 2,1 ...) so that drift in the
// machine's load hits both sides alike. Prints each pair's speedup, the median, and where the time
// goes: the grader's step timings per run at each concurrency, and the sweep's own overhead.
//
// What the machine allows is measured in the same pairs, from the same 10 grades:
//   - the floor: each grade one plain `docker run` script (scripts/lib/floor.mjs), 1 or 2 at a time;
//   - the suites alone: the 20 suite commands in one running container, in 1 or 2 lanes (no
//     container start, no checkout: the test commands' own scaling).
// The oracle's speedup over the floor's says what the oracle itself costs in scaling.
//
//   node scripts/bench-sweep.mjs [--pairs N] [--repeat K] [--json] [--keep]
//
// --repeat K is passed to the sweep (the nightly job uses 3); the floor and the suites alone then
// run every grade K times too.
//
// Needs the Docker engine (bash scripts/setup.sh) and the built CLIs (pnpm build).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  checkoutScript,
  engine,
  envArgs,
  labelArgs,
  loadTask,
  ORACLE_ENV,
  quote,
  runFloor,
} from "./lib/floor.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const fixtures = join(repo, "test", "fixtures", "quarantine");
const bin = (name) => join(repo, "node_modules", ".bin", name);
// Every task that runs real grades; times-out (dominated by its limit), no-image and invalid (no run) are left out.
const TASKS = [
  "healthy-gold",
  "no-gold",
  "existing-fails",
  "no-existing-tests",
  "hidden-passes",
  "gold-fails",
  "flaky",
  "unstable-ids",
];
const TARGET = 1.6;

const { values: args } = parseArgs({
  options: {
    pairs: { type: "string", default: "3" },
    repeat: { type: "string", default: "1" },
    json: { type: "boolean" },
    keep: { type: "boolean" },
  },
});
const pairs = Number(args.pairs);
const repeat = Number(args.repeat);
if (!Number.isInteger(pairs) || pairs < 1 || !Number.isInteger(repeat) || repeat < 1)
  throw new Error("--pairs and --repeat take a whole number from 1");
const say = (line) => process.stderr.write(`${line}\n`);

function exec(command, argv, options = {}) {
  return new Promise((done, fail) => {
    const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

async function git(cwd, ...argv) {
  const env = {
    ...process.env,
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  };
  const result = await exec(
    "git",
    ["-c", "user.name=oracle", "-c", "user.email=oracle@example.invalid", ...argv],
    { cwd, env },
  );
  if (result.code !== 0) throw new Error(`git ${argv.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/** Fills `root` with the fixture image (built) and the benchmark's tasks, each with the fixture repository. */
async function prepareRoot(root) {
  await cp(join(fixtures, "images", "qpy"), join(root, "images", "qpy"), { recursive: true });
  await cp(join(fixtures, "repo"), join(root, "fixture-repo"), { recursive: true });
  await git(root, "init", "-q", "-b", "main", "fixture-repo");
  await git(join(root, "fixture-repo"), "add", "-A");
  await git(join(root, "fixture-repo"), "commit", "-q", "-m", "base");
  const sha = await git(join(root, "fixture-repo"), "rev-parse", "HEAD");
  await git(join(root, "fixture-repo"), "bundle", "create", "-q", join(root, "repo.bundle"), "--all");
  for (const id of TASKS) {
    const dir = join(root, "tasks", id);
    await cp(join(fixtures, "tasks", id), dir, { recursive: true });
    await cp(join(root, "repo.bundle"), join(dir, "repo.bundle"));
    const file = join(dir, "task.json");
    await writeFile(file, (await readFile(file, "utf8")).replace("0".repeat(40), sha));
  }
  const build = await exec(bin("oracle-build-images"), ["--root", root, "--no-push"]);
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
}

/** Busy and total CPU jiffies of the whole host (all cores), from /proc/stat. */
async function hostCpu() {
  const [line] = (await readFile("/proc/stat", "utf8")).split("\n");
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

function sweepOnce(root, concurrency, label) {
  const argv = [
    "--root",
    root,
    "--repeat",
    String(repeat),
    "--concurrency",
    String(concurrency),
    "--json",
    "--report",
    join(root, "bench", label),
  ];
  return measured("oracle", concurrency, async () => {
    const result = await exec(bin("oracle-quarantine-sweep"), argv, { env: { ...process.env, CI: "1" } });
    if (result.code !== 0) throw new Error(`sweep exited ${result.code}:\n${result.stderr}`);
    const report = JSON.parse(result.stdout);
    const runs = report.tasks.flatMap((t) => t.runs);
    const steps = {};
    for (const run of runs)
      for (const [step, ms] of Object.entries(run.timings)) steps[step] = (steps[step] ?? 0) + ms;
    const runMs = runs.reduce((sum, r) => sum + r.durationMs, 0);
    const infra = runs.filter((r) => r.reason === "INFRA_ERROR").length;
    return { runs: runs.length, runMs, steps, infra };
  });
}

/** The grades a sweep of TASKS runs: each task's baseline, and its gold diff where it has one, `repeat` times. */
function plannedGrades(root) {
  const once = TASKS.flatMap((id) => {
    const loaded = loadTask(root, id);
    const gold = join(loaded.taskDir, "gold.diff");
    return [{ loaded, diff: null }, ...(existsSync(gold) ? [{ loaded, diff: gold }] : [])];
  });
  return once.flatMap((grade) => Array.from({ length: repeat }, () => grade));
}

/** Runs `work` with the host's CPU counted around it; `work` resolves to the sample's other fields. */
async function measured(kind, concurrency, work) {
  const cpuBefore = await hostCpu();
  const started = process.hrtime.bigint();
  const fields = await work();
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const cpuAfter = await hostCpu();
  // How busy the whole host was (1 = every core busy): ours plus everyone else's load.
  const hostBusy = (cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total);
  return { kind, concurrency, wallMs, hostBusy, loadAvg: loadavg()[0], ...fields };
}

/** The floor of the same sweep: each grade one plain `docker run`, `concurrency` of them at a time. */
function floorSweep(grades, concurrency) {
  return measured("floor", concurrency, async () => {
    let next = 0;
    let runMs = 0;
    const lane = async () => {
      while (next < grades.length) {
        const grade = grades[next++];
        runMs += (await runFloor(grade.loaded, grade.diff)).ms;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    return { runs: grades.length, runMs };
  });
}

/**
 * The suites alone: one long-lived container holding a checkout per suite of every grade (made
 * once, not timed), in which the suite commands run in 1 or 2 lanes of sh. Timed inside the
 * container, so neither docker exec nor any start-up is counted. The container has no CPU limit.
 */
async function suitesAlone(root, grades) {
  const images = new Set(grades.map((g) => g.loaded.image));
  if (images.size !== 1)
    throw new Error(`the suites-alone measure wants one image, the tasks use ${images.size}`);
  const suites = grades.flatMap((grade, i) =>
    ["existing", "hidden"].map((suite) => ({ grade, suite, dir: `/work/g${i}-${suite}` })),
  );
  const prep = suites.map(({ grade, suite, dir }) => {
    const { id, task } = grade.loaded;
    return checkoutScript({
      dir,
      mirror: `/t/${id}/${task.repo.mirror}`,
      baseCommit: task.repo.baseCommit,
      diff: grade.diff === null ? null : `/t/${id}/gold.diff`,
      hidden: suite === "hidden" ? `/t/${id}/hidden-tests` : null,
    });
  });
  const run = await exec("docker", [
    "run",
    "-d",
    "--rm",
    "--network",
    "none",
    "-u",
    "1000:1000",
    "--init",
    ...labelArgs(engine.benchLabels("suites-alone")),
    ...envArgs(ORACLE_ENV),
    "--tmpfs",
    "/work:rw,exec,uid=1000,gid=1000",
    "--tmpfs",
    "/tmp:rw,exec,mode=1777",
    "-v",
    `${join(root, "tasks")}:/t:ro`,
    "--entrypoint",
    "sleep",
    [...images][0],
    "infinity",
  ]);
  if (run.code !== 0) throw new Error(`docker run (suites alone): ${run.stderr}`);
  const container = run.stdout.trim();
  const close = () => exec("docker", ["rm", "-f", container]);
  const inside = async (script) => {
    const result = await exec("docker", ["exec", container, "sh", "-c", script]);
    if (result.code !== 0)
      throw new Error(`docker exec (suites alone) exited ${result.code}: ${result.stderr}`);
    return result.stdout;
  };
  try {
    await inside(`set -e\n${prep.join("\ncd /\n")}`);
  } catch (error) {
    await close();
    throw error;
  }
  // The task's env as the grader sets it (the oracle's own env is the container's); no CPU limit:
  // a lane is one suite at a time, and the suites' commands are single-threaded pytest runs.
  const line = ({ grade, suite, dir }, n) => {
    const env = Object.entries(grade.loaded.task.env ?? {}).map(([k, v]) => `${k}=${quote(v)} `);
    return `(cd ${dir} && ${env.join("")}ORACLE_JUNIT=/tmp/j${n}.xml sh -c ${quote(grade.loaded.task.suites[suite].command)}) >/dev/null 2>&1`;
  };
  // Each lane takes the next suite nobody has claimed yet: a claim is a file made with noclobber
  // by the shell itself (no process), so the lanes stay busy to the end whatever the suites' lengths.
  const runs = suites.map((s, n) => `run${n}() {\n${line(s, n)}\n}`).join("\n");
  const claims = suites.map((_, n) => `if true > /tmp/claim.${n}; then run${n}; fi`).join("\n");
  const measure = (lanes) =>
    measured("suites", lanes, async () => {
      await inside("rm -f /tmp/claim.*");
      const script = `set -C\n${runs}\nlane() {\n${claims}\n}
s=$(date +%s%N); ${Array.from({ length: lanes }, () => "lane 2>/dev/null &").join(" ")} wait; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))`;
      const ms = Number((await inside(script)).trim());
      return { runs: suites.length, runMs: ms * lanes, insideMs: ms };
    }).then((sample) => ({ ...sample, wallMs: sample.insideMs }));
  return { measure, close };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`;

function stepTable(samples) {
  const by = (c) => samples.filter((s) => s.concurrency === c);
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.steps)))];
  const perRun = (c, step) => mean(by(c).map((s) => (s.steps[step] ?? 0) / s.runs));
  const rows = names.map((step) => ({ step, c1: perRun(1, step), c2: perRun(2, step) }));
  const total = (c) => mean(by(c).map((s) => s.runMs / s.runs));
  rows.push({ step: "whole run (grader durationMs)", c1: total(1), c2: total(2) });
  const overhead = (c) => mean(by(c).map((s) => s.wallMs - s.runMs / c));
  rows.push({ step: "sweep overhead (wall - run time / concurrency)", c1: overhead(1), c2: overhead(2) });
  const busy = (c) => mean(by(c).map((s) => s.hostBusy * 100));
  rows.push({ step: "host CPU busy during the sweep (%, all processes)", c1: busy(1), c2: busy(2) });
  return rows;
}

const KINDS = {
  oracle: "oracle sweep (oracle-quarantine-sweep)",
  floor: "floor: each grade a plain docker run",
  suites: "suites alone, in one running container",
};

async function main() {
  say(`bench-sweep: preparing a root with ${TASKS.length} tasks and building the fixture image…`);
  const root = await mkdtemp(join(tmpdir(), "oracle-bench-sweep-"));
  let alone = null;
  const cleanup = async () => {
    await alone?.close();
    if (args.keep) say(`bench-sweep: kept ${root}`);
    else await rm(root, { recursive: true, force: true });
  };
  // Ctrl-C: the sweep in flight gets the signal too (same process group) and removes its containers.
  for (const signal of ["SIGINT", "SIGTERM"])
    process.once(signal, () => void cleanup().finally(() => process.exit(signal === "SIGINT" ? 130 : 143)));
  try {
    await prepareRoot(root);
    const grades = plannedGrades(root);
    alone = await suitesAlone(root, grades);
    say("bench-sweep: warm-up (not counted)");
    await sweepOnce(root, 2, "warmup");
    await floorSweep(grades, 2);
    await alone.measure(2);
    const run = {
      oracle: (c, label) => sweepOnce(root, c, label),
      floor: (c) => floorSweep(grades, c),
      suites: (c) => alone.measure(c),
    };
    const samples = [];
    const speedups = { oracle: [], floor: [], suites: [] };
    for (let i = 0; i < pairs; i++) {
      // Each kind's pair back to back; the order of the kinds and of 1 and 2 flips from pair to pair.
      const kinds = i % 2 === 0 ? ["oracle", "floor", "suites"] : ["suites", "floor", "oracle"];
      for (const kind of kinds) {
        const pair = {};
        for (const c of i % 2 === 0 ? [1, 2] : [2, 1]) {
          pair[c] = await run[kind](c, `pair${i + 1}-c${c}`);
          samples.push(pair[c]);
          say(
            `bench-sweep: pair ${i + 1} ${kind} concurrency ${c}: ${sec(pair[c].wallMs)} (${pair[c].runs} ${kind === "suites" ? "suite runs" : "grades"}${kind === "oracle" ? `, ${pair[c].infra} infra errors` : ""}, host CPU ${(pair[c].hostBusy * 100).toFixed(0)}% busy, load ${pair[c].loadAvg.toFixed(1)})`,
          );
        }
        speedups[kind].push(pair[1].wallMs / pair[2].wallMs);
        say(`bench-sweep: pair ${i + 1} ${kind} speedup ${speedups[kind].at(-1).toFixed(2)}×`);
      }
    }
    const oracleSamples = samples.filter((s) => s.kind === "oracle");
    const odd = oracleSamples.filter((s) => s.runs !== grades.length);
    if (odd.length > 0)
      say(
        `bench-sweep: warning: ${odd.length} sweep(s) ran ${odd.map((s) => s.runs).join(", ")} grades, the floor ${grades.length}: the comparison is off`,
      );
    const medians = Object.fromEntries(Object.entries(speedups).map(([kind, xs]) => [kind, median(xs)]));
    const result = {
      tasks: TASKS.length,
      repeat,
      runsPerSweep: oracleSamples[0].runs,
      pairs,
      speedups: speedups.oracle,
      medianSpeedup: medians.oracle,
      target: TARGET,
      machine: { floorSpeedups: speedups.floor, suitesSpeedups: speedups.suites, medians },
      // The oracle's speedup as a share of the floor's, pair by pair.
      shareOfFloor: median(speedups.oracle.map((x, n) => x / speedups.floor[n])),
      steps: stepTable(oracleSamples),
    };
    if (args.json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      console.log(
        `\nspeedup at concurrency 2 vs 1 (${pairs} pairs, ${TASKS.length} tasks, --repeat ${repeat}: ${result.runsPerSweep} grades per sweep):`,
      );
      for (const [kind, label] of Object.entries(KINDS))
        console.log(
          `  ${label.padEnd(42)} median ${medians[kind].toFixed(2)}×  (pairs ${speedups[kind].map((x) => `${x.toFixed(2)}×`).join(", ")})`,
        );
      console.log(
        `  target for the oracle: ${TARGET}×; the oracle keeps ${(result.shareOfFloor * 100).toFixed(0)}% of the floor's speedup`,
      );
      console.log("\nwhere the oracle's time goes, mean per run (ms):");
      console.log(`  ${"step".padEnd(48)} ${"c=1".padStart(8)} ${"c=2".padStart(8)}`);
      for (const row of result.steps)
        console.log(
          `  ${row.step.padEnd(48)} ${row.c1.toFixed(0).padStart(8)} ${row.c2.toFixed(0).padStart(8)}`,
        );
    }
  } finally {
    await cleanup();
  }
}

await main();
