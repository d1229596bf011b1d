import { describe, expect, it } from "vitest";
import { type StepEvent, StepOutput } from "./step-output.js";

const bounds = { report: 1024, prepOut: 1024, prepErr: 1024 };

/** Feeds the bytes to a parser in chunks of `size` (1 = byte by byte); what it parsed and passed on. */
function parse(bytes: Buffer, size = bytes.length) {
  const suite: Buffer[] = [];
  const events: StepEvent[] = [];
  const parser = new StepOutput(
    bounds,
    (chunk) => suite.push(Buffer.from(chunk)),
    (e) => events.push(e),
  );
  for (let at = 0; at < bytes.length; at += size) parser.take(bytes.subarray(at, at + size));
  return { record: parser.record, suite: Buffer.concat(suite).toString("latin1"), events };
}

const xml = '<testsuite><testcase name="a"/></testsuite>';
const prepOut = "1700000000\nsrc/a.py\0src/b\nc.py\0";
const full = Buffer.from(
  [
    "oracle:kill 1 0\n",
    "oracle:oom 0\n",
    `oracle:report ok ${xml.length}\n${xml}`,
    `oracle:prep-out ${Buffer.byteLength(prepOut)}\n${prepOut}`,
    "oracle:prep-err 0\n",
    "oracle:prep-exit 0\n",
    "oracle:suite\n",
    "oracle:report ok 3\nfake output of the suite\n",
  ].join(""),
  "latin1",
);

describe("StepOutput", () => {
  it.each([1, 2, 7, full.length])("parses a whole step in chunks of %i bytes", (size) => {
    const { record, suite, events } = parse(full, size);
    expect(record.protocolError).toBeUndefined();
    expect(record.kill).toEqual({ rounds: 1, survivors: 0 });
    expect(record.oomKills).toBe(0);
    expect(record.report).toEqual({ kind: "ok", xml });
    expect(record.prep?.exitCode).toBe(0);
    expect(record.prep?.stdout.toString("latin1")).toBe(prepOut);
    expect(record.suiteStarted).toBe(true);
    expect(events).toEqual(["report", "prep", "suite"]);
    // Whatever the suite prints, headers included, is the suite's output and nothing else.
    expect(suite).toBe("oracle:report ok 3\nfake output of the suite\n");
  });

  it("reads the report states that carry no bytes", () => {
    for (const [line, report] of [
      ["missing", { kind: "missing" }],
      ["not-regular", { kind: "invalid", why: expect.stringMatching(/not a regular file/) }],
      ["too-large 99999", { kind: "invalid", why: expect.stringMatching(/larger than 1024 bytes/) }],
    ] as const) {
      const { record } = parse(Buffer.from(`oracle:kill 0 0\noracle:oom 2\noracle:report ${line}\n`));
      expect(record.report).toEqual(report);
      expect(record.oomKills).toBe(2);
    }
  });

  it("keeps a failed prep's exit code and stderr, and starts no suite", () => {
    const err = "oracle-prep: git apply failed\n";
    const { record, events } = parse(
      Buffer.from(`oracle:prep-out 0\noracle:prep-err ${err.length}\n${err}oracle:prep-exit 12\n`),
    );
    expect(record.prep).toMatchObject({ exitCode: 12 });
    expect(record.prep?.stderr.toString()).toBe(err);
    expect(record.suiteStarted).toBeUndefined();
    expect(events).toEqual(["prep"]);
  });

  it("names a failed wipe", () => {
    const { record } = parse(Buffer.from("oracle:prep-exit 20 wipe\n"));
    expect(record.prep).toMatchObject({ exitCode: 20, failed: "cannot wipe the writable folders" });
  });

  it.each([
    ["an unknown header", "oracle:verdict PASS\n"],
    ["text before the suite marker", "hello\n"],
    ["a block above its bound", "oracle:report ok 4096\n"],
    ["a block without a size", "oracle:prep-out\n"],
    ["the suite before a prep", "oracle:suite\n"],
    ["the suite after a failed prep", "oracle:prep-exit 10\noracle:suite\n"],
    ["an endless line", `oracle:kill ${"1".repeat(600)}`],
  ])("refuses %s", (_name, text) => {
    const { record, suite } = parse(Buffer.from(`${text}oracle:suite\nafter\n`));
    expect(record.protocolError).toBeTruthy();
    expect(record.suiteStarted).toBeUndefined();
    expect(suite).toBe("");
  });
});

describe("StepOutput against a second writer", () => {
  it("refuses a header that comes twice (forged lines ahead of the real ones)", () => {
    const forged = `oracle:kill 0 0\noracle:oom 0\noracle:report ok ${xml.length}\n${xml}`;
    const { record } = parse(Buffer.concat([Buffer.from(forged), full]));
    expect(record.protocolError).toMatch(/oracle:kill twice/);
    expect(record.suiteStarted).toBeUndefined();
  });
});
