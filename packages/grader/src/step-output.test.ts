import { describe, expect, it } from "vitest";
import type { SuiteName } from "./junit.js";
import { type DriverEvent, DriverOutput, endMarker, MarkerCut, SuiteStderr } from "./step-output.js";

const NONCE = "0123456789abcdef".repeat(3);
const bounds = { report: 1024, prepOut: 1024, prepErr: 1024 };

/** Feeds the bytes to a parser in chunks of `size` (1 = byte by byte); what it parsed and passed on. */
function parse(bytes: Buffer, size = bytes.length) {
  const out: Record<SuiteName, string> = { existing: "", hidden: "" };
  const events: string[] = [];
  const parser = new DriverOutput(
    bounds,
    (suite, chunk) => (out[suite] += chunk.toString("latin1")),
    (e: DriverEvent, suite) => events.push(`${e} ${suite}`),
  );
  const all = Buffer.concat([Buffer.from(`oracle:nonce ${NONCE}\n`), bytes]);
  for (let at = 0; at < all.length; at += size) parser.take(all.subarray(at, at + size));
  parser.finish();
  return { record: parser.record, out, events };
}

const xml = '<testsuite><testcase name="a"/></testsuite>';
const prepOut = "1700000000\nsrc/a.py\0src/b\nc.py\0";
const end = (rc: number) => `\noracle:${NONCE}:end ${rc}\n`;
const suite = (name: SuiteName, output: string, rc: number) =>
  [
    `oracle:prep-out ${name} ${Buffer.byteLength(prepOut)}\n${prepOut}`,
    `oracle:prep-err ${name} 0\n`,
    `oracle:prep-exit ${name} 0\n`,
    `oracle:suite ${name}\n`,
    output,
    end(rc),
    `oracle:kill ${name} 1 0\n`,
    `oracle:oom ${name} 0\n`,
    `oracle:report ${name} ok ${xml.length}\n${xml}`,
  ].join("");
// The suites print lines that look like the driver's: they are output, nothing else.
const full = Buffer.from(
  `${suite("existing", "oracle:report existing ok 3\nabc", 0)}${suite("hidden", `x${end(0).slice(0, -3)}`, 1)}oracle:done\n`,
  "latin1",
);

describe("DriverOutput", () => {
  it.each([1, 2, 7, 50, full.length])("parses a whole run in chunks of %i bytes", (size) => {
    const { record, out, events } = parse(full, size);
    expect(record.protocolError).toBeUndefined();
    expect(record.done).toBe(true);
    for (const name of ["existing", "hidden"] as const) {
      expect(record.kill[name]).toEqual({ rounds: 1, survivors: 0 });
      expect(record.oomKills[name]).toBe(0);
      expect(record.report[name]).toEqual({ kind: "ok", xml });
      expect(record.prep[name]?.stdout.toString("latin1")).toBe(prepOut);
    }
    expect(record.exitCode).toEqual({ existing: 0, hidden: 1 });
    expect(out.existing).toBe("oracle:report existing ok 3\nabc");
    expect(out.hidden).toBe(`x${end(0).slice(0, -3)}`);
    expect(events).toEqual([
      "prep existing",
      "suite existing",
      "end existing",
      "report existing",
      "prep hidden",
      "suite hidden",
      "end hidden",
      "report hidden",
    ]);
  });

  it("gives a suite cut short (no end marker) everything it printed", () => {
    const text = `oracle:prep-exit existing 0\noracle:suite existing\npartial oracle:${NONCE}:e`;
    const { record, out } = parse(Buffer.from(text), 3);
    expect(record.started.existing).toBe(true);
    expect(record.exitCode.existing).toBeUndefined();
    expect(out.existing).toBe(`partial oracle:${NONCE}:e`);
  });

  it("reads the report states that carry no bytes", () => {
    for (const [line, report] of [
      ["missing", { kind: "missing" }],
      ["not-regular", { kind: "invalid", why: expect.stringMatching(/not a regular file/) }],
      ["too-large 99999", { kind: "invalid", why: expect.stringMatching(/larger than 1024 bytes/) }],
    ] as const) {
      const { record } = parse(Buffer.from(`oracle:oom hidden 2\noracle:report hidden ${line}\n`));
      expect(record.report.hidden).toEqual(report);
      expect(record.oomKills.hidden).toBe(2);
    }
  });

  it("keeps a failed prep's exit code and stderr, and names a failed wipe", () => {
    const err = "oracle-prep: git apply failed\n";
    const { record } = parse(
      Buffer.from(
        `oracle:prep-out existing 0\noracle:prep-err existing ${err.length}\n${err}oracle:prep-exit existing 12\n`,
      ),
    );
    expect(record.prep.existing).toMatchObject({ exitCode: 12 });
    expect(record.prep.existing?.stderr.toString()).toBe(err);
    expect(parse(Buffer.from("oracle:prep-exit hidden 20 wipe\n")).record.prep.hidden).toMatchObject({
      exitCode: 20,
      failed: "cannot wipe the writable folders",
    });
  });

  it.each([
    ["an unknown line", "oracle:verdict existing PASS\n"],
    ["a line without a suite", "oracle:kill 0 0\n"],
    ["text outside a suite", "hello\n"],
    ["a block above its bound", "oracle:report existing ok 4096\n"],
    ["a block without a size", "oracle:prep-out existing\n"],
    ["a suite before its prep", "oracle:suite existing\n"],
    ["a suite after a failed prep", "oracle:prep-exit existing 10\noracle:suite existing\n"],
    ["a line twice (forged ahead of the real one)", "oracle:oom existing 0\noracle:oom existing 0\n"],
    ["an endless line", `oracle:kill existing ${"1".repeat(600)}`],
    ["a bad end marker", `oracle:prep-exit existing 0\noracle:suite existing\n\noracle:${NONCE}:end x\n`],
  ])("refuses %s", (_name, text) => {
    const { record } = parse(Buffer.from(`${text}oracle:done\n`));
    expect(record.protocolError).toBeTruthy();
    expect(record.done).toBeUndefined();
  });
});

describe("the driver's first line", () => {
  it("must be its nonce", () => {
    const parser = new DriverOutput(bounds, () => {});
    parser.take(Buffer.from("oracle:prep-exit existing 0\n"));
    expect(parser.record.protocolError).toMatch(/first line is not its nonce/);
  });
});

describe("MarkerCut and SuiteStderr", () => {
  it("finds a marker split across chunks and passes on everything else", () => {
    const cut = new MarkerCut(Buffer.from("<END>"));
    const seen: string[] = [];
    let after: Buffer | null = null;
    for (const chunk of ["ab<", "EN", "D>cd"]) {
      const r = cut.push(Buffer.from(chunk));
      seen.push(r.before.toString());
      if (r.after) after = r.after;
    }
    expect(seen.join("")).toBe("ab");
    expect(after?.toString()).toBe("cd");
  });

  it("holds stderr until the nonce is known", () => {
    let nonce: string | null = null;
    const got: string[] = [];
    const split = new SuiteStderr(
      () => nonce,
      (suite, chunk) => got.push(`${suite}:${chunk}`),
    );
    split.take(Buffer.from("early"));
    nonce = NONCE;
    split.take(Buffer.from(`${endMarker(NONCE, "stderr")}late`));
    split.finish();
    expect(got).toEqual(["existing:early", "hidden:late"]);
  });

  it("splits stderr into the existing and the hidden suite's at the end markers", () => {
    const got: Record<SuiteName, string> = { existing: "", hidden: "" };
    const marker = endMarker(NONCE, "stderr");
    const split = new SuiteStderr(
      () => NONCE,
      (suite, chunk) => (got[suite] += chunk.toString()),
    );
    const text = `warn 1${marker}warn 2\noracle:fake:end\n${marker}`;
    for (const c of text.match(/[\s\S]{1,4}/g) ?? []) split.take(Buffer.from(c));
    split.finish();
    expect(got).toEqual({ existing: "warn 1", hidden: "warn 2\noracle:fake:end\n" });
  });
});
