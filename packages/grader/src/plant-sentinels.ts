import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { chmod, lstat, open, readFile, realpath } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import type { LoadedTask } from "@oracle/spec";
import type { RunLog } from "./oracle-log.js";
import type { SentinelNotes as RunState } from "./run/run-scope.js";
import type { PackageScripts } from "./runner-command.js";
import {
  type HiddenText,
  MAX_TEST_FILE_BYTES,
  noSentinelNote,
  planSentinels,
  type Sentinel,
  sentinelRunner,
  TEST_SOURCE,
} from "./sentinels.js";

/** The hidden run folder's regular files (no links), with their text. */
async function readHidden(dir: string, files: string[]): Promise<HiddenText[]> {
  const texts: HiddenText[] = [];
  for (const path of files) {
    if (!TEST_SOURCE.test(path)) continue;
    const info = await lstat(join(dir, path));
    if (!info.isFile() || info.size > MAX_TEST_FILE_BYTES) continue;
    texts.push({ path, text: await readFile(join(dir, path), "utf8") });
  }
  return texts;
}

/** Appends to (or with `replace`, rewrites) a regular file inside `root`, never through a link. */
async function writeInside(root: string, path: string, text: string, replace = false): Promise<void> {
  const realRoot = await realpath(root);
  const target = join(root, path);
  const parent = await realpath(dirname(target));
  if (parent !== realRoot && !parent.startsWith(`${realRoot}${sep}`))
    throw new Error(`hidden test file ${path} is not inside the hidden tests folder`);
  const flags =
    constants.O_WRONLY | constants.O_NOFOLLOW | (replace ? constants.O_TRUNC : constants.O_APPEND);
  const info = await lstat(target);
  if (!info.isFile()) throw new Error(`hidden test file ${path} is not a regular file`);
  // The run folder's copy is the grader's own; a read-only hidden file gets its owner's write bit there.
  if ((info.mode & 0o200) === 0) await chmod(target, info.mode | 0o200);
  const handle = await open(target, flags);
  try {
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
}

/**
 * Plans the run's sentinels and appends them to the hidden suite's copy of the hidden test files
 * (its run folder, which the prep copies into the checkout), so that neither the checkout nor the
 * mount holds a version without them. Records why a run has none. `others` are the base commit's
 * test files (Go: names of the same package that the pair must not reuse); `baseHidden` the base
 * commit's versions of the hidden files, for the twins (null: not known, no twins). The twins are
 * drawn from the task's gold.diff (`twinKey`): every run of the task, the sweep's gold runs
 * included, meets the same twins.
 */
/**
 * The secret the run's twins are drawn from: a hash of the task's gold.diff, which no graded
 * container sees (the diff under test is not the gold, and a diff that is has the fix anyway).
 * Without a gold.diff, null: the twins are drawn afresh each run, and the sweep (NO_GOLD) says the
 * task is not validated.
 */
export async function twinKey(loaded: LoadedTask): Promise<string | null> {
  if (!loaded.goldDiff) return null;
  const gold = await readFile(loaded.goldDiff);
  return createHash("sha256").update("oracle twins\0").update(gold).digest("hex");
}

export async function plantSentinels(
  loaded: LoadedTask,
  hiddenFiles: string[],
  runTests: string,
  log: RunLog,
  state: RunState,
  base: {
    /** The base commit's test files (Go: names of the same package that the pair must not reuse). */
    others?: readonly HiddenText[] | undefined;
    /** The base commit's versions of the hidden files, for the twins (null: not known, no twins). */
    baseHidden?: ReadonlyMap<string, string | null> | null;
    /** The hidden suite's FAIL_TO_PASS entries (declared, or recorded by the sweep). */
    failToPass?: readonly string[];
    /** The base commit's package scripts, for a command that runs one (`npm test -- …`). */
    scripts?: PackageScripts | null;
  } = {},
): Promise<Sentinel | null> {
  const { others = [], baseHidden = null, failToPass = [], scripts = null } = base;
  const runner = sentinelRunner(loaded.task, scripts);
  const texts = runner ? await readHidden(runTests, hiddenFiles) : [];
  const key = await twinKey(loaded);
  const sentinel = planSentinels(runner, texts, others, baseHidden, key, failToPass);
  if (!sentinel) {
    const note = noSentinelNote(runner, texts);
    state.sentinel = {
      state: "none",
      framework: runner?.framework ?? null,
      required: false,
      files: [],
      note,
    };
    log.event("sentinel", { none: true, note });
    log.warn(`unprotected run: no sentinel (${note})`);
    return null;
  }
  for (const append of sentinel.appends)
    if (append.rewrite !== undefined)
      await writeInside(runTests, append.path, `${append.rewrite}${append.text}`, true);
    else await writeInside(runTests, append.path, append.text);
  const twins = sentinel.appends.reduce((n, a) => n + (a.twins?.length ?? 0), 0);
  log.event("sentinel", {
    framework: sentinel.framework,
    files: sentinel.appends.map((a) => a.path),
    required: sentinel.required,
    twins,
    // Keyed: the same twins in every run of the task; fresh: drawn for this run (no gold.diff).
    ...(twins > 0 ? { twinsDrawn: key ? "keyed by gold.diff" : "fresh" } : {}),
    ...(sentinel.untwinned ? { untwinned: sentinel.untwinned.slice(0, 50) } : {}),
    ...(sentinel.note ? { note: sentinel.note } : {}),
  });
  if (sentinel.untwinned)
    log.warn(
      `${sentinel.untwinned.length} FAIL_TO_PASS test(s) not twinned (${sentinel.untwinned.slice(0, 3).join(", ")}${sentinel.untwinned.length > 3 ? ", …" : ""}): code that reads the test files could forge their results; give each a one-line exact comparison (docs/security.md, Twins)`,
    );
  return sentinel;
}
