import { describe, expect, it } from "vitest";
import { parseWorkerArgs } from "./worker-cli-options.js";

describe("parseWorkerArgs", () => {
  it("maps every flag, --root resolved against the invocation folder", () => {
    expect(
      parseWorkerArgs(
        ["--queue", "redis://h:1", "--concurrency", "2", "--lock-seconds", "5", "--root", "r"],
        "/w",
      ),
    ).toEqual({ queueUrl: "redis://h:1", concurrency: 2, root: "/w/r", lockSeconds: 5, pool: true });
    expect(parseWorkerArgs(["--queue", "redis://h:1"], "/w")).toMatchObject({ lockSeconds: 30 });
    expect(parseWorkerArgs(["--queue", "redis://h:1", "--no-pool"], "/w")).toMatchObject({ pool: false });
  });

  it.each([
    [[], "--queue: give --queue redis://HOST:PORT"],
    [["--queue", "http://h:1"], /redis:\/\/HOST:PORT/],
    [["--queue", "redis://h:1", "--lock-seconds", "1"], "--lock-seconds: must be at least 2"],
    [["--queue", "redis://h:1", "stray"], /Unexpected argument 'stray'/],
  ])("refuses %j as USAGE", (argv, message) => {
    expect(() => parseWorkerArgs(argv, "/w")).toThrow(message);
    expect(() => parseWorkerArgs(argv, "/w")).toThrow(expect.objectContaining({ code: "USAGE" }));
  });
});
