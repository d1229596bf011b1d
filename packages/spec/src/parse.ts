import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { type ErrorCode, OracleError } from "./errors.js";

function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
    .join(".")
    .replace(/\.\[/g, "[");
}

const errorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type" && issue.input === undefined) return "Required";
  return undefined;
};

/** Lines like `suites.hidden.command: Required`, one per problem; unknown fields are named one by one. */
export function describeIssues(error: z.ZodError): string[] {
  const lines: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) lines.push(`${issuePath([...issue.path, key])}: Unknown field`);
      continue;
    }
    const where = issuePath(issue.path);
    lines.push(where ? `${where}: ${issue.message}` : issue.message);
  }
  return lines;
}

/** Parses `data` with `schema`; on failure throws an OracleError whose message has one line per problem, each prefixed by `label`. */
export function parseWith<T extends z.ZodType>(
  schema: T,
  data: unknown,
  label: string,
  code: ErrorCode = "FILE_INVALID",
): z.output<T> {
  const result = schema.safeParse(data, { error: errorMap });
  if (result.success) return result.data;
  const lines = describeIssues(result.error).map((line) => `${label}: ${line}`);
  throw new OracleError(code, lines.join("\n"), { hint: `fix ${label} and try again` });
}

/** Reads and parses a JSON file. `label` is how the file is named in errors (a path relative to the root). */
export async function readJsonFile<T extends z.ZodType>(
  schema: T,
  file: string,
  label: string = file,
  code: ErrorCode = "FILE_INVALID",
): Promise<z.output<T>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    throw new OracleError(
      code,
      `${label}: cannot be read (${(cause as NodeJS.ErrnoException).code ?? cause})`,
      {
        cause,
      },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new OracleError(code, `${label}: not valid JSON (${(cause as Error).message})`, { cause });
  }
  return parseWith(schema, data, label, code);
}
