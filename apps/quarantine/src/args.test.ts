import { describe, expect, it } from "vitest";
import { parseCliArgs as parseIn } from "./args.js";

/** Parsed as if typed in /w, a folder with no tasks/ or images/ upwards: the default root is /w. */
const parseCliArgs = (argv: string[]) => parseIn(argv, "/w");

describe("parseCliArgs", () => {
  it("has defaults for everything", () => {
    expect(parseCliArgs([])).toEqual({
      root: "/w",
      tasks: [],
      changed: false,
      watch: false,
      repeat: 1,
      infraRetries: 2,
      trustKey: [],
      json: false,
      failOnNew: false,
    });
  });

  it("reads --tasks a,b as two globs, a comma inside braces as one glob's", () => {
    const parsed = parseCliArgs(["--tasks", "a-sel,b-sel", "--tasks", "{c,d}-*,", "e"]);
    expect(parsed.tasks).toEqual(["a-sel", "b-sel", "{c,d}-*", "e"]);
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
      "--trust-key",
      "k.pem",
    ]);
    expect(parsed).toEqual({
      root: "/r",
      rootGiven: "/r",
      tasks: ["a-*", "b"],
      changed: true,
      watch: false,
      concurrency: 4,
      repeat: 3,
      report: "/w/out",
      infraRetries: 0,
      trustKey: ["/w/k.pem"],
      json: true,
      failOnNew: true,
    });
  });

  it("takes --queue redis://HOST:PORT to grade on queue workers", () => {
    expect(parseCliArgs(["--queue", "redis://h:6379"])).toMatchObject({ queue: "redis://h:6379" });
    expect(() => parseCliArgs(["--queue", "h:6379"])).toThrow(/--queue: must be a redis:\/\/ url/);
  });

  it("takes --watch, without --fail-on-new or --report", () => {
    expect(parseCliArgs(["--watch", "--json"])).toMatchObject({ watch: true, json: true });
    expect(() => parseCliArgs(["--watch", "--fail-on-new"])).toThrow(/--watch and --fail-on-new exclude/);
    expect(() => parseCliArgs(["--watch", "--report", "r"])).toThrow(/one report per pass/);
  });

  it("resolves --root and --report against the folder the command was typed in", () => {
    expect(parseIn(["--root", "r", "--report", "/abs"], "/home/u")).toMatchObject({
      root: "/home/u/r",
      report: "/abs",
    });
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
