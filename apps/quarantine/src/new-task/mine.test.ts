import { describe, expect, it } from "vitest";
import { record } from "../testing/fake-grade.js";
import type { ChangedFile } from "./git.js";
import {
  classifyCommit,
  hangReason,
  hangsAtBase,
  isDocPath,
  leftWords,
  lostOnExisting,
  type MinedCommit,
  mineDir,
  mineMarkdown,
  mineYield,
  retriedReason,
  toRetry,
  validationOutcome,
  yieldLine,
} from "./mine.js";

const files = (...paths: string[]): ChangedFile[] =>
  paths.map((p) => (p.startsWith("-") ? { status: "D", path: p.slice(1) } : { status: "M", path: p }));
const one = (...paths: string[]) => classifyCommit({ parents: 1, files: files(...paths) });

describe("classifyCommit", () => {
  it("takes a non-merge commit that changes code and adds or changes tests as a candidate", () => {
    expect(one("calc/__init__.py", "tests/test_mul.py")).toEqual({
      kind: "candidate",
      reason: "changes 1 code file and 1 test file",
    });
    expect(one("src/a.go", "src/a_test.go", "README.md").kind).toBe("candidate");
    expect(one("lib/x.js", "lib/x.spec.js").kind).toBe("candidate");
  });

  it("names each commit that is not a candidate by why", () => {
    expect(classifyCommit({ parents: 2, files: [] })).toMatchObject({ kind: "merge" });
    expect(classifyCommit({ parents: 0, files: files("a.py") })).toMatchObject({ kind: "root" });
    expect(one()).toMatchObject({ kind: "empty" });
    expect(one("README.md", "docs/usage.rst", "CHANGELOG")).toEqual({
      kind: "docs-only",
      reason: "changes 3 doc files only",
    });
    expect(one("calc/__init__.py", "setup.cfg")).toEqual({
      kind: "code-only",
      reason: "changes 2 code files and adds or changes no test file",
    });
    expect(one("tests/test_a.py", "tests/data/x.json")).toEqual({
      kind: "test-only",
      reason: "changes 2 test files, no code",
    });
    // Tests with a doc change are still no fix: the gold diff would be prose.
    expect(one("tests/test_a.py", "README.md")).toMatchObject({
      kind: "test-only",
      reason: "changes 1 test file and 1 doc file, no code",
    });
    // Deleting tests alone is no fix either, and a code change that only deletes tests has nothing to hide.
    expect(one("-tests/test_old.py")).toMatchObject({ kind: "test-only" });
    expect(one("a.py", "-tests/test_old.py")).toMatchObject({ kind: "code-only" });
  });

  it("counts only code files as code: prose next to a fix is not, requirements.txt is", () => {
    expect(isDocPath("README.md")).toBe(true);
    expect(isDocPath("docs/conf.py")).toBe(true);
    expect(isDocPath("LICENSE.txt")).toBe(true);
    expect(isDocPath("requirements.txt")).toBe(false);
    expect(isDocPath("src/readme.py")).toBe(false);
    expect(one("requirements.txt", "tests/test_a.py").kind).toBe("candidate");
  });

  it("refuses a commit too large to be one fix, by files or by code lines", () => {
    const many = Array.from({ length: 41 }, (_, i) => `src/m${i}.py`);
    expect(one(...many, "tests/test_a.py")).toMatchObject({ kind: "too-large" });
    const lines = new Map([
      ["src/a.py", 1400],
      ["src/b.py", 200],
      ["tests/test_a.py", 5000],
    ]);
    expect(
      classifyCommit({ parents: 1, files: files("src/a.py", "src/b.py", "tests/test_a.py"), lines }),
    ).toMatchObject({ kind: "too-large", reason: expect.stringContaining("1600 code lines") });
    lines.set("src/b.py", 10);
    expect(
      classifyCommit({ parents: 1, files: files("src/a.py", "src/b.py", "tests/test_a.py"), lines }).kind,
    ).toBe("candidate");
  });

  it("follows new-task's split: --tests globs replace the path rule, the repository's jest rule adds to it", () => {
    const c = { parents: 1, files: files("src/a.js", "checks/a.js") };
    expect(classifyCommit(c).kind).toBe("code-only");
    expect(classifyCommit(c, { tests: ["checks/**"] }).kind).toBe("candidate");
    expect(classifyCommit(c, { runnerTests: (p) => p.startsWith("checks/") }).kind).toBe("candidate");
  });
});

describe("validationOutcome", () => {
  const quarantined = (...flags: string[]) => ({
    status: "quarantined" as const,
    reasons: flags.map((flag) => ({ flag, message: "", evidence: [] })) as never,
  });
  it("reads a quarantined task's flags as where it was lost", () => {
    expect(validationOutcome({ status: "healthy", reasons: [] })).toBe("healthy");
    expect(validationOutcome({ status: "infra-error", reasons: [] })).toBe("infra-error");
    expect(validationOutcome(quarantined("HIDDEN_PASS_AT_BASELINE"))).toBe("test-passes-at-base");
    expect(validationOutcome(quarantined("GOLD_FAILS"))).toBe("gold-fails");
    expect(validationOutcome(quarantined("FLAKY", "GOLD_FAILS"))).toBe("flaky");
    // The environment first: a suite that cannot run fails gold too.
    expect(validationOutcome(quarantined("GOLD_FAILS", "EXISTING_SUITE_FAILS"))).toBe("environment-failed");
    expect(validationOutcome(quarantined("NO_GOLD"))).toBe("unhealthy");
  });
  it("sqlparse 40ed3aa (a fix for a denial of service): a base that hangs in every baseline run while gold passes is hangs-at-base, with the limit and the durations in its reason", () => {
    const runs = [
      record({
        mode: "baseline",
        reason: "TIMEOUT",
        verdict: "FAIL",
        durationMs: 900_400,
        existing: null,
        hidden: null,
      }),
      record({
        mode: "baseline",
        reason: "TIMEOUT",
        verdict: "FAIL",
        durationMs: 901_000,
        existing: null,
        hidden: null,
      }),
      record({ mode: "gold", durationMs: 41_200 }),
      record({ mode: "gold", durationMs: 39_000 }),
    ];
    const task = { ...quarantined("TIMEOUT"), runs };
    expect(validationOutcome(task)).toBe("hangs-at-base");
    expect(hangReason(hangsAtBase(task)!, 2, 900)).toMatch(
      /^the base commit hangs: all 2 baseline runs passed the task's time limit \(timeoutSeconds, 900 s; the longest 901 s\) while gold\.diff passed in at most 41 s/,
    );
    // A timeout in some baseline runs only, or one with gold, is the machine's or the environment's.
    expect(
      validationOutcome({ ...task, runs: [runs[0]!, record({ mode: "baseline" }), ...runs.slice(2)] }),
    ).toBe("environment-failed");
    expect(
      validationOutcome({
        ...task,
        runs: [...runs.slice(0, 3), record({ mode: "gold", reason: "TIMEOUT", verdict: "FAIL" })],
      }),
    ).toBe("environment-failed");
    expect(validationOutcome(quarantined("TIMEOUT"))).toBe("environment-failed");
  });
  it("sqlparse ac3b9e0 (s24): a test that fails in some runs only makes the candidate flaky, not environment-failed", () => {
    expect(validationOutcome(quarantined("EXISTING_SUITE_FAILS", "GOLD_FAILS", "FLAKY"))).toBe("flaky");
    expect(validationOutcome(quarantined("IMAGE_NOT_BUILT", "FLAKY"))).toBe("environment-failed");
  });
});

describe("leftWords: what a mined commit's reason says new-task left out", () => {
  it("names the flaky tests apart from the broken ones, and says nothing when nothing was left out", () => {
    const timing =
      "existing:tests.test_dos_prevention.TestDoSPrevention::test_nested_case_within_cap_under_1s";
    const paren =
      "existing:tests.test_dos_prevention.TestDoSPrevention::test_nested_paren_within_cap_under_1s";
    expect(leftWords({ broken: [], flaky: [], earlier: [], rewritten: [], hidden: [] })).toBe("");
    expect(
      leftWords({ broken: ["existing:a::b"], flaky: [timing], earlier: [paren], rewritten: [], hidden: [] }),
    ).toBe(
      `; left out: 1 flaky existing test (failed in some validation runs and passed in others: ${timing}); 1 existing test an earlier candidate found flaky or failing at its base (${paren}); 1 existing test failing at the base in every run (existing:a::b)`,
    );
  });
});

describe("the yield", () => {
  const c = (outcome: MinedCommit["outcome"], stage: MinedCommit["stage"], kind = "candidate") =>
    ({
      sha: "a".repeat(40),
      date: "2026-01-01T00:00:00Z",
      subject: "s",
      kind,
      outcome,
      stage,
      reason: "r",
    }) as MinedCommit;
  const commits = [
    c("not-a-fix", "scan", "merge"),
    c("not-a-fix", "scan", "docs-only"),
    c("test-only", "scan", "test-only"),
    c("not-a-task", "plan"),
    c("environment-failed", "image"),
    c("gold-fails", "validate"),
    c("healthy", "kept"),
    c("pending", "scan"),
    c("error", "plan"),
  ];

  it("counts what was kept and where the rest was lost, leaving the undecided (pending, engine or internal errors) apart", () => {
    const y = mineYield(commits);
    expect(y).toEqual({
      lookedAt: 9,
      candidates: 6,
      healthy: 1,
      percent: 11.1,
      undecided: 2,
      lost: {
        scan: { merge: 1, "docs-only": 1, "test-only": 1 },
        plan: { "not-a-task": 1 },
        image: { "environment-failed": 1 },
        validate: { "gold-fails": 1 },
      },
    });
    expect(yieldLine(y)).toBe(
      "1 healthy of 9 commits looked at (11.1%; 6 candidates); lost: not a candidate 3 (docs-only 1, merge 1, test-only 1); no task made 1 (not-a-task 1); image failed 1 (environment-failed 1); not healthy 1 (gold-fails 1); 2 undecided (not made yet, or the engine or new-task failed: run again to go on)",
    );
  });

  it("writes the Markdown report with one row per commit, a subject shown inert", () => {
    const md = mineMarkdown({
      version: 1,
      arguments: { repo: "/r/calc", limit: 200, tests: [] },
      startedAt: "s",
      updatedAt: "u",
      finished: true,
      seconds: 3,
      running: {},
      commits: [{ ...c("healthy", "kept"), subject: "a | b\x1b[31m", task: "calc-aaaaaaa" }],
      yield: mineYield([c("healthy", "kept")]),
    });
    expect(md).toContain("**Yield: 1 healthy of 1 commits looked at (100%)**");
    expect(md).toContain("| aaaaaaaaaaaa | 2026-01-01 | a \\| b");
    expect(md).not.toContain("\x1b");
    expect(md).toContain("| tasks/calc-aaaaaaa |");
  });

  it("keeps a run's folder for the same arguments, another for others", () => {
    const args = { repo: "/r/calc.git", limit: 200, tests: [] };
    expect(mineDir("/o", args)).toMatch(/^\/o\/mine\/calc-[0-9a-f]{10}$/);
    expect(mineDir("/o", { ...args })).toBe(mineDir("/o", args));
    expect(mineDir("/o", { ...args, limit: 100 })).not.toBe(mineDir("/o", args));
    expect(mineDir("/o", { ...args, since: "2026-01-01" })).not.toBe(mineDir("/o", args));
  });
});

describe("a candidate lost on tests a later candidate found flaky (issue 31)", () => {
  const timing = "existing:tests.test_dos_prevention.TestDoSPrevention::test_nested_case_within_cap_under_1s";
  const paren = "existing:tests.test_dos_prevention.TestDoSPrevention::test_nested_paren_within_cap_under_1s";
  const lost = (sha: string, outcome: MinedCommit["outcome"], failing?: string[], retried?: boolean) =>
    ({
      sha: sha.repeat(40),
      date: "2026-01-01T00:00:00Z",
      subject: "s",
      kind: "candidate",
      outcome,
      stage: "validate",
      reason: "r",
      ...(failing ? { failing } : {}),
      ...(retried ? { retried } : {}),
    }) as MinedCommit;

  it("sqlparse a194d31 (s26): retried once when every test that lost it is left out now, never otherwise", () => {
    const a194 = lost("a", "gold-fails", [timing]);
    const commits = [
      a194,
      lost("b", "environment-failed", [timing, "existing:tests.test_x::test_y"]),
      lost("c", "gold-fails"),
      lost("d", "flaky", [paren], true),
      lost("e", "infra-error", [timing]),
      { ...lost("f", "healthy", [timing]), stage: "kept" as const },
    ];
    expect(toRetry(commits, [])).toEqual([]);
    expect(toRetry(commits, [timing, paren])).toEqual([a194]);
    expect(retriedReason([timing], "gold-fails", "healthy (4 runs)")).toBe(
      `retried with 1 flaky test left out (${timing}; a later candidate found it flaky or failing at its base), first lost as gold-fails: healthy (4 runs)`,
    );
  });

  it("records the failing tests only when the hidden suite behaved and no other flag lost it", () => {
    const run = (mode: string, hidden: string | null) =>
      ({ mode, hidden: hidden === null ? null : { status: hidden } }) as never;
    const task = (flags: string[], runs: never[]) => ({
      status: "quarantined" as const,
      reasons: flags.map((flag) => ({ flag, message: "", evidence: [] })) as never,
      runs,
    });
    const good = [run("baseline", "FAIL"), run("baseline", "FAIL"), run("gold", "PASS"), run("gold", "PASS")];
    expect(lostOnExisting(task(["GOLD_FAILS"], good))).toBe(true);
    expect(lostOnExisting(task(["GOLD_FAILS", "FLAKY", "EXISTING_SUITE_FAILS"], good))).toBe(true);
    expect(lostOnExisting(task(["GOLD_FAILS", "HIDDEN_PASS_AT_BASELINE"], good))).toBe(false);
    expect(lostOnExisting(task(["TIMEOUT"], good))).toBe(false);
    expect(lostOnExisting(task(["GOLD_FAILS"], [...good.slice(0, 3), run("gold", "FAIL")]))).toBe(false);
    expect(lostOnExisting(task(["FLAKY"], [run("baseline", "PASS"), ...good.slice(1)]))).toBe(false);
    expect(lostOnExisting(task(["GOLD_FAILS"], [...good, run("gold", null)]))).toBe(false);
  });
});
