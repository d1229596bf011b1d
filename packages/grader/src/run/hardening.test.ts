import { describe, expect, it } from "vitest";
import { countFileHeaders } from "../diff/split.js";
import { PREP_EXIT } from "./driver-protocol.js";
import { prepFailure } from "./prep.js";
import { engineFailureMessage } from "./wall-clock-limit.js";

describe("prepFailure", () => {
  it("a git killed at the memory limit is OUT_OF_MEMORY, not a diff that does not apply", () => {
    const stderr = "Killed\noracle-prep: git apply failed\noom_kill 1\n";
    expect(prepFailure(PREP_EXIT.apply, stderr, 0)).toEqual({
      reason: "OUT_OF_MEMORY",
      message: "the prep step was OOM-killed at the memory limit: Killed\noracle-prep: git apply failed",
    });
  });

  it("an OOM kill counted before this step does not count again", () => {
    expect(prepFailure(PREP_EXIT.apply, "oracle-prep: git apply failed\noom_kill 1\n", 1).reason).toBe(
      "DIFF_DOES_NOT_APPLY",
    );
  });
});

describe("engineFailureMessage", () => {
  it("names a daemon that stopped answering", () => {
    const gone = Object.assign(new Error("connect ENOENT /var/run/docker.sock"), { code: "ENOENT" });
    expect(engineFailureMessage(gone)).toMatch(
      /the Docker engine stopped answering mid-run \(connect ENOENT/,
    );
    expect(engineFailureMessage(new Error("socket hang up"))).toMatch(/stopped answering/);
  });

  it("passes other failures through", () => {
    expect(engineFailureMessage(new Error("no such image"))).toBe("engine or host failure: no such image");
  });
});

describe("countFileHeaders", () => {
  it("counts git headers or +++ lines, whichever is more, without parsing", () => {
    const git = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    const mode = "diff --git a/y b/y\nold mode 100644\nnew mode 100755\n";
    const traditional = "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n";
    expect(countFileHeaders(Buffer.from(git + mode))).toBe(2);
    expect(countFileHeaders(Buffer.from(traditional.repeat(3)))).toBe(3);
    expect(countFileHeaders(Buffer.from(""))).toBe(0);
  });
});
