import { cp } from "node:fs/promises";
import type { DriverSandbox } from "./container-config.js";
import { PREP_EXIT } from "./driver-protocol.js";
import { assignPath, utf8Path } from "./shell.js";

/**
 * Copy the hidden tests: "copied into the checkout after the diff is applied, from the mount, never
 * from the diff." On the host they are copied into the hidden suite's run folder (its container's
 * read-only mount; no task folder is mounted); in the container the prep copies them from there into
 * the checkout, replacing whatever the diff put at their paths or at a parent folder's path.
 */

/** Copies the task's hidden tests into a suite's run folder (links kept as they are). */
export function copyHiddenTests(hiddenTestsDir: string, into: string): Promise<void> {
  return cp(hiddenTestsDir, into, { recursive: true, verbatimSymlinks: true });
}

const ancestors = (path: string): string[] => {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
};

/** The prep's copy of the hidden tests (relative, UTF-8 paths) from the mount into the checkout. */
export function hiddenLines(files: string[], sandbox: DriverSandbox): string[] {
  const lines: string[] = [];
  const dirs = [...new Set(files.flatMap((f) => ancestors(utf8Path(f))))];
  for (const dir of dirs) {
    lines.push(
      `${assignPath("p", dir)}; if [ -L "$p" ] || { [ -e "$p" ] && [ ! -d "$p" ]; }; then rm -f -- "$p"; fi`,
    );
  }
  for (const file of files) lines.push(`${assignPath("p", utf8Path(file))}; rm -rf -- "$p"`);
  const { hidden, checkout } = sandbox.paths;
  lines.push(`cp -R ${hidden}/. ${checkout}/ || fail ${PREP_EXIT.hidden} "cannot copy the hidden tests in"`);
  return lines;
}
