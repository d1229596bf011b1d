import { createHash, randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { GRADE_JOB_VERSION, type GradeJob, type GradeResult, OracleError } from "@oracle/spec";
import { loadSigningKey, trustList } from "../attest/keys.js";
import { checkGradeOptions, type GradeOptions } from "../grade-options.js";
import type { GradeFn } from "../prediction/grade-prediction.js";
import { checkQuarantine, prepareTask, readDiffBytes } from "../task/prepare.js";
import { GRADER_VERSION } from "../version.js";
import { type CollectedAnswer, enqueueAndCollect } from "./collector.js";
import { gradeJobId } from "./job.js";

async function jobFor(options: GradeOptions): Promise<GradeJob> {
  const task = options.prepared ?? (await prepareTask(resolve(options.root), options.task));
  checkQuarantine(task, options.allowQuarantined === true);
  const [hashes, imageDigest] = await Promise.all([task.hashes(), task.image.currentDigest()]);
  const bytes = options.diff ? await readDiffBytes(options.diff) : null;
  return {
    v: GRADE_JOB_VERSION,
    batchId: null,
    id: randomUUID(),
    task: options.task,
    mode: options.mode,
    taskHash: hashes.content,
    imageDigest,
    graderVersion: GRADER_VERSION,
    diff: bytes && {
      base64: bytes.toString("base64"),
      sha256: createHash("sha256").update(bytes).digest("hex"),
    },
    ...(options.timeoutSeconds ? { timeoutSeconds: options.timeoutSeconds } : {}),
    allowQuarantined: options.allowQuarantined === true,
  };
}

/** The error a worker's line carries when no run happened (a refusal is INFRA_ERROR). */
function thrownBy(outcome: CollectedAnswer): OracleError {
  const { error, message } = outcome.line;
  return new OracleError(error ?? "INFRA_ERROR", message);
}

/**
 * A `grade()` that runs on a queue worker instead of here: same options, same result, same errors
 * (a job a worker refuses, because its task folder or image differs, throws INFRA_ERROR). For
 * `quarantine-sweep --queue`. The oracle log is written on the worker (`logFile` is not used);
 * the result's `logPath` names it. `infraRetries` (default 0) are retries on the queue.
 */
export function queueGrade(
  queueUrl: string,
  settings: { infraRetries?: number; pollMs?: number; trustKeys?: readonly string[] } = {},
): GradeFn {
  return async (options: GradeOptions): Promise<GradeResult> => {
    checkGradeOptions(options);
    options.signal?.throwIfAborted();
    const data = await jobFor(options);
    let outcome: CollectedAnswer | null = null;
    await enqueueAndCollect([{ jobId: gradeJobId(data.id, data.id, data.diff?.sha256 ?? null), data }], {
      queueUrl,
      trusted: trustList(loadSigningKey(), settings.trustKeys),
      infraRetries: settings.infraRetries ?? 0,
      ...(settings.pollMs ? { pollMs: settings.pollMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onResult: async (_job, result) => {
        outcome = result;
      },
    });
    const done = outcome as CollectedAnswer | null;
    if (done === null) throw new OracleError("INFRA_ERROR", "the queue returned no result");
    if (done.result === null) throw thrownBy(done);
    return done.result;
  };
}
