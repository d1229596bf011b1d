import { printable } from "@oracle/cli-kit";
import { formatDuration } from "./summary.js";
import type { SweepProgress } from "./sweep.js";
import type { TaskOutcome } from "./task-sweep.js";

/** A progress display that can be stopped (its timer cleared, its line finished). */
export interface ProgressDisplay extends SweepProgress {
  stop(): void;
}

interface Tally {
  tasks: number;
  runs: number;
  tasksDone: number;
  runsDone: number;
  quarantined: number;
  infra: number;
  started: number;
}

/**
 * `task-a quarantined (EXISTING_SUITE_FAILS, FLAKY), 4 runs: 12.3 s of grading`. The time is the
 * runs' durations added up: runs of one task overlap, so it may exceed the sweep's own time.
 */
export function taskLine(task: TaskOutcome): string {
  const flags = task.reasons.map((r) => r.flag);
  if (task.infra.failedRuns > 0) flags.push("INFRA_ERROR");
  const runs = `${task.runs.length} run${task.runs.length === 1 ? "" : "s"}`;
  return printable(
    `${task.id} ${task.status}${flags.length > 0 ? ` (${flags.join(", ")})` : ""}, ${runs}: ${formatDuration(task.runMs)} of grading`,
    { oneLine: true },
  );
}

function count(tally: Tally, task: TaskOutcome): void {
  tally.tasksDone += 1;
  if (task.status === "quarantined") tally.quarantined += 1;
  if (task.status === "infra-error") tally.infra += 1;
}

/** Time left, from the pace of the runs so far; null until one has finished. */
export function eta(tally: Pick<Tally, "runs" | "runsDone" | "started">, now: number): number | null {
  if (tally.runsDone === 0) return null;
  return ((now - tally.started) / tally.runsDone) * (tally.runs - tally.runsDone);
}

function fresh(): Tally {
  return { tasks: 0, runs: 0, tasksDone: 0, runsDone: 0, quarantined: 0, infra: 0, started: Date.now() };
}

/** One plain line per finished task, for CI logs and pipes. */
export function plainProgress(write: (line: string) => void): ProgressDisplay {
  const tally = fresh();
  return {
    start(tasks, runs) {
      Object.assign(tally, { tasks, runs, started: Date.now() });
      write(`sweep: ${tasks} tasks, ${runs} runs`);
    },
    runDone() {
      tally.runsDone += 1;
    },
    taskDone(task) {
      count(tally, task);
      write(`sweep: [${tally.tasksDone}/${tally.tasks}] ${taskLine(task)}`);
    },
    stop() {},
  };
}

function bar(tally: Tally, width: number): string {
  const fraction = tally.runs === 0 ? 1 : tally.runsDone / tally.runs;
  const filled = Math.round(fraction * width);
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}]`;
}

/** One updating line on a terminal: a bar, done/total, failures so far and the time left. */
export function ttyProgress(stream: NodeJS.WriteStream): ProgressDisplay {
  const tally = fresh();
  const draw = () => {
    const left = eta(tally, Date.now());
    const parts = [
      `sweep ${bar(tally, 20)} ${tally.tasksDone}/${tally.tasks} tasks`,
      `${tally.runsDone}/${tally.runs} runs`,
      `${tally.quarantined} quarantined`,
      ...(tally.infra > 0 ? [`${tally.infra} infra errors`] : []),
      left === null ? "estimating…" : `${formatDuration(left)} left`,
    ];
    stream.write(`\r\x1b[2K${parts.join(" · ").slice(0, Math.max(20, (stream.columns || 120) - 1))}`);
  };
  const timer = setInterval(draw, 1000);
  timer.unref();
  return {
    start(tasks, runs) {
      Object.assign(tally, { tasks, runs, started: Date.now() });
      draw();
    },
    runDone() {
      tally.runsDone += 1;
      draw();
    },
    taskDone(task) {
      count(tally, task);
      if (task.status !== "healthy") stream.write(`\r\x1b[2K${taskLine(task)}\n`);
      draw();
    },
    stop() {
      clearInterval(timer);
      stream.write("\r\x1b[2K");
    },
  };
}
