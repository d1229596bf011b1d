import { posix } from "node:path";
import type { Task } from "@oracle/spec";
import { PATHS } from "./container-config.js";

/**
 * The runner guard: after `git apply`, before any test code exists, the prep fails (PREP_EXIT.shadow,
 * DIFF_SHADOWS_RUNNER) when the diff put a file where the runner loads its own code at start-up.
 *
 * - Python: `python3 -m pytest` puts the checkout first on `sys.path`, so a top-level `pytest/`,
 *   `_pytest/`, `pluggy/` (any module the image can import) replaces the image's; packaging metadata
 *   (`*.dist-info`, `*.egg-info`, `*.egg-link`, `*.egg`, `*.pth`, any letter case) directly in such a
 *   folder registers plugins. The protected names are the image's own: each candidate is looked up
 *   by the image's python3 in isolated mode (no cwd, no PYTHON* variables) with its own import
 *   machinery over its own sys.path, plus the builtin and stdlib names. A shadow the base commit
 *   already had is the task's business, not the diff's.
 * - Node: every runner resolves itself and its plugins through `node_modules`: nothing of the diff
 *   may be under a `node_modules` folder, at any depth.
 */
export interface RunnerGuard {
  /** Folders of the checkout (relative, "." for its root) on the runner's start-up path. */
  startDirs: string[];
  /** Folders outside the checkout on that path (absolute): their modules are protected too. */
  imageDirs: string[];
}

const quote = (value: string): string => `'${value.replace(/'/g, "'\\''")}'`;
const unquote = (word: string): string => word.replace(/^(["'])(.*)\1$/, "$2");
const ASSIGNED = /(?:^|[\s;&|(])PYTHONPATH=("[^"]*"|'[^']*'|[^\s;&|)]*)/g;
const PWD = /^(?:\$PWD|\$\{PWD\}|\$\(pwd\)|`pwd`)(?=\/|$)/;
const CD = /(?:^|[;&|(]|&&|\|\|)\s*cd\s+("[^"]*"|'[^']*'|[^\s;&|)]+)/g;

/**
 * The runner's start-up folders: the checkout root (the cwd of `python -m`), each PYTHONPATH entry of
 * the task's env, and, best effort, PYTHONPATH assignments and `cd` in the suites' commands.
 */
export function runnerGuardFor(task: Pick<Task, "env" | "suites">): RunnerGuard {
  const commands = [task.suites.existing.command, task.suites.hidden.command];
  const entries = (task.env.PYTHONPATH ?? "").split(":");
  const cwds: string[] = [];
  for (const command of commands) {
    for (const m of command.matchAll(ASSIGNED)) entries.push(...unquote(m[1] ?? "").split(":"));
    for (const m of command.matchAll(CD)) cwds.push(unquote(m[1] ?? ""));
  }
  const startDirs = new Set(["."]);
  const imageDirs = new Set<string>();
  for (const raw of [...entries, ...cwds]) {
    const entry = raw.replace(PWD, PATHS.checkout);
    if (entry.includes("$") || entry.includes("`") || entry.includes("~")) continue;
    const absolute = posix.resolve(PATHS.checkout, entry);
    const inside = posix.relative(PATHS.checkout, absolute);
    if (inside === "") startDirs.add(".");
    else if (!inside.startsWith("..")) startDirs.add(inside);
    else imageDirs.add(absolute);
  }
  return { startDirs: [...startDirs].sort(), imageDirs: [...imageDirs].sort() };
}

/**
 * Python (run as `python3 -I -c`; no single quote in it). Arguments: the index snapshots before and
 * after the diff, the number of start folders, the start folders, the image folders. Exit 3 and the
 * offending entries on stderr when the diff shadows the runner; nothing on stdout.
 */
const GUARD_PY = String.raw`
import os, sys
from importlib.machinery import PathFinder, all_suffixes
t0, t1, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
starts, extra = sys.argv[4:4 + n], sys.argv[4 + n:]
dirs = [p for p in sys.path if p and os.path.isabs(p)] + extra
BUILTIN = set(sys.builtin_module_names) | set(getattr(sys, "stdlib_module_names", ()))
BUILTIN |= {"sitecustomize", "usercustomize"}
SUFFIXES = sorted(all_suffixes(), key=len, reverse=True)
META = (".dist-info", ".egg-info", ".egg-link", ".egg", ".pth")
def modname(fn):
    for s in SUFFIXES:
        if fn.endswith(s) and len(fn) > len(s):
            return fn[:-len(s)]
def has_init(kids):
    return kids is not None and any(modname(k) == "__init__" for k in kids)
def image_has(name):
    if name in BUILTIN:
        return "module"
    spec = PathFinder.find_spec(name, dirs)
    if spec is None:
        return None
    return "space" if spec.origin in (None, "namespace") else "module"
def git(*args):
    r, w = os.pipe()
    devnull = (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)
    pid = os.posix_spawnp("git", ["git", *args], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, w, 1), devnull])
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), b"".join(chunks)
def base_has(rel):
    return git("cat-file", "-e", "HEAD:" + rel)[0] == 0
def base_kids(rel):
    code, listed = git("ls-tree", "-z", "--name-only", "HEAD:" + rel)
    return None if code != 0 else [os.fsdecode(k) for k in listed.split(b"\0") if k]
def kids(rel):
    return os.listdir(rel) if os.path.isdir(rel) else None
code, changed = git("diff", "--name-only", "-z", "--no-renames", t0, t1)
if code != 0:
    sys.exit(4)
entries, found = {}, []
for raw in changed.split(b"\0"):
    path = os.fsdecode(raw)
    if "node_modules" in path.split("/"):
        found.append(os.fsencode(path).decode("utf-8", "backslashreplace") + " (under node_modules: where node resolves the runner and its plugins)")
    for d in starts:
        pre = "" if d == "." else d + "/"
        if path and path + "/" == pre:
            entries[(d, "")] = False
        elif path.startswith(pre) and len(path) > len(pre):
            top, sep, _ = path[len(pre):].partition("/")
            entries[(d, top)] = entries.get((d, top), False) or bool(sep)
for (d, top), is_dir in sorted(entries.items()):
    rel = os.path.normpath(os.path.join(d, top))
    show = os.fsencode(rel).decode("utf-8", "backslashreplace") + ("/" if is_dir else "")
    if top == "":
        if os.path.exists(rel) and not base_has(rel):
            found.append(show + " (replaces a folder of the start-up path)")
    elif top.lower().endswith(META):
        if os.path.lexists(rel):
            found.append(show + " (packaging metadata: registers plugins, any letter case)")
    elif is_dir:
        kind = image_has(top) if top.isidentifier() else None
        now = kids(rel)
        if kind == "space" and now is not None and base_kids(rel) is None:
            found.append(show + " (a folder named like the image namespace package " + repr(top) + ")")
        elif kind == "module" and has_init(now) and not has_init(base_kids(rel)):
            found.append(show + " (a package named like the image module " + repr(top) + ")")
    else:
        name = modname(top)
        if name and name.isidentifier() and image_has(name) and os.path.exists(rel) and not base_has(rel):
            found.append(show + " (a module named like the image module " + repr(name) + ")")
for line in found[:10]:
    print("oracle-prep: " + line, file=sys.stderr)
if len(found) > 10:
    print("oracle-prep: ... and %d more" % (len(found) - 10), file=sys.stderr)
sys.exit(3 if found else 0)
`;

/**
 * Shell lines for the prep (list mode, after the diff is applied and `$t0`/`$t1` are the index
 * snapshots before and after it): the check in the image's python3 when it has one, else the Node
 * check alone, with git's pathspecs. `fail` and the exit codes are the prep's.
 */
export function runnerGuardLines(guard: RunnerGuard, exit: { shadow: number; guard: number }): string[] {
  if (GUARD_PY.includes("'")) throw new Error("the runner guard's Python may not hold a single quote");
  const args = [String(guard.startDirs.length), ...guard.startDirs, ...guard.imageDirs].map(quote).join(" ");
  const shadow = `fail ${exit.shadow} "the diff puts files where the test runner loads its own code or plugins (DIFF_SHADOWS_RUNNER)"`;
  return [
    "if command -v python3 >/dev/null 2>&1; then",
    `  python3 -I -c '${GUARD_PY}' "$t0" "$t1" ${args}; rc=$?`,
    `  if [ "$rc" -eq 3 ]; then ${shadow}; elif [ "$rc" -ne 0 ]; then fail ${exit.guard} "the runner guard failed (python3 exit $rc)"; fi`,
    "else",
    `  nm=$(GIT_LITERAL_PATHSPECS=0 git diff --name-only --no-renames "$t0" "$t1" -- ':(glob)**/node_modules' ':(glob)**/node_modules/**') || fail ${exit.guard} "the runner guard cannot list the diff's node_modules files"`,
    `  if [ -n "$nm" ]; then printf 'oracle-prep: %s (under node_modules: where node resolves the runner and its plugins)\\n' "$nm" | head -n 10 >&2; ${shadow}; fi`,
    "fi",
  ];
}
