import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { isOracleError, type LoadedTask, loadTask } from "@oracle/spec";
import type Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttachedStreams, GradeContainer, GradeDocker } from "../image/docker.js";
import { cachedFingerprint } from "../image/fingerprint-cache.js";
import { judgeBug } from "../judges/oracle-bug.js";
import type { RunLog } from "../log/oracle-log.js";
import type { PreparedTask } from "../task/prepare.js";
import { RunClosed, type RunOutcome, RunScope } from "./run-scope.js";
import { superviseRun } from "./supervise.js";
import { CLEANUP_BOUNDS, withinLimit } from "./wall-clock-limit.js";
import { WarmPool, type WarmTicket } from "./warm-pool.js";

// The supervisor (the wall-clock limit, the abort signal, the clean-up) against a small fake of the
// grader's engine interface (GradeDocker / GradeContainer in docker.ts): no Docker.

const REPO = join(import.meta.dirname, "..", "..", "..", "..");
const never = <T>() => new Promise<T>(() => undefined);
const engineGone = () =>
  Object.assign(new Error("connect ECONNREFUSED /var/run/docker.sock"), { code: "ECONNREFUSED" });

interface Behaviour {
  /** The container's exit: when it is killed (default), or the engine dies once it started. */
  exit?: "on-kill" | "engine-dies";
  kill?: "ok" | "hangs";
  remove?: "ok" | "hangs" | "engine-gone";
  /** Called when the container starts. */
  onStart?: () => void;
}

/** A container of the fake engine: what was called on it, in order. */
class FakeContainer implements GradeContainer {
  readonly calls: string[] = [];
  #exit!: { resolve: (code: number | null) => void; reject: (error: Error) => void };
  readonly #exited = new Promise<number | null>((resolve, reject) => {
    this.#exit = { resolve, reject };
  });

  constructor(
    readonly id: string,
    private readonly options: Docker.ContainerCreateOptions,
    private readonly behaviour: Behaviour,
  ) {
    this.#exited.catch(() => undefined);
  }

  /** What the engine applied: exactly the options (missingProtections finds nothing missing). */
  async inspect(): Promise<Docker.ContainerInspectInfo> {
    const { HostConfig: host = {}, ...config } = this.options;
    const mounts = (host.Mounts ?? []).map((m) => ({
      Type: m.Type,
      Source: m.Source,
      Destination: m.Target,
      RW: false,
    }));
    return { Config: config, HostConfig: host, Mounts: mounts } as unknown as Docker.ContainerInspectInfo;
  }

  async attach(_stdout: Writable, _stderr: Writable): Promise<AttachedStreams> {
    this.calls.push("attach");
    const ended = this.#exited.then(
      () => undefined,
      () => undefined,
    );
    return { input: { write: () => undefined, end: () => undefined }, ended };
  }

  waitForExit(): Promise<number | null> {
    return this.#exited;
  }

  async start(): Promise<void> {
    this.calls.push("start");
    this.behaviour.onStart?.();
    if (this.behaviour.exit === "engine-dies") this.#exit.reject(engineGone());
  }

  kill(): Promise<void> {
    this.calls.push("kill");
    if (this.behaviour.kill === "hangs") return never();
    this.#exit.resolve(137);
    return Promise.resolve();
  }

  remove(): Promise<void> {
    this.calls.push("remove");
    if (this.behaviour.remove === "hangs") return never();
    if (this.behaviour.remove === "engine-gone") return Promise.reject(engineGone());
    this.#exit.resolve(137);
    return Promise.resolve();
  }
}

/** The fake engine: every image present, no leftovers, containers that behave as told. */
class FakeEngine implements GradeDocker {
  readonly containers: FakeContainer[] = [];
  /** Ids removed through the engine (removeContainer), as a warm pool removes what no run took. */
  readonly removed: string[] = [];
  /** Resolves before each create: a test holds creation back with it. */
  gate: () => Promise<void> = async () => undefined;
  constructor(
    private readonly behaviour: Behaviour = {},
    private readonly imageId = `sha256:${"1".repeat(64)}`,
  ) {}

  async findImage(): Promise<{ id: string; repoDigests: string[] }> {
    return { id: this.imageId, repoDigests: [] };
  }
  async pull(): Promise<void> {}
  async createContainer(options: Docker.ContainerCreateOptions): Promise<GradeContainer> {
    await this.gate();
    const container = new FakeContainer(`fake-${this.containers.length}`, options, this.behaviour);
    this.containers.push(container);
    return container;
  }
  async listContainers(): Promise<Array<{ id: string; labels: Record<string, string> }>> {
    return [];
  }
  async removeContainer(id: string): Promise<void> {
    this.removed.push(id);
  }
}

/** A run log that keeps what it is told. */
function recordingLog() {
  const events: Array<{ step: string; data?: Record<string, unknown> }> = [];
  const warnings: string[] = [];
  const log: RunLog = {
    event: (step, data) => events.push({ step, ...(data ? { data } : {}) }),
    info: () => undefined,
    warn: (message) => warnings.push(message),
    close: async () => undefined,
  };
  return { log, events, warnings };
}

const SHORT = { kill: 200, settle: 200, settleWithContainers: 200, remove: 300 };

/** A run that makes one container of the engine, starts it and waits for its exit. */
const oneContainer = (engine: FakeEngine, scope: RunScope) => async (): Promise<RunOutcome> => {
  const container = await scope.timed("create.existing", () => engine.createContainer({}));
  scope.adopt(container);
  await container.start();
  const code = await container.waitForExit();
  scope.ensureOpen("driver");
  return { reason: "PASS", message: `exit ${code}` };
};

describe("withinLimit", () => {
  const limit = (timeoutMs: number, signal?: AbortSignal) => ({
    startedAt: new Date(),
    timeoutMs,
    signal,
    bounds: SHORT,
  });

  it("past the deadline: TIMEOUT, the container killed and removed, the run closed", async () => {
    const engine = new FakeEngine();
    const { log, events } = recordingLog();
    const scope = new RunScope(log, { name: "i", reference: null, digest: null });
    const outcome = await withinLimit(scope, limit(100), log, oneContainer(engine, scope));
    expect(outcome).toEqual({
      reason: "TIMEOUT",
      message: "the run passed its 0.1 s limit; the container was killed",
    });
    expect(engine.containers[0]!.calls).toEqual(["start", "kill", "remove"]);
    expect(events).toContainEqual({ step: "container.removed", data: { id: "fake-0", removed: true } });
    expect(scope.closed).toBe(true);
    await expect(scope.timed("late", async () => 1)).rejects.toBeInstanceOf(RunClosed);
  });

  it("on the caller's abort: rejects with its reason once the container is killed and removed", async () => {
    const controller = new AbortController();
    const reason = Object.assign(new Error("interrupted by SIGTERM"), { name: "AbortError" });
    const engine = new FakeEngine({ onStart: () => controller.abort(reason) });
    const { log, warnings } = recordingLog();
    const scope = new RunScope(log, { name: "i", reference: null, digest: null });
    await expect(
      withinLimit(scope, limit(60_000, controller.signal), log, oneContainer(engine, scope)),
    ).rejects.toBe(reason);
    expect(engine.containers[0]!.calls).toEqual(["start", "kill", "remove"]);
    expect(warnings).toContain("aborted: the container was removed");
  });

  it("an engine that dies mid-run: INFRA_ERROR that says so, the removal tried and reported", async () => {
    const engine = new FakeEngine({ exit: "engine-dies", remove: "engine-gone" });
    const { log, events, warnings } = recordingLog();
    const scope = new RunScope(log, { name: "i", reference: null, digest: null });
    const outcome = await withinLimit(scope, limit(60_000), log, oneContainer(engine, scope));
    expect(outcome.reason).toBe("INFRA_ERROR");
    expect(outcome.message).toMatch(/the Docker engine stopped answering mid-run \(connect ECONNREFUSED/);
    expect(engine.containers[0]!.calls).toEqual(["start", "remove"]);
    expect(events).toContainEqual({ step: "container.removed", data: { id: "fake-0", removed: false } });
    expect(warnings).toContain(
      "could not remove container fake-0: connect ECONNREFUSED /var/run/docker.sock",
    );
  });

  it("a bug in the oracle's own judge: rejects with INTERNAL once the container is removed, never an INFRA_ERROR outcome (brief s28 fix, item 1)", async () => {
    const engine = new FakeEngine();
    const { log, warnings } = recordingLog();
    const scope = new RunScope(log, { name: "i", reference: null, digest: null });
    const bug = judgeBug(
      "the hidden suite",
      new TypeError("Cannot read properties of undefined (reading 'length')"),
    );
    const run = async (): Promise<RunOutcome> => {
      const container = await engine.createContainer({});
      scope.adopt(container);
      await container.start();
      throw bug;
    };
    await expect(withinLimit(scope, limit(60_000), log, run)).rejects.toSatisfy(
      (error) => isOracleError(error, "INTERNAL") && error === bug,
    );
    expect(bug.message).toBe(
      "the oracle failed while judging the hidden suite: TypeError: Cannot read properties of undefined (reading 'length')",
    );
    expect(engine.containers[0]!.calls).toEqual(["start", "remove"]);
    expect(warnings).toContain(`no verdict: ${bug.message}`);
    // Any other throw of the run stays the engine's or the host's.
    const other = new RunScope(log, { name: "i", reference: null, digest: null });
    const failed = await withinLimit(other, limit(60_000), log, async () => {
      throw new Error("no such container");
    });
    expect(failed).toEqual({ reason: "INFRA_ERROR", message: "engine or host failure: no such container" });
  });

  it("an engine that hangs: every wait is bounded, the run ends within its limit and the bounds", async () => {
    const engine = new FakeEngine({ kill: "hangs", remove: "hangs" });
    const { log, events } = recordingLog();
    const scope = new RunScope(log, { name: "i", reference: null, digest: null });
    const started = performance.now();
    const outcome = await withinLimit(scope, limit(100), log, oneContainer(engine, scope));
    const elapsed = performance.now() - started;
    expect(outcome.reason).toBe("TIMEOUT");
    expect(elapsed).toBeGreaterThanOrEqual(100 + SHORT.kill + SHORT.settleWithContainers + SHORT.remove - 20);
    expect(elapsed).toBeLessThan(100 + SHORT.kill + SHORT.settleWithContainers + SHORT.remove + 2000);
    expect(events).toContainEqual({ step: "container.removed", data: { id: "fake-0", removed: false } });
  });

  it("removes a container created after the deadline, while the steps settle", async () => {
    const { log } = recordingLog();
    const scope = new RunScope(log, { name: "i", reference: null, digest: null });
    const engine = new FakeEngine();
    let create: () => void = () => undefined;
    const created = new Promise<void>((done) => {
      create = done;
    });
    const run = async (): Promise<RunOutcome> => {
      await created;
      scope.adopt(await engine.createContainer({}));
      return { reason: "PASS", message: "not reached" };
    };
    const outcome = withinLimit(scope, { ...limit(50), bounds: { ...SHORT, settle: 5000 } }, log, run);
    await expect.poll(() => scope.closed).toBe(true);
    create();
    expect((await outcome).reason).toBe("TIMEOUT");
    expect(engine.containers[0]!.calls).toEqual(["remove"]);
  });

  it("keeps the production bounds: a timed-out run returns within its limit + 10 s", () => {
    expect(CLEANUP_BOUNDS).toEqual({ kill: 2500, settle: 2500, settleWithContainers: 1500, remove: 5000 });
    expect(CLEANUP_BOUNDS.kill + CLEANUP_BOUNDS.settle + CLEANUP_BOUNDS.remove).toBe(10_000);
  });
});

describe("superviseRun, the real pipeline against the fake engine", () => {
  let root = "";
  let loaded: LoadedTask;
  const imageId = `sha256:${"2".repeat(64)}`;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "oracle-supervise-"));
    cpSync(join(REPO, "tasks", "calc-node"), join(root, "tasks", "calc-node"), { recursive: true });
    cpSync(join(REPO, "images", "node-mocha"), join(root, "images", "node-mocha"), { recursive: true });
    const fingerprint = await cachedFingerprint(root, "node-mocha", join(root, "images", "node-mocha"));
    const build = {
      reference: imageId,
      digest: imageId,
      imageId,
      pushed: false,
      fingerprint,
      dockerfileHash: "0".repeat(64),
      lockfiles: {},
      builtAt: new Date().toISOString(),
      durationMs: 0,
      history: [],
    };
    mkdirSync(join(root, "images"), { recursive: true });
    writeFileSync(
      join(root, "images", "registry.json"),
      JSON.stringify({ version: 1, images: { "node-mocha": build } }),
    );
    loaded = await loadTask(root, "calc-node");
  }, 60_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const supervise = (engine: FakeEngine, log: RunLog, signal?: AbortSignal, warm?: WarmTicket) =>
    superviseRun({
      loaded,
      mode: "baseline",
      diff: null,
      runId: warm?.runId ?? "run-1",
      ...(warm ? { warm } : {}),
      startedAt: new Date(),
      logPath: join(root, "log.jsonl"),
      timeoutMs: 120_000,
      docker: engine,
      imageFingerprint: () => cachedFingerprint(root, "node-mocha", join(root, "images", "node-mocha")),
      log,
      root,
      signal,
      bounds: SHORT,
    });

  it("an engine that dies once the container started: INFRA_ERROR, every container it made removed or tried", async () => {
    const engine = new FakeEngine({ exit: "engine-dies", remove: "engine-gone" }, imageId);
    const { log, events } = recordingLog();
    const result = await supervise(engine, log);
    expect(result.verdict).toBe("FAIL");
    expect(result.reason).toBe("INFRA_ERROR");
    expect(result.message).toMatch(/the Docker engine stopped answering mid-run/);
    expect(result.image).toEqual({ name: "node-mocha", reference: imageId, digest: imageId });
    expect(result.timings).toHaveProperty("create.existing");
    expect(engine.containers.length).toBeGreaterThan(0);
    for (const container of engine.containers) expect(container.calls).toContain("remove");
    expect(events.filter((e) => e.step === "container.removed")).toHaveLength(engine.containers.length);
    expect(events.at(-1)?.step).toBe("verdict");
  }, 60_000);

  it("aborted once the existing suite's container started: rejects, its containers killed and removed", async () => {
    const controller = new AbortController();
    const engine = new FakeEngine({ onStart: () => controller.abort(new Error("stop")) }, imageId);
    const { log, warnings } = recordingLog();
    await expect(supervise(engine, log, controller.signal)).rejects.toThrow("stop");
    for (const container of engine.containers)
      expect(container.calls).toEqual(expect.arrayContaining(["kill", "remove"]));
    expect(warnings).toContain("aborted: the container was removed");
  }, 60_000);

  it("without a warm slot, both suites' containers are made and started while the sentinels are planned, not after; the hidden suite's once the existing suite's started", async () => {
    const controller = new AbortController();
    const engine = new FakeEngine({}, imageId);
    // At each create: which of the containers made before it had started.
    const startedBefore: boolean[][] = [];
    engine.gate = async () => {
      startedBefore.push(engine.containers.map((c) => c.calls.includes("start")));
    };
    const { log, events } = recordingLog();
    const outcome = supervise(engine, log, controller.signal);
    await expect.poll(() => events.some((e) => e.step === "container.started")).toBe(true);
    controller.abort(new Error("stop"));
    await expect(outcome).rejects.toThrow("stop");
    const steps = events.map((e) => e.step);
    expect(steps.filter((s) => s === "container.create")).toHaveLength(2);
    expect(steps).toContain("sentinel");
    expect(steps.lastIndexOf("container.create")).toBeLessThan(steps.indexOf("sentinel"));
    expect(steps).not.toContain("container.warm");
    const created = events.filter((e) => e.step === "container.create").map((e) => e.data?.suite);
    expect(created).toEqual(["existing", "hidden"]);
    expect(startedBefore).toEqual([[], [true]]);
    expect(engine.containers).toHaveLength(2);
    for (const container of engine.containers)
      expect(container.calls).toEqual(expect.arrayContaining(["start", "remove"]));
  }, 60_000);

  const poolOf = (engine: FakeEngine) => new WarmPool({ root, docker: engine, concurrency: 1 });

  it("a run given a warm slot runs in its containers (started ahead, same plan): none created, both removed", async () => {
    const controller = new AbortController();
    const engine = new FakeEngine({}, imageId);
    const pool = poolOf(engine);
    const ticket = pool.warm({ loaded } as PreparedTask);
    await expect.poll(() => engine.containers.filter((c) => c.calls.includes("start")).length).toBe(2);
    const { log, events } = recordingLog();
    // The existing suite's script going in ends the run (nothing answers it in the fake).
    const outcome = supervise(engine, log, controller.signal, ticket);
    await expect.poll(() => events.some((e) => e.step === "container.started")).toBe(true);
    controller.abort(new Error("stop"));
    await expect(outcome).rejects.toThrow("stop");
    await ticket.release();
    await pool.close();
    expect(engine.containers).toHaveLength(2);
    expect(events.filter((e) => e.step === "container.warm").length).toBeGreaterThan(0);
    expect(events.some((e) => e.step === "container.create")).toBe(false);
    for (const container of engine.containers) expect(container.calls).toContain("remove");
    expect(events.find((e) => e.step === "container.started")?.data?.id).toBe("fake-0");
  }, 60_000);

  it("aborted while the run waits for its warm slot: the slot made later is removed, not adopted by the closed run", async () => {
    const controller = new AbortController();
    const engine = new FakeEngine({}, imageId);
    let open: () => void = () => undefined;
    const opened = new Promise<void>((done) => {
      open = done;
    });
    engine.gate = () => opened;
    const pool = poolOf(engine);
    const ticket = pool.warm({ loaded } as PreparedTask);
    const { log, events } = recordingLog();
    const outcome = supervise(engine, log, controller.signal, ticket);
    await expect.poll(() => events.some((e) => e.step === "image")).toBe(true);
    controller.abort(new Error("stop"));
    await expect(outcome).rejects.toThrow("stop");
    open();
    await ticket.release();
    await pool.close();
    expect(engine.containers).toHaveLength(2);
    for (const container of engine.containers)
      expect(container.calls.includes("remove") || engine.removed.includes(container.id)).toBe(true);
  }, 60_000);
});
