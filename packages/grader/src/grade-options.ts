import { OracleError } from "@oracle/spec";
import type Docker from "dockerode";
import { z } from "zod";
import type { HumanLog } from "./log/oracle-log.js";
import type { WarmTicket } from "./run/warm-pool.js";
import type { DiffSource, PreparedTask } from "./task/prepare.js";

/** What to grade and how. `diff` is required in grade mode and forbidden in baseline mode. */
export interface GradeOptions {
  root: string;
  task: string;
  mode: "grade" | "baseline";
  /** The diff: a file, its text, or its bytes (a queue job's). */
  diff?: DiffSource;
  /** Overrides the task's timeoutSeconds. */
  timeoutSeconds?: number;
  /** The oracle log; default `<root>/logs/grade/<task>-<utc>-<diffsha12>-<run>.jsonl`. */
  logFile?: string;
  allowQuarantined?: boolean;
  /**
   * `fresh`: seal every comparison the planner finds, leaving tasks/<id>/seals.recorded.json aside
   * (the quarantine sweep's first runs, so the sites a gold run cannot pass are found again each
   * sweep); `recorded` (default): the sweep's record holds when it was made for this plan.
   */
  sealPlan?: "recorded" | "fresh";
  /**
   * List every test of both suites in the result's `suites.*.tests` (as many as the report caps let
   * a report hold), not the first MAX_LISTED_TESTS: the quarantine sweep records expected tests
   * from them, and a suite of more than 1,000 tests could never be recorded.
   */
  listEveryTest?: boolean;
  /**
   * The task as the caller already prepared it (prepare.ts: a batch or a worker prepares each task
   * once); without it the grade prepares the task itself.
   */
  prepared?: PreparedTask;
  /** The containers a batch's warm pool makes ahead for this grade (warm-pool.ts); without it the grade makes its own. */
  warm?: WarmTicket;
  signal?: AbortSignal;
  /** Receives the short human account. */
  logger?: HumanLog;
  docker?: Docker;
}

const GradeOptionsSchema = z
  .object({
    root: z.string().min(1),
    task: z.string().min(1),
    mode: z.enum(["grade", "baseline"]),
    diff: z
      .union([
        z.strictObject({ path: z.string().min(1) }),
        z.strictObject({ text: z.string() }),
        z.strictObject({ bytes: z.instanceof(Buffer) }),
      ])
      .optional(),
    timeoutSeconds: z.number().int().min(1).max(86400).optional(),
    logFile: z.string().min(1).optional(),
    allowQuarantined: z.boolean().optional(),
    sealPlan: z.enum(["recorded", "fresh"]).optional(),
    listEveryTest: z.boolean().optional(),
  })
  .refine((o) => (o.mode === "grade") === (o.diff !== undefined), {
    message: "grade mode needs a diff; baseline mode takes none",
    path: ["diff"],
  });

/** Checks the options' shape; USAGE when they are wrong. */
export function checkGradeOptions(options: GradeOptions): void {
  const { signal: _s, logger: _l, docker: _d, prepared: _p, warm: _w, ...plain } = options;
  const parsed = GradeOptionsSchema.safeParse(plain);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`);
    throw new OracleError("USAGE", lines.join("\n"));
  }
}
