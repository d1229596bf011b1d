import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isSingleGrade, type ServeRequest, socketPath, viaServer } from "./client.js";

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
});
