import { describe, expect, it, vi } from "vitest";
import { formatError, isOracleError, OracleError } from "./errors.js";

describe("isOracleError", () => {
  it("matches by code when one is given", () => {
    const error = new OracleError("USAGE", "no task given", { hint: "name a task" });
    expect(isOracleError(error)).toBe(true);
    expect(isOracleError(error, "USAGE")).toBe(true);
    expect(isOracleError(error, "INTERNAL")).toBe(false);
    expect(isOracleError(new Error("plain"))).toBe(false);
    expect(isOracleError({ code: "USAGE" })).toBe(false);
    expect(isOracleError(null)).toBe(false);
  });

  it("recognises an OracleError made by another copy of the module (a bundle and its externals)", async () => {
    vi.resetModules();
    const other = await import("./errors.js");
    expect(other.OracleError).not.toBe(OracleError);
    const error = new other.OracleError("TASK_NOT_FOUND", "no task 'x'", { hint: "list tasks/" });
    expect(error instanceof OracleError).toBe(false);
    expect(isOracleError(error, "TASK_NOT_FOUND")).toBe(true);
    expect(formatError(error)).toBe("error TASK_NOT_FOUND: no task 'x'\nhint: list tasks/");
  });
});
