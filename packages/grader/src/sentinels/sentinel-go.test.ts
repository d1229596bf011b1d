import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findRunner, gotestsumArgs } from "./runner-command.js";
import { goAssertStyle, goSentinel, goTestArgs, planGo } from "./sentinel-go.js";
import { checkSentinel, planSentinels, sentinelRunner } from "./sentinels.js";

const GO = `package conformance_test

import (
\t"testing"

\t"example.com/semver"
)

func TestSpecOrder(t *testing.T) {
\tif !semver.Less(semver.MustParse("1.0.0-2"), semver.MustParse("1.0.0-10")) {
\t\tt.Errorf("want less")
\t}
}

func TestNumeric(t *testing.T) {
\tt.Fatalf("x")
}
`;
const TESTIFY = `package semver

import (
\t"testing"

\tr "github.com/stretchr/testify/require"
)

func TestParse(tt *testing.T) { r.Equal(tt, 1, 1) }
`;

const plan = (command: string, files: Record<string, string>) =>
  planSentinels(
    sentinelRunner({ suites: { hidden: { command } } }),
    Object.entries(files).map(([path, text]) => ({ path, text })),
  );

describe("findRunner: go", () => {
  it("reads go test and gotestsum's go test arguments", () => {
    expect(findRunner("go test -count=1 ./...")).toMatchObject({
      framework: "go",
      args: ["-count=1", "./..."],
      cwd: "",
    });
    expect(
      findRunner('gotestsum --format standard-verbose --junitfile "$J" -- -count=1 ./conformance')?.args,
    ).toEqual(["-count=1", "./conformance"]);
    expect(gotestsumArgs(["--junitfile", "x"])).toEqual(["./..."]);
    expect(gotestsumArgs(["--packages", "./a ./b", "--", "-run", "X"])).toEqual(["-run", "X", "./a", "./b"]);
    expect(gotestsumArgs(["--raw-command", "--", "go", "test", "-json", "."])).toEqual(["-json", "."]);
    expect(gotestsumArgs(["--raw-command", "--", "./run.sh"])).toBeNull();
    expect(findRunner("go vet ./...")).toBeNull();
  });

  it("parses -run, -failfast and -args", () => {
    expect(goTestArgs(["-run", "TestA", "-v", "./x"])).toMatchObject({ packages: ["./x"], run: "TestA" });
    expect(goTestArgs(["-run=TestA", "."]).run).toBe("TestA");
    expect(goTestArgs(["-failfast", "."]).failfast).toBe(true);
    expect(goTestArgs([".", "-args", "-test.run=TestB"]).run).toBe("TestB");
  });
});

describe("planGo", () => {
  it("appends one pair per selected package, in the file's package and style, named like its tests", () => {
    const s = plan("go test -count=1 ./conformance", {
      "conformance/a_test.go": GO,
      "conformance/b_test.go": GO,
      "other/c_test.go": GO,
    })!;
    expect(s.framework).toBe("go");
    expect(s.appends.map((a) => a.path)).toEqual(["conformance/b_test.go"]);
    expect(s.required).toEqual(["conformance/b_test.go"]);
    const [a] = s.appends;
    expect(a!.tests.map((t) => t.role).sort()).toEqual(["fail", "pass"]);
    for (const t of a!.tests) expect(t.names[0]).toMatch(/^Test(SpecOrder|Numeric)\d+$/);
    expect(a!.text).toMatch(
      /func Test\w+\(t \*testing\.T\) \{\n\ttotal := \d+ \+ \d+\n\tif total != \d+ \{\n\t\tt\.(Errorf|Fatalf)\(/,
    );
  });

  it("goes into the file that runs last in its test binary: the package's own test files, then its external ones, each by name", () => {
    const internal = GO.replace("package conformance_test", "package conformance");
    const order = (files: Record<string, string>) => plan("go test ./conformance", files)!.appends[0]!.path;
    // The external package's tests run after the package's own, whatever the names.
    expect(order({ "conformance/a_test.go": GO, "conformance/z_test.go": internal })).toBe(
      "conformance/a_test.go",
    );
    expect(order({ "conformance/a_test.go": internal, "conformance/m_test.go": internal })).toBe(
      "conformance/m_test.go",
    );
    // Go sorts file names byte by byte: "Z" before "a".
    expect(order({ "conformance/Z_test.go": GO, "conformance/a_test.go": GO })).toBe("conformance/a_test.go");
    // A file of TestMain alone has no test to name the pair after: the next one back takes it.
    const main =
      'package conformance_test\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(m.Run()) }\n';
    expect(order({ "conformance/a_test.go": GO, "conformance/z_test.go": main })).toBe(
      "conformance/a_test.go",
    );
    // Nor does a file of tests `-run` leaves out: the pair goes where the selected ones are.
    const other = GO.replaceAll("TestSpecOrder", "TestOther").replaceAll("TestNumeric", "TestElse");
    const selected = plan("go test -run 'Test(Spec|Numeric)/' ./conformance", {
      "conformance/a_test.go": GO,
      "conformance/z_test.go": other,
    })!;
    expect(selected.appends.map((a) => a.path)).toEqual(["conformance/a_test.go"]);
    expect(selected.required).toEqual(["conformance/a_test.go"]);
    // A file with a build constraint Linux provably meets is compiled: it can be the target; one
    // the oracle cannot prove (an architecture, a custom tag) or that Linux fails never is.
    const built = (line: string) => `//go:build ${line}\n\n${GO}`;
    expect(order({ "conformance/a_test.go": GO, "conformance/b_test.go": built("!windows") })).toBe(
      "conformance/b_test.go",
    );
    for (const line of ["amd64", "integration", "windows", "linux && cgo"])
      expect(order({ "conformance/a_test.go": GO, "conformance/b_test.go": built(line) })).toBe(
        "conformance/a_test.go",
      );
  });

  it("./... selects every package but testdata, _x and .x; . the top one", () => {
    const files = { "a_test.go": GO, "x/y/b_test.go": GO, "testdata/c_test.go": GO, "_d/e_test.go": GO };
    expect(
      plan("go test ./...", files)!
        .appends.map((a) => a.path)
        .sort(),
    ).toEqual(["a_test.go", "x/y/b_test.go"]);
    expect(plan("cd x && go test ./...", files)!.appends.map((a) => a.path)).toEqual(["x/y/b_test.go"]);
    expect(plan("go test", files)!.appends.map((a) => a.path)).toEqual(["a_test.go"]);
  });

  it("names match -run; -run anchored to exact names: widened to the pair, the command rewritten; -failfast: unprotected", () => {
    const s = plan("go test -run 'TestSpec' ./conformance", { "conformance/a_test.go": GO })!;
    for (const t of s.appends[0]!.tests) expect(t.names[0]).toMatch(/^TestSpecOrder\d+$/);
    expect(s.required).toHaveLength(1);
    expect(s.command).toBeUndefined();
    const exact = plan("go test -run '^(TestSpecOrder|TestNumeric)$' ./conformance", {
      "conformance/a_test.go": GO,
    })!;
    const names = exact.appends[0]!.tests.map((t) => t.names[0]!);
    expect(names).toHaveLength(2);
    expect(exact.required).toEqual(["conformance/a_test.go"]);
    expect(exact.command).toBe(
      `go test -run '^(TestSpecOrder|TestNumeric)$|^(${names.join("|")})$' ./conformance`,
    );
    // The rewritten command selects the pair and what the task selected, nothing else.
    const run = new RegExp(goTestArgs(findRunner(exact.command!)!.args).run!);
    for (const name of [...names, "TestSpecOrder", "TestNumeric"]) expect(name).toMatch(run);
    for (const name of ["TestSpecOrder1", "TestSpecOrder100", "TestNumericX", "TestOther"])
      expect(name).not.toMatch(run);
    const inline = plan("go test -run '(?i)testspec' ./conformance", { "conformance/a_test.go": GO })!;
    expect(inline.required).toEqual([]);
    expect(inline.note).toMatch(/not a pattern the oracle can read/);
    expect(plan("go test -failfast ./conformance", { "conformance/a_test.go": GO })).toBeNull();
    expect(planGo(goTestArgs(["-failfast", "."]), "", new Map([["a_test.go", GO]])).unprotected).toMatch(
      /failfast/,
    );
  });

  it("widens -run only where it can: -run=X, gotestsum, -args -test.run; not two -run flags, subtest levels or an unread pattern", () => {
    const files = { "conformance/a_test.go": GO };
    const anchored = "^(TestSpecOrder|TestNumeric)$";
    const joined = plan(`go test -run='${anchored}' ./conformance`, files)!;
    expect(joined.command).toMatch(
      /^go test '-run=\^\(TestSpecOrder\|TestNumeric\)\$\|\^\(Test\w+\d+\|Test\w+\d+\)\$' \.\/conformance$/,
    );
    const gotestsum = plan(
      `gotestsum --junitfile "$ORACLE_JUNIT" -- -count=1 -run "${anchored}" ./conformance`,
      files,
    )!;
    expect(gotestsum.command).toMatch(
      /^gotestsum --junitfile "\$ORACLE_JUNIT" -- -count=1 -run '\^\(TestSpecOrder\|TestNumeric\)\$\|\^\(Test\w+\d+\|Test\w+\d+\)\$' \.\/conformance$/,
    );
    expect(gotestsum.required).toEqual(["conformance/a_test.go"]);
    const args = plan(`cd conformance && go test . -args -test.run='${anchored}'`, files)!;
    expect(args.command).toMatch(/-args '-test\.run=\^\(TestSpecOrder\|TestNumeric\)\$\|\^\(/);
    // Two -run flags (the last wins): not rewritten, planned as written (no name matches: no pair).
    expect(plan(`go test -run X -run '${anchored}' ./conformance`, files)).toBeNull();
    // Subtest levels: not widened.
    expect(plan(`go test -run '${anchored}/sub' ./conformance`, files)).toBeNull();
  });

  it("uses testify's require/assert with the file's import name; never reuses a name of the package", () => {
    expect(goAssertStyle(TESTIFY, "tt")("total", 5)).toEqual(["r.Equal(tt, 5, total)"]);
    expect(goAssertStyle(GO, "t")("total", 5).join("\n")).toMatch(/t\.Errorf/);
    const taken = Array.from({ length: 98 }, (_, i) => `func TestParse${i + 2}(t *testing.T) {}`).join("\n");
    const p = planGo(
      goTestArgs(["."]),
      "",
      new Map([["p_test.go", TESTIFY]]),
      new Map([["q_test.go", taken]]),
    );
    expect(p.appends).toEqual([]);
    expect(p.gaps).toMatch(/selects no test/);
  });

  it("names the pair's parameter like the file's tests, never the blank _ (golang-lru d46c1d9: _.Fatalf does not compile)", () => {
    const blankFirst = `package lru

import "testing"

func TestInterface(_ *testing.T) {}

func TestAdd(c *testing.T) {
\tc.Fatalf("x")
}
`;
    const pair = goSentinel("lru_test.go", blankFirst, blankFirst, null);
    // Each of the two is named like either test (a random draw): both take the parameter `c`.
    expect(pair?.text.match(/func Test(?:Add|Interface)\d+\(c \*testing\.T\)/g)).toHaveLength(2);
    expect(pair?.text).not.toMatch(/\b_\s*\*testing|\b_\./);
    const onlyBlank = 'package lru\n\nimport "testing"\n\nfunc TestInterface(_ *testing.T) {}\n';
    const alone = goSentinel("lru_test.go", onlyBlank, onlyBlank, null);
    expect(alone?.text).toMatch(/func TestInterface\d+\(t \*testing\.T\)/);
    expect(alone?.text).toMatch(/\tt\.Errorf\(/);
  });

  it("the pair's local is a name the file never spells: a test whose *testing.T is `total` builds (go test)", () => {
    // `total := a + b` in `func TestX(total *testing.T)` is "no new variables on left side of :=",
    // and the package failed to build in every run, gold's too (sealpy3, as the Python pair's f59926a).
    const text = `package sum

import "testing"

func Sum(a, b int) int { return a + b }

func TestSum(total *testing.T) {
\tif Sum(2, 3) != 5 {
\t\ttotal.Fatalf("total")
\t}
}
`;
    const pair = goSentinel("sum_test.go", text, text, null)!;
    const dir = mkdtempSync(join(tmpdir(), "go-pair-"));
    try {
      writeFileSync(join(dir, "go.mod"), "module example.com/sum\n\ngo 1.19\n");
      writeFileSync(join(dir, "sum_test.go"), text + pair.text);
      const run = spawnSync("go", ["test", "-v", "-count=1", "."], {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off" },
      });
      for (const t of pair.tests)
        expect(run.stdout + run.stderr, `${t.role}`).toContain(
          `--- ${t.role === "pass" ? "PASS" : "FAIL"}: ${t.names[0]} `,
        );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const testify = TESTIFY.replace(/\br\b/g, "total");
    expect(goSentinel("p_test.go", testify, testify, null)!.text).not.toMatch(/\btotal :=/);
  });

  it("skips files with build constraints", () => {
    const p = planGo(
      goTestArgs(["."]),
      "",
      new Map([
        ["a_windows_test.go", GO],
        ["b_test.go", `//go:build x\n\n${GO}`],
      ]),
    );
    expect(p.appends).toEqual([]);
    expect(p.gaps).toMatch(/build constraint/);
  });

  it("a package without a pair leaves the others' pairs required; a doubt about the call leaves none required", () => {
    const files = { "a/a_test.go": GO, "b/b_test.go": `//go:build x\n\n${GO}` };
    const s = plan("go test ./a ./b", files)!;
    expect(s.required).toEqual(["a/a_test.go"]);
    expect(s.note).toMatch(/every hidden test file in b has a build constraint/);
    const doubt = plan("go test ./a ./b x_test.go", files)!;
    expect(doubt.required).toEqual([]);
    expect(doubt.note).toMatch(/names \.go files/);
  });
});

describe("checkSentinel: go forgery", () => {
  it("a forged report that passes every test (the must-fail too) is a contradiction", () => {
    const s = plan("go test ./conformance", { "conformance/a_test.go": GO })!;
    const names = s.appends[0]!.tests.map((t) => t.names[0]!);
    const forged = ["TestSpecOrder", ...names].map((n) => ({
      id: `hidden:example.com/semver/conformance::${n}`,
      outcome: "passed" as const,
    }));
    expect(checkSentinel(s, forged, 0).problem).toMatch(/must fail is passed/);
    const omitted = forged.slice(0, 1);
    expect(checkSentinel(s, omitted, 0).problem).toMatch(/missing from the report/);
  });
});
