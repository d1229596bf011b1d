import { execFile } from "node:child_process";
import type { LoadedTask, SentinelResult } from "@oracle/spec";
import picomatch from "picomatch";
import type { RunLog } from "./oracle-log.js";
import type { SentinelNotes as RunState } from "./run/run-scope.js";
import { findRunner, type PackageScripts, packageJsonPaths } from "./runner-command.js";
import {
  type HiddenText,
  MAX_TEST_FILE_BYTES,
  noSentinelNote,
  planSentinels,
  type Sentinel,
  sentinelRunner,
  TEST_SOURCE,
} from "./sentinels.js";

/**
 * The existing suite's sentinels. Its test files are the base commit's (the prep resets those the
 * diff touched), so the grader reads them on the host from the base-only repository, plans pairs as
 * for the hidden suite, and the existing suite's prep appends them after the reset (the text rides
 * in the driver's script, on its stdin). Without them a diff that breaks existing behaviour and
 * forges only the existing suite's output (or patches its runner for those files) would PASS.
 */

/** At most this many base files are read; a larger existing suite gets pairs in these (noted). */
const MAX_FILES = 2000;

function gitBuffer(repo: string, args: string[], input?: string): Promise<Buffer> {
  return new Promise((done, fail) => {
    const child = execFile(
      "git",
      ["--git-dir", repo, "-c", "core.hooksPath=/dev/null", ...args],
      {
        encoding: "buffer",
        maxBuffer: 512 * 1024 * 1024,
        env: { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      },
      (error, stdout, stderr) => {
        if (error) fail(new Error(`git ${args[0]} failed: ${stderr.toString().trim() || error.message}`));
        else done(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/**
 * The base commit's versions of the hidden test files (`paths`, relative to the repository's root),
 * for the twins: a file absent at base is absent from the map. Larger files than a test module
 * are left out, which the caller must treat as unknown.
 */
export function baseHiddenTexts(
  repo: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, string | null>> {
  return baseTexts(
    repo,
    commit,
    paths.filter((p) => TEST_SOURCE.test(p)),
  );
}

/**
 * The base commit's package.json `scripts` that the suites' commands could run (`npm test`,
 * `yarn <script>`: the folders they run in, upwards), for reading the runner behind them. A
 * package.json without `scripts` has none; one that is not JSON (a byte-order mark is allowed, as
 * npm allows it) or larger than a test module is recorded as unreadable (null), which stops the
 * reading there: npm would use it.
 */
export async function basePackageScripts(
  repo: string,
  commit: string,
  commands: readonly string[],
): Promise<PackageScripts> {
  const paths = [...new Set(commands.flatMap((c) => packageJsonPaths(c)))];
  const scripts = new Map<string, Record<string, string> | null>();
  for (const [path, text] of await baseTexts(repo, commit, paths)) {
    const dir = path === "package.json" ? "" : path.slice(0, -"/package.json".length);
    scripts.set(dir, text === null ? null : scriptsOf(text));
  }
  return scripts;
}

/** A package.json's string-valued `scripts` ({} without any); null when it is not a JSON object. */
function scriptsOf(text: string): Record<string, string> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const found = (parsed as { scripts?: unknown }).scripts;
  if (typeof found !== "object" || found === null || Array.isArray(found)) return {};
  return Object.fromEntries(
    Object.entries(found).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/** The base commit's versions of `paths` (text up to a test module's size; null: not a small file; absent: missing). */
async function baseTexts(
  repo: string,
  commit: string,
  paths: readonly string[],
): Promise<Map<string, string | null>> {
  const texts = new Map<string, string | null>();
  const wanted = paths.filter((p) => !/[\n\r]/.test(p)).slice(0, MAX_FILES);
  if (wanted.length === 0) return texts;
  const out = await gitBuffer(
    repo,
    ["cat-file", "--batch"],
    `${wanted.map((p) => `${commit}:${p}`).join("\n")}\n`,
  );
  let at = 0;
  for (const path of wanted) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) break;
    const head = out.subarray(at, eol).toString("utf8");
    const object = /^[0-9a-f]+ (\w+) (\d+)$/.exec(head);
    if (!object) {
      // `<name> missing`: new at the fix. Anything else is not known.
      at = eol + 1;
      if (!head.endsWith(" missing")) texts.set(path, null);
      continue;
    }
    const size = Number(object[2]);
    const isText = object[1] === "blob" && size <= MAX_TEST_FILE_BYTES;
    texts.set(path, isText ? out.subarray(eol + 1, eol + 1 + size).toString("utf8") : null);
    at = eol + 1 + size + 1;
  }
  return texts;
}

/** The text of the base commit's files that match the existing suite's globs and look like test sources. */
export async function baseTestTexts(
  repo: string,
  commit: string,
  globs: readonly string[],
): Promise<{ texts: HiddenText[]; capped: boolean }> {
  const matches = picomatch([...globs], { dot: true });
  const listing = (await gitBuffer(repo, ["ls-tree", "-r", "-z", "-l", commit])).toString("utf8");
  const wanted: Array<{ oid: string; path: string }> = [];
  for (const entry of listing.split("\0")) {
    const m = /^(100644|100755) blob ([0-9a-f]+) +(\d+)\t(.*)$/s.exec(entry);
    if (!m || Number(m[3]) > MAX_TEST_FILE_BYTES || !TEST_SOURCE.test(m[4]!) || !matches(m[4]!)) continue;
    wanted.push({ oid: m[2]!, path: m[4]! });
  }
  const picked = wanted.slice(0, MAX_FILES);
  if (picked.length === 0) return { texts: [], capped: false };
  const out = await gitBuffer(repo, ["cat-file", "--batch"], `${picked.map((w) => w.oid).join("\n")}\n`);
  const texts: HiddenText[] = [];
  let at = 0;
  for (const { path } of picked) {
    const eol = out.indexOf(0x0a, at);
    const size = Number(/ blob (\d+)$/.exec(out.subarray(at, eol).toString("latin1"))?.[1]);
    texts.push({ path, text: out.subarray(eol + 1, eol + 1 + size).toString("utf8") });
    at = eol + 1 + size + 1;
  }
  return { texts, capped: wanted.length > picked.length };
}

/** The existing command's runner: read from it; task.json's `framework` names the hidden runner, and `other` turns sentinels off. */
export function existingRunner(
  task: LoadedTask["task"],
  scripts: PackageScripts | null = null,
): ReturnType<typeof sentinelRunner> {
  if (task.framework === "other") return null;
  const command = task.suites.existing.command;
  return (
    findRunner(command, scripts) ??
    sentinelRunner({ framework: task.framework, suites: { hidden: { command } } }, scripts)
  );
}

/** The existing suite's plan, and its `none` record with the reason when it has none. */
export function planExisting(
  task: LoadedTask["task"],
  base: { texts: HiddenText[]; capped: boolean } | null,
  scripts: PackageScripts | null = null,
): { sentinel: Sentinel | null; none?: SentinelResult } {
  const runner = existingRunner(task, scripts);
  const none = (note: string) => ({
    sentinel: null,
    none: { state: "none" as const, framework: runner?.framework ?? null, required: false, files: [], note },
  });
  if (base === null)
    return none("the mirror is in the image: the base commit's test files are not read on the host");
  const sentinel = planSentinels(runner, base.texts, base.texts);
  if (!sentinel) return none(noSentinelNote(runner, base.texts).replace("hidden", "existing"));
  if (!base.capped) return { sentinel };
  const note = `only the first ${MAX_FILES} of the existing suite's test files were read`;
  return {
    sentinel: { ...sentinel, required: [], note: sentinel.note ? `${sentinel.note}; ${note}` : note },
  };
}

/** Plans the existing suite's sentinels and logs them, or records (and warns) why it has none. */
export function existingSentinels(
  task: LoadedTask["task"],
  base: { texts: HiddenText[]; capped: boolean } | null,
  log: RunLog,
  state: RunState,
  scripts: PackageScripts | null = null,
): Sentinel | null {
  const { sentinel, none } = planExisting(task, base, scripts);
  if (!sentinel) {
    if (none) state.existingSentinel = none;
    log.event("sentinel", { suite: "existing", none: true, note: none?.note });
    log.warn(`existing suite unprotected: no sentinel (${none?.note})`);
    return null;
  }
  log.event("sentinel", {
    suite: "existing",
    framework: sentinel.framework,
    files: sentinel.appends.map((a) => a.path),
    required: sentinel.required,
    ...(sentinel.note ? { note: sentinel.note } : {}),
  });
  return sentinel;
}
