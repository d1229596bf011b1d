import type { JUnitOptions, SuiteName } from "../reports/junit.js";
import type { SentinelFramework } from "../sentinels/runner-command.js";
import { prepGitConfig } from "./checkout.js";
import { CONTAINER_SANDBOX, type DriverSandbox } from "./container-config.js";
import {
  DRIVER_EXIT,
  driverLine,
  endMarkerText,
  GO,
  LINE,
  NONCE_BYTES,
  PREP_EXIT,
  PREP_STEP_DIR,
  REPORT,
} from "./driver-protocol.js";
import { assignPath, printfFormat, shellQuote, utf8Path } from "./shell.js";

/**
 * Each suite runs in a container of its own, whose one process, PID 1, is the driver: prepare a
 * fresh checkout, run the suite as a child, SIGKILL every other process of the test user, read the
 * suite's report. Nothing the existing suite starts or leaves (a process, a file, IPC, a message
 * queue) exists in the hidden suite's container.
 *
 * The driver's script comes on its stdin, and for a gated suite a go-ahead later: nothing the tests
 * can read (no file, no argument) holds the script or what it names (the sentinel). What the grader
 * trusts is printed on stdout as `oracle:` lines and sized blocks (driver-protocol.ts), only while no
 * test code is alive: before the suite starts, and after the kill loop that ends it. The suite's own
 * output ends at a marker carrying a nonce the driver draws from /dev/urandom before any test code
 * exists. The driver runs from an execute-only copy of sh (mode 0111), and a process that execs a
 * file it cannot read is not dumpable: the test user can neither trace it nor read its memory,
 * environment or /proc/1/fd/*; and as PID 1 it cannot be killed or stopped from inside. It checks all
 * of this itself before the suite and again before reading the report, and stops (`oracle:unsafe`)
 * when any does not hold. See docs/security.md.
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
  /** The runner the suite's command starts, as the sentinels read it; null: not one the oracle knows. */
  framework?: SentinelFramework | null;
  /** How the grader reads the report (a Go suite's is gotestsum's: JUnitOptions). */
  reportOptions?: JUnitOptions;
  /** Where the suite's seals write their records ($ORACLE_SEALS), read after the report; null: no seals. */
  seals?: string | null;
  maxSealsBytes?: number;
  /** Wait for the go-ahead on stdin between the prep and the suite (the hidden suite, prepared early). */
  gated: boolean;
  /** A module node preloads into every process of the suite, before the image's and the task's NODE_OPTIONS (mocha-guard.ts). */
  preload?: string | null;
  /** Where the script runs: a suite's container ({@link CONTAINER_SANDBOX}) in production. */
  sandbox: DriverSandbox;
}

/** The driver's execute-only copy of sh (in its container's own /tmp). */
export const driverSh = (sandbox: DriverSandbox): string => `${sandbox.paths.tmp}/.oracle-driver-sh`;
/** Where a prep subshell's output is kept until it is printed; made fresh before the prep. */
const stepDir = (sandbox: DriverSandbox): string => `${sandbox.paths.tmp}/.oracle-step`;

/** A printf of `text` (its `%s` filled from `values`). */
const printRaw = (text: string, ...values: string[]): string =>
  ["printf", printfFormat(text), ...values].join(" ");
/** A printf of a driver line. */
const print = (line: string, ...values: string[]): string => printRaw(`${line}\n`, ...values);

/**
 * The container's entrypoint: an execute-only copy of sh (one process: install), which reads the
 * driver's script from stdin (one `head`) and runs it. Its command line names nothing secret.
 */
export function bootCommand(sandbox: DriverSandbox): string[] {
  const sh = driverSh(sandbox);
  return [
    "sh",
    "-c",
    `install -m 0111 /bin/sh ${sh} || { ${print(driverLine(LINE.noDriverSh))}; exit ${DRIVER_EXIT.noDriverSh}; }\nexec ${sh} -c 'IFS= read -r n && s=$(head -c "$n") && eval "$s"' oracle-driver`,
    "oracle-boot",
  ];
}

/** The production entrypoint (in the suite's container). */
export const BOOT = bootCommand(CONTAINER_SANDBOX);

/**
 * Shell (builtins only) that stops the driver unless what it relies on holds: it is PID 1, has one
 * thread, is not traced, cannot gain privileges and holds no capability.
 */
export function selfCheck(where: string, sandbox: DriverSandbox): string {
  const { checks } = sandbox;
  const holds = [
    ...(checks.pid1 ? ['[ "$$" = 1 ]'] : []),
    '[ "$t" = 1 ]',
    '[ "$tr" = 0 ]',
    ...(checks.privileges ? ['[ "$nnp" = 1 ]', '[ "$cap" = 0000000000000000 ]'] : []),
  ];
  const unsafe = driverLine(LINE.unsafe, where, "pid=%s threads=%s tracer=%s nnp=%s cap=%s");
  return [
    `t=; tr=; nnp=; cap=; { while read -r k v rest; do case $k in Threads:) t=$v;; TracerPid:) tr=$v;; NoNewPrivs:) nnp=$v;; CapEff:) cap=$v;; esac; done < ${sandbox.self}; } 2>/dev/null`,
    `${holds.join(" && ")} || { ${print(unsafe, '"$$"', '"$t"', '"$tr"', '"$nnp"', '"$cap"')}; exit ${DRIVER_EXIT.unsafe}; }`,
  ].join("\n");
}

/** Before any test code: the checks above, and that another process of the test user cannot read PID 1's environment (it is not dumpable). */
function bootChecks(sandbox: DriverSandbox): string[] {
  const dumpable = `if cat ${sandbox.proc}/1/environ > /dev/null 2>&1 < /dev/null; then ${print(driverLine(LINE.unsafe, "boot", "dumpable"))}; exit ${DRIVER_EXIT.unsafe}; fi`;
  return [selfCheck("boot", sandbox), ...(sandbox.checks.dumpable ? [dumpable] : [])];
}

/** The nonce, drawn and printed before any test code exists (the suite never sees it), and the block printer. */
function nonceLines(): string[] {
  const hex = NONCE_BYTES * 2;
  const block = (size: string) =>
    print(driverLine("%s", "%s", size), '"$1"', '"$2"', ...(size === "0" ? [] : ['"$size"']));
  return [
    `nonce=; for b in $(od -An -tx1 -N${NONCE_BYTES} /dev/urandom); do nonce=$nonce$b; done; [ \${#nonce} -eq ${hex} ] || exit ${DRIVER_EXIT.io}`,
    print(driverLine(LINE.nonce, "%s"), '"$nonce"'),
    // An empty file costs no process.
    `block() { [ -s "$3" ] || { ${block("0")}; return; }; size=$(stat -c %s -- "$3") || exit ${DRIVER_EXIT.io}; ${block("%s")}; cat -- "$3" || exit ${DRIVER_EXIT.io}; }`,
  ];
}

function prepLines(plan: DriverPlan): string[] {
  const { suite, sandbox } = plan;
  const stepDirFailed = driverLine(LINE.prepExit, suite, String(PREP_EXIT.stepDir), PREP_STEP_DIR);
  return [
    `d=${stepDir(sandbox)}; mkdir -m 700 "$d" || { ${print(stepDirFailed)}; exit ${PREP_EXIT.stepDir}; }`,
    "(",
    plan.prep.trimEnd(),
    ') < /dev/null > "$d/out" 2> "$d/err"',
    "rc=$?",
    `block ${LINE.prepOut} ${suite} "$d/out"; block ${LINE.prepErr} ${suite} "$d/err"; ${print(driverLine(LINE.prepExit, suite, "%s"), '"$rc"')}`,
    '[ "$rc" -eq 0 ] || exit "$rc"',
    // The prep's first line of output is the base commit's time.
    `epoch=; IFS= read -r epoch < "$d/out"; rm -rf -- "$d" ${prepGitConfig(sandbox)}`,
  ];
}

/** The suite as a child (stdin closed, stderr on the container's). */
function runLines(plan: DriverPlan): string[] {
  const { suite, sandbox } = plan;
  const exports = plan.env.map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return [
    ...(plan.gated ? [`go=; IFS= read -r go; [ "$go" = ${GO} ] || exit 0`] : []),
    print(driverLine(LINE.suite, suite)),
    `( cd ${sandbox.paths.checkout} || exit ${DRIVER_EXIT.noCheckout}`,
    ...exports.map((line) => `  ${line}`),
    '  export SOURCE_DATE_EPOCH="$epoch"',
    ...(plan.preload
      ? [`  export NODE_OPTIONS=${shellQuote(`--require=${plan.preload}`)}"\${NODE_OPTIONS:+ $NODE_OPTIONS}"`]
      : []),
    `  exec sh -c ${shellQuote(plan.command)} ) 2>&3 3>&- < /dev/null`,
    "rc=$?",
  ];
}

/** After the suite: the kill loop, then the end markers, then the driver's checks of itself again. */
function killLines(plan: DriverPlan): string[] {
  const { suite, sandbox } = plan;
  return [
    // Only builtins in the loop: a forked subshell would be another process of the test user.
    // `jobs` reaps the killed orphans (they are PID 1's children) so they hold no pid.
    "rounds=0",
    "while :; do",
    `  ${sandbox.killAll} 2>/dev/null; jobs > /dev/null; n=0`,
    `  for p in ${sandbox.proc}/[0-9]*; do`,
    `    case \${p#${sandbox.proc}/} in 1) continue;; esac; st=; u=`,
    '    { while read -r k v rest; do case $k in State:) st=$v;; Uid:) u=$v; break;; esac; done < "$p/status"; } 2>/dev/null',
    `    [ "$u" = ${sandbox.testUid} ] && [ "$st" != Z ] && n=$((n+1))`,
    "  done",
    // Until none is left: a SIGKILLed process on a CPU-throttled cgroup may take a while to be
    // scheduled and die. The run's wall-clock limit bounds the wait (TIMEOUT).
    '  [ "$n" -eq 0 ] && break; rounds=$((rounds+1))',
    "done",
    // The end markers, on both streams: nothing of the suite is left to write after them.
    `${printRaw(endMarkerText("%s", "stderr"), '"$nonce"')} >&3`,
    printRaw(`${endMarkerText("%s", "stdout")}%s\n`, '"$nonce"', '"$rc"'),
    `${print(driverLine(LINE.kill, suite, "%s", "%s"), '"$rounds"', '"$n"')}; [ "$n" -eq 0 ] || exit ${DRIVER_EXIT.survivors}`,
    // Nothing planted itself in the driver while the suite ran.
    selfCheck(`after-${suite}`, sandbox),
  ];
}

/** Reads one file the suite wrote (its report, its seals' records) as a driver line and a sized block, or why not. */
function readFileLines(
  kind: typeof LINE.report | typeof LINE.seals,
  plan: DriverPlan,
  path: string,
  max: number,
): string[] {
  const line = (state: string, ...args: string[]) => driverLine(kind, plan.suite, state, ...args);
  return [
    assignPath("f", utf8Path(path)),
    `if [ -L "$f" ] || { [ -e "$f" ] && [ ! -f "$f" ]; }; then ${print(line(REPORT.notRegular))}`,
    `elif [ ! -e "$f" ]; then ${print(line(REPORT.missing))}`,
    // A file the suite made unreadable (chmod 0) is the suite's doing, not the engine's; nothing
    // of the suite is alive to change it between this test and the read.
    `elif [ ! -r "$f" ]; then ${print(line(REPORT.unreadable))}`,
    `else size=$(stat -c %s -- "$f") || exit ${DRIVER_EXIT.io}`,
    `  if [ "$size" -gt ${max} ]; then ${print(line(REPORT.tooLarge, "%s"), '"$size"')}`,
    `  else ${print(line(REPORT.ok, "%s"), '"$size"')}; cat -- "$f" || exit ${DRIVER_EXIT.io}; fi`,
    "fi",
  ];
}

function collectLines(plan: DriverPlan): string[] {
  const { suite, sandbox } = plan;
  return [
    // The cgroup's oom_kill count (v2, else v1), read with builtins.
    `oom=0; for e in ${sandbox.oomFiles.join(" ")}; do [ -r "$e" ] || continue; while read -r k v; do [ "$k" = oom_kill ] && oom=$v; done < "$e"; break; done`,
    print(driverLine(LINE.oom, suite, "%s"), '"$oom"'),
    ...readFileLines(LINE.report, plan, plan.report, plan.maxReportBytes),
    ...(plan.seals
      ? readFileLines(LINE.seals, plan, plan.seals, plan.maxSealsBytes ?? plan.maxReportBytes)
      : []),
  ];
}

/** The driver of one suite's container, read by {@link bootCommand} from stdin (driver-protocol.ts: scriptInput). */
export function driverScript(plan: DriverPlan): string {
  const lines = [
    "exec 3>&2 2>/dev/null",
    "set -u",
    ...bootChecks(plan.sandbox),
    ...nonceLines(),
    ...prepLines(plan),
    ...runLines(plan),
    ...killLines(plan),
    ...collectLines(plan),
    print(driverLine(LINE.done)),
    "exit 0",
  ];
  return `${lines.join("\n")}\n`;
}
