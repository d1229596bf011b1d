import type { FlagSpec } from "@oracle/cli-kit";

/**
 * The grade command line's flags (cli-options.ts GRADE_LINE) and which of them name a file the grade
 * opens: one source for the parser and for the local grader's client (serve/client.ts), which loads
 * nothing but Node's own modules (no zod, no cli-kit: the import above is a type's, gone once compiled).
 */
export const GRADE_FLAGS = {
  root: { type: "string" },
  diff: { type: "string" },
  baseline: { type: "boolean" },
  log: { type: "string" },
  result: { type: "string" },
  timeout: { type: "string" },
  "allow-quarantined": { type: "boolean" },
} as const satisfies Readonly<Record<string, FlagSpec>>;

/** The flags whose value the grade opens as a file (read: --diff; written: --result, --log). */
export const GRADE_FILE_FLAGS = ["diff", "result", "log"] as const satisfies ReadonlyArray<
  keyof typeof GRADE_FLAGS
>;
