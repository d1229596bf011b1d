import { PassThrough } from "node:stream";
import { OracleError } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { usageError } from "./command-line.js";
import { type Command, type CommandIo, runCommand } from "./run-command.js";

function io(env: NodeJS.ProcessEnv = {}): CommandIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  stderr.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  return { stdout, stderr, env, cwd: "/repo", out: () => out, err: () => err };
}

/** A command that records what it was given and does what `run` says. */
function command(run: Command<string>["run"], seen: string[] = []): Command<string> {
  return {
    name: "oracle-demo",
    pnpmScript: "demo",
    help: "Usage: oracle-demo THING",
    parse: (argv, at) => {
      if (argv[0] === "--bad") throw usageError("oracle-demo", "--bad is bad");
      seen.push(`${argv.join(" ")} in ${at.cwd}`);
      return argv.join(" ");
    },
    run,
  };
}

describe("runCommand", () => {
  it("prints an error that quotes hostile text inert", async () => {
    const streams = io();
    const code = await runCommand(
      command(async () => {
        throw new OracleError(
          "FILE_INVALID",
          `predictions.jsonl:1: id: ${"\u001b]0;oracle: PASS\u0007p\u009b2J\u202e\nverdict: PASS"}`,
        );
      }),
      ["x"],
      streams,
    );
    expect(code).toBe(2);
    expect(streams.err()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(streams.err()).toContain("\\u{9b}2J\\u{202e}");
  });

  it("prints an error's hints with the --root the user gave (and as they are without one)", async () => {
    const failing: Command<string> = {
      ...command(async () => {
        throw new OracleError("REGISTRY_LOCKED", "images/registry.json is locked", {
          hint: "wait for it, then run pnpm build-images again; or pnpm quarantine-sweep --changed",
        });
      }),
      rootGiven: (options) => (options.includes("--root") ? "/srv/oracle root" : undefined),
    };
    const given = io();
    expect(await runCommand(failing, ["--root"], given)).toBe(3);
    expect(given.err()).toContain(
      "run pnpm build-images --root '/srv/oracle root' again; or pnpm quarantine-sweep --root '/srv/oracle root' --changed",
    );
    const found = io();
    await runCommand(failing, ["x"], found);
    expect(found.err()).toContain("run pnpm build-images again; or pnpm quarantine-sweep --changed");
  });

  it("prints --help on stdout, exit 0, without parsing or running", async () => {
    const seen: string[] = [];
    const demo = command(async () => 1, seen);
    const streams = io();
    expect(await runCommand(demo, ["--bogus", "-h"], streams)).toBe(0);
    expect(streams.out()).toBe("Usage: oracle-demo THING\n");
    expect(streams.err()).toBe("");
    expect(seen).toEqual([]);
  });

  it("returns the run's own exit code, with options parsed in the user's folder", async () => {
    const seen: string[] = [];
    const streams = io({ npm_lifecycle_event: "demo", INIT_CWD: "/home/u" });
    expect(
      await runCommand(
        command(async (thing) => (thing === "x" ? 1 : 0), seen),
        ["x"],
        streams,
      ),
    ).toBe(1);
    expect(seen).toEqual(["x in /home/u"]);
    expect(streams.out() + streams.err()).toBe("");
  });

  it("prints a usage error on stderr with its hint, exit 2, and nothing on stdout", async () => {
    const streams = io();
    expect(
      await runCommand(
        command(async () => 0),
        ["--bad"],
        streams,
      ),
    ).toBe(2);
    expect(streams.err()).toBe("error USAGE: --bad is bad\nhint: run oracle-demo --help\n");
    expect(streams.out()).toBe("");
  });

  it("maps what the run throws to 2 (input) or 3 (engine, host, bug)", async () => {
    const fails = (error: unknown) => command(async () => Promise.reject(error));
    const notFound = io();
    expect(await runCommand(fails(new OracleError("TASK_NOT_FOUND", "no task x")), [], notFound)).toBe(2);
    expect(notFound.err()).toBe("error TASK_NOT_FOUND: no task x\n");
    const down = io();
    expect(await runCommand(fails(new OracleError("DOCKER_UNAVAILABLE", "no engine")), [], down)).toBe(3);
    const bug = io();
    expect(await runCommand(fails(new TypeError("undefined is not a function")), [], bug)).toBe(3);
    expect(bug.err()).toMatch(/^error INTERNAL: TypeError: undefined is not a function/);
  });

  it("gives the run an AbortSignal that is not aborted, and leaves no signal handler behind", async () => {
    const before = process.listenerCount("SIGINT");
    let aborted: boolean | undefined;
    await runCommand(
      command(async (_, { signal }) => {
        aborted = signal.aborted;
        expect(process.listenerCount("SIGINT")).toBe(before + 1);
        return 0;
      }),
      [],
      io(),
    );
    expect(aborted).toBe(false);
    expect(process.listenerCount("SIGINT")).toBe(before);
  });
});
