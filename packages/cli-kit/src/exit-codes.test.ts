import { ERROR_CODES, type ErrorCode, OracleError } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { EXIT, exitCodeFor, signalExitCode } from "./exit-codes.js";

const exitOf = (code: ErrorCode) => exitCodeFor(new OracleError(code, "x"));

describe("exitCodeFor", () => {
  it("is 2 when the command line or an input is at fault: nothing ran", () => {
    for (const code of [
      "USAGE",
      "TASK_INVALID",
      "TASK_NOT_FOUND",
      "TASK_QUARANTINED",
      "FILE_INVALID",
    ] as const)
      expect(exitOf(code), code).toBe(EXIT.USAGE);
    for (const code of ["DIFF_UNREADABLE", "LOG_INVALID", "IMAGE_INVALID", "LOCKFILE_OUT_OF_SYNC"] as const)
      expect(exitOf(code), code).toBe(EXIT.USAGE);
  });

  it("is 3 when the engine, the host or the oracle itself failed, and for any error that is not an OracleError", () => {
    for (const code of [
      "DOCKER_UNAVAILABLE",
      "INFRA_ERROR",
      "INTERNAL",
      "REGISTRY_LOCKED",
      "BUILD_FAILED",
    ] as const)
      expect(exitOf(code), code).toBe(EXIT.CANNOT_RUN);
    expect(exitCodeFor(new TypeError("bug"))).toBe(EXIT.CANNOT_RUN);
    expect(exitCodeFor("a string")).toBe(EXIT.CANNOT_RUN);
  });

  it("gives every error code 2 or 3, never the 0 and 1 of an outcome", () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) expect([2, 3]).toContain(exitOf(code));
  });
});

describe("signalExitCode", () => {
  it("is 128 + the signal's number", () => {
    expect(signalExitCode("SIGINT")).toBe(130);
    expect(signalExitCode("SIGTERM")).toBe(143);
  });
});
