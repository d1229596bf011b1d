import { describe, expect, it } from "vitest";
import type { ImageOutcome } from "./build-images.js";
import { createProgressReporter, describeOutcome } from "./progress.js";

function sink(columns?: number) {
  const out = { text: "", columns, write: (t: string) => (out.text += t) };
  return out;
}

describe("progress reporter", () => {
  it("prints plain lines per step outside a TTY", () => {
    const out = sink();
    const reporter = createProgressReporter(out, false);
    reporter.step?.("x", "Step 1/2 : FROM debian:bookworm-slim");
    reporter.step?.("x", "Step 2/2 : RUN true");
    expect(out.text).toBe("x: Step 1/2 : FROM debian:bookworm-slim\nx: Step 2/2 : RUN true\n");
  });

  it("rewrites one line per image on a TTY, cut to the terminal width, then ends it with the outcome", () => {
    const out = sink(30);
    const reporter = createProgressReporter(out, true);
    reporter.step?.("x", "Step 1/2 : FROM debian:bookworm-slim");
    const outcome: ImageOutcome = {
      name: "x",
      status: "built",
      reasons: [],
      why: [],
      durationMs: 1500,
      reference: "sha256:abc",
    };
    reporter.finished?.(outcome);
    expect(out.text).toBe("\r\x1b[2Kx: Step 1/2 : FROM debian:bo…\r\x1b[2Kx: built in 1.5 s -> sha256:abc\n");
  });

  it("describes a failure with its code, hint and log", () => {
    const text = describeOutcome({
      name: "x",
      status: "failed",
      reasons: [],
      why: [],
      durationMs: 0,
      logFile: "/l.log",
      error: { code: "BUILD_FAILED", message: "Step 2/2 : RUN false: exit 1", hint: "fix it" },
    });
    expect(text).toBe("x: FAILED BUILD_FAILED: Step 2/2 : RUN false: exit 1\n  hint: fix it\n  log: /l.log");
  });
});
