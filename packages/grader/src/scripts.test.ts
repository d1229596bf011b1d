import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assignPath, prepScript, utf8Path } from "./scripts.js";
import { BOOT, driverScript, scriptInput, shellQuote } from "./step-script.js";

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
    list: true,
  };

  it("is valid sh", () => {
    execFileSync("sh", ["-n", "-c", prepScript(plan)]);
  });

  it("checks before it applies, never with fuzz, --reject or --unsafe-paths", () => {
    const script = prepScript(plan);
    expect(script.indexOf("git apply --check")).toBeLessThan(script.indexOf("git apply /oracle"));
    expect(script).not.toMatch(/--reject|--unsafe-paths|-C\d|patch -/);
  });

  it("lists what git changed only when asked (the first suite's prep)", () => {
    expect(prepScript(plan)).toContain("git diff --name-only -z");
    const second = prepScript({ ...plan, list: false });
    expect(second).not.toMatch(/git diff|git add|write-tree|git reset/);
    expect(second.indexOf("git apply --check")).toBeLessThan(second.indexOf("git apply /oracle"));
  });

  it("resets, then copies the hidden tests only for the hidden suite", () => {
    expect(prepScript(plan)).toContain("cp -R /oracle/run/tests/. /work/repo/");
    expect(prepScript({ ...plan, hiddenFiles: null })).not.toContain("/oracle/run/tests");
    expect(prepScript({ ...plan, applyDiff: false })).not.toContain("git apply");
  });
});

describe("driverScript", () => {
  const prep = (hidden: boolean) =>
    prepScript({
      baseCommit: "a".repeat(40),
      mirror: "/oracle/mirror",
      applyDiff: true,
      reset: [],
      hiddenFiles: hidden ? ["tests/test_h.py"] : null,
      reportDir: `/oracle/report/${hidden ? "hidden" : "existing"}`,
      list: !hidden,
    });
  const env: Array<[string, string]> = [["GREETING", "it's $HOME"]];
  const plan = (suite: "existing" | "hidden") => ({
    suite,
    command: `pytest --junitxml="$ORACLE_JUNIT" 'it''s'`,
    prep: prep(suite === "hidden"),
    env,
    report: `/oracle/report/${suite}/junit.xml`,
    maxReportBytes: 1024,
    gated: suite === "hidden",
  });
  const scripts = { existing: driverScript(plan("existing")), hidden: driverScript(plan("hidden")) };

  // Syntax only: the driver SIGKILLs every process the user may signal, so it never runs on the host.
  it("is valid sh, and so is the boot script", () => {
    execFileSync("sh", ["-n", "-c", scripts.existing]);
    execFileSync("sh", ["-n", "-c", scripts.hidden]);
    execFileSync("sh", ["-n", "-c", BOOT[2]!]);
  });

  it("comes on stdin to an execute-only copy of sh, whose command line names nothing of it", () => {
    expect(BOOT[2]).toContain("install -m 0111 /bin/sh /tmp/.oracle-driver-sh");
    expect(BOOT[2]).toContain(
      `exec /tmp/.oracle-driver-sh -c 'IFS= read -r n && s=$(head -c "$n") && eval "$s"'`,
    );
    expect(BOOT.join(" ")).not.toMatch(/pytest|oracle\/run|ORACLE_JUNIT/);
    const input = scriptInput(scripts.hidden);
    const newline = input.indexOf(10);
    expect(Number(input.subarray(0, newline).toString())).toBe(input.length - newline - 1);
    // The boot line really reads exactly that many bytes and runs them, leaving the rest of stdin.
    const out = execFileSync("sh", ["-c", `IFS= read -r n && s=$(head -c "$n") && eval "$s"; cat`], {
      input: Buffer.concat([scriptInput("printf 'ran:'\n"), Buffer.from("rest")]),
    }).toString();
    expect(out).toBe("ran:rest");
  });

  it("checks itself before anything else, then prints its nonce before the prep", () => {
    for (const script of Object.values(scripts)) {
      const check = script.indexOf("oracle:unsafe boot");
      expect(check).toBeGreaterThan(0);
      expect(script.indexOf("/proc/1/environ")).toBeGreaterThan(check);
      expect(script.indexOf("oracle:nonce")).toBeGreaterThan(script.indexOf("/proc/1/environ"));
      expect(script.indexOf("oracle:nonce")).toBeLessThan(script.indexOf("git clone"));
      expect(script).not.toMatch(/[0-9a-f]{48}/);
    }
  });

  it("spares only itself, PID 1, in the kill loop, reaps what it killed, and checks itself again after it", () => {
    for (const script of Object.values(scripts)) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
      expect(script).toContain("case ${p#/proc/} in 1) continue;; esac");
      expect(script).toContain("kill -KILL -1 2>/dev/null; jobs > /dev/null");
      const kill = script.indexOf("kill -KILL -1");
      expect(script.indexOf("oracle:unsafe after-", kill)).toBeGreaterThan(kill);
      expect(script.indexOf("oracle:unsafe after-", kill)).toBeLessThan(script.indexOf("oracle:report"));
    }
  });

  it("runs one suite: prep, (the go-ahead), suite, kill loop, end markers, report", () => {
    for (const suite of ["existing", "hidden"] as const) {
      const script = scripts[suite];
      const other = suite === "existing" ? "hidden" : "existing";
      expect(script).not.toContain(`oracle:suite ${other}`);
      const at = (text: string, from = 0) => script.indexOf(text, from);
      const clone = at("git clone");
      const go = at('IFS= read -r go; [ "$go" = run ] || exit 0');
      const suiteLine = at(`oracle:suite ${suite}`);
      const kill = at("kill -KILL -1", suiteLine);
      const end = at(":end %s", kill);
      const report = at(`oracle:report ${suite} ok`, end);
      expect(clone).toBeGreaterThanOrEqual(0);
      if (suite === "hidden") {
        expect(go).toBeGreaterThan(clone);
        expect(suiteLine).toBeGreaterThan(go);
      } else expect(go).toBe(-1);
      expect(suiteLine).toBeGreaterThan(clone);
      expect(kill).toBeGreaterThan(suiteLine);
      expect(end).toBeGreaterThan(kill);
      expect(report).toBeGreaterThan(end);
    }
  });

  it("closes stdin (the script's pipe) for the prep and the suite", () => {
    for (const script of Object.values(scripts)) {
      expect(script).toContain(') < /dev/null > "$d/out" 2> "$d/err"');
      expect(script).toContain(") 2>&3 3>&- < /dev/null");
    }
  });

  it("exports the task's env quoted, exactly", () => {
    const value = "it's $HOME `x` \\ \n";
    const out = execFileSync("sh", ["-c", `export V=${shellQuote(value)}; printf '%s' "$V"`]).toString();
    expect(out).toBe(value);
    expect(scripts.existing).toContain("export GREETING='it'\\''s $HOME'");
  });
});
