// What other packages and the end-to-end tests use; everything else is the grader's own.

export { matchEntries } from "@oracle/test-set";
export { openEnvelope, signEnvelope } from "./attest/dsse.js";
export { healthRecordDoubt, signHealthRecord } from "./attest/health.js";
export type { PublicKey, SigningKey } from "./attest/keys.js";
export { defaultKeyFile, loadSigningKey, trustList } from "./attest/keys.js";
export { MANIFEST_FILE, signManifest, verifyManifest } from "./attest/manifest.js";
export {
  canonicalJson,
  signedLine,
  signedStatementDoubt,
  type Verified,
  verifyLine,
} from "./attest/statement.js";
export { grade } from "./grade.js";
export type { GradeOptions } from "./grade-options.js";
export type { GradeFn } from "./prediction/grade-prediction.js";
export { queueGrade } from "./queue/queue-grade.js";
export type { RunningWorker } from "./queue/worker.js";
export { startWorker } from "./queue/worker.js";
export { sealRecordDoubt, taskSealPlan } from "./sentinels/plant-sentinels.js";
export { type ShellSegment, shellSegments } from "./sentinels/runner-command.js";
export { RECORD_FILE, readExpectedRecord, taskDigest, writeExpectedRecord } from "./task/expected-record.js";
export type { TaskInputs, Validation } from "./task/health.js";
export { taskInputs, taskValidation } from "./task/health.js";
export {
  readSealRecord,
  removeSealRecord,
  SEAL_RECORD_FILE,
  type SealRecordRead,
  writeSealRecord,
} from "./task/seal-record.js";
export { GRADER_VERSION } from "./version.js";
