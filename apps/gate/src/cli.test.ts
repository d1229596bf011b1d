import { isOracleError } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { parseArgs } from "./cli.js";

const usage = (argv: string[]): string => {
  try {
    parseArgs(argv, "/w");
  } catch (error) {
    expect(isOracleError(error, "USAGE")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("parsed");
};

describe("oracle-gate's command line", () => {
  it("needs both batches unless planning or verifying", () => {
    expect(usage(["--candidate", "a"])).toContain("name both batches");
    expect(parseArgs(["--plan"], "/w").plan).toBe(true);
    expect(parseArgs(["--verify", "g.json"], "/w").verify).toBe("g.json");
  });

  it("refuses the plan's flags on a decision, where they would be ignored", () => {
    expect(usage(["--candidate", "a", "--incumbent", "b", "--effect", "0.1"])).toBe(
      "--effect: only with --plan (a decision does not use them)",
    );
    expect(usage(["--candidate", "a", "--incumbent", "b", "--samples=1,3", "--icc", "0.2"])).toContain(
      "--samples, --icc: only with --plan",
    );
  });

  it("says what a fraction must be", () => {
    expect(usage(["--plan", "--margin=-0.1"])).toContain("--margin must be a number from 0 to 1");
    expect(usage(["--plan", "--alpha", "0.9"])).toContain("must be at most 0.5");
  });

  it("defaults: superiority, alpha 0.05, 5% noise, 10000 resamples, seed 1", () => {
    const o = parseArgs(["--candidate", "a", "--incumbent", "b"], "/w");
    expect(o).toMatchObject({ alpha: 0.05, maxInfra: 0.05, resamples: 10_000, seed: 1, allowMissing: false });
    expect(o.margin).toBeUndefined();
  });
});
