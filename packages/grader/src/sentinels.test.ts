import type { TestCase } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { prepScript } from "./scripts.js";
import { checkSentinel, planSentinel, sentinelFramework } from "./sentinels.js";
import { judgeSuite } from "./suite-result.js";

const NONCE = "s0123456789ab";

describe("sentinelFramework", () => {
  it("takes the task's runner, detects pytest from hidden file names, and is off for others", () => {
    expect(sentinelFramework({ framework: "mocha" }, [])).toBe("mocha");
    expect(sentinelFramework({ framework: undefined }, ["tests/regression/test_x.py"])).toBe("pytest");
    expect(sentinelFramework({ framework: undefined }, ["checks/x.test.js"])).toBeNull();
    expect(sentinelFramework({ framework: "other" }, ["tests/test_x.py"])).toBeNull();
    expect(sentinelFramework({ framework: "go" }, ["x_test.go"])).toBeNull();
  });
});

describe("planSentinel", () => {
  it("pytest: beside the first hidden test file, named like it", () => {
    const plan = planSentinel("pytest", ["tests/regression/test_b.py", "tests/regression/test_a.py"], NONCE);
    expect(plan?.path).toBe(`tests/regression/test_${NONCE}.py`);
    expect(plan?.content).toContain(`def test_${NONCE}_must_fail():`);
    expect(planSentinel("pytest", ["checks/a_test.py"], NONCE)?.path).toBe(`checks/${NONCE}_test.py`);
    expect(planSentinel("pytest", ["data/input.json"], NONCE)).toBeNull();
  });

  it("node runners: the hidden file's suffix, vitest imports it", () => {
    const mocha = planSentinel("mocha", ["checks/add.hidden.test.js"], NONCE);
    expect(mocha?.path).toBe(`checks/${NONCE}.hidden.test.js`);
    expect(mocha?.content).toContain(`it("${NONCE} must fail"`);
    expect(mocha?.content).not.toContain("import");
    const vitest = planSentinel("vitest", ["src/x.spec.ts"], NONCE);
    expect(vitest?.path).toBe(`src/${NONCE}.spec.ts`);
    expect(vitest?.content).toMatch(/^import \{ it \} from "vitest";/);
    expect(planSentinel("jest", ["README.md"], NONCE)).toBeNull();
    expect(planSentinel(null, ["checks/a.test.js"], NONCE)).toBeNull();
  });

  it("picks a fresh random nonce per run, never quotes", () => {
    const a = planSentinel("pytest", ["t/test_a.py"]);
    const b = planSentinel("pytest", ["t/test_a.py"]);
    expect(a?.nonce).toMatch(/^s[0-9a-f]{12}$/);
    expect(a?.nonce).not.toBe(b?.nonce);
    expect(a?.content).not.toContain("'");
    expect(planSentinel("mocha", ["t/a.test.js"])?.content).not.toContain("'");
  });
});

describe("checkSentinel", () => {
  const sentinel = planSentinel("pytest", ["checks/test_h.py"], NONCE)!;
  const fail: TestCase = { id: `hidden:checks.test_${NONCE}::test_${NONCE}_must_fail`, outcome: "failed" };
  const pass: TestCase = { id: `hidden:checks.test_${NONCE}::test_${NONCE}_must_pass`, outcome: "passed" };
  const real: TestCase = { id: "hidden:checks.test_h::test_add", outcome: "passed" };

  it("honest report: sentinel tests removed, exit 1 explained by the sentinel", () => {
    expect(checkSentinel(sentinel, [fail, pass, real], 1)).toEqual({
      tests: [real],
      exitCode: 0,
      problem: null,
    });
  });

  it("another exit code stays for the caller to judge", () => {
    expect(checkSentinel(sentinel, [fail, pass, real], 3).exitCode).toBe(3);
  });

  it("forged: the must-fail sentinel passed", () => {
    const verdict = checkSentinel(sentinel, [{ ...fail, outcome: "passed" }, pass, real], 0);
    expect(verdict.problem).toMatch(/must-fail sentinel is passed/);
    expect(verdict.tests).toEqual([real]);
  });

  it("forged: sentinels dropped from the report, or exit 0 despite the failure", () => {
    expect(checkSentinel(sentinel, [real], 0).problem).toMatch(
      /must-fail sentinel is missing.*must-pass sentinel is missing/,
    );
    expect(checkSentinel(sentinel, [fail, pass, real], 0).problem).toMatch(/exited 0/);
  });

  it("the must-pass sentinel failing is inconsistent too (a runner that fails everything)", () => {
    expect(checkSentinel(sentinel, [fail, { ...pass, outcome: "failed" }], 1).problem).toMatch(
      /must-pass sentinel is failed/,
    );
  });
});

describe("a hidden suite judged with its sentinel", () => {
  const sentinel = planSentinel("mocha", ["checks/add.hidden.test.js"], NONCE)!;
  const xml = (mustFail: string, real: string) =>
    `<testsuites><testsuite name="Root Suite">` +
    `<testcase name="${NONCE} must fail" classname="${NONCE} must fail">${mustFail}</testcase>` +
    `<testcase name="${NONCE} must pass" classname="${NONCE} must pass"/>` +
    `<testcase name="adds" classname="adds">${real}</testcase></testsuite></testsuites>`;
  const run = (report: string, exitCode: number) =>
    judgeSuite({
      suite: "hidden",
      exitCode,
      durationMs: 1,
      report: { kind: "ok", xml: report },
      output: { bytes: 0, truncated: false },
      sentinel,
    });

  it("honest pass: PASS without the sentinel's tests", () => {
    const { result } = run(xml('<failure message="x"/>', ""), 1);
    expect(result.status).toBe("PASS");
    expect(result.tests.map((t) => t.id)).toEqual(["hidden:adds::adds"]);
  });

  it("honest failure: TESTS_FAILED", () => {
    expect(run(xml('<failure message="x"/>', '<failure message="y"/>'), 2).result.reason).toBe(
      "TESTS_FAILED",
    );
  });

  it("forged (every test passed, exit 0): REPORT_INCONSISTENT naming the sentinel", () => {
    const { result, message } = run(xml("", ""), 0);
    expect(result.reason).toBe("REPORT_INCONSISTENT");
    expect(message).toMatch(
      new RegExp(`sentinel checks/${NONCE}.hidden.test.js: the must-fail sentinel is passed`),
    );
  });
});

describe("prepScript writes the sentinel after the hidden tests", () => {
  it("with printf, the path octal-safe, % doubled", () => {
    const script = prepScript({
      baseCommit: "a".repeat(40),
      mirror: "/oracle/mirror",
      applyDiff: false,
      reset: [],
      hiddenFiles: ["checks/test_h.py"],
      reportDir: "/oracle/report/hidden",
      list: false,
      sentinel: { path: "checks/test_s1.py", content: "x = 1 % 2\n" },
    });
    const copy = script.indexOf("cp -R");
    const write = script.indexOf("p='checks/test_s1.py'; printf '%s' 'x = 1 %% 2\n' > \"$p\"");
    expect(copy).toBeGreaterThan(0);
    expect(write).toBeGreaterThan(copy);
    expect(() =>
      prepScript({
        baseCommit: "a".repeat(40),
        mirror: "/m",
        applyDiff: false,
        reset: [],
        hiddenFiles: [],
        reportDir: "/r",
        list: false,
        sentinel: { path: "x", content: "'" },
      }),
    ).toThrow(/single quote/);
  });
});
