#!/usr/bin/env node
// Benchmark: oracle-grade's start-up, the bundled CLI (packages/grader/bin/oracle-grade.js, which imports
// dist/oracle-grade.js) against the unbundled modules it is built from (dist/cli.js, what the bin
// imported before), with bare `node -e 0` as the floor. Paired runs in rotating order, medians.
//   node scripts/bench-startup.mjs [--runs 15] [--grade calc-node] [--root DIR]
// --grade TASK also times a real grade of the task's gold.diff (needs its image built and recorded), both
// its wall time and, from its oracle log, the time from spawn to the container.create step.
// Uses the built grader: run `pnpm build` first.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    grade: { type: "string" },
    root: { type: "string", default: repo },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a whole number");
const grader = join(repo, "packages", "grader");
const variants = {
  node: ["-e", "0"],
  bundled: [join(grader, "bin", "oracle-grade.js")],
  unbundled: [join(grader, "dist", "cli.js")],
};
const root = resolve(values.root);
const cases = {
  help: { args: ["--help"], code: 0, variants: ["node", "bundled", "unbundled"] },
  "batch-help": { args: ["--batch", "x", "--help"], code: 0, variants: ["bundled", "unbundled"] },
};
const logDir = mkdtempSync(join(tmpdir(), "oracle-bench-startup-"));
const logFile = join(logDir, "grade.jsonl");
if (values.grade) {
  const diff = join(root, "tasks", values.grade, "gold.diff");
  const args = ["--root", root, values.grade, "--diff", diff, "--log", logFile];
  cases.grade = { args, code: 0, variants: ["bundled", "unbundled"] };
}

/** Milliseconds from `spawnedAt` (epoch ms) to the run's container.create event, from its oracle log. */
function msToCreate(spawnedAt) {
  const lines = readFileSync(logFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const create = lines.find((line) => line.step === "container.create");
  return create ? Date.parse(create.timestamp) - spawnedAt : Number.NaN;
}

function timed(variant, args) {
  rmSync(logFile, { force: true });
  const spawnedAt = Date.now();
  const started = process.hrtime.bigint();
  const argv = variant === "node" ? variants.node : [...variants[variant], ...args];
  const result = spawnSync(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"], cwd: root });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { ms, toCreate: args.includes(logFile) ? msToCreate(spawnedAt) : null, result };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = {};
for (const [name, spec] of Object.entries(cases)) {
  const times = Object.fromEntries(spec.variants.map((v) => [v, []]));
  const toCreate = Object.fromEntries(spec.variants.map((v) => [v, []]));
  for (const v of spec.variants) timed(v, spec.args); // warm the page cache
  for (let i = 0; i < runs; i += 1) {
    const order = spec.variants.map((_, k) => spec.variants[(i + k) % spec.variants.length]);
    for (const v of order) {
      const { ms, toCreate: created, result } = timed(v, spec.args);
      if (v !== "node" && result.status !== spec.code)
        throw new Error(`${name} ${v}: exit ${result.status}\n${result.stderr}`);
      if (name === "grade" && !/^tests_hash=[0-9a-f]{64}\n$/.test(String(result.stdout)))
        throw new Error(`${name} ${v}: stdout is not one tests_hash line: ${result.stdout}`);
      times[v].push(ms);
      if (created !== null) toCreate[v].push(created);
    }
  }
  summary[name] = Object.fromEntries(
    Object.entries(times).map(([v, xs]) => {
      const stats = { medianMs: Math.round(median(xs)), minMs: Math.round(Math.min(...xs)) };
      return [v, name === "grade" ? { ...stats, toCreateMedianMs: median(toCreate[v]) } : stats];
    }),
  );
  process.stderr.write(`${name}: ${JSON.stringify(summary[name])}\n`);
}
rmSync(logDir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ runs, ...summary })}\n`);
