import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { isBatchInvocation, parseBatchArgs } from "./cli-options.js";

describe("parseBatchArgs", () => {
  it("maps --batch options, resolving paths against the invocation folder", () => {
    const argv = ["--batch", "p.jsonl", "--out", "o", "--concurrency", "3", "--queue", "redis://h:1"];
    const more = [
      "--no-cache",
      "--root",
      "r",
      "--timeout",
      "60",
      "--json",
      "--trust-key",
      "a.pem",
      "--trust-key=/k/b.pem",
    ];
    expect(parseBatchArgs([...argv, ...more], "/w")).toEqual({
      root: "/w/r",
      // Given: the summary's printed commands name it (`pnpm quarantine-sweep --root /w/r --changed`).
      rootGiven: "/w/r",
      predictionsFile: "/w/p.jsonl",
      outDir: "/w/o",
      concurrency: 3,
      queueUrl: "redis://h:1",
      trustKeys: ["/w/a.pem", "/k/b.pem"],
      timeoutSeconds: 60,
      infraRetries: 2,
      cache: false,
      pool: true,
      allowQuarantined: false,
      allowUnvalidated: false,
      json: true,
    });
  });

  it("turns the warm pool off with --no-pool", () => {
    expect(parseBatchArgs(["--batch", "p", "--no-pool"], "/w").pool).toBe(false);
  });

  it("has defaults: every core, two infra retries, the cache and the warm pool on", () => {
    expect(
      parseBatchArgs(
        ["--batch=p", "--infra-retries", "0", "--allow-quarantined", "--allow-unvalidated"],
        "/w",
      ),
    ).toMatchObject({
      concurrency: availableParallelism(),
      infraRetries: 0,
      cache: true,
      pool: true,
      allowQuarantined: true,
      allowUnvalidated: true,
      json: false,
    });
    expect(parseBatchArgs(["--batch=p"], "/w")).not.toHaveProperty("rootGiven");
  });

  it.each([
    [["--batch", "p", "--concurrency", "0"], "--concurrency: must be at least 1"],
    [["--batch", "p", "--infra-retries", "11"], "--infra-retries: must be at most 10"],
    [["--batch", "p", "--queue", "http://x"], /redis/],
    [["--batch", "p", "task"], /Unexpected argument 'task'/],
    [["--batch="], "--batch: name the predictions file"],
  ])("refuses %j as USAGE", (argv, message) => {
    expect(() => parseBatchArgs(argv, "/w")).toThrow(message);
    expect(() => parseBatchArgs(argv, "/w")).toThrow(expect.objectContaining({ code: "USAGE" }));
  });

  it("is what --batch anywhere on the command line asks for", () => {
    expect(isBatchInvocation(["t", "--batch", "p"])).toBe(true);
    expect(isBatchInvocation(["--batch=p"])).toBe(true);
    expect(isBatchInvocation(["t", "--baseline"])).toBe(false);
  });
});
