import { randomBytes } from "node:crypto";
import type {
  ExpectedResult,
  GradeResult,
  ReasonCode,
  SealsResult,
  SentinelResult,
  SuiteResult,
} from "@oracle/spec";
import type { FilteredDiff } from "../diff/filter.js";
import type { GradeContainer } from "../image/docker.js";
import type { RunLog } from "../log/oracle-log.js";
import type { SuiteName } from "../reports/junit.js";

/** How a run ended: its reason code and the message that explains it. */
export interface RunOutcome {
  reason: ReasonCode;
  message: string;
}

/** Thrown by a step that starts after the run was closed (deadline, abort). */
export class RunClosed extends Error {}

/** What the run learnt so far: the result is built from it whichever way the run ends. */
export interface RunFacts {
  image: GradeResult["image"];
  /** The diff's hashes and what the filter made of it (null in baseline mode). */
  diff: { sha256: string; filtered: FilteredDiff | null } | null;
  /** Each suite as judged. */
  suites: Partial<Record<SuiteName, SuiteResult>>;
  /** What the hidden suite's sentinels showed (or why it has none). */
  sentinel?: SentinelResult;
  /** What the hidden suite's seals showed, when it had some. */
  seals?: SealsResult;
  /** What the expected tests showed, once both suites were judged. */
  expected?: ExpectedResult;
}

/**
 * What the sentinel planners note when a suite gets no sentinel (plant-sentinels.ts,
 * existing-sentinels.ts write it; the pipeline passes it on to the judge).
 */
export interface SentinelNotes {
  sentinel?: SentinelResult;
  existingSentinel?: SentinelResult;
}

/**
 * The one owner of the state that the deadline, the abort and the clean-up need (wall-clock-limit.ts):
 * the containers to kill and remove, whether the run is closed, its host folder, the timings, and
 * what the run learnt for its result. The pipeline reports to it through these methods; nothing else
 * writes it.
 */
export class RunScope {
  readonly #log: RunLog;
  readonly #containers: GradeContainer[] = [];
  readonly #timings: Record<string, number> = {};
  #closed = false;
  #folder: string | null = null;
  #facts: RunFacts;

  constructor(log: RunLog, image: GradeResult["image"]) {
    this.#log = log;
    this.#facts = { image, diff: null, suites: {} };
  }

  /** Set when the run is over (deadline, abort): no new step may start. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Every container the run created (one per suite). */
  get containers(): readonly GradeContainer[] {
    return this.#containers;
  }

  /** The run's host folder (removed at clean-up), once made. */
  get folder(): string | null {
    return this.#folder;
  }

  get facts(): Readonly<RunFacts> {
    return this.#facts;
  }

  /** Milliseconds per step, in the order the steps ended. */
  get timings(): Readonly<Record<string, number>> {
    return this.#timings;
  }

  /** Closes the run: steps that start from now on throw {@link RunClosed}. */
  close(): void {
    this.#closed = true;
  }

  /** Throws {@link RunClosed} once the run is closed. */
  ensureOpen(step: string): void {
    if (this.#closed) throw new RunClosed(step);
  }

  /** Takes a container the run created (the deadline kills it, the clean-up removes it); throws if the run closed meanwhile. */
  adopt(container: GradeContainer): void {
    this.#containers.push(container);
    this.ensureOpen("create");
  }

  /** Takes the run's host folder (removed at clean-up). */
  adoptFolder(path: string): void {
    this.#folder = path;
  }

  /** Adds what a step learnt (suites merge by name). */
  learn(facts: Partial<RunFacts>): void {
    const suites = { ...this.#facts.suites, ...facts.suites };
    this.#facts = { ...this.#facts, ...facts, suites };
  }

  /** Records a step's time (the `step` log event). */
  time(step: string, ms: number): void {
    this.#timings[step] = ms;
    this.#log.event("step", { name: step, ms });
  }

  /** Runs a step that may not start once the run is closed, and records its time. */
  async timed<T>(step: string, work: () => Promise<T>): Promise<T> {
    this.ensureOpen(step);
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.time(step, Math.round(performance.now() - started));
    }
  }

  /** Records the time of work already under way, when it settles. */
  timing<T>(step: string, work: Promise<T>): Promise<T> {
    const started = performance.now();
    return work.finally(() => this.time(step, Math.round(performance.now() - started)));
  }

  /** A stopwatch for the steps a stream reports one after the other: each lap records the time since the last (or since {@link restart}). */
  stopwatch(): { lap(step: string): number; restart(): void } {
    let mark = performance.now();
    return {
      lap: (step) => {
        const now = performance.now();
        const ms = Math.round(now - mark);
        this.time(step, ms);
        mark = now;
        return ms;
      },
      restart: () => {
        mark = performance.now();
      },
    };
  }
}

/** A run's id (the oracle log's `run`, its containers' run label): start time in base 36 and 8 random hex digits. */
export const newRunId = (at: Date): string =>
  `${at.getTime().toString(36)}-${randomBytes(4).toString("hex")}`;
