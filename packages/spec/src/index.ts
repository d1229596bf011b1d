export type { DsseEnvelope, GradePredicate, GradeStatement } from "./attestation.js";
export {
  DsseEnvelopeSchema,
  GRADE_PREDICATE_TYPE,
  GRADE_RESULT_PREDICATE_TYPE,
  GradePredicateSchema,
  GradeStatementSchema,
  HEALTH_RECORD_PREDICATE_TYPE,
  IN_TOTO_PAYLOAD_TYPE,
  NO_DIFF,
  STATEMENT_TYPE,
} from "./attestation.js";
export type {
  BatchFile,
  BatchManifest,
  BatchSummary,
  BatchSummaryFile,
  CacheInputs,
  Outcome,
  ResultCacheEntry,
  ResultLine,
} from "./batch.js";
export {
  BATCH_MANIFEST_PAYLOAD_TYPE,
  BatchFileSchema,
  BatchManifestSchema,
  BatchSummaryFileSchema,
  BatchSummarySchema,
  CacheInputsSchema,
  LegacyResultLineSchema,
  OUTCOMES,
  OutcomeSchema,
  ResultCacheEntrySchema,
  ResultLineSchema,
} from "./batch.js";
export type { FingerprintCache, LockfileCacheFile } from "./caches.js";
export { FingerprintCacheSchema, LockfileCacheFileSchema } from "./caches.js";
export { DEFAULT_DENY } from "./deny-defaults.js";
export type { ErrorCode, OracleErrorOptions } from "./errors.js";
export { ERROR_CODES, ErrorCodeSchema, formatError, isOracleError, OracleError } from "./errors.js";
export type { ExpectedRecord, SealRecord } from "./expected-record.js";
export { ExpectedRecordSchema, SealRecordSchema } from "./expected-record.js";
export { writeJsonAtomic } from "./files.js";
export type { GateBatch, GateDecision, GateReport, GateTask, GateTest } from "./gate.js";
export {
  GATE_DECISIONS,
  GATE_PREDICATE_TYPE,
  GATE_TASK_OUTCOMES,
  GateDecisionSchema,
  GateReportSchema,
  GateTestSchema,
} from "./gate.js";
export type { HealthFile, HealthRecord, ValidationState } from "./health.js";
export {
  HealthFileSchema,
  HealthRecordSchema,
  healthFilePath,
  readHealthFile,
  VALIDATION_STATES,
  ValidationStateSchema,
} from "./health.js";
export { taskJsonSchema } from "./json-schema.js";
export type { LogEventData, LogEventName, LoggedEvent, LoggedEventData, LogLine } from "./log-events.js";
export { LOG_EVENT_NAMES, LOG_EVENT_SCHEMAS, LogLineSchema, readLogEvent } from "./log-events.js";
export { describeIssues, parseWith, readJsonFile } from "./parse.js";
export type { PredictionLine, SweBenchPrediction, SweBenchReport } from "./predictions.js";
export { PredictionLineSchema, SweBenchPredictionSchema, SweBenchReportSchema } from "./predictions.js";
export type { QuarantineEntry, QuarantineFile, QuarantineFlag, QuarantineReason } from "./quarantine.js";
export {
  QUARANTINE_FLAGS,
  QUARANTINE_HINTS,
  QuarantineEntrySchema,
  QuarantineFileSchema,
  QuarantineReasonSchema,
  quarantineFilePath,
  quarantineHint,
  readQuarantineFile,
} from "./quarantine.js";
export type { GradeJob, GradeJobResult } from "./queue.js";
export { GRADE_JOB_VERSION, GradeJobResultSchema, GradeJobSchema } from "./queue.js";
export type { ImageBuild, ImageRecord, RegistryFile, RegistryLockOwner } from "./registry.js";
export {
  ImageBuildSchema,
  ImageRecordSchema,
  RegistryFileSchema,
  RegistryLockOwnerSchema,
  readRegistryFile,
  registryFilePath,
} from "./registry.js";
export type {
  DroppedEntry,
  ExpectedResult,
  GradeResult,
  ReasonClass,
  ReasonCode,
  SealsResult,
  SentinelResult,
  SentinelState,
  SuiteResult,
  TestCase,
  TestOutcome,
} from "./result.js";
export {
  DroppedEntrySchema,
  ExpectedResultSchema,
  GradeResultSchema,
  MAX_EXPECTED_LISTED,
  REASON_CLASS,
  REASON_CLASSES,
  REASON_CODES,
  ReasonCodeSchema,
  SealsResultSchema,
  SuiteResultSchema,
  TestCaseSchema,
  TestOutcomeSchema,
} from "./result.js";
export type {
  CheckMode,
  InfraSummary,
  RunReason,
  RunRecord,
  SentinelStatus,
  SuiteSummary,
  SweepCounts,
  SweepReport,
  TaskReport,
  TaskStatus,
} from "./sweep-report.js";
export {
  RunRecordSchema,
  SweepReportSchema,
  TaskReportSchema,
} from "./sweep-report.js";
export type { ExpectedTests, LoadedTask, Task } from "./task.js";
export {
  ExistingSuiteSchema,
  ExpectedTestsSchema,
  HiddenSuiteSchema,
  listTaskIds,
  loadTask,
  parseTask,
  RESERVED_ENV,
  ResourcesSchema,
  TaskSchema,
  tasksDir,
} from "./task.js";
