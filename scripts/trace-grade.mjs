#!/usr/bin/env node
// Trace: the project source files one real grade passes through, from the CLI to the verdict, in the
// order it enters them, and how often it returns to a file it had left. It runs one grade of a task's
// gold.diff (unbundled dist/cli.js, so that each module keeps its own file) under V8's sampling CPU
// profiler (--cpu-prof, one sample every --interval µs), then reads the samples in time order: each
// sample's innermost frame in the project's code names a file (dist/x.js read as src/x.ts), module
// evaluation at start-up aside. A return is a step of that sequence into a file already left.
// Sampling misses calls shorter than the interval, and asynchronous work (stream callbacks, the log)
// interleaves: the counts vary from run to run (the median of --runs grades is printed, the order is
// the first run's); compare runs made the same way, not a run with a reading of the code.
// Usage: node scripts/trace-grade.mjs [--repo DIR] [--task calc-node] [--interval 50] [--runs 3] [--only REGEX] [--json]
//   --only: count only the files whose path matches (a sample is the innermost frame in one of them).
//   --repo: the checkout whose built grader is traced (default: this one); its images are built into
//   a temporary root (cached by the engine) and the grade runs against the real engine.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    repo: { type: "string", default: here },
    task: { type: "string", default: "calc-node" },
    interval: { type: "string", default: "50" },
    runs: { type: "string", default: "3" },
    only: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const repo = resolve(values.repo);
const only = new RegExp(values.only ?? "");

function check(ran, what) {
  if (ran.status === 0 || (what === "grade" && ran.status === 1)) return;
  process.stderr.write(`${what} failed (exit ${ran.status}):\n${ran.stderr}\n`);
  process.exit(2);
}

/** A temporary root holding the task and the images, with the task's image built (the engine caches it). */
function makeRoot() {
  const root = mkdtempSync(join(tmpdir(), "oracle-trace-"));
  cpSync(join(repo, "tasks", values.task), join(root, "tasks", values.task), { recursive: true });
  cpSync(join(repo, "images"), join(root, "images"), { recursive: true });
  rmSync(join(root, "images", "registry.json"), { force: true });
  rmSync(join(root, "images", ".registry.lock"), { recursive: true, force: true });
  const task = JSON.parse(readFileSync(join(root, "tasks", values.task, "task.json"), "utf8"));
  const builder = join(repo, "packages", "image-builder", "bin", "oracle-build-images.js");
  const args = ["--root", root, "--no-push", "--ca-file", "/etc/ssl/certs/ca-certificates.crt", task.image];
  check(spawnSync(process.execPath, [builder, ...args], { encoding: "utf8" }), "oracle-build-images");
  return root;
}

function profileGrade(root, run) {
  const profiles = join(root, `profiles-${run}`);
  const cli = join(repo, "packages", "grader", "dist", "cli.js");
  const diff = join(root, "tasks", values.task, "gold.diff");
  const flags = ["--cpu-prof", "--cpu-prof-dir", profiles, "--cpu-prof-interval", values.interval];
  const ran = spawnSync(process.execPath, [...flags, cli, "--root", root, values.task, "--diff", diff], {
    encoding: "utf8",
  });
  check(ran, "grade");
  const [file] = readdirSync(profiles);
  return { profile: JSON.parse(readFileSync(join(profiles, file), "utf8")), stdout: ran.stdout.trim() };
}

/** The project file a frame runs in (src path), or null for node, dependencies and module evaluation. */
function projectFile(frame) {
  if (!frame.url.startsWith("file://")) return null;
  const path = relative(repo, fileURLToPath(frame.url));
  if (path.startsWith("..") || path.includes("node_modules")) return null;
  if (frame.functionName === "" && frame.lineNumber === 0 && frame.columnNumber === 0) return null;
  return path.replace(/\/dist\/(.*)\.js$/, "/src/$1.ts");
}

/** The innermost project file of each sample, in time order, consecutive repeats collapsed. */
function fileSequence(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const innermost = new Map();
  const fileOf = (id) => {
    if (!innermost.has(id)) {
      const file = projectFile(byId.get(id).callFrame);
      const own = file !== null && only.test(file) ? file : null;
      innermost.set(id, own ?? (parent.has(id) ? fileOf(parent.get(id)) : null));
    }
    return innermost.get(id);
  };
  const sequence = [];
  for (const id of profile.samples) {
    const file = fileOf(id);
    if (file !== null && sequence.at(-1) !== file) sequence.push(file);
  }
  return sequence;
}

function summarise(sequence) {
  const order = [];
  const visits = new Map();
  let returns = 0;
  for (const file of sequence) {
    if (visits.has(file)) returns += 1;
    else order.push(file);
    visits.set(file, (visits.get(file) ?? 0) + 1);
  }
  return {
    files: order.map((file) => ({ file, visits: visits.get(file) })),
    returns,
    steps: sequence.length,
    sequence,
  };
}

const median = (numbers) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)];

const root = makeRoot();
try {
  const runs = [];
  for (let run = 0; run < Number(values.runs); run++) {
    const { profile, stdout } = profileGrade(root, run);
    runs.push({ stdout, ...summarise(fileSequence(profile)) });
  }
  const summary = {
    repo,
    task: values.task,
    intervalUs: Number(values.interval),
    medianFiles: median(runs.map((r) => r.files.length)),
    medianReturns: median(runs.map((r) => r.returns)),
    runs,
  };
  if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    const counts = runs.map((r) => `${r.files.length} files, ${r.returns} returns`).join("; ");
    process.stdout.write(
      `${runs[0].stdout}\nmedian of ${runs.length}: ${summary.medianFiles} files, ${summary.medianReturns} returns to a file already left (${counts})\n`,
    );
    for (const [i, { file, visits }] of runs[0].files.entries())
      process.stdout.write(`${String(i + 1).padStart(3)}. ${file} (${visits})\n`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
