import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { writeJsonAtomic } from "@oracle/spec";
import { parserFiles, type SealRun } from "@oracle/test-set";
import type { HiddenText } from "./sentinels.js";

/**
 * Memoises the seal planner (tree-sitter's start-up and parses: the largest part of a grade's CPU)
 * by everything its plan depends on: the hidden files' texts, the base commit's test files it reads
 * for context, the demoted keys, the framework, the planner's own code (the bytes of the file
 * that holds it: the bundle oracle-grade.js, else @oracle/test-set's built files) and the parser's
 * (web-tree-sitter and the grammars' .wasm: an upgraded grammar kept old plans). The planner draws
 * nothing at random (a site's key is the same in every run of the same texts); the sentinels, which
 * do, are drawn fresh in every run after it. Kept in `<root>/.oracle/seal-plans/` (gitignored,
 * written only by the oracle on its host); an entry is used only when it names the same key and its
 * plan still has the digest written with it, and a plan JSON cannot carry exactly (an undefined
 * field, NaN) is never written.
 */

const FORMAT = 1;

/** What a plan is computed from, besides the planner's code. */
export interface PlanInputs {
  texts: readonly HiddenText[];
  context: readonly HiddenText[];
  demoted: ReadonlySet<string>;
  framework: string | null;
}

interface Entry {
  format: number;
  key: string;
  digest: string;
  plan: SealRun;
}

let plannerCode: Promise<string> | undefined;

/**
 * The files a plan is computed by: the planner's code (unbundled, tsc's dist/sentinels/seal-plan-cache.js:
 * @oracle/test-set's dist; bundled, this file is the bundle, which carries its own copy of the
 * planner) and the parser's: web-tree-sitter and the grammars' .wasm, loaded from node_modules in
 * either case (parsers.ts), which a parser upgrade changes while the planner's code stays.
 */
export async function plannerFiles(): Promise<string[]> {
  const self = fileURLToPath(import.meta.url);
  const unbundled = self.endsWith(`${sep}sentinels${sep}seal-plan-cache.js`);
  const code = unbundled ? await jsFiles(dirname(createRequire(self).resolve("@oracle/test-set"))) : [self];
  return [...code, ...parserFiles()];
}

/** SHA-256 of the files' names and bytes (a file that cannot be read counts as missing). */
export async function filesDigest(files: readonly string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file}\0`);
    try {
      hash.update(await readFile(file)).update("\0");
    } catch {
      hash.update("\0missing\0");
    }
  }
  return hash.digest("hex");
}

/** SHA-256 of the planner's code and parser as this process runs them (computed once per process). */
export function plannerCodeDigest(): Promise<string> {
  plannerCode ??= plannerFiles().then(filesDigest);
  return plannerCode;
}

async function jsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const digestOf = (plan: SealRun) => createHash("sha256").update(JSON.stringify(plan)).digest("hex");

/** The cache key of a plan: the planner's code and every input, hashed. */
export async function planKey(inputs: PlanInputs): Promise<string> {
  const texts = (list: readonly HiddenText[]) => list.map((t) => [t.path, t.text]);
  return createHash("sha256")
    .update(
      JSON.stringify({
        format: FORMAT,
        code: await plannerCodeDigest(),
        texts: texts(inputs.texts),
        context: texts(inputs.context),
        demoted: [...inputs.demoted].sort(),
        framework: inputs.framework,
      }),
    )
    .digest("hex");
}

const entryFile = (root: string, key: string) => join(root, ".oracle", "seal-plans", `${key}.json`);

/** The plan stored under `key`, or null: absent, unreadable, or not the one written for it. */
export async function readPlan(root: string, key: string): Promise<SealRun | null> {
  try {
    const entry = JSON.parse(await readFile(entryFile(root, key), "utf8")) as Entry;
    if (entry.format !== FORMAT || entry.key !== key) return null;
    if (typeof entry.plan?.fingerprint !== "string" || !Array.isArray(entry.plan.files)) return null;
    return digestOf(entry.plan) === entry.digest ? entry.plan : null;
  } catch {
    return null;
  }
}

/** Stores a plan under `key` when JSON carries it exactly; never throws (a cache that cannot be written is a miss next time). */
export async function writePlan(root: string, key: string, plan: SealRun): Promise<void> {
  try {
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(plan)), plan)) return;
    const entry: Entry = { format: FORMAT, key, digest: digestOf(plan), plan };
    await writeJsonAtomic(entryFile(root, key), entry);
  } catch {
    // A read-only root: the plan is computed again next time.
  }
}
