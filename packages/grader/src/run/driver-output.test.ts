import { describe, expect, it } from "vitest";
import type { SuiteName } from "../reports/junit.js";
import { type DriverEvent, DriverOutput, MarkerCut, SuiteStderr } from "./driver-output.js";
import { endMarker } from "./driver-protocol.js";

const NONCE = "0123456789abcdef".repeat(3);
const bounds = { report: 1024, prepOut: 1024, prepErr: 1024 };

/** Feeds the bytes to a parser in chunks of `size` (1 = byte by byte); what it parsed and passed on. */
function parse(bytes: Buffer, size = bytes.length, driverOf: SuiteName = "existing") {
  const out: Record<SuiteName, string> = { existing: "", hidden: "" };
  const events: string[] = [];
  const parser = new DriverOutput(
    driverOf,
    bounds,
    (chunk) => {
      out[driverOf] += chunk.toString("latin1");
    },
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
const full: Record<SuiteName, Buffer> = {
  existing: Buffer.from(`${suite("existing", "oracle:report existing ok 3\nabc", 0)}oracle:done\n`, "latin1"),
  hidden: Buffer.from(`${suite("hidden", `x${end(0).slice(0, -3)}`, 1)}oracle:done\n`, "latin1"),
};

describe("DriverOutput", () => {
  it.each([1, 2, 7, 50, 10_000])("parses each suite's driver in chunks of %i bytes", (size) => {
    const outputs = { existing: "oracle:report existing ok 3\nabc", hidden: `x${end(0).slice(0, -3)}` };
    for (const [name, rc] of [
      ["existing", 0],
      ["hidden", 1],
    ] as const) {
      const { record, out, events } = parse(full[name], size, name);
      expect(record.protocolError).toBeUndefined();
      expect(record.done).toBe(true);
      expect(record.kill[name]).toEqual({ rounds: 1, survivors: 0 });
      expect(record.oomKills[name]).toBe(0);
      expect(record.report[name]).toEqual({ kind: "ok", xml });
      expect(record.prep[name]?.stdout.toString("latin1")).toBe(prepOut);
      expect(record.exitCode).toEqual({ [name]: rc });
      expect(out[name]).toBe(outputs[name]);
      expect(events).toEqual([
        `prep ${name}`,
        `suite ${name}`,
        `end ${name}`,
        `report ${name}`,
        `done ${name}`,
      ]);
    }
  });

  it("refuses a line about the other suite: one driver, one suite", () => {
    const { record } = parse(Buffer.from("oracle:oom hidden 0\n"), 100, "existing");
    expect(record.protocolError).toMatch(/from the existing suite's driver/);
  });

  it("records what the driver's own checks found, before or after its nonce", () => {
    const early = new DriverOutput("existing", bounds, () => {});
    early.take(Buffer.from("oracle:unsafe boot dumpable\n"));
    expect(early.record.unsafe).toBe("boot dumpable");
    expect(early.record.protocolError).toBeUndefined();
    const late = parse(Buffer.from("oracle:unsafe after-existing pid=1 threads=2 tracer=0\n"));
    expect(late.record.unsafe).toBe("after-existing pid=1 threads=2 tracer=0");
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
      ["unreadable", { kind: "invalid", why: expect.stringMatching(/cannot be read/) }],
    ] as const) {
      const { record } = parse(
        Buffer.from(`oracle:oom hidden 2\noracle:report hidden ${line}\n`),
        100,
        "hidden",
      );
      expect(record.report.hidden).toEqual(report);
      expect(record.oomKills.hidden).toBe(2);
    }
  });

  it("keeps a failed prep's exit code and stderr, and names a step folder it could not make", () => {
    const err = "oracle-prep: git apply failed\n";
    const { record } = parse(
      Buffer.from(
        `oracle:prep-out existing 0\noracle:prep-err existing ${err.length}\n${err}oracle:prep-exit existing 12\n`,
      ),
    );
    expect(record.prep.existing).toMatchObject({ exitCode: 12 });
    expect(record.prep.existing?.stderr.toString()).toBe(err);
    expect(
      parse(Buffer.from("oracle:prep-exit hidden 20 step-dir\n"), 100, "hidden").record.prep.hidden,
    ).toMatchObject({ exitCode: 20, failed: "cannot make the step's folder" });
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
    const parser = new DriverOutput("existing", bounds, () => {});
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
      (chunk) => got.push(chunk.toString()),
    );
    split.take(Buffer.from("early"));
    nonce = NONCE;
    split.take(Buffer.from(`${endMarker(NONCE, "stderr")}late`));
    split.finish();
    expect(got).toEqual(["early"]);
  });

  it("keeps the suite's stderr up to the end marker, and nothing of the driver's after it", () => {
    let got = "";
    const marker = endMarker(NONCE, "stderr");
    const split = new SuiteStderr(
      () => NONCE,
      (chunk) => {
        got += chunk.toString();
      },
    );
    const text = `warn 1\noracle:fake:end\n${marker}driver noise${marker}`;
    for (const c of text.match(/[\s\S]{1,4}/g) ?? []) split.take(Buffer.from(c));
    split.finish();
    expect(got).toBe("warn 1\noracle:fake:end\n");
  });

  it("says when its end marker was read, also one that came before the nonce on stdout", async () => {
    // The engine copies stdout and stderr apart: the whole of stderr may come before the nonce's line.
    let nonce: string | null = null;
    let got = "";
    const split = new SuiteStderr(
      () => nonce,
      (chunk) => {
        got += chunk.toString();
      },
    );
    let marked = false;
    void split.marked.then(() => (marked = true));
    split.take(Buffer.from(`error: unknown option '--ci'\n${endMarker(NONCE, "stderr")}`));
    expect(split.settle()).toBe(false);
    nonce = NONCE;
    expect(split.settle()).toBe(true);
    await Promise.resolve();
    expect(marked).toBe(true);
    expect(got).toBe("error: unknown option '--ci'\n");
  });
});
