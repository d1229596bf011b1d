import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseLogArgs, viewLog } from "./cli.js";
import { CoalescedOutput, HEAD_LINES, TAIL_LINES } from "./coalesce.js";
import { readRunLog } from "./read-log.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const scratch = () => mkdtempSync(join(tmpdir(), "oracle-log-"));

describe("viewLog on a captured pytest run", () => {
  it("shows the header, steps with timings, each suite's output in lines, the tests and the verdict", async () => {
    const text = await viewLog(fixture("freebusy-py-pass.jsonl"));
    expect(text).toContain("task freebusy-py  mode grade");
    expect(text).toMatch(/ {2}suite\.existing +295 ms {2}at \+0\.630 s/);
    expect(text).toContain("1 file(s) kept, 0 dropped");
    // The log has the dots as several events; the view has them on one line.
    expect(text).toMatch(/\| \.{18} +\[100%\]\n/);
    expect(text).toContain("  | 18 passed in 0.03s");
    expect(text).toContain("    passed existing:tests.test_parse::test_rejects_bad_intervals[9-10]");
    expect(text).toContain("verdict: PASS (PASS) both suites ran and passed\n");
    expect(text).toContain(
      "tests_hash=5ddd8a12a1fe39f051d20523dbabb6e9639fa22a6a5762c848dcd5a1672e9b32 over 22",
    );
  });

  it("shows an unprotected Go run's warning", async () => {
    const text = await viewLog(fixture("semver-go-unprotected.jsonl"));
    expect(text).toContain("sentinel none:");
    expect(text).toMatch(/\nwarnings\n {2}warn: /);
    expect(text).toMatch(/verdict: PASS \(PASS\)/);
  });

  it("names what the filter dropped", async () => {
    const dir = scratch();
    const file = join(dir, "run.jsonl");
    const dropped = [{ path: "tests/test_x.py", why: "denied by tests/**" }];
    const line = { level: "debug", message: "diff.filtered", step: "diff.filtered", kept: 0, dropped };
    writeFileSync(file, `${JSON.stringify(line)}\n{"torn":`);
    const text = await viewLog(file);
    expect(text).toContain("  dropped tests/test_x.py: denied by tests/**");
    expect(text).toContain("unparsable line(s) skipped: 2");
    expect(text).toContain("verdict: none");
  });
});

describe("the captured logs' events", () => {
  it.each(["freebusy-py-pass.jsonl", "semver-go-unprotected.jsonl"])(
    "%s: every line is read, each event with its fields' types (older logs' extra fields kept)",
    async (name) => {
      const names = new Set<string>();
      const summary = await readRunLog(fixture(name), ({ event }) => {
        if (event) names.add(event.name);
      });
      expect(summary.badLines).toEqual([]);
      expect([...names]).toEqual(expect.arrayContaining(["start", "diff.filtered", "step", "verdict"]));
    },
  );

  it("shows each suite's sentinels as this grader logs them (files, note, none)", async () => {
    const dir = scratch();
    const file = join(dir, "run.jsonl");
    const events = [
      {
        step: "sentinel",
        framework: "pytest",
        files: ["tests/test_a.py"],
        required: [],
        twins: 0,
        note: "unsure",
      },
      { step: "sentinel", suite: "existing", none: true, note: "no test files" },
    ];
    const lines = events.map((e) => JSON.stringify({ level: "debug", message: e.step, ...e }));
    writeFileSync(file, `${lines.join("\n")}\n`);
    const text = await viewLog(file);
    expect(text).toContain("sentinel pytest tests/test_a.py (unsure)\n");
    expect(text).toContain("existing suite's sentinel none: no test files\n");
  });
});

describe("viewLog refuses what is not a log", () => {
  it.each([
    ["a missing file", (dir: string) => join(dir, "nope.jsonl"), /no such file/],
    ["a folder", (dir: string) => dir, /a folder, not a file/],
    ["an empty file", (dir: string) => write(dir, ""), /not an oracle log: it is empty/],
    ["a diff", (dir: string) => write(dir, "diff --git a/x b/x\n"), /not an oracle log: line 1/],
    ["a results.jsonl", (dir: string) => write(dir, '{"id":"p1","verdict":"PASS"}\n'), /line 1/],
  ])("%s", async (_, make, message) => {
    const error = await viewLog(make(scratch())).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "LOG_INVALID", message });
  });
});

function write(dir: string, text: string): string {
  const file = join(dir, "x.jsonl");
  writeFileSync(file, text);
  return file;
}

describe("CoalescedOutput", () => {
  it("joins one-character chunks into lines", () => {
    const output = new CoalescedOutput();
    for (let i = 0; i < 300; i += 1) output.add(".");
    output.add(" [100%]\n300 passed\n");
    expect(output.lines()).toEqual([`${".".repeat(300)} [100%]`, "300 passed"]);
  });

  it("keeps the head and the tail of a long output and counts the rest", () => {
    const output = new CoalescedOutput();
    for (let i = 0; i < 1000; i += 1) output.add(`line ${i}\n`);
    const lines = output.lines();
    expect(lines).toHaveLength(HEAD_LINES + 1 + TAIL_LINES);
    expect(lines[HEAD_LINES]).toBe(`… ${1000 - HEAD_LINES - TAIL_LINES} line(s) left out (all in the log) …`);
    expect(lines.at(-1)).toBe("line 999");
  });

  it("shows what a carriage return left on the line", () => {
    const output = new CoalescedOutput();
    output.add("10%\r50%\r100%\r\ndone");
    expect(output.lines()).toEqual(["100%", "done"]);
  });
});

describe("parseLogArgs", () => {
  it("takes one file, resolved against the folder the command was typed in", () => {
    expect(parseLogArgs(["x.jsonl"], "/home/u")).toEqual({ file: "/home/u/x.jsonl" });
    expect(parseLogArgs(["/logs/x.jsonl"], "/home/u")).toEqual({ file: "/logs/x.jsonl" });
  });
  it.each([
    [[], /FILE: name the log file/],
    [["a", "b"], /one FILE only, got: a b/],
    [["--nope", "a"], /Unknown option '--nope'/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseLogArgs(argv, "/w")).toThrow(
      expect.objectContaining({ code: "USAGE", message: expect.stringMatching(message) }),
    );
  });
});
