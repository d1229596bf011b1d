import type { Parsers } from "../parsers.js";
import { grammarOf } from "../parsers.js";
import { sealPython, subclassesIn } from "../python/seal.js";
import type { AddedFile, FileSeals, SealSite, TestRef, Unsealed } from "./plan.js";

/** A run's seals: the sealed files' texts, files added beside them, and what the host judges. */
export interface SealRun {
  files: FileSeals[];
  added: AddedFile[];
  sites: SealSite[];
  tests: Array<{ test: TestRef; keys: string[] }>;
  unsealed: Unsealed[];
  /** Files that could not be read and stay as they are. */
  unread: string[];
}

/** A hidden test file: its path in the checkout and its text. */
export interface TestText {
  path: string;
  text: string;
}

/**
 * Seals the hidden test files (docs/security.md, "Sealed expectations"): each file of a language the
 * oracle reads gets its comparisons sealed; files are numbered in the order given, so a site's key
 * (`<file>.<site>`) is the same in every run of the same texts. `demoted`: keys the sweep's gold runs
 * showed a correct diff cannot pass (rules.ts `seal.gold`), left as the task wrote them.
 */
export function planSeals(
  parsers: Parsers,
  files: readonly TestText[],
  options: { demoted?: ReadonlySet<string> } = {},
): SealRun {
  const run: SealRun = { files: [], added: [], sites: [], tests: [], unsealed: [], unread: [] };
  const python = files.filter((f) => grammarOf(f.path) === "python");
  const subclasses = subclassesIn(python);
  files.forEach((file, index) => {
    const grammar = grammarOf(file.path);
    if (grammar !== "python") return;
    const sealed = sealPython(parsers, { ...file, index }, { ...options, subclasses });
    if (sealed === null) {
      run.unread.push(file.path);
      return;
    }
    if (sealed.sites.length === 0 && sealed.unsealed.length === 0) return;
    run.files.push(sealed);
    run.sites.push(...sealed.sites);
    run.tests.push(...sealed.tests);
    run.unsealed.push(...sealed.unsealed);
  });
  return run;
}
