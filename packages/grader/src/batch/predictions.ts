import { createReadStream } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { createInterface } from "node:readline";
import {
  describeIssues,
  OracleError,
  type PredictionLine,
  PredictionLineSchema,
  SweBenchPredictionSchema,
} from "@oracle/spec";
import type { z } from "zod";

/** A line is in SWE-bench's format when it names an `instance_id`; otherwise it is the oracle's own. */
function isSweBenchLine(data: unknown): boolean {
  return typeof data === "object" && data !== null && "instance_id" in data;
}

/** A parsed prediction; `diffPath`, when given, is absolute (relative paths start at the predictions file's folder). */
export interface Prediction {
  id: string;
  task: string;
  /** 1-based line in the predictions file. */
  line: number;
  diff: { text: string } | { path: string };
}

/** At most this many problems are listed in the error; the count says how many there were. */
const MAX_LISTED = 20;

function toPrediction(data: PredictionLine, line: number, base: string): Prediction {
  const diff =
    data.diffPath !== undefined
      ? { path: isAbsolute(data.diffPath) ? data.diffPath : resolve(base, data.diffPath) }
      : { text: data.diff ?? "" };
  return { id: data.id, task: data.task, line, diff };
}

/** Problems of one line, as `label:N: field: message` strings; the prediction when there are none. */
export function parsePredictionLine(
  text: string,
  line: number,
  label: string,
  base: string,
): Prediction | string[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return [`${label}:${line}: not valid JSON (${(error as Error).message})`];
  }
  const issues = (error: z.ZodError) => describeIssues(error).map((issue) => `${label}:${line}: ${issue}`);
  if (isSweBenchLine(data)) {
    const swe = SweBenchPredictionSchema.safeParse(data);
    if (!swe.success) return issues(swe.error);
    return {
      id: swe.data.instance_id,
      task: swe.data.instance_id,
      line,
      diff: { text: swe.data.model_patch },
    };
  }
  const parsed = PredictionLineSchema.safeParse(data);
  if (!parsed.success) return issues(parsed.error);
  return toPrediction(parsed.data, line, base);
}

/**
 * Reads a predictions file (JSON Lines; blank lines are ignored). Any bad line, or an id given twice,
 * fails the whole batch before anything is graded (FILE_INVALID listing every problem with its line
 * number): a pass rate is only meaningful over the whole file, so nothing is skipped silently.
 */
export async function readPredictions(file: string, label = file): Promise<Prediction[]> {
  const base = dirname(resolve(file));
  const predictions: Prediction[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  let line = 0;
  try {
    const lines = createInterface({
      input: createReadStream(file, "utf8"),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const text of lines) {
      line += 1;
      if (text.trim() === "") continue;
      const parsed = parsePredictionLine(text, line, label, base);
      if (Array.isArray(parsed)) {
        problems.push(...parsed);
        continue;
      }
      const first = seen.get(parsed.id);
      if (first !== undefined)
        problems.push(`${label}:${line}: id: '${parsed.id}' already used on line ${first}`);
      else seen.set(parsed.id, line);
      predictions.push(parsed);
    }
  } catch (cause) {
    throw new OracleError(
      "FILE_INVALID",
      `${label}: cannot be read (${(cause as NodeJS.ErrnoException).code ?? cause})`,
      {
        cause,
        hint: "pass a JSON Lines file with --batch",
      },
    );
  }
  if (problems.length > 0) {
    const listed = problems.slice(0, MAX_LISTED);
    if (problems.length > MAX_LISTED) listed.push(`… and ${problems.length - MAX_LISTED} more problems`);
    throw new OracleError("FILE_INVALID", listed.join("\n"), {
      hint: `each line must be {"id": ..., "task": ..., "diff": "<unified diff>"} (or "diffPath"), or SWE-bench's {"instance_id": ..., "model_name_or_path": ..., "model_patch": ...}; fix ${label} and try again`,
    });
  }
  if (predictions.length === 0)
    throw new OracleError("FILE_INVALID", `${label}: holds no prediction`, {
      hint: "one JSON object per line",
    });
  return predictions;
}
