import { createHash, randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { ERROR_CODES, type ErrorCode, type GradeResult, OracleError } from "@oracle/spec";
import type { GradeFn } from "../batch/grade-prediction.js";
import { loadTaskContext } from "../batch/task-context.js";
import { checkGradeOptions, type GradeOptions } from "../grade-options.js";
import { GRADER_VERSION } from "../version.js";
import { enqueueAndCollect } from "./collector.js";
import { type GradeJob, type GradeJobResult, gradeJobId, readDiffBytes } from "./job.js";

async function jobFor(options: GradeOptions): Promise<GradeJob> {
  const root = resolve(options.root);
  const context = await loadTaskContext(root, options.task);
  if (!context.ok) throw context.error;
  if (context.quarantined !== null && !options.allowQuarantined)
    throw new OracleError(
      "TASK_QUARANTINED",
      `task '${options.task}' is quarantined (${context.quarantined})`,
      {
        hint: "fix the task and run pnpm quarantine-sweep, or grade it anyway with --allow-quarantined",
      },
    );
  const bytes = options.diff ? await readDiffBytes(options.diff) : null;
  return {
    v: 1,
    batchId: null,
    id: randomUUID(),
    task: options.task,
    mode: options.mode,
    taskHash: context.taskHash,
    imageDigest: context.imageDigest,
    graderVersion: GRADER_VERSION,
    diff: bytes && {
      base64: bytes.toString("base64"),
      sha256: createHash("sha256").update(bytes).digest("hex"),
    },
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined === true,
  };
}

function thrownBy(outcome: GradeJobResult): OracleError {
  const { reason, message } = outcome.line;
  const code: ErrorCode = reason in ERROR_CODES ? (reason as ErrorCode) : "INFRA_ERROR";
  return new OracleError(code, message);
}

/**
 * A `grade()` that runs on a queue worker instead of here: same options, same result, same errors
 * (a job a worker refuses, because its task folder or image differs, throws INFRA_ERROR). For
 * `quarantine-sweep --queue`. The oracle log is written on the worker (`logFile` is not used);
 * the result's `logPath` names it. `infraRetries` (default 0) are retries on the queue.
 */
export function queueGrade(
  queueUrl: string,
  settings: { infraRetries?: number; pollMs?: number } = {},
): GradeFn {
  return async (options: GradeOptions): Promise<GradeResult> => {
    checkGradeOptions(options);
    options.signal?.throwIfAborted();
    const data = await jobFor(options);
    let outcome: GradeJobResult | null = null;
    await enqueueAndCollect([{ jobId: gradeJobId(data.id, data.id, data.diff?.sha256 ?? null), data }], {
      queueUrl,
      infraRetries: settings.infraRetries ?? 0,
      ...(settings.pollMs ? { pollMs: settings.pollMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onResult: async (_job, result) => {
        outcome = result;
      },
    });
    const done = outcome as GradeJobResult | null;
    if (done === null) throw new OracleError("INFRA_ERROR", "the queue returned no result");
    if (done.result === null) throw thrownBy(done);
    return done.result;
  };
}
