import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assignPath, collectScript, prepScript, utf8Path } from "./scripts.js";

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
    wipe: true,
  };

  it("is valid sh", () => {
    execFileSync("sh", ["-n", "-c", prepScript(plan)]);
    execFileSync("sh", ["-n", "-c", collectScript(1024)]);
  });

  it("checks before it applies, never with fuzz, --reject or --unsafe-paths", () => {
    const script = prepScript(plan);
    expect(script.indexOf("git apply --check")).toBeLessThan(script.indexOf("git apply /oracle"));
    expect(script).not.toMatch(/--reject|--unsafe-paths|-C\d|patch -/);
  });

  it("wipes the writable places only when asked", () => {
    expect(prepScript(plan)).toContain("-exec rm -rf -- {} +");
    expect(prepScript({ ...plan, wipe: false })).not.toContain("rm -rf -- {}");
  });

  it("resets, then copies the hidden tests only for the hidden suite", () => {
    expect(prepScript(plan)).toContain("cp -R /oracle/hidden/. /work/repo/");
    expect(prepScript({ ...plan, hiddenFiles: null })).not.toContain("/oracle/hidden");
    expect(prepScript({ ...plan, applyDiff: false })).not.toContain("git apply");
  });
});
