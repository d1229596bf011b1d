import { Writable } from "node:stream";
import type { TestCase } from "@oracle/spec";
import type { ReportRead, SealsRead } from "../judges/judge-report.js";
import { type JUnitOptions, JUnitStream, type SuiteName } from "../reports/junit.js";
import {
  endMarker,
  LINE,
  NONCE,
  PREFIX,
  PREP_STEP_DIR,
  REPORT,
  REPORT_STATES,
  type ReportState,
  SUITES,
} from "./driver-protocol.js";

/** What the driver printed (driver-protocol.ts), as parsed from its container's stdout. */
export interface DriverRecord {
  prep: Partial<Record<SuiteName, { exitCode: number; stdout: Buffer; stderr: Buffer; failed?: string }>>;
  /** Suites whose `oracle:suite` line arrived: they started. */
  started: Partial<Record<SuiteName, true>>;
  /** The suite command's exit code, from its end marker. */
  exitCode: Partial<Record<SuiteName, number>>;
  kill: Partial<Record<SuiteName, { rounds: number; survivors: number }>>;
  oomKills: Partial<Record<SuiteName, number>>;
  report: Partial<Record<SuiteName, ReportRead>>;
  /** The seals' records file, when the suite had seals: its text, or why it was not read. */
  seals: Partial<Record<SuiteName, SealsRead>>;
  done?: boolean;
  /** What the driver found it could not rely on (`oracle:unsafe`): it stopped before going on. */
  unsafe?: string;
  /** Why the driver's output could not be read; the run cannot be judged. */
  protocolError?: string;
}

export type DriverEvent = "prep" | "suite" | "end" | "report" | "done";

/** Bounds on the blocks the driver announces; a block above its bound is a protocol error. */
export interface DriverBounds {
  report: number;
  seals?: number;
  prepOut: number;
  prepErr: number;
}

const MAX_LINE = 512;
const HEADER = new RegExp(`^${PREFIX}([a-z-]+)(?: (.*))?$`);
const COUNT = /^\d{1,15}$/;

/**
 * Cuts a stream at a marker without holding more than the marker's length: `push` returns the
 * bytes before the marker (safe to pass on) and, once the marker was seen, what follows it.
 */
export class MarkerCut {
  private held: Buffer = Buffer.alloc(0);

  constructor(readonly marker: Buffer) {}

  push(chunk: Buffer): { before: Buffer; after: Buffer | null } {
    const data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    const at = data.indexOf(this.marker);
    if (at !== -1) {
      this.held = Buffer.alloc(0);
      return { before: data.subarray(0, at), after: data.subarray(at + this.marker.length) };
    }
    const keep = Math.min(this.marker.length - 1, data.length);
    this.held = Buffer.from(data.subarray(data.length - keep));
    return { before: data.subarray(0, data.length - keep), after: null };
  }

  /** What is held back at the end of the stream (it was not the marker). */
  flush(): Buffer {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    return rest;
  }
}

/** A Writable that takes each chunk synchronously (`take`) and its end (`finish`): it never stalls its source. */
abstract class SyncWritable extends Writable {
  abstract take(chunk: Buffer): void;
  abstract finish(): void;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.take(chunk);
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.finish();
    done();
  }
}

type Block = {
  name: typeof LINE.report | typeof LINE.seals | typeof LINE.prepOut | typeof LINE.prepErr;
  suite: SuiteName;
  size: number;
  /** The block's bytes, allocated once at its announced (bounded) size: no copy per chunk, no concat. */
  bytes: Buffer;
  got: number;
  /** A report is parsed as it arrives instead ({@link JUnitStream}): its bytes are never held whole. */
  junit?: JUnitStream;
};

/**
 * Parses the stdout of one suite's driver. Outside the suite: `oracle:` lines (each at most once) and sized
 * blocks; inside one (from `oracle:suite S` to the nonce's end marker) every byte is the suite's
 * and goes to `suiteSink`. `onEvent` fires as each part completes, so the log and the timings
 * follow the run. Never throws; a malformed stream sets `protocolError` and the rest is dropped.
 */
export class DriverOutput extends SyncWritable {
  readonly record: DriverRecord = {
    prep: {},
    started: {},
    exitCode: {},
    kill: {},
    oomKills: {},
    report: {},
    seals: {},
  };
  private line: Buffer[] = [];
  private lineSize = 0;
  private block: Block | null = null;
  private inSuite: { suite: SuiteName; cut: MarkerCut } | null = null;
  private endOf: SuiteName | null = null;
  private readonly seen = new Set<string>();
  private readonly blocks = new Map<string, Buffer>();
  private reportState: { kind: ReportState; size: number } | null = null;
  private sealsState: { kind: ReportState; size: number } | null = null;

  /** The driver's nonce, from its first line; the end markers carry it. */
  nonce: string | null = null;

  constructor(
    private readonly suite: SuiteName,
    private readonly bounds: DriverBounds,
    private readonly suiteSink: (chunk: Buffer) => void,
    private readonly onEvent: (event: DriverEvent, suite: SuiteName) => void = () => {},
    /** Parse the report as it streams in (`parsed`) instead of keeping its text (`ok`). */
    private readonly streamReports = false,
    /** How the streamed report is read (a Go suite's: gotestsum's). */
    private readonly reportOptions: JUnitOptions = {},
  ) {
    super();
  }

  /** Adds a chunk synchronously (what _write does). */
  take(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0 && !this.record.protocolError) {
      if (this.inSuite) data = this.readSuite(data);
      else if (this.block) data = this.readBlock(data);
      else data = this.readLine(data);
    }
  }

  /** The stream ended: what a suite printed last (without a marker: the driver died) is the suite's. */
  finish(): void {
    if (this.inSuite) this.suiteSink(this.inSuite.cut.flush());
  }

  private readSuite(data: Buffer): Buffer {
    const { suite, cut } = this.inSuite!;
    const { before, after } = cut.push(data);
    if (before.length > 0) this.suiteSink(before);
    if (after === null) return Buffer.alloc(0);
    this.inSuite = null;
    this.endOf = suite;
    return after;
  }

  private readBlock(data: Buffer): Buffer {
    const block = this.block!;
    const part = data.subarray(0, block.size - block.got);
    if (block.junit) {
      block.junit.write(part);
      block.got += part.length;
    } else block.got += part.copy(block.bytes, block.got);
    if (block.got === block.size) {
      this.block = null;
      if (block.junit) this.reportParsed(block.suite, block.junit.end());
      else this.blockDone(block.name, block.suite, block.bytes);
    }
    return data.subarray(part.length);
  }

  private readLine(data: Buffer): Buffer {
    const newline = data.indexOf(10);
    const part = newline === -1 ? data : data.subarray(0, newline);
    this.lineSize += part.length;
    if (this.lineSize > MAX_LINE) {
      this.fail("a driver line is too long");
      return Buffer.alloc(0);
    }
    this.line.push(Buffer.from(part));
    if (newline === -1) return Buffer.alloc(0);
    const text = Buffer.concat(this.line).toString("utf8");
    this.line = [];
    this.lineSize = 0;
    if (this.endOf) this.suiteEnd(this.endOf, text);
    else this.header(text);
    return data.subarray(newline + 1);
  }

  private fail(why: string): undefined {
    this.record.protocolError ??= why;
    return undefined;
  }

  private suiteEnd(suite: SuiteName, text: string): undefined {
    this.endOf = null;
    if (!COUNT.test(text)) return this.fail(`bad end marker of the ${suite} suite`);
    this.record.exitCode[suite] = Number(text);
    this.onEvent("end", suite);
  }

  private header(text: string): undefined {
    const match = HEADER.exec(text);
    if (!match) return this.fail(`unexpected driver output: ${JSON.stringify(text.slice(0, 80))}`);
    const name = match[1]!;
    // The driver's own checks may stop it before its nonce: it names what did not hold.
    if (name === LINE.unsafe) return this.onlyOnce(name, () => (this.record.unsafe = match[2] ?? "?"));
    if (this.nonce === null) {
      if (name !== LINE.nonce || !NONCE.test(match[2] ?? ""))
        return this.fail("the driver's first line is not its nonce");
      this.nonce = match[2]!;
      return;
    }
    if (name === LINE.done)
      return this.onlyOnce(name, () => {
        this.record.done = true;
        this.onEvent("done", this.suite);
      });
    if (name === LINE.noDriverSh) return this.fail("the driver could not make its copy of sh");
    const [suite, ...args] = match[2]?.split(" ") ?? [];
    if (!suite || !SUITES.has(suite)) return this.fail(`${PREFIX}${name} without a suite`);
    if (suite !== this.suite)
      return this.fail(`${PREFIX}${name} ${suite} from the ${this.suite} suite's driver`);
    const s = suite as SuiteName;
    return this.onlyOnce(`${name} ${s}`, () => this.suiteHeader(name, s, args));
  }

  /** Each line comes once: a second one means someone else wrote into the driver's stdout. */
  private onlyOnce(key: string, then: () => unknown): undefined {
    if (this.seen.has(key)) return this.fail(`${PREFIX}${key} twice`);
    this.seen.add(key);
    then();
  }

  private suiteHeader(name: string, suite: SuiteName, args: string[]): undefined {
    switch (name) {
      case LINE.prepOut:
        return this.startBlock(LINE.prepOut, suite, args[0], this.bounds.prepOut);
      case LINE.prepErr:
        return this.startBlock(LINE.prepErr, suite, args[0], this.bounds.prepErr);
      case LINE.prepExit:
        return this.prepExit(suite, args);
      case LINE.suite:
        if (this.record.prep[suite]?.exitCode !== 0)
          return this.fail(`${PREFIX}${LINE.suite} ${suite} before its prep`);
        this.record.started[suite] = true;
        this.inSuite = { suite, cut: new MarkerCut(endMarker(this.nonce!, "stdout")) };
        this.onEvent("suite", suite);
        return;
      case LINE.kill: {
        const [rounds, survivors] = args.map(Number);
        if (!Number.isInteger(rounds) || !Number.isInteger(survivors))
          return this.fail(`bad ${PREFIX}${LINE.kill} line`);
        this.record.kill[suite] = { rounds: rounds!, survivors: survivors! };
        return;
      }
      case LINE.oom:
        if (!args[0] || !COUNT.test(args[0])) return this.fail(`bad ${PREFIX}${LINE.oom} line`);
        this.record.oomKills[suite] = Number(args[0]);
        return;
      case LINE.report:
        return this.reportHeader(suite, args);
      case LINE.seals:
        return this.sealsHeader(suite, args);
      default:
        return this.fail(`unknown driver line ${PREFIX}${name}`);
    }
  }

  private startBlock(
    name: Block["name"],
    suite: SuiteName,
    sizeText: string | undefined,
    bound: number,
  ): undefined {
    if (!sizeText || !COUNT.test(sizeText)) return this.fail(`${PREFIX}${name} ${suite} without a size`);
    const size = Number(sizeText);
    if (size > bound) return this.fail(`${PREFIX}${name} ${suite} announces ${size} bytes, above ${bound}`);
    if (size === 0) return this.blockDone(name, suite, Buffer.alloc(0));
    if (name === LINE.report && this.streamReports) {
      this.block = {
        name,
        suite,
        size,
        bytes: Buffer.alloc(0),
        got: 0,
        junit: new JUnitStream(suite, this.reportOptions),
      };
      return;
    }
    this.block = { name, suite, size, bytes: Buffer.alloc(size), got: 0 };
  }

  private blockDone(name: Block["name"], suite: SuiteName, bytes: Buffer): undefined {
    if (name === LINE.report) return this.reportDone(suite, bytes);
    if (name === LINE.seals) return this.sealsDone(suite, bytes);
    this.blocks.set(`${name} ${suite}`, bytes);
  }

  private reportHeader(suite: SuiteName, args: string[]): undefined {
    const [kind, size] = args;
    if (kind === REPORT.ok) {
      this.reportState = { kind, size: 0 };
      return this.startBlock(LINE.report, suite, size, this.bounds.report);
    }
    if (kind !== undefined && REPORT_STATES.has(kind)) {
      this.reportState = { kind: kind as ReportState, size: Number(size ?? 0) };
      return this.reportDone(suite, null);
    }
    this.fail(`bad ${PREFIX}${LINE.report} line: ${args.join(" ")}`);
  }

  private sealsHeader(suite: SuiteName, args: string[]): undefined {
    if (this.reportState === null) return this.fail(`${PREFIX}${LINE.seals} ${suite} before the report`);
    const [kind, size] = args;
    if (kind === REPORT.ok) {
      this.sealsState = { kind, size: 0 };
      return this.startBlock(LINE.seals, suite, size, this.bounds.seals ?? this.bounds.report);
    }
    if (kind !== undefined && REPORT_STATES.has(kind)) {
      this.sealsState = { kind: kind as ReportState, size: Number(size ?? 0) };
      return this.sealsDone(suite, null);
    }
    this.fail(`bad ${PREFIX}${LINE.seals} line: ${args.join(" ")}`);
  }

  private sealsDone(suite: SuiteName, bytes: Buffer | null): undefined {
    const state = this.sealsState!;
    const max = this.bounds.seals ?? this.bounds.report;
    this.record.seals[suite] =
      state.kind === REPORT.ok
        ? { kind: "ok", text: bytes!.toString("utf8") }
        : state.kind === REPORT.missing
          ? { kind: "ok", text: "" }
          : {
              kind: "invalid",
              why:
                state.kind === REPORT.tooLarge
                  ? `larger than ${max} bytes (${state.size})`
                  : state.kind === REPORT.notRegular
                    ? "$ORACLE_SEALS is not a regular file"
                    : "$ORACLE_SEALS cannot be read (its mode was changed)",
            };
  }

  private reportParsed(suite: SuiteName, tests: TestCase[] | string): undefined {
    this.record.report[suite] = { kind: "parsed", tests };
    this.onEvent("report", suite);
  }

  private reportDone(suite: SuiteName, xml: Buffer | null): undefined {
    const state = this.reportState!;
    this.record.report[suite] = this.reportRead(state, xml);
    this.onEvent("report", suite);
  }

  private reportRead(state: { kind: ReportState; size: number }, xml: Buffer | null): ReportRead {
    switch (state.kind) {
      case REPORT.ok:
        return { kind: "ok", xml: xml!.toString("utf8") };
      case REPORT.missing:
        return { kind: "missing" };
      case REPORT.notRegular:
        return { kind: "invalid", why: "$ORACLE_JUNIT is not a regular file (a symlink or special file)" };
      case REPORT.unreadable:
        return { kind: "invalid", why: "$ORACLE_JUNIT cannot be read (its mode was changed)" };
      case REPORT.tooLarge:
        return { kind: "invalid", why: `larger than ${this.bounds.report} bytes (${state.size})` };
    }
  }

  private prepExit(suite: SuiteName, args: string[]): undefined {
    const [code, what] = args;
    if (!code || !COUNT.test(code)) return this.fail(`bad ${PREFIX}${LINE.prepExit} line`);
    const failed = what === PREP_STEP_DIR ? "cannot make the step's folder" : undefined;
    this.record.prep[suite] = {
      exitCode: Number(code),
      stdout: this.blocks.get(`prep-out ${suite}`) ?? Buffer.alloc(0),
      stderr: this.blocks.get(`prep-err ${suite}`) ?? Buffer.alloc(0),
      ...(failed ? { failed } : {}),
    };
    this.onEvent("prep", suite);
  }
}

/**
 * The suite's stderr from its driver's: everything before the nonce's end marker; the driver's own
 * stderr after it goes nowhere.
 */
export class SuiteStderr extends SyncWritable {
  private ended = false;
  private cut: MarkerCut | null = null;
  private pending: Buffer[] = [];
  private markerRead = () => {};
  /**
   * Resolves when the end marker was read. The engine copies a container's stdout and stderr
   * separately, so the driver's last stdout line can come before the suite's last stderr bytes;
   * everything the suite wrote to stderr comes before this marker.
   */
  readonly marked = new Promise<void>((resolve) => (this.markerRead = resolve));

  /** `nonce` gives the driver's nonce once its first line is read (stderr is held until then). */
  constructor(
    private readonly nonce: () => string | null,
    private readonly sink: (chunk: Buffer) => void,
  ) {
    super();
  }

  /** The stream ended: what is held back belongs to the suite. */
  finish(): void {
    if (!this.cut) {
      for (const chunk of this.pending.splice(0)) if (!this.ended) this.sink(chunk);
      return;
    }
    const rest = this.cut.flush();
    if (rest.length > 0 && !this.ended) this.sink(rest);
  }

  take(chunk: Buffer): void {
    if (this.ended) return;
    if (!this.settle()) {
      // Before the driver's first line no suite has run: this is not a suite's (boot errors).
      if (this.pending.length < 64) this.pending.push(Buffer.from(chunk));
      return;
    }
    this.split(chunk);
  }

  /** Once the nonce is known, reads what was held back for it (the marker may be in it); false before. */
  settle(): boolean {
    if (this.cut) return true;
    const nonce = this.nonce();
    if (nonce === null) return false;
    this.cut = new MarkerCut(endMarker(nonce, "stderr"));
    for (const part of this.pending.splice(0)) this.split(part);
    return true;
  }

  private split(chunk: Buffer): void {
    if (this.ended) return;
    const { before, after } = this.cut!.push(chunk);
    if (before.length > 0) this.sink(before);
    if (after !== null) {
      this.ended = true;
      this.markerRead();
    }
  }
}
