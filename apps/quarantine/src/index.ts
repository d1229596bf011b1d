export { type AssessedTask, type Assessment, assessTask } from "./assess.js";
export { baselineFindings, type Finding, goldFindings } from "./checks.js";
export { selectTasks } from "./discover.js";
export { type CheckedTask, type ListUpdate, updateQuarantineList } from "./quarantine-list.js";
export { reportFiles, writeReports } from "./report-files.js";
export { renderHtml } from "./report-html.js";
export { renderMarkdown } from "./report-md.js";
export { stabilityFindings } from "./stability.js";
export {
  type SweepEngine,
  type SweepOptions,
  type SweepProgress,
  sweep,
  sweepPaths,
  sweepStamp,
} from "./sweep.js";
export type { TaskOutcome } from "./task-sweep.js";
export type {
  CheckMode,
  GradeFn,
  GradeOptions,
  InfraSummary,
  RunRecord,
  SentinelStatus,
  SweepCounts,
  SweepReport,
  TaskReport,
  TaskStatus,
} from "./types.js";
