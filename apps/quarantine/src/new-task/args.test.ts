import { describe, expect, it } from "vitest";
import { parseNewTaskArgs } from "./args.js";

/** Parsed as if typed in /w, a folder with no tasks/ or images/ upwards: the default root is /w. */
const parse = (...argv: string[]) => parseNewTaskArgs(argv, "/w");

describe("parseNewTaskArgs", () => {
  it("validates with 3 runs of each check for one task (--fix, --swebench) and 2 for each mined candidate, unless --repeat says", () => {
    expect(parse("--repo", "r", "--fix", "x").repeat).toBe(3);
    expect(parse("--swebench", "d.jsonl", "--repos", "c").repeat).toBe(3);
    expect(parse("--mine", "r").repeat).toBe(2);
    expect(parse("--repo", "r", "--fix", "x", "--repeat", "5").repeat).toBe(5);
    expect(parse("--mine", "r", "--repeat", "4").repeat).toBe(4);
  });
  it("maps a fix commit's flags, paths resolved against the folder the command was typed in", () => {
    expect(parse("--repo", "r", "--fix", "HEAD", "--tests", "t/**", "--no-validate")).toEqual({
      repo: "/w/r",
      fix: "HEAD",
      tests: ["t/**"],
      root: "/w",
      validate: false,
      repeat: 3,
      lockWait: 1800,
      force: false,
      json: false,
    });
    expect(
      parse(
        "--repo",
        "/r",
        "--fix",
        "f",
        "--id",
        "x",
        "--image",
        "py",
        "--framework",
        "pytest",
        "--root",
        "o",
      ),
    ).toMatchObject({
      repo: "/r",
      id: "x",
      image: "py",
      framework: "pytest",
      root: "/w/o",
      rootGiven: "/w/o",
      validate: true,
    });
  });

  it("maps SWE-bench's flags", () => {
    expect(
      parse("--swebench", "d.jsonl", "--repos", "/clones", "--repeat", "1", "--force", "--json"),
    ).toEqual({
      swebench: "/w/d.jsonl",
      repos: "/clones",
      tests: [],
      root: "/w",
      validate: true,
      repeat: 1,
      lockWait: 1800,
      force: true,
      json: true,
    });
  });

  it.each([
    [[], /say where the task comes from/],
    [["--repo", "r"], /--fix COMMIT is missing/],
    [["--fix", "f"], /--repo PATH is missing/],
    [["--swebench", "d.jsonl"], /--repos DIR is missing/],
    [["--repo", "r", "--fix", "f", "--swebench", "d"], /two different ways/],
    [["--swebench", "d", "--repos", "r", "--id", "x"], /instance_id/],
    [["--swebench", "d", "--repos", "r", "--tests", "t"], /--tests splits a fix commit/],
    [["--repo", "r", "--fix", "x", "--repeat", "0"], /--repeat: must be at least 1/],
    [["--repo", "r", "--fix", "x", "--framework", "rspec"], /--framework: must be one of pytest/],
    [["--repo", "r", "--fix", "x", "--tests", ""], /--tests\[0\]: a glob may not be empty/],
    [["stray"], /Unexpected argument 'stray'/],
  ])("refuses %j as USAGE", (argv, message) => {
    expect(() => parse(...argv)).toThrow(message);
    expect(() => parse(...argv)).toThrow(expect.objectContaining({ code: "USAGE" }));
  });
});
