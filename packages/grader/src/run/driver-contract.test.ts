import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FilteredDiff, filterDiff, pathsToReset } from "../diff/filter.js";
import type { RunLog } from "../log/oracle-log.js";
import type { SuiteName } from "../reports/junit.js";
import type { DriverSandbox } from "./container-config.js";
import { type DriverEvent, DriverOutput, type DriverRecord, SuiteStderr } from "./driver-output.js";
import { DRIVER_EXIT, GO_LINE, PREP_EXIT, scriptInput } from "./driver-protocol.js";
import { bootCommand, driverScript } from "./driver-script.js";
import { judgePrep, prepFailure, prepScript } from "./prep.js";

// The contract between the driver and the grader, without Docker: the REAL generated boot line,
// driver and prep scripts run in sh on this host, in a sandbox pointed at a temporary folder (its
// /tmp, /work, run folder, report folder; a process table of the suite's own background processes;
// the kill of exactly those), and their real stdout and stderr go to the real parser. The checks
// that hold only as PID 1 of a container (PID 1, no privilege, not dumpable) are left out here; the
// production sandbox keeps them (driver-script.test.ts pins it).

const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@oracle.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@oracle.invalid",
  GIT_COMMITTER_DATE: "1700000000 +0000",
  GIT_AUTHOR_DATE: "1700000000 +0000",
};
const temp = mkdtempSync(join(tmpdir(), "oracle-driver-"));
let mirror = "";
let base = "";
let runs = 0;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, env: { PATH: process.env.PATH, ...GIT_ENV }, encoding: "utf8" }).trim();

beforeAll(() => {
  const work = join(temp, "upstream");
  mkdirSync(join(work, "tests"), { recursive: true });
  writeFileSync(join(work, "calc.py"), "def sub(a, b):\n    return b - a\n");
  writeFileSync(join(work, "tests", "test_calc.py"), "base test\n");
  git(work, "init", "-q", "-b", "main");
  git(work, "add", "-A");
  git(work, "commit", "-q", "-m", "base");
  base = git(work, "rev-parse", "HEAD");
  mirror = join(temp, "mirror.git");
  git(temp, "clone", "-q", "--bare", work, mirror);
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Every sandbox's process table: whatever a failed run left registered there is killed after the test. */
const processTables: string[] = [];
afterEach(() => {
  for (const table of processTables.splice(0))
    for (const pid of existsSync(table) ? readdirSync(table) : [])
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // Gone already.
      }
});

/** The fix, and an edit of the existing suite's test that the prep must reset. */
const GOLD = [
  "diff --git a/calc.py b/calc.py",
  "--- a/calc.py",
  "+++ b/calc.py",
  "@@ -1,2 +1,2 @@",
  " def sub(a, b):",
  "-    return b - a",
  "+    return a - b",
  "diff --git a/tests/test_calc.py b/tests/test_calc.py",
  "--- a/tests/test_calc.py",
  "+++ b/tests/test_calc.py",
  "@@ -1 +1 @@",
  "-base test",
  "+edited by the diff",
  "",
].join("\n");
const NOT_APPLYING = GOLD.replace(" def sub(a, b):", " def add(a, b):");

const processTable = (path: string) => {
  processTables.push(path);
  return path;
};

/** A folder of its own per driver run: the sandbox's places, the run folder, the fake cgroup and process table. */
function hostSandbox(): { dir: string; sandbox: DriverSandbox } {
  const dir = join(temp, `run-${runs++}`);
  for (const sub of ["tmp", "work", "run/tests", "report", "proc", "cgroup", "home"])
    mkdirSync(join(dir, sub), { recursive: true });
  const sandbox: DriverSandbox = {
    paths: {
      tmp: join(dir, "tmp"),
      checkout: join(dir, "work", "repo"),
      diff: join(dir, "run", "filtered.diff"),
      hidden: join(dir, "run", "tests"),
      home: join(dir, "home"),
      homeSeed: join(dir, "seed"),
    },
    proc: processTable(join(dir, "proc")),
    // Builtins only, like the container's `kill -KILL -1`, but limited to what the suite registered.
    killAll: `for q in ${join(dir, "proc")}/[0-9]*; do kill -KILL "\${q##*/}"; done`,
    testUid: String(process.getuid?.() ?? 0),
    self: "/proc/$$/status",
    oomFiles: [join(dir, "cgroup", "memory.events")],
    checks: { pid1: false, privileges: false, dumpable: false },
  };
  return { dir, sandbox };
}

interface Case {
  suite?: SuiteName;
  command: string;
  diff?: string | null;
  baseCommit?: string;
  hiddenFiles?: Record<string, string>;
  maxReportBytes?: number;
  /** Send the gated suite's go-ahead (default: yes). */
  go?: boolean;
  oomKills?: number;
  self?: string;
  /** Files of the image's home seed (relative paths). */
  homeSeed?: Record<string, string>;
}

interface Ran {
  record: DriverRecord;
  nonce: string | null;
  code: number | null;
  stdout: string;
  stderr: string;
  events: DriverEvent[];
  filtered: FilteredDiff | null;
  dir: string;
}

/** Runs one suite's driver through the real boot line, as its container would, and parses what it printed. */
async function runDriver(c: Case): Promise<Ran> {
  const suite = c.suite ?? "existing";
  const { dir, sandbox } = hostSandbox();
  const diff = c.diff === undefined ? GOLD : c.diff;
  const filtered =
    diff === null ? null : filterDiff(Buffer.from(diff), { allow: ["**"], deny: [], defaultDeny: [] });
  if (filtered) writeFileSync(sandbox.paths.diff, filtered.filtered);
  for (const [path, text] of Object.entries(c.hiddenFiles ?? {})) {
    mkdirSync(join(sandbox.paths.hidden, path, ".."), { recursive: true });
    writeFileSync(join(sandbox.paths.hidden, path), text);
  }
  for (const [path, text] of Object.entries(c.homeSeed ?? {})) {
    mkdirSync(join(sandbox.paths.homeSeed, path, ".."), { recursive: true });
    writeFileSync(join(sandbox.paths.homeSeed, path), text);
  }
  if (c.oomKills !== undefined) writeFileSync(sandbox.oomFiles[0]!, `oom 0\noom_kill ${c.oomKills}\n`);
  if (c.self) sandbox.self = c.self;
  const report = join(dir, "report", suite, "junit.xml");
  const script = driverScript({
    suite,
    command: c.command,
    prep: prepScriptFor(suite, c, filtered, sandbox, join(dir, "report", suite)),
    env: [
      ["GREETING", "it's $HOME `x` \\"],
      ["FAKE_PROC", sandbox.proc],
      ["ORACLE_JUNIT", report],
    ],
    report,
    maxReportBytes: c.maxReportBytes ?? 1024 * 1024,
    gated: suite === "hidden",
    sandbox,
  });
  const bound = c.maxReportBytes ?? 1024 * 1024;
  return { ...(await runBoot(sandbox, suite, script, c.go ?? true, bound)), filtered, dir };
}

function prepScriptFor(
  suite: SuiteName,
  c: Case,
  filtered: FilteredDiff | null,
  sandbox: DriverSandbox,
  reportDir: string,
) {
  return prepScript({
    baseCommit: c.baseCommit ?? base,
    mirror,
    applyDiff: filtered !== null,
    reset: filtered ? pathsToReset(filtered.kept, ["tests/**"]) : [],
    hiddenFiles: suite === "hidden" ? Object.keys(c.hiddenFiles ?? {}) : null,
    reportDir,
    list: suite === "existing",
    sandbox,
  });
}

async function runBoot(
  sandbox: DriverSandbox,
  suite: SuiteName,
  script: string,
  go: boolean,
  report: number,
) {
  const [sh, ...args] = bootCommand(sandbox);
  const child = spawn(sh!, args, { env: { PATH: process.env.PATH, LC_ALL: "C.UTF-8" } });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const events: DriverEvent[] = [];
  const parser = new DriverOutput(
    suite,
    { report, prepOut: 1 << 24, prepErr: 1 << 24 },
    (chunk) => out.push(chunk),
    (event) => {
      events.push(event);
      // The grader's go-ahead comes once the suite before was judged: here, once the prep is done.
      if (event === "prep" && suite === "hidden") {
        if (go) child.stdin.write(GO_LINE);
        child.stdin.end();
      }
    },
  );
  const stderr = new SuiteStderr(
    () => parser.nonce,
    (chunk) => err.push(chunk),
  );
  child.stdout.on("data", (chunk: Buffer) => parser.take(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.take(chunk));
  child.stdin.write(scriptInput(script));
  if (suite !== "hidden") child.stdin.end();
  const code = await new Promise<number | null>((done) => child.on("close", done));
  parser.finish();
  stderr.finish();
  const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString("utf8");
  return { record: parser.record, nonce: parser.nonce, code, stdout: text(out), stderr: text(err), events };
}

const REPORT = '<testsuites><testsuite name="s"><testcase classname="c" name="a"/></testsuite></testsuites>';
const writeReport = `printf '%s' '${REPORT}' > "$ORACLE_JUNIT"`;

const silentLog: RunLog = {
  event: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  close: async () => undefined,
};

describe("the driver, run in sh, read by the parser", () => {
  it("prepares the checkout, applies the diff, resets the existing suite, runs the suite and reads its report", async () => {
    const ran = await runDriver({
      command: `printf 'greeting=%s\\n' "$GREETING"; echo "epoch=$SOURCE_DATE_EPOCH"; cat calc.py tests/test_calc.py; echo to-stderr >&2; ${writeReport}; exit 3`,
      oomKills: 2,
    });
    const { record } = ran;
    expect(record.protocolError).toBeUndefined();
    expect(record.unsafe).toBeUndefined();
    expect(ran.nonce).toMatch(/^[0-9a-f]{48}$/);
    expect(record.prep.existing?.exitCode).toBe(0);
    expect(judgePrep({ suite: "existing", record, exitCode: ran.code }, ran.filtered, silentLog)).toBeNull();
    expect(record.started.existing).toBe(true);
    expect(record.exitCode.existing).toBe(3);
    expect(record.kill.existing).toEqual({ rounds: 0, survivors: 0 });
    expect(record.oomKills.existing).toBe(2);
    expect(record.report.existing).toEqual({ kind: "ok", xml: REPORT });
    expect(record.done).toBe(true);
    expect(ran.code).toBe(0);
    expect(ran.events).toEqual(["prep", "suite", "end", "report", "done"]);
    expect(ran.stdout).toBe(
      "greeting=it's $HOME `x` \\\nepoch=1700000000\ndef sub(a, b):\n    return a - b\nbase test\n",
    );
    expect(ran.stderr).toBe("to-stderr\n");
  });

  it("a diff that does not apply: the prep's exit code and stderr, no suite", async () => {
    const ran = await runDriver({ command: writeReport, diff: NOT_APPLYING });
    const prep = ran.record.prep.existing!;
    expect(prep.exitCode).toBe(PREP_EXIT.applyCheck);
    expect(prep.stderr.toString()).toContain("oracle-prep: git apply --check refused the diff");
    expect(ran.record.started.existing).toBeUndefined();
    expect(ran.record.done).toBeUndefined();
    expect(ran.code).toBe(PREP_EXIT.applyCheck);
    const judged = judgePrep(
      { suite: "existing", record: ran.record, exitCode: ran.code },
      ran.filtered,
      silentLog,
    );
    expect(judged?.reason).toBe("DIFF_DOES_NOT_APPLY");
    expect(judged?.message).toMatch(/patch does not apply\noracle-prep: git apply --check refused the diff$/);
  });

  it("a base commit the mirror lacks is CHECKOUT_FAILED", async () => {
    const ran = await runDriver({ command: writeReport, baseCommit: "f".repeat(40) });
    const prep = ran.record.prep.existing!;
    expect(prep.exitCode).toBe(PREP_EXIT.checkout);
    expect(prepFailure(prep.exitCode, prep.stderr.toString(), 0).reason).toBe("CHECKOUT_FAILED");
  });

  it("copies the image's home seed into HOME before the suite; without one, HOME stays empty", async () => {
    // The checkout is <run>/work/repo and HOME is <run>/home.
    const list = `find ../../home -type f | sort; cat ../../home/.cache/go-build/ab/x-d; ${writeReport}`;
    const seeded = await runDriver({ command: list, homeSeed: { ".cache/go-build/ab/x-d": "facts\n" } });
    expect(seeded.record.prep.existing?.exitCode).toBe(0);
    expect(seeded.stdout).toBe("../../home/.cache/go-build/ab/x-d\nfacts\n");
    const bare = await runDriver({ command: `find ../../home -type f; ${writeReport}` });
    expect(bare.record.prep.existing?.exitCode).toBe(0);
    expect(bare.stdout).toBe("");
  });

  it("baseline: no diff, the base commit's files", async () => {
    const ran = await runDriver({ command: `cat calc.py; ${writeReport}`, diff: null });
    expect(ran.record.prep.existing?.exitCode).toBe(0);
    expect(ran.stdout).toBe("def sub(a, b):\n    return b - a\n");
    expect(ran.record.done).toBe(true);
  });

  it.each([
    ["missing", "true", { kind: "missing" }],
    [
      "a symlink",
      `ln -s /etc/passwd "$ORACLE_JUNIT"`,
      { kind: "invalid", why: expect.stringMatching(/not a regular file/) },
    ],
    [
      "too large",
      `head -c 2048 /dev/zero > "$ORACLE_JUNIT"`,
      { kind: "invalid", why: "larger than 1024 bytes (2048)" },
    ],
  ])("a report %s is read as such", async (_name, command, read) => {
    const ran = await runDriver({ command, maxReportBytes: 1024 });
    expect(ran.record.report.existing).toEqual(read);
    expect(ran.record.done).toBe(true);
  });

  it("a suite forging the driver's lines and end markers: its output, never the driver's account", async () => {
    const forged = `\\noracle:${"ab".repeat(24)}:end 0\\noracle:report existing ok 5\\nforge\\noracle:done\\n`;
    const ran = await runDriver({
      command: `printf '${forged}'; printf '\\noracle:${"ab".repeat(24)}:end\\nafter' >&2; printf 'oracle:kill existing 0 0\\n'; exit 1`,
    });
    expect(ran.record.protocolError).toBeUndefined();
    expect(ran.record.exitCode.existing).toBe(1);
    expect(ran.record.report.existing).toEqual({ kind: "missing" });
    expect(ran.stdout).toContain("oracle:report existing ok 5\nforge\noracle:done");
    expect(ran.stderr).toContain("after");
    expect(ran.record.done).toBe(true);
  });

  it("a suite that leaves a process behind: killed before the end markers, so the driver's output ends", async () => {
    // One process that holds the driver's stdout and would print a forged line if it ever woke: had
    // the kill loop spared it, the output would never end and this test would time out.
    const command = [
      `mkfifo "$FAKE_PROC/../never"`,
      `sh -c 'read x < "$0"; printf "\\noracle:done\\n"' "$FAKE_PROC/../never" &`,
      `ln -s /proc/$! "$FAKE_PROC/$!"; echo $! > "$FAKE_PROC/../left"`,
      writeReport,
    ].join("\n");
    const ran = await runDriver({ command });
    const left = Number(readFileSync(join(ran.dir, "left"), "utf8"));
    expect(ran.record.kill.existing?.survivors).toBe(0);
    expect(ran.record.report.existing).toEqual({ kind: "ok", xml: REPORT });
    expect(ran.record.protocolError).toBeUndefined();
    expect(ran.record.done).toBe(true);
    // Dead: gone, or a zombie its new parent has not reaped yet.
    const stat = join("/proc", String(left), "stat");
    if (existsSync(stat)) expect(readFileSync(stat, "utf8").split(") ")[1]?.[0]).toBe("Z");
  });

  it("stops before any test code when a check of its own fails", async () => {
    const { dir } = hostSandbox();
    writeFileSync(join(dir, "status"), "Threads:\t1\nTracerPid:\t4242\n");
    const ran = await runDriver({ command: writeReport, self: join(dir, "status") });
    expect(ran.record.unsafe).toMatch(/^boot pid=\d+ threads=1 tracer=4242 /);
    expect(ran.code).toBe(DRIVER_EXIT.unsafe);
    expect(ran.record.started.existing).toBeUndefined();
    expect(() =>
      judgePrep({ suite: "existing", record: ran.record, exitCode: ran.code }, null, silentLog),
    ).toThrow(/driver refused to go on: boot/);
  });
});

describe("the hidden suite's driver", () => {
  const hiddenFiles = { "tests/test_hidden.py": "hidden test\n" };

  it("copies the hidden tests in after the diff and runs the suite on its go-ahead", async () => {
    const ran = await runDriver({
      suite: "hidden",
      command: `cat tests/test_hidden.py; ${writeReport}`,
      hiddenFiles,
    });
    expect(ran.record.prep.hidden?.exitCode).toBe(0);
    expect(ran.stdout).toBe("hidden test\n");
    expect(ran.record.report.hidden).toEqual({ kind: "ok", xml: REPORT });
    expect(ran.record.done).toBe(true);
  });

  it("without its go-ahead, stops after the prep: no suite", async () => {
    const ran = await runDriver({ suite: "hidden", command: "echo ran", hiddenFiles, go: false });
    expect(ran.record.prep.hidden?.exitCode).toBe(0);
    expect(ran.record.started.hidden).toBeUndefined();
    expect(ran.stdout).toBe("");
    expect(ran.code).toBe(0);
  });
});
