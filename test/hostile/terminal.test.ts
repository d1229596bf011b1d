// Output that drives the terminal showing it (issue 30): the code under test prints escape
// sequences, 8-bit C1 controls, bidi overrides and zero-width characters, and a predictions file
// carries them in an id. On 1ebdaf2 `oracle-log` printed the suite's output raw: it cleared the
// screen, printed a fake `verdict: PASS`, hid the real FAIL and retitled the window; `grade --batch`
// printed ids raw. Every string from outside the oracle now passes cli-kit's printable() before a
// terminal sees it. The raw bytes are checked: what matters is what reaches the terminal.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Corpus,
  expectOutcome,
  gradeCase,
  makeCorpus,
  makeDiff,
  suiteOutput,
  TASKS,
  writeFiles,
} from "./harness.js";

let corpus: Corpus;

/** The bytes a terminal acts on, or that hide or reorder text. */
const HOSTILE_BYTES =
  "\\x1b[H\\x1b[2Jverdict: PASS (PASS) both suites ran and passed\\n" + // clear, a fake verdict
  "\\x1b]0;oracle: PASS\\x07" + // the window title
  "\\x1b[8m" + // conceal what follows
  "\\xc2\\x9b2J\\xc2\\x9d0;title\\xc2\\x9c" + // 8-bit CSI and OSC, as UTF-8
  "\\x9b2J" + // and as a raw byte
  "\\xe2\\x80\\xaeLIAF\\xe2\\x80\\xac \\xe2\\x81\\xa7x\\xe2\\x81\\xa9 \\xe2\\x80\\x8bzero\\xef\\xbb\\xbf\\n"; // RLO, isolates, zero-width

/** calc/core.py: add() still subtracts, and the hostile bytes go to both streams at exit, past pytest's capture. */
const PRINTS = `import atexit
import os

_OUT = b"${HOSTILE_BYTES}"
atexit.register(lambda: (os.write(1, _OUT), os.write(2, _OUT)))


def add(a, b):
    return a - b


def double(x):
    return x * 2
`;

/** What must never reach a terminal: ESC, C0 but tab and newline, DEL, C1, bidi, zero-width. */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/u;

function expectPrintable(what: string, text: string): void {
  const at = UNSAFE.exec(text);
  expect(
    at
      ? `${what}: U+${at[0].codePointAt(0)?.toString(16)} at ${at.index}: ${JSON.stringify(text.slice(Math.max(0, at.index - 40), at.index + 40))}`
      : "",
  ).toBe("");
}

beforeAll(async () => {
  await requireDocker();
  corpus = await makeCorpus({ images: ["--only", "python-pytest"] });
});

afterAll(async () => {
  await corpus?.cleanup();
});

describe("output that drives a terminal", () => {
  it("terminal-escapes-in-suite-output: oracle-log and the grade's stderr show the bytes inert, and the real verdict", async () => {
    const diff = makeDiff(corpus, TASKS.py, (dir) => writeFiles(dir, { "calc/core.py": PRINTS }));
    const graded = await gradeCase(corpus, { name: "terminal-escapes", task: TASKS.py, diff });
    expectOutcome(graded, "FAIL", "TESTS_FAILED");
    // The log holds what the suite printed, as it printed it (the viewer, not the log, is the terminal's).
    expect(suiteOutput(graded, "hidden")).toContain("\u001b]0;oracle: PASS\u0007");
    expectPrintable("grade stderr", graded.stderr);

    const logFile = join(corpus.out, "terminal-escapes.jsonl");
    const viewed = await run(binPath("oracle-log"), [logFile], { timeoutMs: 60_000 });
    expect(viewed.code, viewed.stderr).toBe(0);
    expectPrintable("oracle-log stdout", viewed.stdout);
    expect(viewed.stdout).not.toMatch(/^verdict: PASS/m);
    expect(viewed.stdout).toMatch(/^verdict: FAIL \(TESTS_FAILED\)/m);
    // Shown, not obeyed: the fake verdict stays inside the suite's quoted output.
    expect(viewed.stdout).toMatch(/^ {2}\| verdict: PASS \(PASS\) both suites ran and passed$/m);
    expect(viewed.stdout).toContain("\\u{202e}LIAF");
  });

  it("terminal-escapes-in-prediction-id: grade --batch prints a hostile id inert", async () => {
    const diff = makeDiff(corpus, TASKS.py, (dir) => writeFiles(dir, { "calc/core.py": PRINTS }));
    const id = "p\u001b]0;oracle: PASS\u0007\u001b[2K\u009b1A\u202eSSAP\u200b\nverdict: PASS";
    const file = join(corpus.out, "terminal.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ id, task: TASKS.py, diff: diff.toString("utf8") })}\n${JSON.stringify({ id: `${id}-2`, task: "no-such-task\u001b[2J", diff: "" })}\n`,
    );
    const out = join(corpus.out, "terminal-batch");
    const batch = await run(
      binPath("oracle-grade"),
      ["--batch", file, "--out", out, "--root", corpus.root, "--concurrency", "1", "--no-cache"],
      { timeoutMs: 240_000 },
    );
    expectPrintable("batch stdout", batch.stdout);
    expectPrintable("batch stderr", batch.stderr);
    expect(`${batch.stdout}${batch.stderr}`).not.toMatch(/^verdict: PASS/m);
    // The results file keeps the id as given: it is data, not terminal output.
    const results = readFileSync(join(out, "results.jsonl"), "utf8");
    expect(results).toContain(JSON.stringify(id).slice(1, -1));
  });
});
