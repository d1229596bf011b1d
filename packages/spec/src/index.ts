export { ERROR_CODES, OracleError, formatError, isOracleError } from "./errors.js";
export type { ErrorCode, OracleErrorOptions } from "./errors.js";
export { describeIssues, parseWith, readJsonFile } from "./parse.js";
export { writeJsonAtomic } from "./files.js";
export {
  ExistingSuiteSchema,
  HiddenSuiteSchema,
  RESERVED_ENV,
  ResourcesSchema,
  TaskSchema,
  listTaskIds,
  loadTask,
  parseTask,
  tasksDir,
} from "./task.js";
export type { LoadedTask, Task } from "./task.js";
export {
  ImageBuildSchema,
  ImageRecordSchema,
  RegistryFileSchema,
  readRegistryFile,
  registryFilePath,
} from "./registry.js";
export type { ImageBuild, ImageRecord, RegistryFile } from "./registry.js";
export {
  QUARANTINE_FLAGS,
  QuarantineEntrySchema,
  QuarantineFileSchema,
  QuarantineReasonSchema,
  quarantineFilePath,
  readQuarantineFile,
} from "./quarantine.js";
export type { QuarantineEntry, QuarantineFile, QuarantineFlag, QuarantineReason } from "./quarantine.js";
export {
  DroppedEntrySchema,
  GradeResultSchema,
  REASON_CODES,
  ReasonCodeSchema,
  SuiteResultSchema,
  TestCaseSchema,
  TestOutcomeSchema,
} from "./result.js";
export type { DroppedEntry, GradeResult, ReasonCode, SuiteResult, TestCase, TestOutcome } from "./result.js";
export { taskJsonSchema } from "./json-schema.js";
