import type { GradeResult } from "@oracle/spec";
import { buildResult } from "../reports/result.js";
import { type PipelineInputs, runPipeline } from "./pipeline.js";
import { RunScope } from "./run-scope.js";
import { type Limit, withinLimit } from "./wall-clock-limit.js";

/** What one supervised run is given: the pipeline's inputs, and what the result and the limit need. */
export interface SuperviseInputs extends PipelineInputs {
  mode: "grade" | "baseline";
  logPath: string;
  signal: AbortSignal | undefined;
  /** Every test in the result's suites, not a bounded sample (GradeOptions.listEveryTest). */
  listEveryTest?: boolean;
  /** The clean-up's bounds (tests make them short); CLEANUP_BOUNDS by default. */
  bounds?: Limit["bounds"];
}

/**
 * Runs the pipeline under the run's one wall-clock deadline and the abort signal, always removes
 * its containers, and returns the result (logged as the verdict). Rejects with the signal's reason
 * when aborted.
 */
export async function superviseRun(inputs: SuperviseInputs): Promise<GradeResult> {
  const { log, loaded, signal } = inputs;
  const scope = new RunScope(log, { name: loaded.task.image, reference: null, digest: null });
  const limit: Limit = {
    startedAt: inputs.startedAt,
    timeoutMs: inputs.timeoutMs,
    signal,
    bounds: inputs.bounds,
  };
  const outcome = await withinLimit(scope, limit, log, () => runPipeline(inputs, scope));
  const { facts } = scope;
  const result = buildResult({
    task: loaded.task.id,
    mode: inputs.mode,
    ...outcome,
    suites: facts.suites,
    ...(facts.sentinel ? { sentinel: facts.sentinel } : {}),
    ...(facts.seals ? { seals: facts.seals } : {}),
    ...(facts.expected ? { expected: facts.expected } : {}),
    image: facts.image,
    diff: facts.diff,
    timings: scope.timings,
    logPath: inputs.logPath,
    startedAt: inputs.startedAt,
    ...(inputs.listEveryTest ? { listEveryTest: true } : {}),
  });
  log.event("verdict", {
    verdict: result.verdict,
    reason: result.reason,
    message: result.message,
    testsHash: result.testsHash,
    testIds: result.testIds,
    testIdsOmitted: result.testIdsOmitted,
    timings: result.timings,
  });
  log.info(`verdict: ${result.verdict} (${result.reason}) ${result.message}`);
  log.info(`log: ${inputs.logPath}`);
  return result;
}
