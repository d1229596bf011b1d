import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCliArgs } from "./cli-options.js";

const cwd = "/home/u/proj";
const parse = (...argv: string[]) => parseCliArgs(argv, cwd);

describe("parseCliArgs", () => {
  it("maps a grade command, paths resolved against the cwd", () => {
    expect(
      parse(
        "--root",
        "r",
        "calc",
        "--diff",
        "d.diff",
        "--log",
        "l.jsonl",
        "--result",
        "/abs/r.json",
        "--timeout",
        "30",
      ),
    ).toEqual({
      root: "/home/u/proj/r",
      rootGiven: "/home/u/proj/r",
      task: "calc",
      mode: "grade",
      diffPath: "/home/u/proj/d.diff",
      logFile: "/home/u/proj/l.jsonl",
      resultFile: "/abs/r.json",
      timeoutSeconds: 30,
      allowQuarantined: false,
    });
  });

  it("maps baseline mode and --allow-quarantined", () => {
    const options = parse("--root", "/r", "--baseline", "t", "--allow-quarantined");
    expect(options).toMatchObject({ mode: "baseline", task: "t", allowQuarantined: true, root: "/r" });
    expect(options.diffPath).toBeUndefined();
  });

  it.each([
    [["t"], /exactly one of --diff FILE or --baseline/],
    [["t", "--diff", "x", "--baseline"], /exactly one of/],
    [["--diff", "x"], /TASK: name the task/],
    [["a", "b", "--baseline"], /one TASK only, got: a b/],
    [["t", "--baseline", "--timeout", "0"], /whole number/],
    [["t", "--baseline", "--timeout", "1.5"], /whole number/],
    [["t", "--baseline", "--timeout", "100000"], /86400/],
    [["t", "--baseline", "--frobnicate"], /Unknown option/],
    [["t", "--diff"], /argument missing/],
  ])("rejects %j as USAGE", (argv, message) => {
    expect(() => parse(...argv)).toThrow(message);
    try {
      parse(...argv);
    } catch (error) {
      expect((error as { code: string }).code).toBe("USAGE");
    }
  });
});

describe("the default root", () => {
  it("is the nearest folder upwards holding tasks/ (or images/)", () => {
    const root = mkdtempSync(join(tmpdir(), "grader-root-"));
    mkdirSync(join(root, "tasks"));
    mkdirSync(join(root, "a", "b"), { recursive: true });
    expect(parseCliArgs(["t", "--baseline"], join(root, "a", "b")).root).toBe(root);
  });
});
