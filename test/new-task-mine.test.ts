// `oracle-new-task --mine` against the real engine: a small Python repository made here, with a
// history of mixed commits (a root, a docs change, a test-only change, a fix whose test already
// passes at its base, a real fix with its test, a code-only change on a branch and its merge), mined
// in one command: every commit's outcome and the yield in the report, only the healthy task kept,
// and a second run that decides nothing again.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Dockerode, LABEL, labelFilter } from "@oracle/engine";
import {
  binPath,
  containersWithLabel,
  freezeWhen,
  makeTempRoot,
  requireDocker,
  run,
} from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, readLog, startProcess } from "./fixtures/batch/harness.js";

let docker: Dockerode;
let temp: { root: string; cleanup: () => Promise<void> };
let scratch: string;

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

let clock = Date.parse("2026-01-01T00:00:00Z");
function git(repo: string, ...args: string[]): string {
  // One second apart, so that git log lists the commits in the order they were made.
  clock += 1000;
  const date = new Date(clock).toISOString();
  return execFileSync("git", ["-C", repo, ...args], {
    env: { ...GIT_ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    encoding: "utf8",
  }).trim();
}

async function commit(repo: string, message: string, files: Record<string, string>): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", message);
  return git(repo, "rev-parse", "HEAD");
}

const newTask = (args: string[]) =>
  run(binPath("oracle-new-task"), ["--root", temp.root, ...args], { timeoutMs: 900_000 });

beforeAll(async () => {
  docker = await requireDocker();
  temp = await makeTempRoot({ images: "images" });
  scratch = await mkdtemp(join(tmpdir(), "oracle-new-task-mine-"));
});

afterAll(async () => {
  await temp?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("oracle-new-task --mine", () => {
  it("refuses a bad command line with a hint, and writes nothing", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["--mine", scratch, "--fix", "HEAD"], /--mine makes tasks from a whole history/],
      [["--mine", scratch, "--since", "yesterday"], /--since: must be a date, as YYYY-MM-DD/],
      [["--mine", scratch, "--limit", "0"], /--limit: must be at least 1/],
      [["--mine", scratch, "--id", "x"], /--id names one task/],
      [["--repo", scratch, "--fix", "HEAD", "--jobs", "2"], /--jobs belongs to --mine/],
      [["--mine", join(scratch, "missing")], /--mine: .* is not a git repository/],
    ];
    for (const [args, message] of cases) {
      const result = await newTask(args);
      expect(result.stderr, args.join(" ")).toMatch(message);
      expect(result.stderr, args.join(" ")).toContain("hint:");
      expect(result.code, args.join(" ")).toBe(2);
    }
    expect(await readdir(temp.root)).not.toContain("mine");
  });

  it("mines a history of mixed commits: the report says each one's outcome and the yield, only the healthy task stays, and a rerun resumes", async () => {
    const repo = join(scratch, "calc");
    await mkdir(repo, { recursive: true });
    git(repo, "init", "-q", "-b", "main");
    const root = await commit(repo, "calc: add and mul", {
      "README.md": "# calc\n",
      "calc/__init__.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n",
      "tests/test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
      "tests/test_mul.py": "from calc import mul\n\n\ndef test_mul_zero_one():\n    assert mul(2, 0) == 2\n",
      // A test that needs a program the image lacks: it fails at every base, whatever the diff.
      "tests/test_tools.py":
        "import shutil\n\n\ndef test_add():\n    assert shutil.which('true')\n\n\ndef test_pager():\n    assert shutil.which('less')\n",
    });
    const docs = await commit(repo, "docs: usage", { "README.md": "# calc\n\nAdds and multiplies.\n" });
    const testOnly = await commit(repo, "tests: more add cases", {
      "tests/test_add_more.py":
        "from calc import add\n\n\ndef test_add_negative():\n    assert add(-2, 3) == 1\n",
    });
    // The test it adds passes at the base too: it tests nothing the code change fixes.
    const noFail = await commit(repo, "calc: document add", {
      "calc/__init__.py":
        'def add(a, b):\n    """The sum."""\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n',
      "tests/test_add.py":
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_zero():\n    assert add(0, 7) == 7\n",
    });
    const fix = await commit(repo, "calc: mul multiplies", {
      "calc/__init__.py":
        'def add(a, b):\n    """The sum."""\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n',
      "tests/test_mul.py":
        "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_mul_zero():\n    assert mul(0, 5) == 0\n",
    });
    git(repo, "checkout", "-q", "-b", "side");
    const codeOnly = await commit(repo, "calc: sub", {
      "calc/sub.py": "def sub(a, b):\n    return a - b\n",
    });
    git(repo, "checkout", "-q", "main");
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch side", "side");
    const merge = git(repo, "rev-parse", "HEAD");

    // One validation run of each check: the yield and the outcomes are the claim, not flakiness (the
    // default, 2, is args.test.ts's). Three validations in all (the fix's again without test_pager):
    // 138 s on a machine at load 60, past the project's 180 s default once, hence the case's limit.
    const first = await newTask(["--mine", repo, "--repeat", "1", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    const outcomes = Object.fromEntries(
      report.commits.map((c: { sha: string; outcome: string; kind: string; stage: string }) => [
        c.sha,
        `${c.kind} ${c.outcome} ${c.stage}`,
      ]),
    );
    expect(outcomes).toEqual({
      [merge]: "merge not-a-fix scan",
      [codeOnly]: "code-only not-a-fix scan",
      [fix]: "candidate healthy kept",
      [noFail]: "candidate test-passes-at-base validate",
      [testOnly]: "test-only test-only scan",
      [docs]: "docs-only not-a-fix scan",
      [root]: "root not-a-fix scan",
    });
    // Newest first, as the history reads.
    expect(report.commits.map((c: { sha: string }) => c.sha)).toEqual([
      merge,
      codeOnly,
      fix,
      noFail,
      testOnly,
      docs,
      root,
    ]);
    expect(report.commits.find((c: { sha: string }) => c.sha === noFail).flags).toContain(
      "HIDDEN_PASS_AT_BASELINE",
    );
    expect(report.yield).toEqual({
      lookedAt: 7,
      candidates: 2,
      healthy: 1,
      percent: 14.3,
      undecided: 0,
      lost: {
        scan: { merge: 1, "code-only": 1, "test-only": 1, "docs-only": 1, root: 1 },
        plan: {},
        image: {},
        validate: { "test-passes-at-base": 1 },
      },
    });
    // The fix's first validation failed test_pager at the base and with gold alike: left out, and
    // the task validated again; the older candidate had it left out before its validation.
    const pager = "existing:tests.test_tools::test_pager";
    const reason = (sha: string) => report.commits.find((c: { sha: string }) => c.sha === sha).reason;
    expect(reason(fix)).toContain(`left out: 1 existing test failing at the base in every run (${pager})`);
    expect(reason(noFail)).toContain(
      `1 existing test an earlier candidate found flaky or failing at its base (${pager})`,
    );
    expect(report.leftOut).toEqual([pager]);
    expect(report.finished).toBe(true);
    expect(first.stderr).toMatch(/yield: 1 healthy of 7 commits looked at \(14\.3%; 2 candidates\)/);

    // Only the healthy task stays, validated; nothing of the unhealthy one is left.
    const kept = `calc-${fix.slice(0, 7)}`;
    const tasks = (await readdir(join(temp.root, "tasks"))).filter((f) => !f.endsWith(".json"));
    expect(tasks).toEqual([kept]);
    const quarantine = JSON.parse(await readFile(join(temp.root, "tasks", "quarantine.json"), "utf8"));
    expect(Object.keys(quarantine.tasks)).toEqual([]);
    const health = JSON.parse(await readFile(join(temp.root, "tasks", "health.json"), "utf8"));
    expect(Object.keys(health.tasks)).toEqual([kept]);
    expect(health.tasks[kept].outcome).toBe("healthy");
    const keptTask = JSON.parse(await readFile(join(temp.root, "tasks", kept, "task.json"), "utf8"));
    expect(keptTask.suites.existing.command).toContain("--deselect tests/test_tools.py::test_pager");

    // The report's files: JSON (the state) and Markdown.
    const dir = dirname(report.report);
    expect(dirname(dir)).toBe(join(temp.root, "mine"));
    const md = await readFile(join(dir, "report.md"), "utf8");
    expect(md).toContain("**Yield: 1 healthy of 7 commits looked at (14.3%)**");
    expect(md).toContain(`| ${noFail.slice(0, 12)} |`);
    expect(md).toContain(`tasks/${kept}`);

    // A rerun with the same arguments decides nothing again: no sweep runs, the report is the same.
    const sweeps = await readdir(join(temp.root, "logs", "sweep"));
    const second = await newTask(["--mine", repo, "--repeat", "1"]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("7 of 7 commits already decided");
    expect(second.stdout).toMatch(/^yield: 1 healthy of 7 commits looked at \(14\.3%; 2 candidates\)/);
    expect(await readdir(join(temp.root, "logs", "sweep"))).toEqual(sweeps);
    const again = JSON.parse(await readFile(report.report, "utf8"));
    expect(again.commits).toEqual(report.commits);

    // A new commit on top: only it is looked at.
    const later = await commit(repo, "docs: more", { "README.md": "# calc\n\nAdds, multiplies.\n" });
    const third = await newTask(["--mine", repo, "--repeat", "1", "--json"]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain("7 of 8 commits already decided");
    const resumed = JSON.parse(third.stdout);
    expect(resumed.commits[0]).toMatchObject({ sha: later, kind: "docs-only", outcome: "not-a-fix" });
    expect(resumed.yield.lookedAt).toBe(8);
    expect(await readdir(join(temp.root, "logs", "sweep"))).toEqual(sweeps);
  }, 600_000);

  it("Ctrl-C mid-validation (two candidates at once) leaves no task folder of an unfinished commit, and the next run makes them", async () => {
    // A root of its own with no images/: both candidates need the python-pytest template copied there.
    const fresh = await makeTempRoot();
    try {
      const repo = join(scratch, "stop");
      await mkdir(repo, { recursive: true });
      git(repo, "init", "-q", "-b", "main");
      await commit(repo, "calc", {
        "calc/__init__.py": "def mul(a, b):\n    return a + b\n\n\ndef neg(a):\n    return a\n",
        "tests/test_other.py": "def test_other():\n    assert True\n",
        "tests/test_mul.py":
          "from calc import mul\n\n\ndef test_mul_zero_one():\n    assert mul(2, 0) == 2\n",
        "tests/test_neg.py": "from calc import neg\n\n\ndef test_neg_zero():\n    assert neg(0) == 0\n",
      });
      const mulFix = await commit(repo, "calc: mul multiplies", {
        "calc/__init__.py": "def mul(a, b):\n    return a * b\n\n\ndef neg(a):\n    return a\n",
        "tests/test_mul.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
      });
      const negFix = await commit(repo, "calc: neg negates", {
        "calc/__init__.py": "def mul(a, b):\n    return a * b\n\n\ndef neg(a):\n    return -a\n",
        "tests/test_neg.py": "from calc import neg\n\n\ndef test_neg():\n    assert neg(2) == -2\n",
      });
      const folders = [mulFix, negFix].map((sha) => join(fresh.root, "tasks", `stop-${sha.slice(0, 7)}`));
      const log = join(scratch, "stop.log");
      const args = ["--mine", repo, "--root", fresh.root, "--jobs", "2"];
      const child = startProcess(binPath("oracle-new-task"), args, log);
      // Frozen once a task folder is written (its validation runs), so that the Ctrl-C lands there.
      await freezeWhen(child.pid!, () => folders.some((f) => existsSync(f)), {
        what: "a candidate's task folder",
        timeoutMs: 300_000,
        detail: () => readLog(log),
      });
      child.kill("SIGINT");
      child.kill("SIGCONT");
      expect(await exited(child), readLog(log)).toBe(130);
      expect(folders.filter((f) => existsSync(f))).toEqual([]);
      expect(await containersWithLabel(labelFilter(LABEL.pid, child.pid!), docker)).toEqual([]);
      const dir = (await readdir(join(fresh.root, "mine"))).find((d) => d.startsWith("stop-"));
      const state = JSON.parse(await readFile(join(fresh.root, "mine", dir!, "report.json"), "utf8"));
      expect(state.finished).toBe(false);
      // Saved once both candidates had stopped: none is left running.
      expect(state.running).toEqual({});
      expect(state.commits.slice(0, 2).map((c: { outcome: string }) => c.outcome)).toEqual([
        "pending",
        "pending",
      ]);

      const again = await run(binPath("oracle-new-task"), args, { timeoutMs: 900_000 });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain("1 of 3 commits already decided");
      expect(again.stderr).not.toContain("left unfinished by the last run");
      expect(again.stdout).toMatch(/^yield: 2 healthy of 3 commits looked at \(66\.7%; 2 candidates\)/);
      for (const f of folders) expect(existsSync(join(f, "task.json"))).toBe(true);
    } finally {
      await fresh.cleanup();
    }
  });
});
