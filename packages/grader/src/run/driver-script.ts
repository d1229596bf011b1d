import type { SuiteName } from "../junit.js";
import { PATHS } from "./container-config.js";
import { assignPath, PREP_EXIT, PREP_GITCONFIG, utf8Path } from "./prep.js";

/**
 * Each suite runs in a container of its own, whose one process, PID 1, is the driver: prepare a
 * fresh checkout, run the suite as a child, SIGKILL every other process of the test user, read the
 * suite's report. Nothing the existing suite starts or leaves (a process, a file, IPC, a message
 * queue) exists in the hidden suite's container.
 *
 * The driver's script comes on its stdin (`<bytes>\n<script>`), and for a gated suite a line
 * `run` later: nothing the tests can read (no file, no argument) holds the script or what it names
 * (the sentinel). What the grader trusts is printed on stdout as `oracle:` lines and sized blocks,
 * only while no test code is alive: before the suite starts, and after the kill loop that ends it.
 * The suite's own output ends at a marker carrying a nonce the driver draws from /dev/urandom
 * before any test code exists. The driver runs from an execute-only copy of sh (mode 0111), and a
 * process that execs a file it cannot read is not dumpable: the test user can neither trace it nor
 * read its memory, environment or /proc/1/fd/*; and as PID 1 it cannot be killed or stopped from
 * inside. It checks all of this itself before the suite and again before reading the report, and
 * stops (`oracle:unsafe`) when any does not hold. See docs/security.md.
 */
export interface DriverPlan {
  suite: SuiteName;
  /** The suite's command (run with `sh -c` in the checkout). */
  command: string;
  /** The prep script (run in a subshell; its output is printed as blocks). */
  prep: string;
  /** Exported before the suite starts, in order (later wins): the task's env, then the oracle's. */
  env: Array<[string, string]>;
  report: string;
  maxReportBytes: number;
  /** Wait for a `run` line on stdin between the prep and the suite (the hidden suite, prepared early). */
  gated: boolean;
  /** A module node preloads into every process of the suite, before the image's and the task's NODE_OPTIONS (mocha-guard.ts). */
  preload?: string | null;
}

/** The driver's execute-only copy of sh (in its container's own /tmp). */
export const DRIVER_SH = `${PATHS.tmp}/.oracle-driver-sh`;
/** Where a prep subshell's output is kept until it is printed; made fresh before the prep. */
export const STEP_DIR = `${PATHS.tmp}/.oracle-step`;
/** The driver's exit codes for its own failures (a failed prep exits with the prep's code). */
export const STEP_EXIT = { unsafe: 94, noDriverSh: 95, survivors: 96, io: 97, noCheckout: 98 } as const;

/** The line that lets a gated driver start its suite. */
export const GO_LINE = "run\n";

/** How the grader hands a driver its script on stdin. */
export const scriptInput = (script: string): Buffer => {
  const bytes = Buffer.from(script, "utf8");
  return Buffer.concat([Buffer.from(`${bytes.length}\n`), bytes]);
};

/** A single-quoted shell word. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, "'\\''")}'`;

/**
 * The container's entrypoint: an execute-only copy of sh (one process: install), which reads the
 * driver's script from stdin (one `head`) and runs it. Its command line names nothing secret.
 */
export const BOOT = [
  "sh",
  "-c",
  `install -m 0111 /bin/sh ${DRIVER_SH} || { printf 'oracle:no-driver-sh\\n'; exit ${STEP_EXIT.noDriverSh}; }\nexec ${DRIVER_SH} -c 'IFS= read -r n && s=$(head -c "$n") && eval "$s"' oracle-driver`,
  "oracle-boot",
];

/**
 * Shell (builtins only) that stops the driver unless what it relies on holds: it is PID 1, has one
 * thread, is not traced, cannot gain privileges and holds no capability.
 */
export function selfCheck(where: string): string {
  return [
    `t=; tr=; nnp=; cap=; { while read -r k v rest; do case $k in Threads:) t=$v;; TracerPid:) tr=$v;; NoNewPrivs:) nnp=$v;; CapEff:) cap=$v;; esac; done < /proc/1/status; } 2>/dev/null`,
    `[ "$$" = 1 ] && [ "$t" = 1 ] && [ "$tr" = 0 ] && [ "$nnp" = 1 ] && [ "$cap" = 0000000000000000 ] || { printf 'oracle:unsafe ${where} pid=%s threads=%s tracer=%s nnp=%s cap=%s\\n' "$$" "$t" "$tr" "$nnp" "$cap"; exit ${STEP_EXIT.unsafe}; }`,
  ].join("\n");
}

/** Before any test code: the checks above, and that another process of the test user cannot read PID 1's environment (it is not dumpable). */
function bootChecks(): string[] {
  return [
    selfCheck("boot"),
    `if cat /proc/1/environ > /dev/null 2>&1 < /dev/null; then printf 'oracle:unsafe boot dumpable\\n'; exit ${STEP_EXIT.unsafe}; fi`,
  ];
}

function prepLines(plan: DriverPlan): string[] {
  const { suite } = plan;
  return [
    `d=${STEP_DIR}; mkdir -m 700 "$d" || { printf 'oracle:prep-exit ${suite} ${PREP_EXIT.stepDir} step-dir\\n'; exit ${PREP_EXIT.stepDir}; }`,
    "(",
    plan.prep.trimEnd(),
    ') < /dev/null > "$d/out" 2> "$d/err"',
    "rc=$?",
    `block prep-out ${suite} "$d/out"; block prep-err ${suite} "$d/err"; printf 'oracle:prep-exit ${suite} %s\\n' "$rc"`,
    '[ "$rc" -eq 0 ] || exit "$rc"',
    // The prep's first line of output is the base commit's time.
    `epoch=; IFS= read -r epoch < "$d/out"; rm -rf -- "$d" ${PREP_GITCONFIG}`,
  ];
}

/** The suite as a child (stdin closed, stderr on the container's), then the kill loop, then the end markers. */
function suiteLines(plan: DriverPlan): string[] {
  const { suite } = plan;
  const exports = plan.env.map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return [
    ...(plan.gated ? ['go=; IFS= read -r go; [ "$go" = run ] || exit 0'] : []),
    `printf 'oracle:suite ${suite}\\n'`,
    `( cd ${PATHS.checkout} || exit ${STEP_EXIT.noCheckout}`,
    ...exports.map((line) => `  ${line}`),
    '  export SOURCE_DATE_EPOCH="$epoch"',
    ...(plan.preload
      ? [`  export NODE_OPTIONS=${shellQuote(`--require=${plan.preload}`)}"\${NODE_OPTIONS:+ $NODE_OPTIONS}"`]
      : []),
    `  exec sh -c ${shellQuote(plan.command)} ) 2>&3 3>&- < /dev/null`,
    "rc=$?",
    // Only builtins in the loop: a forked subshell would be another process of the test user.
    // `jobs` reaps the killed orphans (they are PID 1's children) so they hold no pid.
    "rounds=0",
    "while :; do",
    "  kill -KILL -1 2>/dev/null; jobs > /dev/null; n=0",
    "  for p in /proc/[0-9]*; do",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    "    case ${p#/proc/} in 1) continue;; esac; st=; u=",
    '    { while read -r k v rest; do case $k in State:) st=$v;; Uid:) u=$v; break;; esac; done < "$p/status"; } 2>/dev/null',
    '    [ "$u" = 1000 ] && [ "$st" != Z ] && n=$((n+1))',
    "  done",
    // Until none is left: a SIGKILLed process on a CPU-throttled cgroup may take a while to be
    // scheduled and die. The run's wall-clock limit bounds the wait (TIMEOUT).
    '  [ "$n" -eq 0 ] && break; rounds=$((rounds+1))',
    "done",
    // The end markers, on both streams: nothing of the suite is left to write after them.
    `printf '\\noracle:%s:end\\n' "$nonce" >&3`,
    `printf '\\noracle:%s:end %s\\n' "$nonce" "$rc"`,
    `printf 'oracle:kill ${suite} %s %s\\n' "$rounds" "$n"; [ "$n" -eq 0 ] || exit ${STEP_EXIT.survivors}`,
    // Nothing planted itself in the driver while the suite ran.
    selfCheck(`after-${suite}`),
  ];
}

function collectLines(plan: DriverPlan): string[] {
  const { suite } = plan;
  return [
    // The cgroup's oom_kill count (v2, else v1), read with builtins.
    'oom=0; for e in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; do [ -r "$e" ] || continue; while read -r k v; do [ "$k" = oom_kill ] && oom=$v; done < "$e"; break; done',
    `printf 'oracle:oom ${suite} %s\\n' "$oom"`,
    assignPath("f", utf8Path(plan.report)),
    `if [ -L "$f" ] || { [ -e "$f" ] && [ ! -f "$f" ]; }; then printf 'oracle:report ${suite} not-regular\\n'`,
    `elif [ ! -e "$f" ]; then printf 'oracle:report ${suite} missing\\n'`,
    // A report the suite made unreadable (chmod 0) is the suite's doing, not the engine's; nothing
    // of the suite is alive to change it between this test and the read.
    `elif [ ! -r "$f" ]; then printf 'oracle:report ${suite} unreadable\\n'`,
    `else size=$(stat -c %s -- "$f") || exit ${STEP_EXIT.io}`,
    `  if [ "$size" -gt ${plan.maxReportBytes} ]; then printf 'oracle:report ${suite} too-large %s\\n' "$size"`,
    `  else printf 'oracle:report ${suite} ok %s\\n' "$size"; cat -- "$f" || exit ${STEP_EXIT.io}; fi`,
    "fi",
  ];
}

/** The driver of one suite's container, read by {@link BOOT} from stdin ({@link scriptInput}). */
export function driverScript(plan: DriverPlan): string {
  const lines = [
    "exec 3>&2 2>/dev/null",
    "set -u",
    ...bootChecks(),
    // Drawn and printed before any test code exists; the suite never sees it.
    `nonce=; for b in $(od -An -tx1 -N24 /dev/urandom); do nonce=$nonce$b; done; [ \${#nonce} -eq 48 ] || exit ${STEP_EXIT.io}`,
    `printf 'oracle:nonce %s\\n' "$nonce"`,
    // An empty file costs no process.
    `block() { [ -s "$3" ] || { printf 'oracle:%s %s 0\\n' "$1" "$2"; return; }; size=$(stat -c %s -- "$3") || exit ${STEP_EXIT.io}; printf 'oracle:%s %s %s\\n' "$1" "$2" "$size"; cat -- "$3" || exit ${STEP_EXIT.io}; }`,
    ...prepLines(plan),
    ...suiteLines(plan),
    ...collectLines(plan),
    "printf 'oracle:done\\n'",
    "exit 0",
  ];
  return `${lines.join("\n")}\n`;
}
