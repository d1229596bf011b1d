import { createHash } from "node:crypto";
import { DEFAULT_DENY, type LoadedTask } from "@oracle/spec";
import { type FilteredDiff, filterDiff } from "../diff/filter.js";
import { displayPath } from "../diff/paths.js";
import { countFileHeaders, DiffParseError } from "../diff/split.js";
import type { RunLog } from "../log/oracle-log.js";
import { PREP_EXIT } from "./driver-protocol.js";
import type { RunFacts, RunOutcome } from "./run-scope.js";

/**
 * Filter and apply the diff: "the diff is filtered through the allowlist and denylist first. Dropped
 * hunks are logged with their paths. The filtered diff is applied with git apply --check before git
 * apply; a diff that does not apply is a FAIL with the reason logged." The filter runs on the host
 * (diff/filter.ts); the prep applies what it kept, and the grader checks that git changed exactly that.
 */

const MAX_DROPS_SHOWN = 50;
/** More file sections than this are not parsed (DIFF_INVALID): the parse must stay within the grader's memory bound. */
export const MAX_DIFF_FILES = 10_000;

/** What the filter made of the diff: its record for the result, and what to apply or why the run stops. */
export interface Filtered {
  record: RunFacts["diff"];
  filtered: FilteredDiff | null;
  stop: RunOutcome | null;
}

const sha256 = (diff: Buffer): string => createHash("sha256").update(diff).digest("hex");

/** Filters the diff (null in baseline mode) through the task's allow and deny lists and logs every drop. */
export function filterAndLog(
  diff: Buffer | { tooLarge: number } | null,
  task: LoadedTask["task"],
  log: RunLog,
): Filtered {
  if (diff === null) return { record: null, filtered: null, stop: null };
  const invalid = (record: RunFacts["diff"], message: string): Filtered => ({
    record,
    filtered: null,
    stop: { reason: "DIFF_INVALID", message },
  });
  if (!Buffer.isBuffer(diff))
    return invalid(
      { sha256: "(not hashed: too large)", filtered: null },
      `the diff is ${diff.tooLarge} bytes, more than the grader parses`,
    );
  const sections = countFileHeaders(diff);
  if (sections > MAX_DIFF_FILES)
    return invalid(
      { sha256: sha256(diff), filtered: null },
      `the diff touches about ${sections} files, more than the grader parses (${MAX_DIFF_FILES})`,
    );
  let filtered: FilteredDiff;
  try {
    const { allow, deny, denyDefaults } = task.diff;
    filtered = filterDiff(diff, { allow, deny, defaultDeny: denyDefaults ? DEFAULT_DENY : [] });
  } catch (error) {
    if (!(error instanceof DiffParseError)) throw error;
    return invalid({ sha256: sha256(diff), filtered: null }, `the diff cannot be parsed: ${error.message}`);
  }
  logDrops(filtered, log);
  const record = { sha256: filtered.sha256, filtered };
  if (filtered.kept.length === 0)
    return {
      record,
      filtered: null,
      stop: {
        reason: "DIFF_EMPTY_AFTER_FILTER",
        message:
          filtered.dropped.length === 0
            ? "the diff changes no file (it is empty): nothing to grade; --baseline grades the base commit as it is"
            : "nothing of the diff is left after the allow/deny filter",
      },
    };
  return { record, filtered, stop: null };
}

function logDrops(filtered: FilteredDiff, log: RunLog): void {
  log.event("diff.filtered", {
    sha256: filtered.sha256,
    filteredSha256: filtered.filteredSha256,
    kept: filtered.kept.length,
    dropped: filtered.dropped,
  });
  // Every drop is in the diff.filtered event; the human account names the first few (a 50,000-file
  // diff must not become 50,000 log calls and their buffers).
  for (const entry of filtered.dropped.slice(0, MAX_DROPS_SHOWN))
    log.warn(`dropped ${entry.path}${entry.hunk ? ` ${entry.hunk}` : ""}: ${entry.why}`, { entry });
  if (filtered.dropped.length > MAX_DROPS_SHOWN)
    log.warn(
      `… and ${filtered.dropped.length - MAX_DROPS_SHOWN} more dropped entries (all in the oracle log)`,
    );
  log.info(
    `diff: ${filtered.kept.length} file(s) kept, ${new Set(filtered.dropped.map((d) => d.path)).size} dropped`,
  );
}

/** The prep's snapshot of the checkout before the diff (list mode: renormalisation by .gitattributes shows in neither). */
export const snapshotLines = (): string[] => [
  `git add -A -f && t0=$(git write-tree) || fail ${PREP_EXIT.list} "cannot snapshot the checkout"`,
];

/** The prep's `git apply --check` then `git apply`: no fuzz, no `--reject`, no `--unsafe-paths`. */
export const applyLines = (diffPath: string): string[] => [
  `git apply --check ${diffPath} || fail ${PREP_EXIT.applyCheck} "git apply --check refused the diff"`,
  `git apply ${diffPath} || fail ${PREP_EXIT.apply} "git apply failed"`,
];

/** The prep's listing of what git changed (NUL-separated paths on stdout), then the index back to HEAD. */
export const listLines = (): string[] => [
  `git add -A -f && t1=$(git write-tree) && git diff --name-only -z --no-renames "$t0" "$t1" || fail ${PREP_EXIT.list} "cannot list the changed files"`,
  `git reset -q || fail ${PREP_EXIT.reset} "git reset failed"`,
];

/** Compares what git changed with what the filter kept; a message when they differ. */
export function compareApplied(expected: readonly string[], changed: readonly string[]): string | null {
  const want = new Set(expected);
  const got = new Set(changed);
  const extra = [...got].filter((p) => !want.has(p)).map(displayPath);
  const missing = [...want].filter((p) => !got.has(p)).map(displayPath);
  if (extra.length === 0 && missing.length === 0) return null;
  const parts = [];
  if (extra.length) parts.push(`git changed files the filter did not keep: ${extra.slice(0, 10).join(", ")}`);
  if (missing.length)
    parts.push(`git did not change files the diff touches: ${missing.slice(0, 10).join(", ")}`);
  return parts.join("; ");
}

/**
 * What git changed against what the filter kept, and the base commit's time, from the listing
 * prep's stdout (the time, a newline, NUL-separated paths); the run's reason when they disagree.
 */
export function checkApplied(
  filtered: FilteredDiff | null,
  stdout: Buffer,
  log: RunLog,
  suite: "existing",
): RunOutcome | null {
  const out = stdout.toString("latin1");
  const newline = out.indexOf("\n");
  const epoch = out.slice(0, newline);
  const changed = out
    .slice(newline + 1)
    .split("\0")
    .filter((p) => p.length > 0);
  log.event("prep.changed", { suite, changed: changed.map(displayPath) });
  const mismatch = compareApplied(filtered?.expectedChanged ?? [], changed);
  if (mismatch) return { reason: "DIFF_DOES_NOT_APPLY", message: mismatch };
  if (!/^\d+$/.test(epoch))
    return { reason: "INFRA_ERROR", message: `prep printed no commit time: ${JSON.stringify(epoch)}` };
  return null;
}
