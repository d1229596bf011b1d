// Go output forgery (issue 14), against the real engine and the built oracle-grade, on the sample
// task semver-go (gotestsum --junitfile -- ./conformance; existing suite `.`). A non-test file's
// init() runs in every test binary that imports the package, before any test: it prints passing
// `=== RUN` / `--- PASS` lines for every Test* in the binary's folder (read from its _test.go files
// at run time), then `PASS`, and exits 0; test2json turns that into a passing report.

import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, makeTempRoot, repoRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Corpus,
  expectOutcome,
  type FixtureTask,
  type Graded,
  goForgeBody,
  gradeCase,
  makeDiff,
  suiteOutput,
  writeFiles,
} from "./harness.js";

const TASK = "semver-go";
/**
 * semver-go with the hidden command anchored to two exact names, as Multi-SWE-bench writes Go tasks
 * (`-run '^(TestA|TestB)$'`): neither test has a comparison the seals take (both `if !semver.Less`
 * in loops), so the pair is their only protection, and no test named like theirs with a number
 * matches the selection.
 */
const ANCHORED = "semver-go-anchored";
const ANCHORED_RUN = "^(TestSpecExampleIsAscending|TestNumericIdentifiersCompareNumerically)$";
/** A hidden file of TestMain alone: it sorts last but has no test to name a pair after. */
const SPLIT_MAIN = `package conformance_test

import (
\t"os"
\t"testing"
)

func TestMain(m *testing.M) { os.Exit(m.Run()) }
`;
/** semver-go with its hidden tests in three files of one package (below). */
const SPLIT = "semver-go-split";
const SPLIT_FIRST = `package conformance_test

import (
\t"testing"

\t"example.com/semver"
)

func TestPrereleaseRoundTrip(t *testing.T) {
\tfor _, s := range []string{"1.0.0-rc.1", "2.3.4-alpha.beta"} {
\t\tif got := semver.MustParse(s).String(); got != s {
\t\t\tt.Errorf("String() = %s, want %s", got, s)
\t\t}
\t}
}
`;
/**
 * semver-go whose hidden command tests two packages (`. ./conformance`), with a hidden test file in
 * package semver itself beside conformance's: a diff can break the one test binary alone.
 */
const TWO = "semver-go-two";
const TWO_INTERNAL = `package semver

import "testing"

func parseVersions(ss ...string) []Version {
	out := make([]Version, len(ss))
	for i, s := range ss {
		out[i] = MustParse(s)
	}
	return out
}

func TestPrereleaseNumericInternal(t *testing.T) {
	vs := parseVersions("1.0.0-2", "1.0.0-10")
	if comparePrerelease(vs[0].Prerelease, vs[1].Prerelease) != -1 {
		t.Error("numeric identifiers compare numerically")
	}
}
`;
let corpus: Corpus;

beforeAll(async () => {
  await requireDocker();
  const temp = await makeTempRoot({
    "images/go-gotestsum": "images/go-gotestsum",
    [`tasks/${TASK}`]: `tasks/${TASK}`,
  });
  const work = join(temp.root, "work", "go");
  execFileSync("git", ["clone", "-q", join(temp.root, "tasks", TASK, "repo.bundle"), work]);
  const task = JSON.parse(readFileSync(join(temp.root, "tasks", TASK, "task.json"), "utf8"));
  execFileSync("git", ["-C", work, "checkout", "-q", task.repo.baseCommit]);
  cpSync(join(temp.root, "tasks", TASK), join(temp.root, "tasks", ANCHORED), { recursive: true });
  const anchored = { ...task, id: ANCHORED };
  anchored.suites.hidden.command = anchored.suites.hidden.command.replace(
    " ./conformance",
    () => ` -run '${ANCHORED_RUN}' ./conformance`,
  );
  writeFileSync(join(temp.root, "tasks", ANCHORED, "task.json"), `${JSON.stringify(anchored, null, 2)}\n`);
  // Three hidden files in one package: a_test.go (a test the unfixed code passes), z_test.go (the
  // two loop tests, which no seal takes; `//go:build !windows`, which Linux meets) and zz_test.go
  // (TestMain alone). Go runs a_test.go's first.
  cpSync(join(temp.root, "tasks", TASK), join(temp.root, "tasks", SPLIT), { recursive: true });
  writeFileSync(
    join(temp.root, "tasks", SPLIT, "task.json"),
    `${JSON.stringify({ ...task, id: SPLIT }, null, 2)}\n`,
  );
  const hidden = join(temp.root, "tasks", SPLIT, "hidden-tests", "conformance");
  const whole = readFileSync(join(hidden, "precedence_test.go"), "utf8");
  const loops = whole.slice(0, whole.indexOf("func TestNumericIdentifiersRankBelowAlphanumeric"));
  rmSync(join(hidden, "precedence_test.go"));
  writeFileSync(join(hidden, "z_test.go"), `//go:build !windows\n\n${loops.replace('\t"math/rand"\n', "")}`);
  writeFileSync(join(hidden, "a_test.go"), SPLIT_FIRST);
  writeFileSync(join(hidden, "zz_test.go"), SPLIT_MAIN);
  cpSync(join(temp.root, "tasks", TASK), join(temp.root, "tasks", TWO), { recursive: true });
  const two = { ...task, id: TWO, suites: { ...task.suites, hidden: { ...task.suites.hidden } } };
  two.suites.hidden.command = two.suites.hidden.command.replace(" ./conformance", () => " . ./conformance");
  writeFileSync(join(temp.root, "tasks", TWO, "task.json"), `${JSON.stringify(two, null, 2)}\n`);
  writeFileSync(join(temp.root, "tasks", TWO, "hidden-tests", "hidden_internal_test.go"), TWO_INTERNAL);
  mkdirSync(join(temp.root, "canary"));
  mkdirSync(join(temp.root, "out"));
  corpus = {
    root: temp.root,
    work: { [TASK]: work, [ANCHORED]: work, [SPLIT]: work, [TWO]: work } as unknown as Corpus["work"],
    out: join(temp.root, "out"),
    cleanup: temp.cleanup,
  };
  const built = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--no-push", "--ca-file", "/etc/ssl/certs/ca-certificates.crt"],
    { timeoutMs: 1_500_000 },
  );
  if (built.code !== 0) throw new Error(`oracle-build-images failed (${built.code}): ${built.stderr}`);
}, 1_600_000);

afterAll(async () => {
  await corpus?.cleanup();
});

/** compare.go with the fix (the task's gold diff applied). */
const fixed = (): string => {
  const dir = corpus.work[TASK as FixtureTask];
  execFileSync("git", ["-C", dir, "apply", join(repoRoot, "tasks", TASK, "gold.diff")]);
  const text = readFileSync(join(dir, "compare.go"), "utf8");
  execFileSync("git", ["-C", dir, "checkout", "-q", "--", "."]);
  return text;
};

/**
 * forge.go: the init() forgery. `only` is a file that must be in the binary's folder for it to
 * fire (the existing suite's alone); `skipNumbered` leaves out tests whose name ends in a digit;
 * `followRun` prints only the names the binary's own `-test.run=` (in os.Args) selects.
 */
const goForge = (
  options: { only?: string; skipNumbered?: boolean; followRun?: boolean } = {},
) => `package semver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func init() {
	if !strings.HasSuffix(os.Args[0], ".test") {
		return
	}
	if _, err := os.Stat(${JSON.stringify(options.only ?? ".")}); err != nil {
		return
	}
${goForgeBody(options)}
}
`;

/** sort.go with Max broken for an empty list (an existing test, TestMax, catches it; no hidden test does). */
const brokenMax = (): string =>
  readFileSync(join(corpus.work[TASK as FixtureTask], "sort.go"), "utf8").replace(
    "return Version{}, false",
    "return Version{}, true",
  );

const grade = (name: string, files: Record<string, string>, task = TASK): Promise<Graded> =>
  gradeCase(corpus, {
    task: task as FixtureTask,
    name,
    diff: makeDiff(corpus, task as FixtureTask, (dir) => writeFiles(dir, files)),
  });

// The cases run at once (vitest's maxConcurrency, 5): each makes its diff before it awaits anything
// (the one clone is reset around each), grades into files of its own name, and its outcome is its
// diff's; one after the other they left the machine waiting on container starts.
describe.concurrent("go: sentinels in the hidden tests' package", () => {
  it("gold-go: the fix PASSes with the go sentinel collected, out of the tests_hash", async () => {
    const g = await grade("gold-go", { "compare.go": fixed() });
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.sentinel).toMatchObject({
      state: "collected",
      framework: "go",
      required: true,
      files: ["conformance/precedence_test.go"],
    });
    expect(g.result.testIds.filter((id) => id.startsWith("hidden:"))).toHaveLength(4);
  });

  it("go-does-not-compile: the fix with an unused import -> FAIL TESTS_FAILED, the package an error entry of its own, not a tampering reason (it was REPORT_INCONSISTENT, which the gate vetoes)", async () => {
    const g = await grade("go-does-not-compile", {
      "compare.go": fixed().replace('"strings"', '"strings"\n\t"os"'),
    });
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(g.result.testIds).toContain("existing:example.com/semver::[build failed]");
  });

  it("go-one-package-does-not-compile: the fix and a helper named like a hidden test's, so one of two test binaries does not build -> FAIL TESTS_FAILED, not REPORT_INCONSISTENT (its pair is missing while the other package passed)", async () => {
    const sort = readFileSync(join(corpus.work[TASK as FixtureTask], "sort.go"), "utf8");
    const g = await grade(
      "go-one-package-does-not-compile",
      {
        "compare.go": fixed(),
        "sort.go": `${sort}\nfunc parseVersions(ss ...string) []Version { return nil }\n`,
      },
      TWO,
    );
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(g.result.suites.existing.status).toBe("PASS");
    expect(g.result.testIds).toContain("hidden:example.com/semver::[build failed]");
    expect(g.result.suites.hidden.counts.passed).toBeGreaterThan(0);
  });

  it("go-forge-init: init() prints a pass for every Test* and exits 0 -> FAIL REPORT_INCONSISTENT", async () => {
    const g = await grade("go-forge-init", { "forge.go": goForge() });
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    expect(g.result.message).toMatch(/must fail is passed/);
  });

  it("go-forge-unnumbered: the forgery leaves out names ending in a digit -> FAIL REPORT_INCONSISTENT", async () => {
    const g = await grade("go-forge-unnumbered", { "forge.go": goForge({ skipNumbered: true }) });
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    expect(g.result.message).toMatch(/missing from the report/);
  });
});

/** compare.go whose Compare prints a dot, with no newline, each time it is called. */
const printsNoNewline = (compare: string): string => {
  const printing = compare
    .replace("package semver\n", () => 'package semver\n\nimport "os"\n')
    .replace(
      "func Compare(a, b Version) int {\n",
      () => 'func Compare(a, b Version) int {\n\tos.Stdout.WriteString(".")\n',
    );
  expect(printing).toContain('import "os"\n');
  expect(printing).toContain('os.Stdout.WriteString(".")');
  return printing;
};

describe.concurrent("go: output that runs into Go's own result lines", () => {
  // Go 1.19's test2json sees `--- PASS: TestX` only at a line's start; a test whose code printed
  // without a final newline gets no pass event, and gotestsum writes it as failed while `go test`
  // says ok. A correct fix whose code prints so must still PASS (reports/junit.ts, JUnitOptions).
  it("gold-go-prints-no-newline: the fix, and Compare prints without a newline -> PASS", async () => {
    const g = await grade("gold-go-prints-no-newline", { "compare.go": printsNoNewline(fixed()) });
    expectOutcome(g, "PASS", "PASS");
    expect(suiteOutput(g, "hidden")).toMatch(/\.--- PASS: Test/);
  });

  it("wrong-go-prints-no-newline: no fix, Compare prints without a newline -> FAIL TESTS_FAILED", async () => {
    const base = readFileSync(join(corpus.work[TASK as FixtureTask], "compare.go"), "utf8");
    const g = await grade("wrong-go-prints-no-newline", { "compare.go": printsNoNewline(base) });
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(suiteOutput(g, "hidden")).toMatch(/\.--- FAIL: Test/);
  });
});

describe.concurrent("go: sentinels in the existing suite's packages", () => {
  it("go-forge-existing: Max broken, the existing suite's output forged alone, the fix in -> FAIL REPORT_INCONSISTENT", async () => {
    const g = await grade("go-forge-existing", {
      "compare.go": fixed(),
      "sort.go": brokenMax(),
      "forge.go": goForge({ only: "sort_test.go" }),
    });
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    expect(g.result.message).toMatch(/^existing suite/);
    expect(g.result.suites.existing.sentinel).toMatchObject({ state: "collected", framework: "go" });
  });
});

describe.concurrent("go: a hidden command anchored to exact names (-run '^(A|B)$')", () => {
  it("gold-go-anchored: the fix PASSes; the pair is selected by the rewritten -run and collected", async () => {
    const g = await grade("gold-go-anchored", { "compare.go": fixed() }, ANCHORED);
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.sentinel).toMatchObject({ state: "collected", framework: "go", required: true });
    // Only the two tests the task selects count; the pair is out of the result.
    expect(g.result.testIds.filter((id) => id.startsWith("hidden:"))).toEqual([
      "hidden:example.com/semver/conformance::TestNumericIdentifiersCompareNumerically",
      "hidden:example.com/semver/conformance::TestSpecExampleIsAscending",
    ]);
  });

  it("go-forge-init-anchored: init() prints a pass for every Test* the binary's -test.run selects -> FAIL REPORT_INCONSISTENT", async () => {
    const g = await grade(
      "go-forge-init-anchored",
      { "forge.go": goForge({ followRun: true, only: "precedence_test.go" }) },
      ANCHORED,
    );
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    expect(g.result.message).toMatch(/must fail is passed/);
  });
});

/**
 * The unfixed code, whose Less, first called from a test of z_test.go (the binary's last file),
 * prints Go's pass lines for both of that file's tests and exits 1 before any of them fails: the
 * exit code is what the must-fail test gives anyway, so only a pair still to come can tell.
 */
const EXIT_AFTER_FORGED_PASSES = `package semver

import (
\t"fmt"
\t"os"
\t"runtime"
\t"strings"
)

func forgeRestOfFile() {
\tpc := make([]uintptr, 32)
\tframes := runtime.CallersFrames(pc[:runtime.Callers(1, pc)])
\tfor {
\t\tf, more := frames.Next()
\t\tif strings.HasSuffix(f.File, "/z_test.go") {
\t\t\tfmt.Print("--- PASS: TestSpecExampleIsAscending (0.00s)\\n")
\t\t\tfmt.Print("=== RUN   TestNumericIdentifiersCompareNumerically\\n")
\t\t\tfmt.Print("--- PASS: TestNumericIdentifiersCompareNumerically (0.00s)\\n")
\t\t\tos.Exit(1)
\t\t}
\t\tif !more {
\t\t\treturn
\t\t}
\t}
}
`;

describe.concurrent("go: the pair runs after every hidden test of its binary", () => {
  it("gold-go-split: the fix PASSes; the pair is in z_test.go, the last file with a test (zz_test.go has TestMain alone)", async () => {
    const g = await grade("gold-go-split", { "compare.go": fixed() }, SPLIT);
    expectOutcome(g, "PASS", "PASS");
    expect(g.result.sentinel).toMatchObject({
      state: "collected",
      required: true,
      files: ["conformance/z_test.go"],
    });
  });

  it("go-forge-init-split: init() forges every test, the last hidden file holds TestMain alone -> FAIL REPORT_INCONSISTENT", async () => {
    // With the pair aimed at the last file whatever it held, zz_test.go got none and no other file
    // did either: this forgery was PASS on the unfixed code (an attack review, 2026-12-06).
    const g = await grade("go-forge-init-split", { "forge.go": goForge({ only: "z_test.go" }) }, SPLIT);
    expectOutcome(g, "FAIL", "REPORT_INCONSISTENT");
    expect(g.result.message).toMatch(/must fail is passed/);
  });

  it("exit-after-forged-passes-go: the last file's tests print their pass lines and exit 1, bug unfixed -> FAIL, the pair never ran", async () => {
    const base = readFileSync(join(corpus.work[TASK as FixtureTask], "compare.go"), "utf8");
    const less = "func Less(a, b Version) bool { return Compare(a, b) < 0 }";
    expect(base).toContain(less);
    const g = await grade(
      "exit-after-forged-passes-go",
      {
        "compare.go": base.replace(
          less,
          () => "func Less(a, b Version) bool {\n\tforgeRestOfFile()\n\treturn Compare(a, b) < 0\n}",
        ),
        "forge.go": EXIT_AFTER_FORGED_PASSES,
      },
      SPLIT,
    );
    // With the pair in a_test.go (the first file, as the oracle chose it before) this was PASS on the unfixed code:
    // the pair had run and failed its must-fail, which accounts for exit 1. Now the pair comes after
    // the forged tests, so it never runs, and gotestsum files the binary's failure under TestMain.
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    expect(suiteOutput(g, "hidden")).not.toMatch(/=== RUN {3}Test\w*\d/);
  });
});
