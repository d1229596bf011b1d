import { KEEPER_SH, PATHS } from "./container-config.js";
import { assignPath, PREP_EXIT, utf8Path } from "./scripts.js";

/**
 * One exec does up to three things, in this order: collect the previous suite's report, prepare a
 * fresh checkout, run a suite in it. The run costs three execs instead of six (each is a runc exec,
 * ~90 ms here). Everything the grader must trust is printed on stdout before any test code of the
 * step exists: `oracle:<name> <args>` lines, some followed by a block of exactly the announced size.
 * After `oracle:suite` the shell execs the suite command; what follows on stdout is the suite's.
 * The script's own stderr goes nowhere (fd 3 keeps the exec's for the suite), so the exec's stderr
 * is the suite's alone. See docs/security.md for why the report is read in a later exec.
 */
export interface StepPlan {
  /** Read this report first: SIGKILL every process of the test user, then the report's state. */
  collect: {
    report: string;
    maxBytes: number;
    /** The cgroup's oom_kill count before the suite: above it, the step stops after the report. */
    oomKillsBefore: number;
  } | null;
  /** Then prepare a checkout (the prep script, run in a subshell) and run the suite given as $1. */
  run: {
    prep: string;
    /** Empty the writable places first (every suite but the first, which finds them fresh). */
    wipe: boolean;
    /** Exported before the suite, in order (later wins): the task's env, then the oracle's. */
    env: Array<[string, string]>;
  } | null;
}

/** Where the prep subshell's output is kept until it is printed; made fresh by the step. */
export const STEP_DIR = `${PATHS.tmp}/.oracle-step`;
/** The step's exit codes for its own failures (a failed prep exits with the prep's code). */
export const STEP_EXIT = { noKeeperSh: 95, survivors: 96, io: 97, noCheckout: 98 } as const;

const WRITABLE = `${PATHS.work} ${PATHS.tmp} ${PATHS.home} ${PATHS.report} /dev/shm`;

/** A single-quoted shell word. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, "'\\''")}'`;

/** Only builtins inside the loop: a forked subshell would be another process of the test user. */
function collectLines(collect: NonNullable<StepPlan["collect"]>): string[] {
  return [
    "self=$$; rounds=0",
    "while :; do",
    "  kill -KILL -1 2>/dev/null; n=0",
    "  for p in /proc/[0-9]*; do",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    '    [ "${p#/proc/}" = "$self" ] && continue; st=; u=',
    '    { while read -r k v rest; do case $k in State:) st=$v;; Uid:) u=$v; break;; esac; done < "$p/status"; } 2>/dev/null',
    '    [ "$u" = 1000 ] && [ "$st" != Z ] && n=$((n+1))',
    "  done",
    '  [ "$n" -eq 0 ] && break; rounds=$((rounds+1)); [ "$rounds" -ge 100 ] && break',
    "done",
    `printf 'oracle:kill %s %s\\n' "$rounds" "$n"; [ "$n" -eq 0 ] || exit ${STEP_EXIT.survivors}`,
    "oom=$(cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null | grep '^oom_kill ' | head -n 1)",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    "oom=${oom#oom_kill }; oom=${oom:-0}; printf 'oracle:oom %s\\n' \"$oom\"",
    assignPath("f", utf8Path(collect.report)),
    'if [ -L "$f" ] || { [ -e "$f" ] && [ ! -f "$f" ]; }; then printf \'oracle:report not-regular\\n\'',
    "elif [ ! -e \"$f\" ]; then printf 'oracle:report missing\\n'",
    `else size=$(stat -c %s -- "$f") || exit ${STEP_EXIT.io}`,
    `  if [ "$size" -gt ${collect.maxBytes} ]; then printf 'oracle:report too-large %s\\n' "$size"`,
    `  else printf 'oracle:report ok %s\\n' "$size"; cat -- "$f" || exit ${STEP_EXIT.io}; fi`,
    "fi",
    // An OOM kill fails the run: the next suite does not start.
    `[ "$oom" -le ${collect.oomKillsBefore} ] || exit 0`,
  ];
}

function runLines(run: NonNullable<StepPlan["run"]>): string[] {
  const wipe = run.wipe
    ? [
        `chmod -R u+rwX ${WRITABLE} 2>/dev/null`,
        `find ${WRITABLE} -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + 2>/dev/null`,
        `[ -z "$(find ${WRITABLE} -mindepth 1 -maxdepth 1 2>/dev/null)" ] || { printf 'oracle:prep-exit ${PREP_EXIT.wipe} wipe\\n'; exit ${PREP_EXIT.wipe}; }`,
      ]
    : [];
  const exports = run.env.map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  return [
    ...wipe,
    `d=${STEP_DIR}; mkdir -m 700 "$d" || { printf 'oracle:prep-exit ${PREP_EXIT.wipe} step-dir\\n'; exit ${PREP_EXIT.wipe}; }`,
    "(",
    run.prep.trimEnd(),
    ') > "$d/out" 2> "$d/err"',
    "rc=$?",
    `block() { size=$(stat -c %s -- "$2") || exit ${STEP_EXIT.io}; printf 'oracle:%s %s\\n' "$1" "$size"; cat -- "$2" || exit ${STEP_EXIT.io}; }`,
    'block prep-out "$d/out"; block prep-err "$d/err"; printf \'oracle:prep-exit %s\\n\' "$rc"',
    '[ "$rc" -eq 0 ] || exit "$rc"',
    'epoch=$(head -n 1 "$d/out"); rm -rf -- "$d"',
    `cd ${PATHS.checkout} || exit ${STEP_EXIT.noCheckout}`,
    ...exports,
    'export SOURCE_DATE_EPOCH="$epoch"',
    "printf 'oracle:suite\\n'",
    "exec 2>&3 3>&-",
    'exec sh -c "$1"',
  ];
}

/**
 * The first step (no test code has run yet) waits for the keeper's copy of sh, at most 5 s: every
 * later step runs in it. Usually it is there long before.
 */
const waitForKeeperSh = [
  `i=0; while [ ! -x ${KEEPER_SH} ]; do i=$((i+1)); [ "$i" -le 500 ] || { printf 'oracle:no-keeper-sh\n'; exit ${STEP_EXIT.noKeeperSh}; }; sleep 0.01; done`,
];

/**
 * The step's script, run by the test user as `SH -c SCRIPT oracle-step SUITE_COMMAND`, where SH is
 * the keeper's execute-only sh for a step that collects (test code has run: its survivors must not
 * reach this shell's stdout through /proc before the kill loop ends) and plain sh for the first.
 */
export function stepScript(plan: StepPlan): string {
  const lines = ["exec 3>&2 2>/dev/null", "set -u"];
  if (plan.collect) lines.push(...collectLines(plan.collect));
  else lines.push(...waitForKeeperSh);
  if (plan.run) lines.push(...runLines(plan.run));
  else lines.push("exit 0");
  return `${lines.join("\n")}\n`;
}
