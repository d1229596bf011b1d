import { type RunnerGuard, runnerGuardLines } from "../runner-guard.js";
import { PATHS } from "./container-config.js";

/** Exit codes of the prep script; each maps to a reason. */
export const PREP_EXIT = {
  /** The step's folder or the report folder cannot be made. */
  stepDir: 20,
  checkout: 10,
  applyCheck: 11,
  apply: 12,
  list: 13,
  reset: 14,
  hidden: 15,
  /** The diff shadows the test runner (runner-guard.ts): DIFF_SHADOWS_RUNNER. */
  shadow: 16,
  /** The runner guard itself could not run. */
  guard: 17,
} as const;

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

/** Git's global config during prep (safe.directory for the mirror); the driver removes it with the prep's output. */
export const PREP_GITCONFIG = `${PATHS.tmp}/.oracle-prep-gitconfig`;

export interface PrepPlan {
  baseCommit: string;
  /** Path of the mirror inside the container. */
  mirror: string;
  /** The mirror is the image's (the grader could not make it base-only): check that it is. */
  mirrorInImage?: boolean;
  /** Whether a filtered diff is mounted at PATHS.diff. */
  applyDiff: boolean;
  /** Binary-string paths reset to the base commit after the diff is applied. */
  reset: string[];
  /** Hidden test files (relative, UTF-8) copied in; null for the existing suite. */
  hiddenFiles: string[] | null;
  reportDir: string;
  /**
   * List what git changed (stdout, after the base commit's time: NUL-separated paths) for the
   * grader to compare with the filter. The existing suite's prep does; the hidden suite's applies
   * the same diff to the same commit in a fresh clone, so it skips the index snapshots and the listing.
   */
  list: boolean;
  /** Where the runner loads its own code at start-up; checked after the diff in list mode (runner-guard.ts). */
  runnerGuard?: RunnerGuard | null;
  /** Sentinel text appended to existing-suite test files (relative, UTF-8) after the reset (existing-sentinels.ts). */
  appends?: ReadonlyArray<{ path: string; text: string }>;
}

const IMAGE_MIRROR_RULE =
  "an image's mirror may hold only the base commit, its ancestors and tags at or before it (or give the task a host mirror, which the grader makes base-only)";

/**
 * Checks, in a fresh clone at the base commit (HEAD), that the image's mirror gave nothing after it:
 * no object reachable from a ref but not from the base (tag objects aside), and no object that no
 * ref reaches (a local clone copies the whole store; a bundle's pack is kept whole).
 */
export function imageMirrorCheck(): string[] {
  return [
    `later=$(git rev-list --objects --no-object-names --all --not HEAD | git cat-file --batch-check='%(objecttype)' | grep -vxc tag)`,
    `[ "$later" = 0 ] || fail ${PREP_EXIT.checkout} "the image's mirror holds $later object(s) after the base commit (later commits, branches or tags): ${IMAGE_MIRROR_RULE}"`,
    `total=$(git cat-file --batch-all-objects --batch-check | wc -l); reachable=$(git rev-list --objects --all | wc -l)`,
    `[ "$total" -eq "$reachable" ] || fail ${PREP_EXIT.checkout} "the image's mirror holds $((total - reachable)) object(s) that no branch or tag reaches (stash, reflog, unreachable): ${IMAGE_MIRROR_RULE}"`,
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

/** Appends to files that the reset left as at the base commit: regular files, never through a link. */
function appendLines(appends: ReadonlyArray<{ path: string; text: string }>): string[] {
  return appends.map(
    ({ path, text }) =>
      `${assignPath("p", utf8Path(path))}; { [ -f "$p" ] && [ ! -L "$p" ] && printf '%s' ${shellWord(text)} >> "$p"; } || fail ${PREP_EXIT.reset} "cannot add the oracle's tests to an existing-suite file"`,
  );
}

/** A single-quoted shell word. */
const shellWord = (value: string): string => `'${value.replace(/'/g, "'\\''")}'`;

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
 * The prep step of one suite, run as the test user before any test code exists in its container
 * (the driver runs it in a subshell): clone the mirror, check out the base commit (stdout: its
 * time), apply the filtered diff, list what git changed (NUL-separated paths), reset the existing suite's
 * files, copy the hidden tests in (hidden suite) and make a fresh report folder.
 */
export function prepScript(plan: PrepPlan): string {
  const lines = [
    "set -u",
    // On failure, the cgroup's OOM count too: a git killed at the memory limit is OUT_OF_MEMORY, not a bad diff.
    `fail() { code=$1; shift; printf 'oracle-prep: %s\\n' "$*" >&2; grep -h '^oom_kill ' /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null >&2; exit "$code"; }`,
    // A host mirror is owned by another uid: git 2.39 honours safe.directory only from a global file.
    assignPath("mirror", utf8Path(plan.mirror)),
    `printf '[safe]\\n\\tdirectory = %s\\n' "$mirror" > ${PREP_GITCONFIG}`,
    `export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=${PREP_GITCONFIG} GIT_LITERAL_PATHSPECS=1 GIT_TERMINAL_PROMPT=0`,
    `git clone -q --no-checkout --no-hardlinks -- "$mirror" ${PATHS.checkout} || fail ${PREP_EXIT.checkout} "git clone of the mirror failed"`,
    `cd ${PATHS.checkout} || fail ${PREP_EXIT.checkout} "no checkout"`,
    `git -c advice.detachedHead=false checkout -q --detach ${plan.baseCommit} || fail ${PREP_EXIT.checkout} "the base commit cannot be checked out"`,
    ...(plan.mirrorInImage ? imageMirrorCheck() : []),
    `epoch=$(git log -1 --format=%ct HEAD) && printf '%s\\n' "$epoch" || fail ${PREP_EXIT.checkout} "cannot read the base commit's time"`,
    ...(plan.list
      ? [
          // Snapshots of the index before and after: renormalisation by .gitattributes shows in neither.
          `git add -A -f && t0=$(git write-tree) || fail ${PREP_EXIT.list} "cannot snapshot the checkout"`,
        ]
      : []),
  ];
  if (plan.applyDiff) {
    lines.push(
      `git apply --check ${PATHS.diff} || fail ${PREP_EXIT.applyCheck} "git apply --check refused the diff"`,
      `git apply ${PATHS.diff} || fail ${PREP_EXIT.apply} "git apply failed"`,
    );
  }
  if (plan.list)
    lines.push(
      `git add -A -f && t1=$(git write-tree) && git diff --name-only -z --no-renames "$t0" "$t1" || fail ${PREP_EXIT.list} "cannot list the changed files"`,
      `git reset -q || fail ${PREP_EXIT.reset} "git reset failed"`,
    );
  lines.push(...resetLines(plan.reset), ...appendLines(plan.appends ?? []));
  if (plan.list && plan.applyDiff && plan.runnerGuard)
    lines.push(...runnerGuardLines(plan.runnerGuard, { shadow: PREP_EXIT.shadow, guard: PREP_EXIT.guard }));
  lines.push(
    ...(plan.hiddenFiles ? hiddenLines(plan.hiddenFiles) : []),
    `mkdir -p '${plan.reportDir}' || fail ${PREP_EXIT.stepDir} "cannot make the report folder"`,
    "exit 0",
  );
  return `${lines.join("\n")}\n`;
}
