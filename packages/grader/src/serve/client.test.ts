import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCliArgs } from "../cli/cli-options.js";
import { GRADE_FILE_FLAGS, GRADE_FLAGS } from "../cli/grade-flags.js";
import {
  isSingleGrade,
  type ServeRequest,
  sameFileForServer,
  servablePaths,
  socketPath,
  viaServer,
} from "./client.js";

let root = "";
let server: Server | null = null;

afterEach(async () => {
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  server = null;
  rmSync(root, { recursive: true, force: true });
});

/** A root with a fake local grader that answers each request with `frames`, and records the requests. */
async function fakeServer(frames: object[]): Promise<ServeRequest[]> {
  root = mkdtempSync(join(tmpdir(), "oracle-serve-client-"));
  mkdirSync(join(root, "tasks"));
  mkdirSync(join(root, ".oracle"));
  const requests: ServeRequest[] = [];
  server = createServer((socket) => {
    socket.setEncoding("utf8");
    socket.once("data", (line: string) => {
      requests.push(JSON.parse(line) as ServeRequest);
      for (const frame of frames) socket.write(`${JSON.stringify(frame)}\n`);
      socket.end();
    });
  });
  await new Promise<void>((done) => server!.listen(socketPath(root), done));
  return requests;
}

describe("the local grader's client", () => {
  it("hands a single grade to the root's server and returns its exit code", async () => {
    const requests = await fakeServer([{ x: 7 }]);
    const env = { ORACLE_SIGNING_KEY: "/k", PATH: "/bin", HOME: "/h" };
    expect(await viaServer(["--root", root, "t", "--baseline"], env, "b1")).toBe(7);
    expect(requests).toEqual([
      {
        build: "b1",
        argv: ["--root", root, "t", "--baseline"],
        cwd: process.cwd(),
        env: { HOME: "/h", ORACLE_SIGNING_KEY: "/k" },
        stderrTTY: process.stderr.isTTY === true,
      },
    ]);
  });

  it("leaves the grade to the process when the server declines, none listens, or it is no grade", async () => {
    await fakeServer([{ f: "another build" }]);
    expect(await viaServer(["--root", root, "t", "--baseline"], {}, "b1")).toBeNull();
    expect(await viaServer(["--root", join(root, "tasks"), "t", "--baseline"], {}, "b1")).toBeNull();
    expect(await viaServer(["--root", root, "t", "--baseline"], {}, null)).toBeNull();
    expect(isSingleGrade(["--batch", "p.jsonl"])).toBe(false);
    expect(isSingleGrade(["--serve"])).toBe(false);
    expect(isSingleGrade(["t", "--diff", "d"])).toBe(true);
  });

  it("grades in process when a file argument names the process's own descriptors", async () => {
    const requests = await fakeServer([{ x: 0 }]);
    const diff = join(root, "fix.diff");
    writeFileSync(diff, "");
    symlinkSync("/dev/stdin", join(root, "in.diff"));
    symlinkSync("/proc/self/fd", join(root, "fds"));
    symlinkSync("fix.diff", join(root, "link.diff"));
    expect(sameFileForServer(diff)).toBe(true);
    expect(sameFileForServer(join(root, "link.diff"))).toBe(true);
    expect(sameFileForServer(join(root, "new", "result.json"))).toBe(true);
    for (const path of [
      "/dev/stdin",
      "/dev/fd/0",
      "/proc/self/fd/0",
      join(root, "in.diff"),
      join(root, "fds", "0"),
      root,
    ])
      expect(sameFileForServer(path), path).toBe(false);
    expect(servablePaths(["t", "--diff", "fix.diff", "--result", "r.json"], root)).toBe(true);
    expect(servablePaths(["t", "--diff", "fix.diff", "--result=/dev/stdout"], root)).toBe(false);
    expect(servablePaths(["t", "--baseline", "--log", "/dev/stderr"], root)).toBe(false);
    expect(await viaServer(["--root", root, "t", "--diff", "/dev/stdin"], {}, "b1")).toBeNull();
    expect(
      await viaServer(["--root", root, "t", "--diff", diff, "--result", "/dev/stdout"], {}, "b1"),
    ).toBeNull();
    expect(requests).toEqual([]);
    expect(await viaServer(["--root", root, "t", "--diff", diff], {}, "b1")).toBe(0);
    expect(requests).toHaveLength(1);
  });

  it("reads the files a grade opens from the grade's own flags (grade-flags.ts): each one, in both spellings", () => {
    const cwd = mkdtempSync(join(tmpdir(), "oracle-serve-flags-"));
    root = cwd;
    for (const flag of GRADE_FILE_FLAGS) {
      expect(GRADE_FLAGS[flag].type, flag).toBe("string");
      expect(servablePaths(["t", `--${flag}`, "/dev/stdin"], cwd), flag).toBe(false);
      expect(servablePaths(["t", `--${flag}=/proc/self/fd/0`], cwd), flag).toBe(false);
      expect(servablePaths(["t", `--${flag}`, "plain.json"], cwd), flag).toBe(true);
    }
    // The parser's file options are exactly the flags the client checks: one /dev path each, not servable alone.
    const options = parseCliArgs(["t", "--diff", "d", "--result", "r", "--log", "l"], cwd);
    const files = [options.diffPath, options.resultFile, options.logFile];
    expect(files).toEqual(["d", "r", "l"].map((name) => join(cwd, name)));
    expect(
      Object.keys(GRADE_FLAGS)
        .filter((f) => GRADE_FLAGS[f as keyof typeof GRADE_FLAGS].type === "string")
        .sort(),
    ).toEqual([...GRADE_FILE_FLAGS, "root", "timeout"].sort());
  });
});
