import { posix } from "node:path";
import { shellSegments } from "./runner-command.js";

/**
 * What the shell does around a suite's runner that decides which test files exist when it starts:
 * files the command removes first (`rm -f -- tests/test_x.py && pytest …`, new-task's Go suites), and
 * constructs the oracle cannot read (a command substitution, a loop, a program it does not know run
 * before the runner). Nothing is planted in a file the command may not run (docs/security.md,
 * "Plant only what can be proven").
 */
export interface CommandProof {
  /** Paths (files or folders, relative to the checkout) removed before the runner starts. */
  removed: string[];
  /** Why the oracle cannot tell which files the runner meets; empty when it can. */
  unreadable: string[];
}

/** Programs that may come before the runner without changing which test files exist. */
const HARMLESS = new Set([
  "cd",
  "ln",
  "export",
  "mkdir",
  "true",
  ":",
  "set",
  "ulimit",
  "echo",
  "printf",
  "umask",
]);
/** Words that open a compound command: its effect on the files is not read. */
const COMPOUND = new Set(["for", "while", "until", "if", "case", "{", "(", "function", "select"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The command's proof, up to the simple command `isRunner` says starts the runner (the rest runs after it). */
export function proveCommand(command: string, isRunner: (words: readonly string[]) => boolean): CommandProof {
  const proof: CommandProof = { removed: [], unreadable: [] };
  if (/\$\(|`|<\(|>\(/.test(command))
    proof.unreadable.push("the command substitutes the output of another command ($(…), `…`)");
  let cwd = "";
  for (const { words } of shellSegments(command)) {
    if (isRunner(words)) return proof;
    let i = 0;
    while (i < words.length && ASSIGNMENT.test(words[i]!)) i++;
    const program = words[i];
    if (program === undefined) continue;
    const name = posix.basename(program);
    if (COMPOUND.has(program)) {
      proof.unreadable.push(`the command runs a compound command (${program} …) before the runner`);
      continue;
    }
    if (name === "cd" && words[i + 1] !== undefined) {
      cwd = posix.normalize(posix.join(cwd, words[i + 1]!)).replace(/^\.$/, "");
      continue;
    }
    if (name === "rm") {
      const paths = words.slice(i + 1).filter((w, at, all) => !w.startsWith("-") || all.indexOf("--") < at);
      for (const path of paths.filter((w) => w !== "--")) {
        if (/[*?[\]{}$]/.test(path)) {
          proof.unreadable.push(`the command removes files by a pattern (rm ${path})`);
          continue;
        }
        proof.removed.push(posix.normalize(posix.join(cwd, path)).replace(/\/+$/, "").replace(/^\.$/, ""));
      }
      continue;
    }
    if (!HARMLESS.has(name))
      proof.unreadable.push(
        `the command runs ${name} before the runner, which may change the files it meets`,
      );
  }
  return proof;
}

/** Whether `path` is gone once the command's removals ran (the path itself or a folder above it). */
export function removedBy(proof: CommandProof, path: string): boolean {
  return proof.removed.some((r) => r === "" || path === r || path.startsWith(`${r}/`));
}
