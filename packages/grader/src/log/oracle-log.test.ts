import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { LOG_EVENT_NAMES, type LoggedEvent } from "@oracle/spec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import winston from "winston";
import { defaultLogPath, openRunLog, stableLine } from "./oracle-log.js";
import { readRunLog } from "./view/read-log.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "oracle-log-unit-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function eventsOf(file: string): Promise<{ events: LoggedEvent[]; bad: number[] }> {
  const events: LoggedEvent[] = [];
  const summary = await readRunLog(file, ({ event }) => {
    if (event) events.push(event);
  });
  return { events, bad: summary.badLines };
}

describe("the oracle log's events", () => {
  it("are written with their name and payload and read back typed, the run's fields beside them", async () => {
    const file = join(dir, "run.jsonl");
    const log = openRunLog(file, { run: "r1", task: "calc" });
    log.event("step", { name: "create.hidden", ms: 12 });
    log.event("suite.output", { suite: "hidden", stream: "stdout", text: "..\n" });
    log.event("collect.done", { suite: "existing", kill: { rounds: 1, survivors: 0 }, driverExitCode: null });
    log.info("an account line", { suite: "hidden" });
    await log.close();
    const { events, bad } = await eventsOf(file);
    expect(bad).toEqual([]);
    expect(events).toEqual([
      { name: "step", data: expect.objectContaining({ name: "create.hidden", ms: 12, run: "r1" }) },
      {
        name: "suite.output",
        data: expect.objectContaining({ suite: "hidden", stream: "stdout", text: "..\n" }),
      },
      { name: "collect.done", data: expect.objectContaining({ kill: { rounds: 1, survivors: 0 } }) },
    ]);
  });

  it("a line naming an event whose fields do not have their types is not read as that event", async () => {
    const file = join(dir, "bad.jsonl");
    const log = openRunLog(file, { run: "r1", task: "calc" });
    log.event("step", { name: "ok", ms: 1 });
    // The writer refuses this at compile time; a log written by anything else can still hold it.
    (log.event as (name: string, data: object) => void)("step", { name: "x", ms: "slow" });
    await log.close();
    const { events, bad } = await eventsOf(file);
    expect(events.map((e) => e.name)).toEqual(["step"]);
    expect(bad).toEqual([2]);
  });

  it("are a closed set the writer enforces (pnpm typecheck fails if a wrong call below compiles)", () => {
    const log = openRunLog(join(dir, "types.jsonl"), { run: "r", task: "t" });
    const calls = () => {
      // @ts-expect-error: not an event of the log
      log.event("steps", { name: "x", ms: 1 });
      // @ts-expect-error: ms is a number
      log.event("step", { name: "x", ms: "1" });
      // @ts-expect-error: a step has a name
      log.event("step", { ms: 1 });
      // @ts-expect-error: a field the event does not carry
      log.event("container.removed", { id: "c", removed: true, why: "x" });
      log.event("verdict", {
        verdict: "FAIL",
        // @ts-expect-error: a verdict's reason is a reason code, not an error code
        reason: "TASK_QUARANTINED",
        message: "",
        testsHash: "",
        testIds: [],
        timings: {},
      });
    };
    expect(typeof calls).toBe("function");
    expect(LOG_EVENT_NAMES).toContain("diff.filtered");
    return log.close();
  });
});

describe("the oracle log's lines", () => {
  it("are those winston's JSON format wrote (keys sorted at every depth, a message in the data appended)", async () => {
    const file = join(dir, "lines.jsonl");
    const log = openRunLog(file, { run: "r1", task: "calc" });
    const payloads: Record<string, unknown>[] = [
      { step: "verdict", message: "both suites ran and passed", reason: "PASS", testIds: ["b", "a"] },
      { z: 1, a: { y: [1, undefined, null, "x"], b: new Date(0), n: 5n }, u: undefined, f: () => 1 },
      { text: 'quotes " and \\ and \u0001 and \ud800 and é', nan: Number.NaN, inf: -Infinity },
      { buffer: Buffer.from("ab"), nested: { deeper: { c: true, b: false } } },
    ];
    for (const data of payloads) log.event("step", data as never);
    log.info("an account line", { suite: "hidden" });
    log.warn("a warning");
    await log.close();
    const lines: string[] = [];
    const reference = winston.createLogger({
      level: "debug",
      format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
      defaultMeta: { component: "grade", run: "r1", task: "calc" },
      transports: [
        new winston.transports.Stream({
          stream: new Writable({
            write(chunk: Buffer, _encoding, done) {
              lines.push(chunk.toString("utf8").trimEnd());
              done();
            },
          }),
        }),
      ],
    });
    for (const data of payloads) reference.debug("step", { step: "step", ...data });
    reference.info("an account line", { suite: "hidden" });
    reference.warn("a warning", {});
    const ended = new Promise((done) => reference.on("finish", done));
    reference.end();
    await ended;
    const noTime = (line: string) => line.replace(/"timestamp":"[^"]+"/, '"timestamp":"T"');
    const written = (await readFile(file, "utf8")).trimEnd().split("\n");
    expect(written.map(noTime)).toEqual(lines.map(noTime));
  });

  it("mark a circular reference as winston did", () => {
    const loop: Record<string, unknown> = { b: 1 };
    loop.self = loop;
    expect(stableLine({ loop })).toBe('{"loop":{"b":1,"self":"[Circular]"}}');
  });
});

describe("defaultLogPath", () => {
  it("gives graders of the same task and diff started in the same second a log each", () => {
    const at = new Date("2026-12-05T11:30:00.123Z");
    const sha = "ab".repeat(32);
    const first = defaultLogPath("/r", "calc-node", at, sha, "miu1x-0a1b2c3d");
    const second = defaultLogPath("/r", "calc-node", at, sha, "miu1x-9f8e7d6c");
    expect(first).toBe("/r/logs/grade/calc-node-20261205T113000Z-abababababab-0a1b2c3d.jsonl");
    expect(second).not.toBe(first);
    expect(defaultLogPath("/r", "calc-node", at, null, "miu1x-0a1b2c3d")).toBe(
      "/r/logs/grade/calc-node-20261205T113000Z-baseline-0a1b2c3d.jsonl",
    );
  });
});
