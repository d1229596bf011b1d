import { z } from "zod";

/** One line of the oracle's own predictions file: the candidate diff for one task, inline or in a file. */
export const PredictionLineSchema = z
  .strictObject({
    id: z.union([z.string().min(1, "may not be empty"), z.number().int()]).transform(String),
    task: z.string().min(1, "may not be empty"),
    diff: z.string().optional(),
    /** Relative paths start at the predictions file's folder. */
    diffPath: z.string().min(1, "may not be empty").optional(),
  })
  .refine((p) => (p.diff === undefined) !== (p.diffPath === undefined), {
    message: 'give exactly one of "diff" (the diff text) or "diffPath"',
    path: ["diff"],
  });
export type PredictionLine = z.output<typeof PredictionLineSchema>;

/**
 * One line of SWE-bench's predictions format (an external format: its names are SWE-bench's):
 * `instance_id` names both the prediction and the task (a task made by `new-task --swebench` keeps
 * the instance id as its id), `model_patch` is the diff. SWE-bench's own files carry more fields (a
 * model's full output, costs): they are ignored, not refused. A null patch (a model that produced
 * nothing) is an empty diff, as SWE-bench treats it.
 */
export const SweBenchPredictionSchema = z.object({
  instance_id: z.string().min(1, "may not be empty"),
  model_name_or_path: z.string().nullable().optional(),
  model_patch: z
    .string()
    .nullable()
    .transform((patch) => patch ?? ""),
});
export type SweBenchPrediction = z.output<typeof SweBenchPredictionSchema>;

const ids = z.array(z.string());
const count = z.number().int().nonnegative();

/**
 * swebench-report.json: a batch's results in the shape of SWE-bench's run report
 * (swebench/harness/reporting.py, schema_version 2; an external format: its names are SWE-bench's).
 */
export const SweBenchReportSchema = z.strictObject({
  total_instances: count,
  submitted_instances: count,
  completed_instances: count,
  resolved_instances: count,
  unresolved_instances: count,
  empty_patch_instances: count,
  error_instances: count,
  completed_ids: ids,
  incomplete_ids: ids,
  empty_patch_ids: ids,
  submitted_ids: ids,
  resolved_ids: ids,
  unresolved_ids: ids,
  error_ids: ids,
  schema_version: z.literal(2),
});
export type SweBenchReport = z.output<typeof SweBenchReportSchema>;
