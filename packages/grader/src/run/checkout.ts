import type { LoadedTask } from "@oracle/spec";
import { baseOnlyMirror, MirrorError } from "../git/base-mirror.js";
import type { RunLog } from "../log/oracle-log.js";
import type { DriverSandbox } from "./container-config.js";
import { PREP_EXIT } from "./driver-protocol.js";
import type { RunOutcome, RunScope } from "./run-scope.js";
import { assignPath, utf8Path } from "./shell.js";

/**
 * Prepare the checkout: "a mirror baked into the image or mounted read-only from the oracle host.
 * Checked out at the base commit inside the container." On the host, a task's mirror becomes a
 * base-only repository (docs/security.md, "History"); in the container, the prep clones it and
 * checks the base commit out.
 */

/** Git's global config during prep (safe.directory for the mirror); the driver removes it with the prep's output. */
export const prepGitConfig = (sandbox: DriverSandbox): string =>
  `${sandbox.paths.tmp}/.oracle-prep-gitconfig`;

/** The host mirror's base-only repository (base-mirror.ts); null for a mirror in the image. */
export async function prepareBaseMirror(
  root: string,
  loaded: LoadedTask,
  scope: RunScope,
  log: RunLog,
): Promise<string | null | RunOutcome> {
  if (!loaded.mirrorPath) return null;
  const making = baseOnlyMirror(root, loaded.mirrorPath, loaded.task.repo.baseCommit);
  try {
    const { path, cached } = await scope.timing("mirror", making);
    log.event("mirror.base", { path, cached });
    return path;
  } catch (error) {
    if (!(error instanceof MirrorError)) throw error;
    return {
      reason: "CHECKOUT_FAILED",
      message: `the base-only repository cannot be made: ${error.message}`,
    };
  }
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

/**
 * The prep's clone of the mirror, checked out (detached) at the base commit; its first line of
 * stdout is the base commit's time (SOURCE_DATE_EPOCH).
 */
export function checkoutLines(plan: {
  baseCommit: string;
  mirror: string;
  mirrorInImage?: boolean;
  sandbox: DriverSandbox;
}): string[] {
  const config = prepGitConfig(plan.sandbox);
  const checkout = plan.sandbox.paths.checkout;
  return [
    // A host mirror is owned by another uid: git 2.39 honours safe.directory only from a global file.
    assignPath("mirror", utf8Path(plan.mirror)),
    `printf '[safe]\\n\\tdirectory = %s\\n' "$mirror" > ${config}`,
    `export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=${config} GIT_LITERAL_PATHSPECS=1 GIT_TERMINAL_PROMPT=0`,
    `git clone -q --no-checkout --no-hardlinks -- "$mirror" ${checkout} || fail ${PREP_EXIT.checkout} "git clone of the mirror failed"`,
    `cd ${checkout} || fail ${PREP_EXIT.checkout} "no checkout"`,
    `git -c advice.detachedHead=false checkout -q --detach ${plan.baseCommit} || fail ${PREP_EXIT.checkout} "the base commit cannot be checked out"`,
    ...(plan.mirrorInImage ? imageMirrorCheck() : []),
    `epoch=$(git log -1 --format=%ct HEAD) && printf '%s\\n' "$epoch" || fail ${PREP_EXIT.checkout} "cannot read the base commit's time"`,
  ];
}
