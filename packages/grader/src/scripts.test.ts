import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assignPath, prepScript, utf8Path } from "./scripts.js";
import { shellQuote, stepScript } from "./step-script.js";

/** Runs the assignment in sh and returns the variable's bytes, hex-encoded. */
const bytesInSh = (path: string) =>
  execFileSync("sh", [
    "-c",
    `${assignPath("p", path)}; printf '%s' "$p" | od -An -tx1 | tr -d ' \\n'`,
  ]).toString();

describe("assignPath", () => {
  it.each([
    ["plain", "src/a-b_c.d/x.py"],
    ["a space", "my file.txt"],
    ["a single quote", "it's.txt"],
    ["shell syntax", "$(touch pwned)`x`;|&.txt"],
    ["a percent sign", "100%.txt"],
    ["a trailing newline", "name\n"],
    ["a leading dash", "-rf"],
    ["non-UTF-8 bytes", "caf\xe9\xff"],
    ["UTF-8", utf8Path("café/ü.py")],
  ])("gives sh the exact bytes of a path with %s", (_name, path) => {
    expect(bytesInSh(path)).toBe(Buffer.from(path, "latin1").toString("hex"));
  });
});

describe("prepScript", () => {
  const plan = {
    baseCommit: "a".repeat(40),
    mirror: "/oracle/mirror",
    applyDiff: true,
    reset: ["tests/t.py"],
    hiddenFiles: ["tests/regression/test_h.py"],
    reportDir: "/oracle/report/hidden",
  };

  it("is valid sh", () => {
    execFileSync("sh", ["-n", "-c", prepScript(plan)]);
  });

  it("checks before it applies, never with fuzz, --reject or --unsafe-paths", () => {
    const script = prepScript(plan);
    expect(script.indexOf("git apply --check")).toBeLessThan(script.indexOf("git apply /oracle"));
    expect(script).not.toMatch(/--reject|--unsafe-paths|-C\d|patch -/);
  });

  it("resets, then copies the hidden tests only for the hidden suite", () => {
    expect(prepScript(plan)).toContain("cp -R /oracle/hidden/. /work/repo/");
    expect(prepScript({ ...plan, hiddenFiles: null })).not.toContain("/oracle/hidden");
    expect(prepScript({ ...plan, applyDiff: false })).not.toContain("git apply");
  });
});

describe("stepScript", () => {
  const prep = prepScript({
    baseCommit: "a".repeat(40),
    mirror: "/oracle/mirror",
    applyDiff: true,
    reset: [],
    hiddenFiles: ["tests/test_h.py"],
    reportDir: "/oracle/report/hidden",
  });
  const collect = { report: "/oracle/report/existing/junit.xml", maxBytes: 1024, oomKillsBefore: 0 };
  const run = { prep, wipe: true, env: [["GREETING", "it's $HOME"]] as Array<[string, string]> };

  // Syntax only: the collect part SIGKILLs every process the user may signal, so it never runs on the host.
  it.each([
    ["collect only", { collect, run: null }],
    ["run only", { collect: null, run }],
    ["collect, then run", { collect, run }],
  ])("is valid sh: %s", (_name, plan) => {
    execFileSync("sh", ["-n", "-c", stepScript(plan)]);
  });

  it("reads the report only after the kill loop, and prepares only after the report", () => {
    const script = stepScript({ collect, run });
    const kill = script.indexOf("kill -KILL -1");
    const report = script.indexOf("oracle:report ok");
    const wipe = script.indexOf("-exec rm -rf -- {} +");
    const clone = script.indexOf("git clone");
    const suite = script.indexOf("printf 'oracle:suite\\n'");
    expect(kill).toBeGreaterThan(0);
    expect(report).toBeGreaterThan(kill);
    expect(wipe).toBeGreaterThan(report);
    expect(clone).toBeGreaterThan(wipe);
    expect(suite).toBeGreaterThan(clone);
    expect(script.trimEnd().endsWith('exec sh -c "$1"')).toBe(true);
  });

  it("wipes the writable places only when asked", () => {
    expect(stepScript({ collect: null, run: { ...run, wipe: false } })).not.toContain("rm -rf -- {}");
  });

  it("stops after the report when the suite was OOM-killed", () => {
    expect(stepScript({ collect: { ...collect, oomKillsBefore: 3 }, run })).toContain(
      '[ "$oom" -le 3 ] || exit 0',
    );
  });

  it("exports the task's env quoted, exactly", () => {
    const value = "it's $HOME `x` \\ \n";
    const out = execFileSync("sh", ["-c", `export V=${shellQuote(value)}; printf '%s' "$V"`]).toString();
    expect(out).toBe(value);
    expect(stepScript({ collect: null, run })).toContain("export GREETING='it'\\''s $HOME'");
  });
});
