import { z } from "zod";
import { ImageRecordSchema } from "./registry.js";
import {
  DroppedEntrySchema,
  ExpectedResultSchema,
  ReasonCodeSchema,
  SealsResultSchema,
  SentinelResultSchema,
} from "./result.js";

const suite = z.enum(["existing", "hidden"]);
const framework = SentinelResultSchema.shape.framework.unwrap();
/** dockerode's container options as the grader passed them (an object; its shape is the engine's). */
const engineOptions = z.custom<object>((value) => typeof value === "object" && value !== null);

/**
 * The oracle log's events (one JSON line each; winston adds `level`, `message` = the event's name,
 * `step` = the same name, `timestamp`, and the run's `component`, `run` and `task`), with what each
 * carries. The log writer accepts only these names with these payloads; the log reader parses them.
 */
export const LOG_EVENT_SCHEMAS = {
  /** The run starts: what it grades, with the task as loaded. */
  start: z.strictObject({
    graderVersion: z.string(),
    root: z.string(),
    mode: z.enum(["grade", "baseline"]),
    pid: z.number().int(),
    diffSha256: z.string().nullable(),
    /** task.json's fields, as loaded. */
    task: z.looseObject({ id: z.string() }),
  }),
  /** The diff after the allow/deny filter: every dropped file or hunk with why. */
  "diff.filtered": z.strictObject({
    sha256: z.string(),
    filteredSha256: z.string(),
    kept: z.number().int().nonnegative(),
    dropped: z.array(DroppedEntrySchema),
  }),
  /** The image the run resolved to (`ok`, what it runs as and its record), or why there is none (`message`). */
  image: z.strictObject({
    ok: z.boolean(),
    name: z.string(),
    reference: z.string().nullable(),
    digest: z.string().nullable(),
    runAs: z.string().optional(),
    record: ImageRecordSchema.optional(),
    message: z.string().optional(),
  }),
  /** The expected tests the run holds the reports to (task.json's, the sweep's record, or none). */
  "expected.loaded": z.strictObject({
    source: ExpectedResultSchema.shape.source,
    suites: z.strictObject({
      existing: z.array(z.string()).nullable(),
      hidden: z.array(z.string()).nullable(),
    }),
    /** Why a sweep record was not used (stale, invalid). */
    ignored: z.string().optional(),
    /** The hidden suite's FAIL_TO_PASS entries (the seals' summary counts those a strong seal covers). */
    failToPass: z.array(z.string()).optional(),
  }),
  /** The host mirror's base-only repository the containers get. */
  "mirror.base": z.strictObject({ path: z.string(), cached: z.boolean() }),
  /** A step of the run and how long it took. */
  step: z.strictObject({ name: z.string(), ms: z.number().nonnegative() }),
  /**
   * The sentinels planted in a suite's test files (`suite` absent: the hidden suite's), or none
   * (`none: true`) with why.
   */
  sentinel: z.strictObject({
    suite: z.literal("existing").optional(),
    none: z.literal(true).optional(),
    framework: framework.optional(),
    files: z.array(z.string()).optional(),
    /** Files whose sentinels the command's selection surely collects. */
    required: z.array(z.string()).optional(),
    note: z.string().optional(),
  }),
  /** The driver script a suite's container runs. */
  "driver.script": z.strictObject({ suite, script: z.string() }),
  /** A suite's container options, as given to the engine. */
  "container.create": z.strictObject({ suite, options: engineOptions }),
  "container.started": z.strictObject({ id: z.string(), suite }),
  /** A suite's container made and started ahead by a batch's warm pool, with the options it was made from. */
  "container.warm": z.strictObject({ suite, id: z.string(), options: engineOptions }),
  /** A suite's prep (checkout, apply, reset, copy) ended. */
  "prep.done": z.strictObject({ suite, exitCode: z.number().int(), stderr: z.string() }),
  /** The files git changed in the checkout, compared with what the filter kept. */
  "prep.changed": z.strictObject({ suite, changed: z.array(z.string()) }),
  /** A suite's command starts, with its environment. */
  "suite.start": z.strictObject({ suite, command: z.string(), env: z.array(z.string()) }),
  /** A chunk of a suite's output, as it came. */
  "suite.output": z.strictObject({ suite, stream: z.enum(["stdout", "stderr"]), text: z.string() }),
  /** What the driver reported after the suite: the kill loop's rounds and survivors, OOM kills. */
  "collect.done": z.strictObject({
    suite,
    kill: z.strictObject({ rounds: z.number().int(), survivors: z.number().int() }).optional(),
    oomKills: z.number().int().optional(),
    driverExitCode: z.number().int().nullable(),
  }),
  /** A suite's exit, with the size of its output (and the end of a truncated stream). */
  "suite.exit": z.strictObject({
    suite,
    exitCode: z.number().int().nullable(),
    durationMs: z.number().nonnegative(),
    stdoutBytes: z.number().int().nonnegative(),
    stderrBytes: z.number().int().nonnegative(),
    stdoutTail: z.string().optional(),
    stderrTail: z.string().optional(),
  }),
  /** The hidden suite's seals as planned: each site's key, test, line, comparison and strength (never its expected value). */
  "seals.planned": z.strictObject({
    files: z.array(z.string()),
    sites: z.array(
      z.strictObject({
        key: z.string(),
        test: z.string(),
        line: z.number().int(),
        kind: z.string(),
        strength: z.string(),
      }),
    ),
    unsealed: z.array(z.strictObject({ test: z.string(), rule: z.string() })),
    source: z.enum(["validated", "planned"]),
    /** The plan came from the root's plan cache (the same texts and planner planned it before). */
    cached: z.boolean().optional(),
  }),
  /** What the seals showed. */
  "seals.checked": SealsResultSchema,
  /** What a suite's sentinels showed. */
  "sentinel.checked": z.strictObject({ suite, ...SentinelResultSchema.shape }),
  /** What the expected tests showed. */
  "expected.checked": ExpectedResultSchema,
  /** A container was removed at the end (or could not be, within its bound). */
  "container.removed": z.strictObject({ id: z.string(), removed: z.boolean() }),
  /** The verdict, its reason and the tests it rests on. */
  verdict: z.strictObject({
    verdict: z.enum(["PASS", "FAIL"]),
    reason: ReasonCodeSchema,
    message: z.string(),
    testsHash: z.string(),
    testIds: z.array(z.string()),
    testIdsOmitted: z.number().int().nonnegative().optional(),
    timings: z.record(z.string(), z.number()),
  }),
} as const;

/**
 * Every line of an oracle log: winston's `level`, `message` and `timestamp`, with the run's
 * `component`, `run` and `task` (the task's id; a `start` event's `task` is the task itself), and
 * the event's or the account line's own fields.
 */
export const LogLineSchema = z.looseObject({
  level: z.string(),
  message: z.string(),
  timestamp: z.string().optional(),
  run: z.string().optional(),
});
export type LogLine = z.output<typeof LogLineSchema>;

export type LogEventName = keyof typeof LOG_EVENT_SCHEMAS;
export const LOG_EVENT_NAMES = Object.keys(LOG_EVENT_SCHEMAS) as LogEventName[];

/** What the writer gives for an event. */
export type LogEventData<K extends LogEventName> = z.input<(typeof LOG_EVENT_SCHEMAS)[K]>;

/**
 * What a reader gets of an event: every field may be missing (a log of an older grader), and fields
 * it does not know are kept; a field that is there has its type.
 */
export type LoggedEventData<K extends LogEventName> = Partial<z.output<(typeof LOG_EVENT_SCHEMAS)[K]>> &
  Record<string, unknown>;

/** One event read from a log, its name and payload tied together. */
export type LoggedEvent = { [K in LogEventName]: { name: K; data: LoggedEventData<K> } }[LogEventName];

const lenient = new Map<string, z.ZodType>(
  LOG_EVENT_NAMES.map((name) => [name, LOG_EVENT_SCHEMAS[name].partial().loose()]),
);

const isEventName = (name: unknown): name is LogEventName =>
  typeof name === "string" && Object.hasOwn(LOG_EVENT_SCHEMAS, name);

/**
 * The event a parsed log line holds: `{ name, data }` when its `step` names an event whose fields
 * have their types, `null` when it names none (a line of the human account), `"invalid"` when it
 * names an event whose fields do not fit.
 */
export function readLogEvent(line: LogLine): LoggedEvent | null | "invalid" {
  if (!isEventName(line.step)) return null;
  const parsed = lenient.get(line.step)?.safeParse(line);
  if (!parsed?.success) return "invalid";
  return { name: line.step, data: parsed.data } as LoggedEvent;
}
