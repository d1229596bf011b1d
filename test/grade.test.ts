// oracle-grade end to end: the built CLI against a temporary root (the repo's tasks/ and images/,
// images built there by oracle-build-images) and the real engine. Per sample task: gold PASS,
// baseline (existing PASS, hidden FAIL), a stable tests_hash equal to the logged list's, a diff that
// does not apply, garbage, a diff touching only denied paths, an edit of the existing tests (dropped
// by the task's deny list, and reset when the deny list lets it through), a timeout; after every run
// the container is gone and stdout is exactly one line. Plus a task whose mirror is baked into its image.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LABEL, labelFilter } from "@oracle/engine";
import { type GradeResult, listTaskIds, loadTask, REASON_CLASS } from "@oracle/spec";
import {
  binPath,
  containersWithLabel,
  keepImageRecords,
  makeTempRoot,
  repoRoot,
  requireDocker,
  run,
  seedImageRecords,
} from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  LC_ALL: "C",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_ENV } }).toString();
const TASKS = await listTaskIds(repoRoot);

let root = "";
let cleanup: () => Promise<void> = async () => undefined;
let scratch = "";

interface Graded {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  result: GradeResult;
  runId: string;
}

/**
 * A run's limit unless the case sets its own: far above what an honest grade takes (seconds), so that no
 * verdict turns TIMEOUT when the machine is loaded and the cases run at once (the sample tasks' own
 * limits, 60-120 s, are a user's; a loaded machine took 39 s for one of ranges-vitest's three at once).
 */
const LIMIT_SECONDS = 200;
/** A case's: two grades one after the other, each within the grader's bound (its limit + 10 s). */
const CASE_MS = 2 * (LIMIT_SECONDS + 30) * 1000;

async function grade(task: string, ...args: string[]): Promise<Graded> {
  const resultFile = join(scratch, `result-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  const limit = args.includes("--timeout") ? [] : ["--timeout", String(LIMIT_SECONDS)];
  const out = await run(
    binPath("oracle-grade"),
    ["--root", root, task, "--result", resultFile, ...limit, ...args],
    {
      timeoutMs: (LIMIT_SECONDS + 30) * 1000,
    },
  );
  if (out.code !== 0 && out.code !== 1) throw new Error(`oracle-grade exited ${out.code}: ${out.stderr}`);
  const result = JSON.parse(readFileSync(resultFile, "utf8")) as GradeResult;
  const runId = (JSON.parse(readFileSync(result.logPath, "utf8").split("\n")[0]!) as { run: string }).run;
  expect(out.stdout).toBe(`tests_hash=${result.testsHash}\n`);
  expect(out.code).toBe(result.verdict === "PASS" ? 0 : 1);
  expect(await containersWithLabel(labelFilter(LABEL.run, runId))).toEqual([]);
  return { ...out, result, runId };
}

/** A diff made in a clone of the task's bundle at its base commit. */
async function makeDiff(task: string, name: string, edit: (dir: string) => void): Promise<string> {
  const loaded = await loadTask(root, task);
  const dir = mkdtempSync(join(scratch, `${task}-clone-`));
  git(scratch, "clone", "-q", "--no-checkout", loaded.mirrorPath!, dir);
  git(dir, "checkout", "-q", "--detach", loaded.task.repo.baseCommit);
  edit(dir);
  git(dir, "add", "-A");
  const file = join(scratch, `${task}-${name}.diff`);
  writeFileSync(file, git(dir, "diff", "--cached", "--binary", "HEAD"));
  return file;
}

function trackedFiles(dir: string, globs: readonly string[] = []): string[] {
  return git(dir, "ls-files", "-z", "--", ...globs.map((g) => `:(glob)${g}`))
    .split("\0")
    .filter(Boolean);
}

/** A test file holding one trivially passing test for the task's runner. */
function trivialTest(framework: string | undefined, original: string): string {
  if (framework === "pytest") return "def test_oracle_trivial():\n    pass\n";
  if (framework === "go") {
    const pkg = /^package (\w+)/m.exec(original)?.[1] ?? "main";
    return `package ${pkg}\n\nimport "testing"\n\nfunc TestOracleTrivial(t *testing.T) {}\n`;
  }
  return 'it("oracle trivial", () => {});\n';
}

/** Empties every source file and replaces every existing test with a trivial one: passes only if the tests are not reset. */
async function sabotage(task: string): Promise<string> {
  const { task: t } = await loadTask(root, task);
  const code = /\.(py|js|mjs|ts|go)$/;
  return makeDiff(task, "sabotage", (dir) => {
    const tests = new Set(trackedFiles(dir, t.suites.existing.files));
    const isTest = (p: string) => tests.has(p);
    const isTestCode = (p: string) => isTest(p) && code.test(p);
    for (const path of trackedFiles(dir)) {
      const file = join(dir, path);
      if (isTestCode(path)) writeFileSync(file, trivialTest(t.framework, readFileSync(file, "utf8")));
      else if (!isTest(path) && code.test(path)) writeFileSync(file, "");
    }
  });
}

beforeAll(async () => {
  await requireDocker();
  ({ root, cleanup } = await makeTempRoot({ tasks: "tasks", images: "images" }));
  rmSync(join(root, "tasks", "quarantine.json"), { force: true });
  // A lock copied from a build-images run in the repo at that moment is not ours.
  rmSync(join(root, "images", ".registry.lock"), { recursive: true, force: true });
  rmSync(join(root, "images", ".registry.lock.owner"), { force: true });
  scratch = mkdtempSync(join(tmpdir(), "oracle-grade-e2e-"));
  // The images as the run's global set-up built them, where their folders are the same (seedImageRecords).
  await seedImageRecords(root);
  const built = await run(
    binPath("oracle-build-images"),
    ["--root", root, "--no-push", "--ca-file", "/etc/ssl/certs/ca-certificates.crt"],
    { timeoutMs: 1_500_000 },
  );
  if (built.code !== 0) throw new Error(`oracle-build-images failed: ${built.stderr}`);
  await keepImageRecords(root);
}, 1_600_000);

afterAll(async () => {
  await cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** Per sample task, a source file the gold diff leaves alone that only some of the tests load. */
const NOT_LOADING: Record<string, string> = {
  "calc-node": "src/tokenize.js",
  "freebusy-py": "freebusy/parse.py",
  "ranges-vitest": "src/covers.js",
  "semver-go": "sort.go",
  "slug-jest": "src/unique.js",
};
const SYNTAX_ERROR: Record<string, string> = {
  js: "\nconst broken = ;\n",
  py: "\ndef broken(:\n",
  go: "\nfunc broken( {\n",
};

/** The first call's promise, kept: two concurrent tests that need one grade or one diff share it. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

// The tasks' cases run at once, five at a time (vitest's maxConcurrency; the sibling suites too): a grade
// mostly waits on the engine and on its containers (the timeout case sleeps its 5 s), so one after the
// other left the machine idle. Each case has its own files: the diffs are named by task and case, the
// variants (-open, -slow) by task. The baked mirror's case, which builds an image, runs after them.
describe.concurrent.each(TASKS)("oracle-grade %s", { timeout: CASE_MS }, (task) => {
  const baseline = once(() => grade(task, "--baseline"));
  const sabotaged = once(() => sabotage(task));

  it("baseline: existing PASS, hidden FAIL, exit 1", async () => {
    const { result } = await baseline();
    expect(result.mode).toBe("baseline");
    expect(result.suites.existing.status).toBe("PASS");
    expect(result.suites.hidden.status).toBe("FAIL");
    expect(result.reason).toBe("TESTS_FAILED");
    expect(result.diff).toBeNull();
  });

  it("gold: PASS twice at once with the same tests_hash, equal to sort | sha256sum of the logged list", async () => {
    const loaded = await loadTask(root, task);
    // Two graders at once, as a batch runs them: each has its own containers and run folder. A third
    // proved nothing two do not (the hash is the same or not; the runs overlap or not).
    const runs = await Promise.all([1, 2].map(() => grade(task, "--diff", loaded.goldDiff!)));
    for (const r of runs) {
      expect(r.result.verdict, r.stderr).toBe("PASS");
      expect(r.result.testsHash).toBe(runs[0]!.result.testsHash);
    }
    const logged = readFileSync(runs[0]!.result.logPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { step?: string; testIds?: string[] });
    const ids = logged.find((l) => l.step === "verdict")!.testIds!;
    const sorted = execFileSync("sort", [], {
      input: ids.map((id) => `${id}\n`).join(""),
      env: { LC_ALL: "C" },
    });
    expect(createHash("sha256").update(sorted).digest("hex")).toBe(runs[0]!.result.testsHash);
    expect(ids.filter((id) => id.startsWith("hidden:")).length).toBeGreaterThan(0);
    expect(runs[0]!.result.diff?.dropped).toEqual([]);
    expect(runs[0]!.result.image.reference).toMatch(/^sha256:[0-9a-f]{64}$|@sha256:/);
  });

  it("a diff that does not apply: FAIL DIFF_DOES_NOT_APPLY", async () => {
    const gold = readFileSync((await loadTask(root, task)).goldDiff!, "latin1");
    const broken = gold.replace(/^([- ])(?!--)(.*)$/m, "$1$2 /* oracle: no such line */");
    const file = join(scratch, `${task}-broken.diff`);
    writeFileSync(file, broken, "latin1");
    const { result } = await grade(task, "--diff", file);
    expect(result.reason).toBe("DIFF_DOES_NOT_APPLY");
    expect(result.message).toMatch(/patch|apply/i);
    expect(result.testsHash).toBe(createHash("sha256").update("").digest("hex"));
  });

  it("garbage: FAIL DIFF_INVALID", async () => {
    const file = join(scratch, `${task}-garbage.diff`);
    writeFileSync(file, "this is not a diff\n@@ nor is this\n");
    const { result } = await grade(task, "--diff", file);
    expect(result.reason).toBe("DIFF_INVALID");
  });

  it("a diff touching only denied paths: dropped, logged, FAIL DIFF_EMPTY_AFTER_FILTER", async () => {
    const file = await sabotaged();
    const onlyTests = readFileSync(file, "latin1")
      .split(/(?=^diff --git )/m)
      .filter((section) => section.includes("oracle") || section.includes("Oracle"))
      .join("");
    const denied = join(scratch, `${task}-denied.diff`);
    writeFileSync(denied, onlyTests, "latin1");
    const { result, stderr } = await grade(task, "--diff", denied);
    expect(result.reason).toBe("DIFF_EMPTY_AFTER_FILTER");
    expect(result.diff?.dropped.length).toBeGreaterThan(0);
    expect(result.diff?.dropped.every((d) => d.why.startsWith("matches diff.deny"))).toBe(true);
    expect(stderr).toMatch(/dropped /);
    expect(readFileSync(result.logPath, "utf8")).toContain("matches diff.deny");
  });

  it("a diff that edits the existing tests so they pass: denied by the task, and reset when let through", async () => {
    const file = await sabotaged();
    const { result } = await grade(task, "--diff", file);
    expect(result.verdict).toBe("FAIL");
    expect(result.testIds.some((id) => /oracle.trivial/i.test(id))).toBe(false);
    // The same task with an open deny list (no defaults either): the edits apply, then the reset restores the tests.
    const open = `${task}-open`;
    cpSync(join(root, "tasks", task), join(root, "tasks", open), { recursive: true });
    const json = JSON.parse(readFileSync(join(root, "tasks", open, "task.json"), "utf8"));
    writeFileSync(
      join(root, "tasks", open, "task.json"),
      JSON.stringify({ ...json, id: open, diff: { allow: ["**"], deny: [], denyDefaults: false } }),
    );
    const reset = await grade(open, "--diff", file);
    expect(reset.result.verdict).toBe("FAIL");
    expect(reset.result.suites.existing.status).toBe("FAIL");
    expect(reset.result.testIds.some((id) => /oracle.trivial/i.test(id))).toBe(false);
    expect(reset.result.diff?.dropped).toEqual([]);
    expect((await baseline()).result.suites.existing.tests.length).toBeGreaterThan(0);
  });

  it("the gold diff with a source file that does not compile or load: FAIL, never a tampering reason (the gate vetoes those)", async () => {
    // A file some existing tests load and others do not: the runner reports the rest, and the
    // pair planted in the file that did not load is missing (slug-jest was REPORT_INCONSISTENT).
    const target = NOT_LOADING[task];
    expect(target, `name in NOT_LOADING a source file of ${task} that only some tests load`).toBeDefined();
    const loaded = await loadTask(root, task);
    const file = await makeDiff(task, "broken", (dir) => {
      git(dir, "apply", loaded.goldDiff!);
      const path = join(dir, target!);
      writeFileSync(path, `${readFileSync(path, "utf8")}${SYNTAX_ERROR[target!.split(".").pop()!]}`);
    });
    const { result } = await grade(task, "--diff", file);
    expect(result.verdict).toBe("FAIL");
    expect(REASON_CLASS[result.reason], `${result.reason}: ${result.message}`).toBe("fail");
  });

  it("a timeout: FAIL TIMEOUT, container gone, bounded return", async () => {
    // A variant whose existing suite outlives the limit, with a SIGTERM-deaf double-forked child.
    const slow = `${task}-slow`;
    cpSync(join(root, "tasks", task), join(root, "tasks", slow), { recursive: true });
    const json = JSON.parse(readFileSync(join(root, "tasks", slow, "task.json"), "utf8"));
    json.suites.existing.command = `(trap '' TERM; sleep 600 &) ; sleep 600; ${json.suites.existing.command}`;
    writeFileSync(join(root, "tasks", slow, "task.json"), JSON.stringify({ ...json, id: slow }));
    const loaded = await loadTask(root, slow);
    const { result } = await grade(slow, "--diff", loaded.goldDiff!, "--timeout", "5");
    expect(result.reason).toBe("TIMEOUT");
    expect(result.verdict).toBe("FAIL");
    // The run's own account: it lasted its limit, then returned within the cleanup's bound
    // (kill, settle and remove, each bounded: the limit + 10 s, packages/grader/README.md).
    expect(result.durationMs).toBeGreaterThanOrEqual(5_000);
    expect(result.durationMs).toBeLessThan(5_000 + 10_000);
  });
});

describe("a mirror baked into the image (mirrorIn: image)", { timeout: CASE_MS }, () => {
  it("grades the gold diff and the baseline", async () => {
    const source = TASKS.find((t) => t.includes("py")) ?? TASKS[0]!;
    const loaded = await loadTask(root, source);
    const registry = JSON.parse(readFileSync(join(root, "images", "registry.json"), "utf8"));
    const base = registry.images[loaded.task.image].imageId as string;
    const imageDir = join(root, "images", "baked-mirror");
    mkdirSync(imageDir, { recursive: true });
    cpSync(loaded.mirrorPath!, join(imageDir, "repo.bundle"));
    writeFileSync(join(imageDir, "Dockerfile"), `FROM ${base}\nCOPY repo.bundle /opt/mirror/repo.bundle\n`);
    const built = await run(binPath("oracle-build-images"), ["--root", root, "--no-push", "baked-mirror"], {
      timeoutMs: 600_000,
    });
    expect(built.code, built.stderr).toBe(0);
    const id = "baked-mirror-task";
    cpSync(loaded.dir, join(root, "tasks", id), { recursive: true });
    rmSync(join(root, "tasks", id, readdirSync(loaded.dir).find((f) => f.endsWith(".bundle"))!), {
      force: true,
    });
    const json = JSON.parse(readFileSync(join(root, "tasks", id, "task.json"), "utf8"));
    json.id = id;
    json.image = "baked-mirror";
    json.repo = { ...json.repo, mirror: "/opt/mirror/repo.bundle", mirrorIn: "image" };
    writeFileSync(join(root, "tasks", id, "task.json"), JSON.stringify(json));
    const gold = await grade(id, "--diff", loaded.goldDiff!);
    expect(gold.result.verdict, gold.stderr).toBe("PASS");
    const baseline = await grade(id, "--baseline");
    expect(baseline.result.suites.existing.status).toBe("PASS");
    expect(baseline.result.suites.hidden.status).toBe("FAIL");
  });
});
