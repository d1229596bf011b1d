#!/usr/bin/env node
// `npm run demo` after set-up: build the sample images, then grade each sample task's baseline and
// its gold diff through the real CLIs, and print a table. Then make a task from a repository, as a
// user does from their own: the demo builds a small Python library with a bug, its fix commit and
// the fix's regression test, runs `new-task --repo --fix` on it in a root of its own, and grades the
// new task's gold diff and baseline. Exit 0 when every task behaves as a healthy task must
// (baseline: existing PASS, hidden FAIL; gold: PASS).
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
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

// A task from a repository: two commits of a small library, the second fixing a bug with its test.
console.error("\ndemo: a task from a repository's fix commit (pnpm new-task --repo REPO --fix HEAD)");
const repo = join(scratch, "wordcount");
const userRoot = join(scratch, "root");
cpSync(join(root, "images"), join(userRoot, "images"), { recursive: true });
const git = (...args) =>
  spawnSync("git", ["-C", repo, ...args], {
    encoding: "utf8",
    env: {
      ...env,
      GIT_AUTHOR_NAME: "demo",
      GIT_AUTHOR_EMAIL: "demo@example.invalid",
      GIT_COMMITTER_NAME: "demo",
      GIT_COMMITTER_EMAIL: "demo@example.invalid",
    },
  });
const commit = (files, message) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(repo, path, ".."), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git("add", "-A");
  git("commit", "-q", "-m", message);
};
mkdirSync(repo, { recursive: true });
git("init", "-q", "-b", "main");
commit(
  {
    "src/wordcount/__init__.py":
      'def count(text):\n    """The number of words in text."""\n    return len(text.split(" "))\n',
    "tests/test_basic.py":
      'from wordcount import count\n\n\ndef test_one_word():\n    assert count("hello") == 1\n',
    "pyproject.toml":
      '[project]\nname = "wordcount"\nversion = "1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  },
  "wordcount 1.0",
);
commit(
  {
    "src/wordcount/__init__.py":
      'def count(text):\n    """The number of words in text."""\n    return len(text.split())\n',
    "tests/test_spaces.py":
      'from wordcount import count\n\n\ndef test_runs_of_spaces():\n    assert count("a  b   c") == 3\n\n\ndef test_empty():\n    assert count("") == 0\n',
  },
  "count: runs of spaces and the empty text are not words (fixes #1)",
);
const made = spawnSync(
  bin("oracle-new-task"),
  ["--root", userRoot, "--repo", repo, "--fix", "HEAD", "--id", "wordcount-fix"],
  {
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  },
);
process.stdout.write(made.stdout);
let madeHealthy = made.status === 0;
if (madeHealthy) {
  const gradeIn = (args) =>
    spawnSync(bin("oracle-grade"), ["--root", userRoot, "wordcount-fix", ...args], { env, encoding: "utf8" });
  const gold = gradeIn(["--diff", join(userRoot, "tasks", "wordcount-fix", "gold.diff")]);
  const base = gradeIn(["--baseline"]);
  console.log(
    `wordcount-fix (made by new-task): gold ${gold.status === 0 ? "PASS" : "FAIL"}, baseline ${base.status === 1 ? "FAIL" : `exit ${base.status}`}`,
  );
  madeHealthy = gold.status === 0 && base.status === 1;
} else console.error(`demo: new-task did not make a healthy task (exit ${made.status})`);
healthy = healthy && madeHealthy;
rmSync(scratch, { recursive: true, force: true });

const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const [n, row] of rows.entries()) {
  console.log(row.map((cell, i) => cell.padEnd(widths[i])).join("  "));
  if (n === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
console.log(
  healthy
    ? "\nevery sample task, and the task new-task made, is healthy: baseline existing PASS, hidden FAIL; gold PASS"
    : "\nsome task is NOT healthy (see above); its oracle logs are in logs/grade/",
);
process.exit(healthy ? 0 : 1);
