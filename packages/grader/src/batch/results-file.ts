import { type FileHandle, mkdir, open, readFile, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { LegacyResultLineSchema, type ResultLine, ResultLineSchema } from "@oracle/spec";

/** What results.jsonl holds, as a resume reads it. */
export interface ResultLines {
  /** The lines by id (the first line of an id wins). */
  lines: Map<string, ResultLine>;
  /**
   * Ids whose line is in the format of an older grader (LegacyResultLineSchema): never reused, and
   * dropped when the file is rewritten; their predictions are graded again.
   */
  legacy: Set<string>;
  /** Where the good part of the file ends: a torn last line (a crash mid-write) is not a result. */
  validBytes: number;
}

type Parsed = { line: ResultLine } | { legacy: string } | null;

function parseLine(raw: string): Parsed {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  const line = ResultLineSchema.safeParse(data);
  if (line.success) return { line: line.data };
  const legacy = LegacyResultLineSchema.safeParse(data);
  return legacy.success ? { legacy: legacy.data.id } : null;
}

/**
 * The lines already in results.jsonl. A line that is neither a result nor an older grader's ends
 * the good part (a crash mid-write); `validBytes` is where it ends, so the writer can cut the tear
 * off before appending.
 */
export async function readResultLines(file: string): Promise<ResultLines> {
  const read: ResultLines = { lines: new Map(), legacy: new Set(), validBytes: 0 };
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return read;
    throw error;
  }
  let offset = 0;
  const size = Buffer.byteLength(text, "utf8");
  for (const raw of text.split("\n")) {
    const end = offset + Buffer.byteLength(raw, "utf8") + 1;
    const complete = end <= size;
    offset = end;
    if (raw.trim() === "") {
      if (complete) read.validBytes = end;
      continue;
    }
    const parsed = complete ? parseLine(raw) : null;
    if (!parsed) break;
    if ("legacy" in parsed) read.legacy.add(parsed.legacy);
    else if (!read.lines.has(parsed.line.id)) read.lines.set(parsed.line.id, parsed.line);
    read.validBytes = end;
  }
  return read;
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
