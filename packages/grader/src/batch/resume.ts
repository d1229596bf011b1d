import type { ResultLine } from "@oracle/spec";
import type { PublicKey } from "../attest/keys.js";
import { verifyLine } from "../attest/statement.js";

/**
 * Every input that decides a verdict, as a line of results.jsonl records it. A recorded line is
 * reused on a resume only when each part equals today's: the same prediction id with another diff,
 * another task folder (task.json, hidden tests, mirror, gold diff, limits), another image digest,
 * another grader or another wall-clock limit is graded again.
 */
export interface LineKey {
  diffSha256: string | null;
  taskHash: string | null;
  imageDigest: string | null;
  graderVersion: string;
  timeoutSeconds: number | null;
}

/** The key parts, and the word the start line uses when one differs. */
const PARTS: ReadonlyArray<[keyof LineKey, string]> = [
  ["diffSha256", "diff changed"],
  ["taskHash", "task changed"],
  ["imageDigest", "image changed"],
  ["graderVersion", "grader changed"],
  ["timeoutSeconds", "limits changed"],
];

/** The words the start line uses for a line whose signed statement does not verify. */
export const NOT_VERIFIED = "not signed as recorded";

/** The word the start line uses for a line in an older grader's results.jsonl format. */
export const LEGACY_FORMAT = "older results format";

/**
 * Why a recorded line may not stand for today's inputs ([] when it may). Only graded lines are kept:
 * an infra error is tried again, and a line of no run (unknown task, quarantined, unreadable diff) is
 * decided again from today's task list. A line without a part (a worker's line that no batch keyed)
 * is regraded.
 */
export function staleParts(
  line: ResultLine,
  now: LineKey,
  trusted: ReadonlyMap<string, PublicKey>,
  batchId: string,
): string[] {
  if (line.outcome !== "graded") return [`was ${line.outcome.replace("_", " ")}`];
  // A line is reused only as signed for this batch: one edited on disk, unsigned, signed by an
  // unknown key or copied from another batch's results is graded again.
  if (!verifyLine(line, trusted, { batch: batchId, job: null, jobDigest: null, resultDigest: null }).ok)
    return [NOT_VERIFIED];
  const why: string[] = [];
  for (const [part, word] of PARTS) {
    const recorded = line[part];
    // A run refused before any container (an empty or invalid diff) used no image: its verdict does not depend on one.
    if (part === "imageDigest" && recorded === null) continue;
    if (recorded === undefined || recorded !== now[part]) why.push(word);
  }
  return why;
}

/** Counts of the reasons lines were regraded, as the start line prints them: "diff changed 1, image changed 1". */
export function describeRegraded(reasons: ReadonlyMap<string, number>): string {
  return [...reasons].map(([why, n]) => `${why} ${n}`).join(", ");
}
