/** One shell word: as it is when it holds only safe characters, else single-quoted. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The commands that take `--root DIR`, as a hint names them. */
const ROOTED = /\bpnpm (grade|quarantine-sweep|build-images|new-task)(?![\w-])(?! --root\b)/g;

/**
 * `text` with ` --root DIR` after each `pnpm grade`, `pnpm quarantine-sweep`, `pnpm build-images` or
 * `pnpm new-task` it names (not already followed by --root), so that a hint of a run given
 * `--root DIR` works when copied. `root` undefined (the root was found from the working folder):
 * `text` as it is.
 */
export function withRoot(text: string, root: string | undefined): string {
  if (root === undefined) return text;
  return text.replace(ROOTED, (command) => `${command} --root ${shellWord(root)}`);
}
