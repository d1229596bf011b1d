import { describe, expect, it } from "vitest";
import { parseCliArgs } from "./args.js";

describe("parseCliArgs", () => {
  it("has defaults for everything", () => {
    expect(parseCliArgs([])).toEqual({
      help: false,
      options: {
        root: ".",
        tasks: [],
        changed: false,
        watch: false,
        repeat: 1,
        infraRetries: 2,
        json: false,
        failOnNew: false,
      },
    });
  });

  it("maps every flag, and takes bare arguments after --tasks as more globs", () => {
    const parsed = parseCliArgs([
      "--root",
      "/r",
      "--tasks",
      "a-*",
      "b",
      "--concurrency",
      "4",
      "--repeat",
      "3",
      "--report",
      "out",
      "--infra-retries",
      "0",
      "--json",
      "--fail-on-new",
      "--changed",
    ]);
    expect(parsed).toEqual({
      help: false,
      options: {
        root: "/r",
        tasks: ["a-*", "b"],
        changed: true,
        watch: false,
        concurrency: 4,
        repeat: 3,
        report: "out",
        infraRetries: 0,
        json: true,
        failOnNew: true,
      },
    });
  });

  it("takes --queue redis://HOST:PORT to grade on queue workers", () => {
    expect(parseCliArgs(["--queue", "redis://h:6379"])).toMatchObject({
      options: { queue: "redis://h:6379" },
    });
    expect(() => parseCliArgs(["--queue", "h:6379"])).toThrow(/--queue: must be a redis:\/\/ url/);
  });

  it("takes --watch, without --fail-on-new or --report", () => {
    expect(parseCliArgs(["--watch", "--json"])).toMatchObject({ options: { watch: true, json: true } });
    expect(() => parseCliArgs(["--watch", "--fail-on-new"])).toThrow(/--watch and --fail-on-new exclude/);
    expect(() => parseCliArgs(["--watch", "--report", "r"])).toThrow(/one report per pass/);
  });

  it("answers --help and -h", () => {
    expect(parseCliArgs(["--help"])).toEqual({ help: true });
    expect(parseCliArgs(["-h", "--repeat", "x"])).toEqual({ help: true });
  });

  it("refuses unknown flags and bad numbers with USAGE errors that name the flag", () => {
    expect(() => parseCliArgs(["--repat", "3"])).toThrow(expect.objectContaining({ code: "USAGE" }));
    expect(() => parseCliArgs(["--repeat", "0"])).toThrow(/--repeat: must be at least 1/);
    expect(() => parseCliArgs(["--concurrency", "two"])).toThrow(/--concurrency: must be a whole number/);
    expect(() => parseCliArgs(["--infra-retries", "11"])).toThrow(/--infra-retries: must be at most 10/);
    expect(() => parseCliArgs(["--json=yes"])).toThrow(expect.objectContaining({ code: "USAGE" }));
    expect(() => parseCliArgs(["--tasks", ""])).toThrow(/--tasks\[0\]: a glob may not be empty/);
  });
});
