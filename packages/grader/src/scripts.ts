import { PATHS } from "./container-config.js";

/** Exit codes of the prep script; each maps to a reason. */
export const PREP_EXIT = {
  wipe: 20,
  checkout: 10,
  applyCheck: 11,
  apply: 12,
  list: 13,
  reset: 14,
  hidden: 15,
} as const;
/** Exit codes of the collect script for the report's state. */
export const REPORT_EXIT = { ok: 0, notRegular: 3, missing: 4, tooLarge: 5 } as const;

const PLAIN = /^[A-Za-z0-9_./@%+=:,-][A-Za-z0-9_./@%+=:, -]*$/;

/**
 * A shell assignment `name=<path>` for a path given as a binary string (one char per byte): single
 * quotes for plain names, printf octal escapes (and a guard against trailing-newline loss) otherwise.
 */
export function assignPath(name: string, path: string): string {
  if (PLAIN.test(path)) return `${name}='${path}'`;
  const octal = [...Buffer.from(path, "latin1")]
    .map((byte) => `\\${byte.toString(8).padStart(3, "0")}`)
    .join("");
  return `${name}=$(printf '${octal}x'); ${name}=\${${name}%x}`;
}

/** A path from the host (UTF-8) as a binary string for {@link assignPath}. */
export const utf8Path = (path: string): string => Buffer.from(path, "utf8").toString("latin1");

export interface PrepPlan {
  baseCommit: string;
  /** Path of the mirror inside the container. */
  mirror: string;
  /** Whether a filtered diff is mounted at PATHS.diff. */
  applyDiff: boolean;
  /** Binary-string paths reset to the base commit after the diff is applied. */
  reset: string[];
  /** Hidden test files (relative, UTF-8) copied in; null for the existing suite. */
  hiddenFiles: string[] | null;
  reportDir: string;
  /** Empty the writable places first (every suite but the first, which finds them fresh). */
  wipe: boolean;
}

const WRITABLE = `${PATHS.work} ${PATHS.tmp} ${PATHS.home} ${PATHS.report} /dev/shm`;

/** Three processes, not three per folder: the test user owns everything in them (the keeper writes nothing). */
function wipeLines(): string[] {
  return [
    `chmod -R u+rwX ${WRITABLE} 2>/dev/null`,
    `find ${WRITABLE} -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + 2>/dev/null`,
    `[ -z "$(find ${WRITABLE} -mindepth 1 -maxdepth 1 2>/dev/null)" ] || fail ${PREP_EXIT.wipe} "cannot wipe the writable folders"`,
  ];
}

const ancestors = (path: string): string[] => {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
};

function resetLines(paths: string[]): string[] {
  const lines: string[] = [];
  for (const path of paths) lines.push(`${assignPath("p", path)}; rm -rf -- "$p"`);
  for (const path of paths) {
    lines.push(
      `${assignPath("p", path)}; if git cat-file -e "HEAD:$p" 2>/dev/null; then git checkout -q HEAD -- "$p" || fail ${PREP_EXIT.reset} "cannot reset an existing-suite file to the base commit"; fi`,
    );
  }
  return lines;
}

function hiddenLines(files: string[]): string[] {
  const lines: string[] = [];
  const dirs = [...new Set(files.flatMap((f) => ancestors(utf8Path(f))))];
  for (const dir of dirs) {
    lines.push(
      `${assignPath("p", dir)}; if [ -L "$p" ] || { [ -e "$p" ] && [ ! -d "$p" ]; }; then rm -f -- "$p"; fi`,
    );
  }
  for (const file of files) lines.push(`${assignPath("p", utf8Path(file))}; rm -rf -- "$p"`);
  lines.push(
    `cp -R ${PATHS.hidden}/. ${PATHS.checkout}/ || fail ${PREP_EXIT.hidden} "cannot copy the hidden tests in"`,
  );
  return lines;
}

/**
 * The prep step of one suite, run as the test user before any test code exists in the container:
 * wipe the writable places, clone the mirror, check out the base commit, apply the filtered diff,
 * list what git changed (stdout: epoch line, then NUL-separated paths), reset the existing suite's
 * files, copy the hidden tests in (hidden suite) and make a fresh report folder.
 */
export function prepScript(plan: PrepPlan): string {
  const lines = [
    "set -u",
    `fail() { code=$1; shift; printf 'oracle-prep: %s\\n' "$*" >&2; exit "$code"; }`,
    ...(plan.wipe ? wipeLines() : []),
    // A host mirror is owned by another uid: git 2.39 honours safe.directory only from a global file.
    assignPath("mirror", utf8Path(plan.mirror)),
    `printf '[safe]\\n\\tdirectory = %s\\n' "$mirror" > ${PATHS.tmp}/.oracle-prep-gitconfig`,
    `export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=${PATHS.tmp}/.oracle-prep-gitconfig GIT_LITERAL_PATHSPECS=1 GIT_TERMINAL_PROMPT=0`,
    `git clone -q --no-checkout --no-hardlinks -- "$mirror" ${PATHS.checkout} || fail ${PREP_EXIT.checkout} "git clone of the mirror failed"`,
    `cd ${PATHS.checkout} || fail ${PREP_EXIT.checkout} "no checkout"`,
    `git -c advice.detachedHead=false checkout -q --detach ${plan.baseCommit} || fail ${PREP_EXIT.checkout} "the base commit cannot be checked out"`,
    `epoch=$(git log -1 --format=%ct HEAD) || fail ${PREP_EXIT.checkout} "cannot read the base commit's time"`,
    // Snapshots of the index before and after: renormalisation by .gitattributes shows in neither.
    `git add -A -f && t0=$(git write-tree) || fail ${PREP_EXIT.list} "cannot snapshot the checkout"`,
  ];
  if (plan.applyDiff) {
    lines.push(
      `git apply --check ${PATHS.diff} || fail ${PREP_EXIT.applyCheck} "git apply --check refused the diff"`,
      `git apply ${PATHS.diff} || fail ${PREP_EXIT.apply} "git apply failed"`,
    );
  }
  lines.push(
    `git add -A -f && t1=$(git write-tree) && printf '%s\\n' "$epoch" && git diff --name-only -z --no-renames "$t0" "$t1" || fail ${PREP_EXIT.list} "cannot list the changed files"`,
    ...resetLines(plan.reset),
    `git reset -q || fail ${PREP_EXIT.reset} "git reset failed"`,
    ...(plan.hiddenFiles ? hiddenLines(plan.hiddenFiles) : []),
    `mkdir -p '${plan.reportDir}' || fail ${PREP_EXIT.wipe} "cannot make the report folder"`,
    `rm -f ${PATHS.tmp}/.oracle-prep-gitconfig`,
    "exit 0",
  );
  return `${lines.join("\n")}\n`;
}

/**
 * Run as the test user after a suite's exec returned: SIGKILL every process of that user (the
 * keeper runs as another), report the cgroup's oom_kill count on stderr, then print the report at
 * $1 on stdout if it is a regular file of at most `maxBytes` (exit codes: REPORT_EXIT).
 */
export function collectScript(maxBytes: number): string {
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
    'printf \'kill_rounds %s\\nsurvivors %s\\n\' "$rounds" "$n" >&2',
    "cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null | grep '^oom_kill ' >&2",
    "f=$1",
    `[ -L "$f" ] && exit ${REPORT_EXIT.notRegular}`,
    `[ -e "$f" ] || exit ${REPORT_EXIT.missing}`,
    `[ -f "$f" ] || exit ${REPORT_EXIT.notRegular}`,
    `[ "$(stat -c %s -- "$f")" -le ${maxBytes} ] || exit ${REPORT_EXIT.tooLarge}`,
    'exec cat -- "$f"',
  ].join("\n");
}
