import { rm } from "node:fs/promises";
import { totalmem } from "node:os";
import { resolve } from "node:path";
import { Writable } from "node:stream";
import { baseOnlyMirror } from "../git/base-mirror.js";
import type { GradeContainer, GradeDocker } from "../image/docker.js";
import { type ResolvedImage, resolveImage } from "../image/image.js";
import { gradeLabels, leaseDeadline } from "../image/leftovers.js";
import type { SuiteName } from "../reports/junit.js";
import type { PreparedTask } from "../task/prepare.js";
import { createChecked } from "./create-checked.js";
import { makeRunTempDir, makeSuiteDirs } from "./run-folder.js";
import { newRunId } from "./run-scope.js";
import { suiteContainerPlan, type WarmContainer } from "./run-suite.js";

/**
 * A warm pool (a local batch's, a queue worker's): while a prediction's suites run, the containers of the next predictions are
 * created, checked and started ahead, their driver waiting on stdin for its script, so that a grade
 * does not pay create and start on its critical path. Each container still serves one suite of one
 * prediction: it is made for that prediction's run (its run id, its lease, its own empty run folder,
 * the task's image by digest and limits), and the run fills the folder before the script goes in.
 * Isolation is the same as a grade's own: the same create options, every protection read back
 * (`missingProtections`) when made and again by the run. Everything the pool made carries the
 * grader's labels and lease (leftovers.ts) and a run folder named for this process (run-folder.ts):
 * the run removes what it took, {@link WarmPool.close} the rest, and after a crash the next grader's
 * leftover rule does.
 */

/** What a pool made for one run: its run id, lease, run folder and started containers. */
export interface WarmSlot {
  runId: string;
  labels: Record<string, string>;
  /** The lease's deadline (epoch ms) on the slot's containers. */
  deadline: number;
  /** The run's host folder and each suite's (empty) folder in it. */
  folder: string;
  runDirs: Record<SuiteName, string>;
  /** The image the containers run (by digest) and the base-only mirror they mount. */
  image: string;
  mirrorPath: string | null;
  containers: Record<SuiteName, WarmContainer>;
}

/**
 * One grade's claim on the pool. `claim` hands the slot to the run; `adopted` says the run's scope
 * took its containers and folder while open (its clean-up removes them); `release`, at the grade's
 * end, removes the slot unless it was adopted (never claimed, or claimed by a run closed meanwhile).
 */
export interface WarmTicket {
  readonly runId: string;
  claim(): Promise<WarmSlot | null>;
  adopted(): void;
  release(): Promise<void>;
}

export interface WarmPoolOptions {
  root: string;
  docker: GradeDocker;
  /** Grades running at once: the pool keeps as many slots ahead (each two containers). */
  concurrency: number;
  /** The batch's wall-clock limit per grade, else each task's. */
  timeoutSeconds?: number;
  /** The memory (MiB) the limits of running and warm containers may add up to; default the host's. */
  memoryBudgetMb?: number;
  warn?: (message: string) => void;
}

/** What a relay keeps before the run attaches (the boot prints nothing before its script but a failure). */
const RELAY_HELD_BYTES = 64 * 1024;

/** Output of a warm container, held until the run's parsers take it. */
class Relay extends Writable {
  #target: Writable | null = null;
  #held: Buffer[] = [];
  #heldBytes = 0;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.#target) this.#target.write(chunk);
    else if (this.#heldBytes < RELAY_HELD_BYTES) {
      this.#held.push(chunk);
      this.#heldBytes += chunk.length;
    }
    done();
  }

  to(target: Writable): void {
    for (const chunk of this.#held) target.write(chunk);
    this.#held = [];
    this.#target = target;
  }
}

const SUITES: readonly SuiteName[] = ["existing", "hidden"];

type Entry = {
  slot: Promise<WarmSlot | null>;
  memoryMb: number;
  state: "waiting" | "claimed" | "adopted" | "released";
};

export class WarmPool {
  readonly #options: WarmPoolOptions;
  readonly #images = new Map<string, Promise<ResolvedImage>>();
  readonly #entries = new Set<Entry>();
  readonly #budgetMb: number;
  #closed = false;

  constructor(options: WarmPoolOptions) {
    // The run folder's binds and the mirror's must be absolute, as the grade's own are.
    this.#options = { ...options, root: resolve(options.root) };
    this.#budgetMb = options.memoryBudgetMb ?? Math.floor(totalmem() / 1024 / 1024);
  }

  /**
   * Whether a slot for a grade of `prepared` fits: the memory limits of the grades running at once
   * (two containers each, at this task's limit) and of every unclaimed slot, with this one, within
   * the budget. A warm container idles (its driver waits on stdin) until its run takes it, a lane
   * having freed: the sum bounds what the running and the next grades could take at once.
   */
  fits(prepared: PreparedTask): boolean {
    const memoryMb = 2 * prepared.loaded.task.resources.memoryMb;
    const running = this.#options.concurrency * memoryMb;
    const waiting = [...this.#entries]
      .filter((e) => e.state === "waiting")
      .reduce((a, e) => a + e.memoryMb, 0);
    return !this.#closed && running + waiting + memoryMb <= this.#budgetMb;
  }

  /**
   * Starts making a slot for one grade of `prepared`; the grade gets the ticket (GradeOptions.warm).
   * `timeoutSeconds`: that grade's own limit (a queued job's), else the pool's, else the task's.
   */
  warm(prepared: PreparedTask, timeoutSeconds?: number): WarmTicket {
    const startedAt = new Date();
    const runId = newRunId(startedAt);
    const entry: Entry = {
      slot: Promise.resolve(null),
      memoryMb: 2 * prepared.loaded.task.resources.memoryMb,
      state: "waiting",
    };
    entry.slot = this.#make(prepared, runId, startedAt, timeoutSeconds).catch((error: Error) => {
      this.#options.warn?.(
        `warm pool: could not make ${prepared.loaded.task.id}'s containers: ${error.message}`,
      );
      return null;
    });
    this.#entries.add(entry);
    return {
      runId,
      claim: async () => {
        if (entry.state !== "waiting") return null;
        entry.state = "claimed";
        return entry.slot;
      },
      adopted: () => {
        if (entry.state === "claimed") entry.state = "adopted";
      },
      release: async () => {
        const owned = entry.state === "waiting" || entry.state === "claimed";
        entry.state = "released";
        this.#entries.delete(entry);
        if (owned) await removeSlot(this.#options.docker, await entry.slot);
      },
    };
  }

  /**
   * Resolves each image again for the next slots: a long-running pool (a local grader's) sees an image
   * rebuilt meanwhile; a batch's resolves each once.
   */
  forgetImages(): void {
    this.#images.clear();
  }

  /** Removes every slot no run adopted (also those still being made); the pool makes no more. */
  async close(): Promise<void> {
    this.#closed = true;
    const owned = [...this.#entries].filter((e) => e.state === "waiting" || e.state === "claimed");
    for (const e of owned) e.state = "released";
    this.#entries.clear();
    await Promise.all(owned.map(async (e) => removeSlot(this.#options.docker, await e.slot)));
  }

  #image(name: string): Promise<ResolvedImage> {
    let resolving = this.#images.get(name);
    if (!resolving) {
      resolving = resolveImage(this.#options.root, name, this.#options.docker);
      resolving.catch(() => undefined);
      this.#images.set(name, resolving);
    }
    return resolving;
  }

  async #make(
    prepared: PreparedTask,
    runId: string,
    startedAt: Date,
    timeoutSeconds: number | undefined,
  ): Promise<WarmSlot | null> {
    const { root, docker } = this.#options;
    const { task, mirrorPath: taskMirror } = prepared.loaded;
    const timeoutMs = (timeoutSeconds ?? this.#options.timeoutSeconds ?? task.timeoutSeconds) * 1000;
    // The lease covers the wait for a free lane (at most one grade's time) and the grade itself; a
    // run whose own lease would outlast it does not use the slot (pipeline.ts).
    const deadline = leaseDeadline(startedAt, 2 * timeoutMs);
    const labels = gradeLabels(runId, task.id, deadline);
    const image = await this.#image(task.image);
    if (!image.ok) return null;
    const mirrorPath = taskMirror
      ? (await baseOnlyMirror(root, taskMirror, task.repo.baseCommit)).path
      : null;
    if (this.#closed) return null;
    const folder = await makeRunTempDir();
    const made: GradeContainer[] = [];
    const slot = (containers: Record<SuiteName, WarmContainer>): WarmSlot => ({
      runId,
      labels,
      deadline: deadline.getTime(),
      folder,
      runDirs,
      image: image.runAs,
      mirrorPath,
      containers,
    });
    let runDirs: Record<SuiteName, string> = { existing: "", hidden: "" };
    try {
      runDirs = await makeSuiteDirs(folder);
      const inputs = { task, mirrorPath, image: image.runAs, labels, runDirs };
      const [existing, hidden] = await Promise.all(
        SUITES.map((suite) => makeWarmContainer(docker, suiteContainerPlan(inputs, suite), made)),
      );
      if (this.#closed) throw new Error("the pool closed");
      return slot({ existing: existing!, hidden: hidden! });
    } catch (error) {
      await removeMade(docker, folder, made);
      throw error;
    }
  }
}

/** Creates, checks, attaches and starts one container (its driver then waits for its script); `made` gets it at once. */
async function makeWarmContainer(
  docker: GradeDocker,
  plan: WarmContainer["plan"],
  made: GradeContainer[],
): Promise<WarmContainer> {
  const { container, info, missing } = await createChecked(docker, plan, { adopt: (c) => made.push(c) });
  if (missing.length > 0) throw new Error(`the engine did not apply ${missing.join(", ")}`);
  return startWarm(container, plan, info);
}

/**
 * Attaches relays to a created and checked container and starts it: its driver then waits on stdin
 * for its script, its output held until the run attaches its parsers (a pool's, or a grade's own
 * containers made while the host steps run: pipeline.ts).
 */
export async function startWarm(
  container: GradeContainer,
  plan: WarmContainer["plan"],
  info: WarmContainer["info"],
): Promise<WarmContainer> {
  const stdout = new Relay();
  const stderr = new Relay();
  const streams = await container.attach(stdout, stderr);
  streams.ended.catch(() => undefined);
  const exited = container.waitForExit();
  exited.catch(() => undefined);
  await container.start();
  const relay = (out: Writable, err: Writable) => {
    stdout.to(out);
    stderr.to(err);
  };
  return { plan, container, info, streams, relay, exited };
}

/** Removes containers and a run folder a pool made; never throws (the leftover rule takes what stays). */
async function removeMade(docker: GradeDocker, folder: string, containers: GradeContainer[]): Promise<void> {
  await Promise.all(containers.map((c) => docker.removeContainer(c.id).catch(() => undefined)));
  await rm(folder, { recursive: true, force: true }).catch(() => undefined);
}

/** Removes a slot no run claimed. */
function removeSlot(docker: GradeDocker, slot: WarmSlot | null): Promise<void> {
  if (!slot) return Promise.resolve();
  return removeMade(
    docker,
    slot.folder,
    Object.values(slot.containers).map((c) => c.container),
  );
}
