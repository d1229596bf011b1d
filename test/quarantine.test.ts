import { spawn } from "node:child_process";
import { copyFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LABEL, labelFilter } from "@oracle/engine";
import { QuarantineFileSchema, type SweepReport, SweepReportSchema } from "@oracle/spec";
import {
  binPath,
  containersWithLabel,
  freezeWhen,
  makeTempRoot,
  requireDocker,
  run,
} from "@oracle/test-utils";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const FIXTURES = "test/fixtures/quarantine";
const PLACEHOLDER_SHA = "0".repeat(40);

/** What the sweep must find: each fixture task's status and flags (test/fixtures/quarantine/README.md). */
const EXPECTED: Record<string, string[]> = {
  "existing-fails": ["quarantined", "EXISTING_SUITE_FAILS", "NO_GOLD"],
  flaky: ["quarantined", "FLAKY", "NO_GOLD"],
  "gold-fails": ["quarantined", "GOLD_FAILS"],
  "healthy-gold": ["healthy"],
  "hidden-passes": ["quarantined", "HIDDEN_PASS_AT_BASELINE", "NO_GOLD"],
  invalid: ["quarantined", "INVALID_TASK"],
  "no-existing-tests": ["quarantined", "NO_EXISTING_TESTS", "NO_GOLD"],
  "no-gold": ["quarantined", "NO_GOLD"],
  "no-image": ["quarantined", "IMAGE_NOT_BUILT", "NO_GOLD"],
  "report-missing": ["quarantined", "HIDDEN_REPORT_UNUSABLE", "NO_GOLD"],
  "sentinel-not-collected": ["quarantined", "SENTINEL_NOT_COLLECTED", "NO_GOLD"],
  "times-out": ["quarantined", "TIMEOUT", "NO_GOLD"],
  "unstable-ids": ["quarantined", "TESTS_HASH_UNSTABLE", "NO_GOLD"],
};

type Report = SweepReport;

let root: string;
let cleanup: () => Promise<void>;

async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = { GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z" };
  const result = await run(
    "git",
    ["-c", "user.name=oracle", "-c", "user.email=oracle@example.invalid", ...args],
    { cwd, env },
  );
  if (result.code !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/** Commits the fixture repository, bundles it into every task and writes its sha into each task.json. */
async function installMirror(): Promise<void> {
  const repo = join(root, "fixture-repo");
  await git(root, "init", "-q", "-b", "main", repo);
  await git(repo, "add", "-A");
  await git(repo, "commit", "-q", "-m", "base");
  const sha = await git(repo, "rev-parse", "HEAD");
  await git(repo, "bundle", "create", "-q", join(root, "repo.bundle"), "--all");
  for (const id of await readdir(join(root, "tasks"))) {
    await copyFile(join(root, "repo.bundle"), join(root, "tasks", id, "repo.bundle"));
    const file = join(root, "tasks", id, "task.json");
    await writeFile(file, (await readFile(file, "utf8")).replace(PLACEHOLDER_SHA, sha));
  }
}

function sweep(...args: string[]) {
  return run(binPath("oracle-quarantine-sweep"), ["--root", root, ...args], {
    timeoutMs: 900_000,
    env: { CI: "1" },
  });
}

async function quarantineList() {
  return QuarantineFileSchema.parse(
    JSON.parse(await readFile(join(root, "tasks", "quarantine.json"), "utf8")),
  );
}

/** The containers a sweep (by its process id) left behind; other runs on this host have their own. */
async function leftovers(sweepPid: number | undefined): Promise<string[]> {
  const containers = await containersWithLabel(labelFilter(LABEL.pid, sweepPid!));
  return containers.map((c) => c.Id);
}

beforeAll(async () => {
  await requireDocker();
  ({ root, cleanup } = await makeTempRoot({
    "images/qpy": `${FIXTURES}/images/qpy`,
    tasks: `${FIXTURES}/tasks`,
    "fixture-repo": `${FIXTURES}/repo`,
  }));
  await installMirror();
  const build = await run(binPath("oracle-build-images"), ["--root", root, "--no-push"], {
    timeoutMs: 900_000,
  });
  expect(build.code, build.stderr).toBe(0);
});

afterAll(async () => {
  await cleanup?.();
});

describe("oracle-quarantine-sweep against the real engine", () => {
  let report: Report;

  it("flags exactly the bad tasks, each with the right reason, and exits 1 with --fail-on-new", async () => {
    // Four grades at once: a fixture's grade mostly waits on its containers (two left the machine idle);
    // none of the verdicts depends on speed (times-out sleeps past its 15 s, the others take seconds of 60).
    // Two runs of each check: FLAKY and TESTS_HASH_UNSTABLE compare repeated runs, and two are enough
    // (the flaky fixture's twelve coins keep one outcome across two runs with probability 1/4096).
    const result = await sweep(
      "--repeat",
      "2",
      "--concurrency",
      "4",
      "--report",
      join(root, "sweep-report"),
      "--json",
      "--fail-on-new",
    );
    expect(result.code, result.stderr).toBe(1);
    report = SweepReportSchema.parse(JSON.parse(result.stdout));
    const found = Object.fromEntries(
      report.tasks.map((t) => [t.id, [t.status, ...t.reasons.map((r) => r.flag)]]),
    );
    expect(found).toEqual(EXPECTED);
    const bad = Object.keys(EXPECTED).filter((id) => !id.startsWith("healthy"));
    expect(report.newlyQuarantined).toEqual(bad);
    expect(Object.keys((await quarantineList()).tasks)).toEqual(bad);
    const evidence = report.tasks.find((t) => t.id === "existing-fails")?.reasons[0]?.evidence ?? [];
    expect(evidence).toContain("baseline: 2 of 2 runs");
    for (const log of evidence.filter((e) => e.endsWith(".jsonl"))) await readFile(join(root, log));
    expect(result.stderr).toMatch(/^sweep: \[\d+\/13\] flaky quarantined \(FLAKY, NO_GOLD\)/m);
    const reason = (task: string, flag: string) =>
      report.tasks.find((t) => t.id === task)?.reasons.find((r) => r.flag === flag);
    for (const task of report.tasks)
      for (const r of task.reasons) expect(r.hint, `${task.id} ${r.flag}`).toMatch(/\S/);
    // One parametrised case by node id: no twin can be made of it, and the pair is not selected.
    expect(reason("sentinel-not-collected", "SENTINEL_NOT_COLLECTED")?.message).toMatch(
      /baseline: 2 of 2 runs: the grade result says the sentinel was not collected/,
    );
    expect(reason("sentinel-not-collected", "SENTINEL_NOT_COLLECTED")?.hint).toMatch(
      /select the hidden test files, classes or single tests by node id/,
    );
    expect(reason("report-missing", "HIDDEN_REPORT_UNUSABLE")?.message).toMatch(/REPORT_MISSING/);
    expect(reason("no-gold", "NO_GOLD")?.hint).toContain("add tasks/no-gold/gold.diff");
    expect((await quarantineList()).tasks["no-gold"]?.reasons[0]?.hint).toContain("gold.diff");
    expect(result.pid).toBeDefined();
    expect(await leftovers(result.pid)).toEqual([]);
  }, 900_000);

  it("writes an HTML report that opens offline in Chromium with one row per task", async () => {
    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on("request", (request) => requests.push(request.url()));
      await page.goto(`file://${join(report.reportDir, "report.html")}`);
      const rows = await page
        .locator("#tasks tbody tr")
        .evaluateAll((trs) =>
          trs.map((tr) => [
            tr.getAttribute("data-task"),
            tr.querySelector("td.status")?.textContent,
            tr.getAttribute("data-flags"),
          ]),
        );
      expect(rows).toEqual(
        Object.entries(EXPECTED).map(([id, [status, ...flags]]) => [id, status, flags.join(" ")]),
      );
      // One bar per run: 12 tasks that load, baseline × 2, and the 2 with a gold.diff, gold × 2.
      expect(await page.locator("svg rect.run").count()).toBe(28);
      expect(requests.every((url) => url.startsWith("file://"))).toBe(true);
      const href = await page.locator('tr[data-task="flaky"] a.log').first().getAttribute("href");
      await readFile(join(report.reportDir, decodeURIComponent(href ?? "missing")));
    } finally {
      await browser.close();
    }
  }, 120_000);

  it("makes the grader refuse a quarantined task with exit 2 and its reasons", async () => {
    const result = await run(binPath("oracle-grade"), ["--root", root, "existing-fails", "--baseline"], {
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("EXISTING_SUITE_FAILS");
    expect(result.stdout).toBe("");
  }, 120_000);

  it("releases a fixed task and leaves the tasks it did not check alone", async () => {
    const before = await quarantineList();
    const fixedTest = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
    await writeFile(
      join(root, "tasks", "hidden-passes", "hidden-tests", "hidden", "test_add_again.py"),
      fixedTest,
    );
    await copyFile(
      join(root, "tasks", "healthy-gold", "gold.diff"),
      join(root, "tasks", "hidden-passes", "gold.diff"),
    );
    const result = await sweep("--tasks", "hidden-*", "--json", "--fail-on-new");
    expect(result.code, result.stderr).toBe(0);
    const second = SweepReportSchema.parse(JSON.parse(result.stdout));
    expect(second.tasks.map((t) => [t.id, t.status])).toEqual([["hidden-passes", "healthy"]]);
    expect(second.released).toEqual(["hidden-passes"]);
    const after = await quarantineList();
    const { "hidden-passes": released, ...kept } = before.tasks;
    expect(released).toBeDefined();
    expect(after.tasks).toEqual(kept);
  }, 600_000);

  it("stops cleanly on Ctrl-C: exit 130, no container left, nothing written", async () => {
    const listBefore = await readFile(join(root, "tasks", "quarantine.json"), "utf8");
    const child = spawn(
      binPath("oracle-quarantine-sweep"),
      ["--root", root, "--tasks", "times-out", "healthy-*", "--repeat", "3"],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, CI: "1" },
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    const label = labelFilter(LABEL.pid, child.pid!);
    // Frozen while a grade's container runs, so that the Ctrl-C lands mid-grade on any machine.
    await freezeWhen(child.pid!, async () => (await containersWithLabel(label)).length > 0, {
      what: "a grade of the sweep to be running",
      timeoutMs: 120_000,
      detail: () => stderr,
    });
    child.kill("SIGINT");
    const interrupted = Date.now();
    child.kill("SIGCONT");
    expect(await exited, stderr).toBe(130);
    // Each aborted grade returns within 10 s (packages/grader/README.md); the margin is the sweep's own.
    expect(Date.now() - interrupted).toBeLessThan(10_000 + 10_000);
    expect(stderr).toContain("interrupted");
    expect(await containersWithLabel(label)).toEqual([]);
    expect(await readFile(join(root, "tasks", "quarantine.json"), "utf8")).toBe(listBefore);
  }, 180_000);
});
