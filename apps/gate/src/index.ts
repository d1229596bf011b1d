// What other packages and the end-to-end tests use.

export { decide, type GateInput, type GateParameters, MIN_BOOTSTRAP_TASKS } from "./decide.js";
export { estimateModel, type PlanInput, type PlanRow, plan } from "./plan.js";
export { type LoadedBatch, loadBatch } from "./read-batch.js";
export { mcnemarExact, pairedBootstrap, tangoInterval } from "./stats.js";
