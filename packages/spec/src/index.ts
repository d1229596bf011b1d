export { DEFAULT_DENY } from "./deny-defaults.js";
export type { ErrorCode, OracleErrorOptions } from "./errors.js";
export { ERROR_CODES, formatError, isOracleError, OracleError } from "./errors.js";
export { writeJsonAtomic } from "./files.js";
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
export { describeIssues, parseWith, readJsonFile } from "./parse.js";
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
export type { ImageBuild, ImageRecord, RegistryFile } from "./registry.js";
export {
  ImageBuildSchema,
  ImageRecordSchema,
  RegistryFileSchema,
  readRegistryFile,
  registryFilePath,
} from "./registry.js";
export type {
  DroppedEntry,
  ExpectedResult,
  GradeResult,
  ReasonCode,
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
  REASON_CODES,
  ReasonCodeSchema,
  SuiteResultSchema,
  TestCaseSchema,
  TestOutcomeSchema,
} from "./result.js";
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
