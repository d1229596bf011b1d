import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findRoot, invocationCwd, parseCliArgs } from "./cli-options.js";

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
      help: false,
      root: "/home/u/proj/r",
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

  it("accepts --help alone", () => {
    expect(parse("--help").help).toBe(true);
    expect(parse("-h").help).toBe(true);
  });

  it.each([
    [["t"], /exactly one of --diff FILE or --baseline/],
    [["t", "--diff", "x", "--baseline"], /exactly one of/],
    [["--diff", "x"], /name the task/],
    [["a", "b", "--baseline"], /one task only/],
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

describe("findRoot and invocationCwd", () => {
  it("finds the nearest folder upwards holding tasks/", () => {
    const root = mkdtempSync(join(tmpdir(), "grader-root-"));
    mkdirSync(join(root, "tasks"));
    mkdirSync(join(root, "a", "b"), { recursive: true });
    expect(findRoot(join(root, "a", "b"))).toBe(root);
  });

  it("uses INIT_CWD only when run as the pnpm grade script", () => {
    expect(invocationCwd({ npm_lifecycle_event: "grade", INIT_CWD: "/u" }, "/repo")).toBe("/u");
    expect(invocationCwd({ INIT_CWD: "/u" }, "/repo")).toBe("/repo");
  });
});
