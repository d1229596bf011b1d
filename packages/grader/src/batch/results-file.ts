import { type FileHandle, mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";

/**
 * How a prediction ended: `graded` counts in the pass rate; `infra_error` (INFRA_ERROR after
 * retries: the engine or host failed, or the code under test killed the oracle's driver) counts in
 * it as not passed and is also listed apart; `quarantined` (the task is on the quarantine list) and
 * `error` (no run: unknown or invalid task, unreadable diff, image not built) are listed apart and
 * not counted.
 */
export const OUTCOMES = ["graded", "quarantined", "infra_error", "error"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** One line of results.jsonl. */
export const ResultLineSchema = z.strictObject({
  id: z.string(),
  task: z.string(),
  outcome: z.enum(OUTCOMES),
  /** The grader's verdict when a run happened, null when none did. */
  verdict: z.enum(["PASS", "FAIL"]).nullable(),
  /** A grade reason code (PASS, TESTS_FAILED, …) or, when no run happened, an error code. */
  reason: z.string(),
  message: z.string(),
  tests_hash: z.string().nullable(),
  /** The oracle log of the counted run, on the host that ran it. */
  log: z.string().nullable(),
  seconds: z.number().nonnegative(),
  /** True when the result was reused from the result cache instead of running the grade. */
  cached: z.boolean(),
  /** Runs it took (INFRA_ERROR runs are retried). 0 when cached or no run happened. */
  attempts: z.number().int().nonnegative(),
  diff_sha256: z.string().nullable(),
  image_digest: z.string().nullable(),
  /** The task folder's content hash it was graded on (see task-hash.ts); absent on lines of older graders. */
  task_hash: z.string().nullable().optional(),
  /** The grader that graded it. */
  grader_version: z.string().nullable().optional(),
  /** The wall-clock limit it was graded with (the task's, or the batch's --timeout). */
  timeout_seconds: z.number().nullable().optional(),
  /**
   * Whether the task was validated by a quarantine sweep on the inputs this line was graded on
   * (current), changed since (stale) or never judged; absent on lines of older graders.
   */
  validation: z.enum(["current", "stale", "never"]).optional(),
  /** `host:pid` of the process that graded it. */
  worker: z.string().nullable(),
});
export type ResultLine = z.output<typeof ResultLineSchema>;

/**
 * The lines already in results.jsonl, by id (the first line of an id wins). A torn last line (a
 * crash mid-write) is not a result; `validBytes` is where the good part ends, so the writer can cut
 * the tear off before appending.
 */
export async function readResultLines(
  file: string,
): Promise<{ lines: Map<string, ResultLine>; validBytes: number }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { lines: new Map(), validBytes: 0 };
    throw error;
  }
  const lines = new Map<string, ResultLine>();
  let validBytes = 0;
  let offset = 0;
  const size = Buffer.byteLength(text, "utf8");
  for (const raw of text.split("\n")) {
    const end = offset + Buffer.byteLength(raw, "utf8") + 1;
    const complete = end <= size;
    offset = end;
    if (raw.trim() === "") {
      if (complete) validBytes = end;
      continue;
    }
    const parsed = complete ? safeLine(raw) : null;
    if (!parsed) break;
    if (!lines.has(parsed.id)) lines.set(parsed.id, parsed);
    validBytes = end;
  }
  return { lines, validBytes };
}

function safeLine(raw: string): ResultLine | null {
  try {
    const parsed = ResultLineSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Replaces results.jsonl with `lines` (write to a temporary file, fsync, rename): a crash leaves the old or the new file. */
export async function rewriteResults(file: string, lines: readonly ResultLine[]): Promise<number> {
  const text = lines.map((line) => `${JSON.stringify(ResultLineSchema.parse(line))}\n`).join("");
  const temp = `${file}.${process.pid}.tmp`;
  const handle = await open(temp, "w");
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  return Buffer.byteLength(text);
}

/** Appends result lines to results.jsonl, one write + fsync per line, so a crash loses at most the line being written. */
export class ResultsWriter {
  private constructor(
    private readonly handle: FileHandle,
    private queue: Promise<void> = Promise.resolve(),
  ) {}

  /** Opens `file` for appending, first cutting it to `validBytes` (drops a torn last line). */
  static async open(file: string, validBytes: number): Promise<ResultsWriter> {
    await mkdir(dirname(file), { recursive: true });
    const handle = await open(file, "a+");
    const { size } = await handle.stat();
    if (size > validBytes) await handle.truncate(validBytes);
    return new ResultsWriter(handle);
  }

  /** Appends one line; lines are written in call order. */
  append(line: ResultLine): Promise<void> {
    const text = `${JSON.stringify(ResultLineSchema.parse(line))}\n`;
    const next = this.queue.then(async () => {
      await this.handle.write(text);
      await this.handle.sync();
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.queue;
    await this.handle.close();
  }
}
