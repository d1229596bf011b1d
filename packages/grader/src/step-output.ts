import { Writable } from "node:stream";
import type { ReportRead } from "./suite-result.js";

/** What a step printed before its suite started (see step-script.ts), as parsed from stdout. */
export interface StepRecord {
  kill?: { rounds: number; survivors: number };
  oomKills?: number;
  report?: ReportRead;
  prep?: { exitCode: number; stdout: Buffer; stderr: Buffer; failed?: string };
  /** Set when `oracle:suite` arrived: the suite command starts now. */
  suiteStarted?: boolean;
  /** Why the step's own output could not be read; the run cannot be judged. */
  protocolError?: string;
}

export type StepEvent = "report" | "prep" | "suite";

/** Bounds on the blocks a step announces; a block above its bound is a protocol error. */
export interface StepBounds {
  report: number;
  prepOut: number;
  prepErr: number;
}

const MAX_LINE = 512;
const HEADER = /^oracle:([a-z-]+)(?: (.*))?$/;
const COUNT = /^\d{1,15}$/;

type Pending = { name: "report" | "prep-out" | "prep-err"; size: number; parts: Buffer[]; got: number };

/**
 * Parses a step's stdout: `oracle:` lines and sized blocks until `oracle:suite`, then hands every
 * further byte to `suiteSink` (the suite's bounded output). `onEvent` fires as each part completes,
 * so the log and the step timings follow the step as it runs. Never throws; a malformed stream
 * sets `protocolError` and the rest is dropped.
 */
export class StepOutput extends Writable {
  readonly record: StepRecord = {};
  private line: Buffer[] = [];
  private lineSize = 0;
  private pending: Pending | null = null;
  private reportState: { kind: "ok" | "not-regular" | "missing" | "too-large"; size: number } | null = null;
  private prepOut: Buffer | null = null;
  private prepErr: Buffer | null = null;
  private readonly seen = new Set<string>();

  constructor(
    private readonly bounds: StepBounds,
    private readonly suiteSink: (chunk: Buffer) => void,
    private readonly onEvent: (event: StepEvent) => void = () => {},
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.take(chunk);
    done();
  }

  /** Adds a chunk synchronously (what _write does). */
  take(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      if (this.record.protocolError) return;
      if (this.record.suiteStarted) {
        this.suiteSink(data);
        return;
      }
      data = this.pending ? this.readBlock(data) : this.readLine(data);
    }
  }

  private readBlock(data: Buffer): Buffer {
    const pending = this.pending!;
    const part = data.subarray(0, pending.size - pending.got);
    pending.parts.push(Buffer.from(part));
    pending.got += part.length;
    if (pending.got === pending.size) {
      this.pending = null;
      this.blockDone(pending.name, Buffer.concat(pending.parts));
    }
    return data.subarray(part.length);
  }

  private readLine(data: Buffer): Buffer {
    const newline = data.indexOf(10);
    const part = newline === -1 ? data : data.subarray(0, newline);
    this.lineSize += part.length;
    if (this.lineSize > MAX_LINE) {
      this.fail("a step header line is too long");
      return Buffer.alloc(0);
    }
    this.line.push(Buffer.from(part));
    if (newline === -1) return Buffer.alloc(0);
    const text = Buffer.concat(this.line).toString("utf8");
    this.line = [];
    this.lineSize = 0;
    this.header(text);
    return data.subarray(newline + 1);
  }

  private fail(why: string): undefined {
    this.record.protocolError ??= why;
    return undefined;
  }

  private startBlock(name: Pending["name"], sizeText: string | undefined, bound: number): undefined {
    if (!sizeText || !COUNT.test(sizeText)) return this.fail(`oracle:${name} without a size`);
    const size = Number(sizeText);
    if (size > bound) return this.fail(`oracle:${name} announces ${size} bytes, above ${bound}`);
    if (size === 0) return this.blockDone(name, Buffer.alloc(0));
    this.pending = { name, size, parts: [], got: 0 };
  }

  private header(text: string): undefined {
    const match = HEADER.exec(text);
    if (!match) return this.fail(`unexpected step output: ${JSON.stringify(text.slice(0, 80))}`);
    const [, name, rest] = match;
    // Each header comes once: a second one means someone else wrote into this step's stdout.
    if (this.seen.has(name!)) return this.fail(`oracle:${name} twice in one step`);
    this.seen.add(name!);
    const args = rest ? rest.split(" ") : [];
    switch (name) {
      case "kill": {
        const [rounds, survivors] = args.map(Number);
        if (!Number.isInteger(rounds) || !Number.isInteger(survivors))
          return this.fail("bad oracle:kill line");
        this.record.kill = { rounds: rounds!, survivors: survivors! };
        return;
      }
      case "oom":
        if (!args[0] || !COUNT.test(args[0])) return this.fail("bad oracle:oom line");
        this.record.oomKills = Number(args[0]);
        return;
      case "report":
        return this.reportHeader(args);
      case "prep-out":
        return this.startBlock("prep-out", args[0], this.bounds.prepOut);
      case "prep-err":
        return this.startBlock("prep-err", args[0], this.bounds.prepErr);
      case "prep-exit":
        return this.prepExit(args);
      case "no-keeper-sh":
        return this.fail("the keeper's copy of sh never appeared");
      case "suite":
        if (this.record.prep?.exitCode !== 0) return this.fail("oracle:suite before a prep");
        this.record.suiteStarted = true;
        this.onEvent("suite");
        return;
      default:
        return this.fail(`unknown step header oracle:${name}`);
    }
  }

  private reportHeader(args: string[]): undefined {
    const [kind, size] = args;
    if (kind === "ok") {
      this.reportState = { kind, size: 0 };
      return this.startBlock("report", size, this.bounds.report);
    }
    if (kind === "not-regular" || kind === "missing" || kind === "too-large") {
      this.reportState = { kind, size: Number(size ?? 0) };
      return this.reportDone(null);
    }
    this.fail(`bad oracle:report line: ${args.join(" ")}`);
  }

  private reportDone(xml: Buffer | null): undefined {
    const state = this.reportState!;
    const read: ReportRead =
      state.kind === "ok"
        ? { kind: "ok", xml: xml!.toString("utf8") }
        : state.kind === "missing"
          ? { kind: "missing" }
          : state.kind === "not-regular"
            ? { kind: "invalid", why: "$ORACLE_JUNIT is not a regular file (a symlink or special file)" }
            : { kind: "invalid", why: `larger than ${this.bounds.report} bytes (${state.size})` };
    this.record.report = read;
    this.onEvent("report");
  }

  private blockDone(name: Pending["name"], bytes: Buffer): undefined {
    if (name === "report") this.reportDone(bytes);
    else if (name === "prep-out") this.prepOut = bytes;
    else this.prepErr = bytes;
  }

  private prepExit(args: string[]): undefined {
    const [code, what] = args;
    if (!code || !COUNT.test(code)) return this.fail("bad oracle:prep-exit line");
    const failed =
      what === "wipe"
        ? "cannot wipe the writable folders"
        : what === "step-dir"
          ? "cannot make the step's folder"
          : undefined;
    this.record.prep = {
      exitCode: Number(code),
      stdout: this.prepOut ?? Buffer.alloc(0),
      stderr: this.prepErr ?? Buffer.alloc(0),
      ...(failed ? { failed } : {}),
    };
    this.onEvent("prep");
  }
}
