#!/usr/bin/env node
// `npm run demo` after set-up: build the sample images, then grade each sample task's baseline and
// its gold diff through the real CLIs, and print a table. Exit 0 when every task behaves as a healthy
// task must (baseline: existing PASS, hidden FAIL; gold: PASS).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules", ".bin", name);
const hostCa = "/etc/ssl/certs/ca-certificates.crt";
const env = { ...process.env };
if (!env.ORACLE_BUILD_CA_FILE && existsSync(hostCa)) env.ORACLE_BUILD_CA_FILE = hostCa;

console.error("demo: building the sample images (pnpm build-images)");
const build = spawnSync(bin("oracle-build-images"), [], { cwd: root, env, stdio: "inherit" });
if (build.status !== 0) {
  console.error(`demo: build-images failed (exit ${build.status}); see logs/build/`);
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), "oracle-demo-"));
function grade(task, args) {
  const resultFile = join(scratch, `${task}-${args[0].replace(/^--/, "")}.json`);
  const started = Date.now();
  const run = spawnSync(bin("oracle-grade"), [task, ...args, "--result", resultFile, "--allow-quarantined"], {
    cwd: root,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (run.status === 2 || !existsSync(resultFile)) {
    process.stderr.write(run.stderr);
    return { ok: false, seconds, verdict: "ERROR", hash: "", result: null };
  }
  const result = JSON.parse(readFileSync(resultFile, "utf8"));
  return {
    seconds,
    verdict: result.verdict,
    reason: result.reason,
    hash: run.stdout.trim().slice(11),
    result,
  };
}

const tasks = readdirSync(join(root, "tasks"), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(root, "tasks", e.name, "task.json")))
  .map((e) => e.name)
  .sort();
const rows = [["task", "baseline existing", "baseline hidden", "gold", "gold tests_hash", "seconds"]];
let healthy = true;
for (const task of tasks) {
  console.error(`demo: ${task}: baseline, then gold.diff`);
  const base = grade(task, ["--baseline"]);
  const goldFile = join(root, "tasks", task, "gold.diff");
  const gold = existsSync(goldFile) ? grade(task, ["--diff", goldFile]) : null;
  const existing = base.result?.suites.existing.status ?? "ERROR";
  const hidden = base.result?.suites.hidden.status ?? "ERROR";
  const goldText = gold
    ? gold.verdict === "PASS"
      ? "PASS"
      : `${gold.verdict} ${gold.reason ?? ""}`.trim()
    : "-";
  if (existing !== "PASS" || hidden !== "FAIL" || (gold && gold.verdict !== "PASS")) healthy = false;
  const seconds = (Number(base.seconds) + Number(gold?.seconds ?? 0)).toFixed(1);
  rows.push([task, existing, hidden, goldText, gold ? `${gold.hash.slice(0, 16)}…` : "-", seconds]);
}
rmSync(scratch, { recursive: true, force: true });

const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const [n, row] of rows.entries()) {
  console.log(row.map((cell, i) => cell.padEnd(widths[i])).join("  "));
  if (n === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
console.log(
  healthy
    ? "\nevery sample task is healthy: baseline existing PASS, hidden FAIL; gold PASS"
    : "\nsome task is NOT healthy (see above); its oracle logs are in logs/grade/",
);
process.exit(healthy ? 0 : 1);
