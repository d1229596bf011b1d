import { hostname } from "node:os";
import { pidNamespace } from "./lease.js";

/**
 * The label keys on everything the oracle creates in the engine (docs/reference.md, "Labels"). Cleanup finds
 * what it may remove by these and by nothing else; code and tests name a label only through here.
 */
export const LABEL = {
  /** Always {@link PROJECT}: what the oracle made, and nothing else, carries it. */
  project: "dev.oracle.project",
  /** Which part made it: {@link Component}. */
  component: "dev.oracle.component",
  /** A grade container's run id (also the oracle log's `run`). */
  run: "dev.oracle.run",
  task: "dev.oracle.task",
  /** `existing` or `hidden`: the suite a grade container runs. */
  suite: "dev.oracle.suite",
  /** The grader's process id, meaningful only in its PID namespace ({@link LABEL.pidns}). */
  pid: "dev.oracle.pid",
  /** The grader's PID namespace: boot id and namespace inode (`lease.ts: pidNamespace`). */
  pidns: "dev.oracle.pidns",
  /** The grader's hostname, for people. */
  host: "dev.oracle.host",
  /** The lease: epoch ms after which the run is certainly over (`lease.ts: leaseDeadline`). */
  deadline: "dev.oracle.deadline",
  /** A built image's name (`images/<name>/`). */
  image: "dev.oracle.image",
  /** A built image's fingerprint. */
  fingerprint: "dev.oracle.fingerprint",
  /** A benchmark's container: which measure it serves. */
  bench: "dev.oracle.bench",
} as const;

/** A label key, e.g. `dev.oracle.run`. */
export type LabelKey = (typeof LABEL)[keyof typeof LABEL];

/** The value of {@link LABEL.project}. */
export const PROJECT = "oracle";

/** The parts of the oracle that create things in the engine. */
export type Component = "grade" | "build" | "bench";

/** `key=value`, as the engine's label filter takes it (a pid as it is). */
export const labelFilter = (key: LabelKey, value: string | number): string => `${key}=${value}`;

/** The two labels every container and image of the oracle carries. */
export function projectLabels(component: Component): Record<string, string> {
  return { [LABEL.project]: PROJECT, [LABEL.component]: component };
}

/**
 * Labels every grade container carries: the run, and its lease. The deadline (epoch ms) is when the
 * run is certainly over (`leaseDeadline`); the pid and its PID namespace name the grader, so that a
 * grader of the same namespace can tell at once that it died.
 */
export function gradeLabels(runId: string, task: string, deadline: Date): Record<string, string> {
  const ns = pidNamespace();
  return {
    ...projectLabels("grade"),
    [LABEL.run]: runId,
    [LABEL.task]: task,
    [LABEL.pid]: String(process.pid),
    [LABEL.host]: hostname(),
    [LABEL.deadline]: String(deadline.getTime()),
    ...(ns ? { [LABEL.pidns]: ns } : {}),
  };
}

/** A grade container's labels for one suite: the run's, and the suite's name. */
export function suiteLabels(run: Record<string, string>, suite: string): Record<string, string> {
  return { ...run, [LABEL.suite]: suite };
}

/** Labels every image built by the oracle carries. */
export function imageLabels(name: string, fingerprint: string): Record<string, string> {
  return { ...projectLabels("build"), [LABEL.image]: name, [LABEL.fingerprint]: fingerprint };
}

/** Labels of a benchmark's own container (scripts/bench-*.mjs). */
export function benchLabels(measure: string): Record<string, string> {
  return { ...projectLabels("bench"), [LABEL.bench]: measure };
}
