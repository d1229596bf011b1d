import { PREP_EXIT } from "./driver-protocol.js";
import { assignPath, shellQuote, utf8Path } from "./shell.js";

/**
 * Reset the existing suite: "the existing suite at the base commit's version" runs, whatever the diff
 * did to it. After `git apply`, every existing-suite file the diff touched (diff/filter.ts:
 * pathsToReset) is removed and checked out again from the base commit (a file the diff added stays
 * removed); then the oracle's sentinel tests are appended to the existing suite's files
 * (existing-sentinels.ts).
 */

/** Binary-string paths back to the base commit's version (deleted when the base has none). */
export function resetLines(paths: string[]): string[] {
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
export function appendLines(appends: ReadonlyArray<{ path: string; text: string }>): string[] {
  return appends.map(
    ({ path, text }) =>
      `${assignPath("p", utf8Path(path))}; { [ -f "$p" ] && [ ! -L "$p" ] && printf '%s' ${shellQuote(text)} >> "$p"; } || fail ${PREP_EXIT.reset} "cannot add the oracle's tests to an existing-suite file"`,
  );
}
