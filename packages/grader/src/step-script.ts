import { PATHS } from "./container-config.js";
import type { SuiteName } from "./junit.js";
import { assignPath, PREP_EXIT, PREP_GITCONFIG, utf8Path } from "./scripts.js";

/**
 * The container's one process (under its init) is the driver: for the existing and then the
 * hidden suite, prepare a fresh checkout, run the suite as a child, SIGKILL every other process of
 * the test user, read the suite's report. It costs what `docker run` costs: no exec at all.
 *
 * What the grader trusts is printed on stdout as `oracle:` lines and sized blocks, only while no
 * test code is alive: before a suite starts, and after the kill loop that ends it. A suite's own
 * output (stdout, and stderr on the container's stderr) ends at a marker carrying a nonce the
 * driver draws from /dev/urandom and prints first, before any test code exists. The driver runs
 * from an execute-only copy of sh (mode 0111: its owner cannot read it either), and a process that
 * execs a file it cannot read is not dumpable: the test user can read neither its memory nor its
 * environment, nor open its /proc/<pid>/fd/*. See docs/security.md.
 */
export interface DriverPlan {
  /** The prep script of each suite (run in a subshell; its output is printed as blocks). */
  prep: Record<SuiteName, string>;
  /** Exported for each suite before it starts, in order (later wins): the task's env, then the oracle's. */
  env: Record<SuiteName, Array<[string, string]>>;
  report: Record<SuiteName, string>;
  maxReportBytes: number;
}

/** The driver's execute-only copy of sh (in /tmp: the hidden suite's wipe removes it). */
export const DRIVER_SH = `${PATHS.tmp}/.oracle-driver-sh`;
/** Where a prep subshell's output is kept until it is printed; made fresh before each prep. */
export const STEP_DIR = `${PATHS.tmp}/.oracle-step`;
/** The driver's exit codes for its own failures (a failed prep exits with the prep's code). */
export const STEP_EXIT = { noDriverSh: 95, survivors: 96, io: 97, noCheckout: 98 } as const;

/** The writable places: the hidden suite's wipe empties them. */
const WRITABLE_DIRS = [PATHS.work, PATHS.tmp, PATHS.home, PATHS.report, "/dev/shm"];
const WRITABLE = WRITABLE_DIRS.join(" ");

/**
 * Shell that runs `onFail` unless every folder (plain paths, no spaces) can be listed and is empty.
 * Builtins only: a pattern that matches nothing stays itself, which neither exists nor is a link.
 */
export function emptyCheck(dirs: readonly string[], onFail: string): string {
  const listable = dirs.map((dir) => `[ -r ${dir} ] && [ -x ${dir} ]`).join(" && ");
  const entries = dirs.map((dir) => `${dir}/* ${dir}/.[!.]* ${dir}/..?*`).join(" ");
  return `{ ${listable}; } || { ${onFail}; }; for p in ${entries}; do if [ -e "$p" ] || [ -L "$p" ]; then ${onFail}; fi; done`;
}

/** A single-quoted shell word. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, "'\\''")}'`;

/** The container's entrypoint: an execute-only copy of sh (one process: install), which runs the driver's script (PATHS.driver) with the suites' commands (`$1`, `$2`). */
export const BOOT = [
  "sh",
  "-c",
  `install -m 0111 /bin/sh ${DRIVER_SH} || { printf 'oracle:no-driver-sh\\n'; exit ${STEP_EXIT.noDriverSh}; }\nexec ${DRIVER_SH} ${PATHS.driver} "$1" "$2"`,
  "oracle-boot",
];

function prepLines(suite: SuiteName, plan: DriverPlan): string[] {
  const wipe =
    suite === "hidden"
      ? [
          `chmod -R u+rwX ${WRITABLE} 2>/dev/null`,
          `find ${WRITABLE} -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + 2>/dev/null`,
          emptyCheck(
            WRITABLE_DIRS,
            `printf 'oracle:prep-exit hidden ${PREP_EXIT.wipe} wipe\\n'; exit ${PREP_EXIT.wipe}`,
          ),
        ]
      : [];
  return [
    ...wipe,
    `d=${STEP_DIR}; mkdir -m 700 "$d" || { printf 'oracle:prep-exit ${suite} ${PREP_EXIT.wipe} step-dir\\n'; exit ${PREP_EXIT.wipe}; }`,
    "(",
    plan.prep[suite].trimEnd(),
    ') > "$d/out" 2> "$d/err"',
    "rc=$?",
    `block prep-out ${suite} "$d/out"; block prep-err ${suite} "$d/err"; printf 'oracle:prep-exit ${suite} %s\\n' "$rc"`,
    '[ "$rc" -eq 0 ] || exit "$rc"',
    // The hidden suite's prep lists nothing: its commit time is the existing suite's.
    `${suite === "existing" ? 'epoch=; IFS= read -r epoch < "$d/out"; ' : ""}rm -rf -- "$d" ${PREP_GITCONFIG}`,
  ];
}

/** The suite as a child (stdin closed, stderr back on the exec's), then the kill loop, then the end markers. */
function suiteLines(suite: SuiteName, plan: DriverPlan, command: string): string[] {
  const exports = plan.env[suite].map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return [
    `printf 'oracle:suite ${suite}\\n'`,
    `( cd ${PATHS.checkout} || exit ${STEP_EXIT.noCheckout}`,
    ...exports.map((line) => `  ${line}`),
    '  export SOURCE_DATE_EPOCH="$epoch"',
    `  exec sh -c ${command} ) 2>&3 3>&- < /dev/null`,
    "rc=$?",
    // Only builtins in the loop: a forked subshell would be another process of the test user.
    "rounds=0",
    "while :; do",
    "  kill -KILL -1 2>/dev/null; n=0",
    "  for p in /proc/[0-9]*; do",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    '    case ${p#/proc/} in "$self"|1) continue;; esac; st=; u=',
    '    { while read -r k v rest; do case $k in State:) st=$v;; Uid:) u=$v; break;; esac; done < "$p/status"; } 2>/dev/null',
    '    [ "$u" = 1000 ] && [ "$st" != Z ] && n=$((n+1))',
    "  done",
    '  [ "$n" -eq 0 ] && break; rounds=$((rounds+1)); [ "$rounds" -ge 100 ] && break',
    "done",
    // The end markers, on both streams: nothing of the suite is left to write after them.
    `printf '\\noracle:%s:end\\n' "$nonce" >&3`,
    `printf '\\noracle:%s:end %s\\n' "$nonce" "$rc"`,
    `printf 'oracle:kill ${suite} %s %s\\n' "$rounds" "$n"; [ "$n" -eq 0 ] || exit ${STEP_EXIT.survivors}`,
  ];
}

function collectLines(suite: SuiteName, plan: DriverPlan): string[] {
  return [
    // The cgroup's oom_kill count (v2, else v1), read with builtins.
    'oom=0; for e in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do [ -r "$e" ] || continue; while read -r k v; do [ "$k" = oom_kill ] && oom=$v; done < "$e"; break; done',
    `printf 'oracle:oom ${suite} %s\\n' "$oom"`,
    assignPath("f", utf8Path(plan.report[suite])),
    `if [ -L "$f" ] || { [ -e "$f" ] && [ ! -f "$f" ]; }; then printf 'oracle:report ${suite} not-regular\\n'`,
    `elif [ ! -e "$f" ]; then printf 'oracle:report ${suite} missing\\n'`,
    `else size=$(stat -c %s -- "$f") || exit ${STEP_EXIT.io}`,
    `  if [ "$size" -gt ${plan.maxReportBytes} ]; then printf 'oracle:report ${suite} too-large %s\\n' "$size"`,
    `  else printf 'oracle:report ${suite} ok %s\\n' "$size"; cat -- "$f" || exit ${STEP_EXIT.io}; fi`,
    "fi",
    // An OOM kill fails the run: the next suite does not start.
    '[ "$oom" -le "$oom_seen" ] || exit 0; oom_seen=$oom',
  ];
}

/**
 * The driver, run by the test user from its execute-only sh (via {@link BOOT}) with the suites'
 * commands as `$1` (existing) and `$2` (hidden).
 */
export function driverScript(plan: DriverPlan): string {
  const lines = [
    "exec 3>&2 2>/dev/null",
    "set -u",
    // Drawn and printed before any test code exists; the suites never see it.
    `nonce=; for b in $(od -An -tx1 -N24 /dev/urandom); do nonce=$nonce$b; done; [ \${#nonce} -eq 48 ] || exit ${STEP_EXIT.io}`,
    `printf 'oracle:nonce %s\\n' "$nonce"`,
    "self=$$; oom_seen=0",
    // An empty file costs no process.
    `block() { [ -s "$3" ] || { printf 'oracle:%s %s 0\\n' "$1" "$2"; return; }; size=$(stat -c %s -- "$3") || exit ${STEP_EXIT.io}; printf 'oracle:%s %s %s\\n' "$1" "$2" "$size"; cat -- "$3" || exit ${STEP_EXIT.io}; }`,
  ];
  for (const [suite, command] of [
    ["existing", '"$1"'],
    ["hidden", '"$2"'],
  ] as const) {
    lines.push(...prepLines(suite, plan), ...suiteLines(suite, plan, command), ...collectLines(suite, plan));
  }
  lines.push("printf 'oracle:done\\n'", "exit 0");
  return `${lines.join("\n")}\n`;
}
