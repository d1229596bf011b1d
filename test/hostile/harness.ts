// Shared machinery of the hostile corpus: one temporary root with the two fixture tasks (their
// repositories committed at a fixed date into git bundles), one build of their images, diffs made
// on the fly with git in a scratch clone, and a grade runner that checks what every case must hold:
// the expected verdict and reason, no container left behind, no host file changed, bounded memory.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectDocker, LABEL, labelFilter } from "@oracle/engine";
import type { GradeResult } from "@oracle/spec";
import {
  binPath,
  containersWithLabel,
  keepImageRecords,
  makeTempRoot,
  run,
  seedImageRecords,
} from "@oracle/test-utils";
import { expect } from "vitest";

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
/**
 * The fixture tasks. Their limit (timeoutSeconds 120) is far above what any case takes when it is
 * honest (seconds), so that no verdict turns TIMEOUT on a loaded machine (at load 32, five mocha grades
 * at once took 30-47 s each, past the former 40 s); the timeout cases pass a limit of their own.
 */
export const TASKS = { py: "hostile-py", node: "hostile-node", pyOpen: "hostile-py-open" } as const;
export type FixtureTask = (typeof TASKS)[keyof typeof TASKS];
/** A secret in the grader's own environment: it must never reach a container. */
export const CANARY_ENV = "ORACLE_HOSTILE_CANARY_SECRET";
export const CANARY_VALUE = `hunter2-${process.pid}-${Date.now().toString(36)}`;
/** The grader's peak RSS must stay under this (kilobytes, as /usr/bin/time reports). */
export const MAX_RSS_KB = 200 * 1024;

const GIT_DATE = "2024-01-02T03:04:05Z";

function git(cwd: string, args: string[], input?: Buffer): Buffer {
  return execFileSync("git", args, {
    cwd,
    input,
    maxBuffer: 512 * 1024 * 1024,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "corpus",
      GIT_AUTHOR_EMAIL: "corpus@oracle.invalid",
      GIT_COMMITTER_NAME: "corpus",
      GIT_COMMITTER_EMAIL: "corpus@oracle.invalid",
      GIT_AUTHOR_DATE: GIT_DATE,
      GIT_COMMITTER_DATE: GIT_DATE,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  });
}

export interface Corpus {
  root: string;
  /** Scratch clones (one per task) where diffs are made; results and big diffs go to `out`. */
  work: Record<FixtureTask, string>;
  out: string;
  cleanup: () => Promise<void>;
}

/** Builds tasks/<id> in `root` from test/hostile/fixtures/<id>: bundle, hidden tests, task.json. */
function installTask(root: string, id: FixtureTask, work: string): void {
  const dir = join(root, "tasks", id);
  mkdirSync(dir, { recursive: true });
  cpSync(join(FIXTURES, id, "hidden-tests"), join(dir, "hidden-tests"), { recursive: true });
  cpSync(join(FIXTURES, id, "repo"), work, { recursive: true });
  git(work, ["init", "-q", "-b", "main"]);
  git(work, ["add", "-A"]);
  git(work, ["commit", "-q", "-m", "base"]);
  git(work, ["bundle", "create", "-q", join(dir, "repo.bundle"), "--all"]);
  const baseCommit = git(work, ["rev-parse", "HEAD"]).toString().trim();
  const task = JSON.parse(readFileSync(join(FIXTURES, id, "task.template.json"), "utf8"));
  task.repo.baseCommit = baseCommit;
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(task, null, 2)}\n`);
}

/** hostile-py-open: hostile-py without the default deny list (the layers behind it, exercised alone). */
function openVariant(root: string): void {
  const dir = join(root, "tasks", TASKS.pyOpen);
  cpSync(join(root, "tasks", TASKS.py), dir, { recursive: true });
  const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
  task.id = TASKS.pyOpen;
  task.diff.denyDefaults = false;
  writeFileSync(join(dir, "task.json"), `${JSON.stringify(task, null, 2)}\n`);
}

/** One temporary root: the fixture tasks, a canary folder, and the images they need (built once). */
export async function makeCorpus(options: { images?: string[] } = {}): Promise<Corpus> {
  const { root, cleanup } = await makeTempRoot({ "images/python-pytest": "images/python-pytest" });
  cpSync(join(FIXTURES, "..", "..", "..", "images", "node-mocha"), join(root, "images", "node-mocha"), {
    recursive: true,
  });
  const work = {
    "hostile-py": join(root, "work", "py"),
    "hostile-node": join(root, "work", "node"),
    "hostile-py-open": join(root, "work", "py"),
  };
  installTask(root, TASKS.py, work[TASKS.py]);
  installTask(root, TASKS.node, work[TASKS.node]);
  openVariant(root);
  mkdirSync(join(root, "canary"));
  writeFileSync(join(root, "canary", "secret.txt"), "the host's own file\n");
  const out = join(root, "out");
  mkdirSync(out);
  // The images as another root of this run built them, where their folders are the same (seedImageRecords).
  await seedImageRecords(root);
  const built = await run(
    binPath("oracle-build-images"),
    [
      "--root",
      root,
      "--no-push",
      "--ca-file",
      "/etc/ssl/certs/ca-certificates.crt",
      ...(options.images ?? []),
    ],
    { timeoutMs: 1_500_000 },
  );
  if (built.code !== 0) throw new Error(`oracle-build-images failed (${built.code}): ${built.stderr}`);
  await keepImageRecords(root);
  return { root, work, out, cleanup };
}

/** A file change in the scratch clone: content (string or bytes), null to delete. */
export type Change = (dir: string) => void;

/**
 * The diff (git's own format, `--binary`) of `change` against the base commit, made in the task's
 * scratch clone, which is reset before and after.
 */
export function makeDiff(corpus: Corpus, task: FixtureTask, change: Change): Buffer {
  const dir = corpus.work[task];
  const reset = () => {
    git(dir, ["reset", "-q", "--hard", "HEAD"]);
    git(dir, ["clean", "-q", "-fdx"]);
  };
  reset();
  try {
    change(dir);
    git(dir, ["add", "-A"]);
    return git(dir, ["diff", "--cached", "--binary", "HEAD"]);
  } finally {
    reset();
  }
}

/** Writes files (relative path -> content) into a folder, making parent folders. */
export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** SHA-256 over every file (path, mode, bytes) under the given folders of the root. */
export function hashTree(root: string, folders: string[]): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(dir, entry.name);
      const info = statSync(path, { throwIfNoEntry: false });
      hash.update(`${path}\0${entry.isSymbolicLink() ? "link" : info?.mode}\0`);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) hash.update(readFileSync(path));
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return hash.digest("hex");
}

/** What the host must keep unchanged across a run (the registry lock folder may come and go). */
export const hostState = (corpus: Corpus): string => hashTree(corpus.root, ["tasks", "canary"]);

export interface Graded {
  code: number | null;
  result: GradeResult;
  stdout: string;
  stderr: string;
  /** Peak resident set size of the grader process, kilobytes. */
  maxRssKb: number;
  /** The grader process's CPU time (user + system), milliseconds: unlike its wall time, not the machine's load. */
  cpuMs: number;
  ms: number;
  log: string;
}

export interface GradeCall {
  task: FixtureTask;
  /** The diff's bytes; written to a file under out/. Omit for baseline mode. */
  diff?: Buffer;
  /** Or a diff file that already exists (big diffs are written once). */
  diffPath?: string;
  timeoutSeconds?: number;
  name: string;
  /** A private engine's socket (DOCKER_HOST for the grader, and where leftovers are looked for). */
  engineSocket?: string;
}

/**
 * Runs the built oracle-grade under /usr/bin/time -v with the canary secret in its environment and
 * checks the invariants every case shares: one tests_hash line, exit code matching the verdict, no
 * container of the run left, the task folders and the canary unchanged, peak RSS under 200 MB.
 */
export async function gradeCase(corpus: Corpus, call: GradeCall): Promise<Graded> {
  const before = hostState(corpus);
  const resultFile = join(corpus.out, `${call.name}.result.json`);
  const logFile = join(corpus.out, `${call.name}.jsonl`);
  rmSync(resultFile, { force: true });
  let diffPath = call.diffPath;
  if (call.diff) {
    diffPath = join(corpus.out, `${call.name}.diff`);
    writeFileSync(diffPath, call.diff);
  }
  const args = [
    "-v",
    // ORACLE_HOSTILE_GRADE_BIN: another build (the "before" reference) to show a case's old verdict.
    process.env.ORACLE_HOSTILE_GRADE_BIN ?? binPath("oracle-grade"),
    "--root",
    corpus.root,
    call.task,
    ...(diffPath ? ["--diff", diffPath] : ["--baseline"]),
    "--result",
    resultFile,
    "--log",
    logFile,
    ...(call.timeoutSeconds ? ["--timeout", String(call.timeoutSeconds)] : []),
  ];
  const out = await run("/usr/bin/time", args, {
    env: {
      [CANARY_ENV]: CANARY_VALUE,
      ...(call.engineSocket ? { DOCKER_HOST: `unix://${call.engineSocket}` } : {}),
    },
    timeoutMs: 240_000,
  });
  const maxRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(out.stderr)?.[1]);
  const seconds = (what: string) =>
    Number(new RegExp(`${what} time \\(seconds\\): ([\\d.]+)`).exec(out.stderr)?.[1]);
  const cpuMs = Math.round((seconds("User") + seconds("System")) * 1000);
  expect(out.stdout, out.stderr).toMatch(/^tests_hash=[0-9a-f]{64}\n$/);
  const result = JSON.parse(readFileSync(resultFile, "utf8")) as GradeResult;
  expect(out.code, out.stderr).toBe(result.verdict === "PASS" ? 0 : 1);
  const log = readFileSync(logFile, "utf8");
  const runId = (JSON.parse(log.split("\n")[0]!) as { run: string }).run;
  const docker = call.engineSocket ? connectDocker({ socketPath: call.engineSocket }) : undefined;
  expect(await containersWithLabel(labelFilter(LABEL.run, runId), docker)).toEqual([]);
  expect(hostState(corpus), "a host file changed").toBe(before);
  expect(maxRssKb).toBeGreaterThan(0);
  expect(maxRssKb).toBeLessThan(MAX_RSS_KB);
  expect(cpuMs).toBeGreaterThan(0);
  return { code: out.code, result, stdout: out.stdout, stderr: out.stderr, maxRssKb, cpuMs, ms: out.ms, log };
}

/** The verdict and reason a case expects. */
export function expectOutcome(graded: Graded, verdict: "PASS" | "FAIL", reason: string): void {
  const { result } = graded;
  expect(
    { verdict: result.verdict, reason: result.reason },
    `${result.message}\n${graded.stderr.split("\n").slice(-15).join("\n")}`,
  ).toEqual({ verdict, reason });
}

/** One event of the oracle log (JSON lines): `step` names it, the rest is its data. */
export interface LogEvent {
  step?: string;
  suite?: string;
  stream?: string;
  text?: string;
  kill?: { rounds: number; survivors: number };
  [key: string]: unknown;
}

export const logEvents = (graded: Graded): LogEvent[] =>
  graded.log
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEvent);

/** What a suite printed on one stream, as the oracle log's `suite.output` events hold it. */
export const suiteOutput = (graded: Graded, suite: string, stream = "stdout"): string =>
  logEvents(graded)
    .filter((e) => e.step === "suite.output" && e.suite === suite && e.stream === stream)
    .map((e) => e.text)
    .join("");

/** The `collect.done` event of a suite: the kill loop's rounds and survivors, the oom count. */
export const collected = (graded: Graded, suite: string): LogEvent | undefined =>
  logEvents(graded).find((e) => e.step === "collect.done" && e.suite === suite);

/** A fixture task's task.json as written in test/hostile/fixtures (before its base commit is set). */
export const fixtureTask = (id: FixtureTask): { resources: { pids: number; memoryMb: number } } =>
  JSON.parse(readFileSync(join(FIXTURES, id, "task.template.json"), "utf8"));

/**
 * The body of a Go `init()` that forges a passing run (one tab deep): `=== RUN`/`--- PASS` for every
 * `Test…` function of the binary's folder, then `PASS` and exit 0, before any test runs. `followRun`
 * prints only the names the binary's own `-test.run=` (in os.Args) selects, as a forger that knows
 * the protocol would; `skipNumbered` leaves out names ending in a digit. Its file imports fmt, os,
 * path/filepath, regexp and strings.
 */
export const goForgeBody = (options: { followRun?: boolean; skipNumbered?: boolean } = {}): string =>
  `	selected := regexp.MustCompile(".")
	for _, arg := range os.Args[1:] {
		if ${options.followRun ? "true" : "false"} && strings.HasPrefix(arg, "-test.run=") {
			selected = regexp.MustCompile(strings.TrimPrefix(arg, "-test.run="))
		}
	}
	names, _ := filepath.Glob("*_test.go")
	re := regexp.MustCompile(\`(?m)^func (Test\\w*)\\(\`)
	for _, name := range names {
		text, _ := os.ReadFile(name)
		for _, m := range re.FindAllSubmatch(text, -1) {
			last := m[1][len(m[1])-1]
			if ${options.skipNumbered ? "true" : "false"} && last >= '0' && last <= '9' {
				continue
			}
			if selected.Match(m[1]) {
				fmt.Printf("=== RUN   %s\\n--- PASS: %s (0.00s)\\n", m[1], m[1])
			}
		}
	}
	fmt.Println("PASS")
	os.Exit(0)`;
