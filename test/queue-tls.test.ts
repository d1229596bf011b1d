// The queue over TLS with a password, as docs/security.md says to run it: Debian's redis-server with
// only a TLS port and requirepass, a certificate made here. A worker and a collector (queueGrade, what
// `quarantine-sweep --queue` and `grade --batch --queue` use) reach it over rediss:// when Node
// trusts the certificate's CA (NODE_EXTRA_CA_CERTS); without it, or with a wrong password, they stop
// at once with a hint instead of retrying for ever. Each client runs in a process of its own: Node
// reads NODE_EXTRA_CA_CERTS at start. The worker grades with a stand-in (no containers).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { connect } from "node:tls";
import { pathToFileURL } from "node:url";
import { makeTempRoot, repoRoot, requireDocker, run, waitFor } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, freePort } from "./fixtures/batch/harness.js";

const PASSWORD = "s3cret/with:chars";
let temp: { root: string; cleanup: () => Promise<void> };
let server: ChildProcess | null = null;
let port = 0;
let cert = "";

/** One PING over TLS after AUTH: "+PONG" once the server is up. */
function pongs(): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: "127.0.0.1", port, ca: cert, servername: "127.0.0.1" }, () =>
      socket.write(`AUTH ${PASSWORD}\r\nPING\r\n`),
    );
    let seen = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      seen += chunk;
      if (seen.includes("PONG")) {
        socket.destroy();
        done(true);
      }
    });
    socket.on("error", () => done(false));
    socket.setTimeout(2000, () => {
      socket.destroy();
      done(false);
    });
  });
}

// The client: a worker (when asked) and one queueGrade; prints one JSON line.
const CLIENT = `
import { queueGrade, startWorker } from ${JSON.stringify(pathToFileURL(join(repoRoot, "packages/grader/dist/index.js")).href)};
const [url, root, withWorker] = process.argv.slice(2);
const quiet = { info() {}, warn() {}, debug() {}, error() {} };
const suite = { status: "PASS", exitCode: 0, durationMs: 1, counts: { passed: 1, failed: 0, error: 0, skipped: 0 }, tests: [], output: { bytes: 0, truncated: false } };
const result = (task) => ({ graderVersion: "0.1.0", task, mode: "grade", verdict: "PASS", reason: "PASS", message: "graded over TLS", testsHash: "a".repeat(64), testIds: ["hidden:t::x"], suites: { existing: suite, hidden: suite }, image: { name: "node-mocha", reference: null, digest: null }, diff: null, timings: {}, logPath: "/nowhere.jsonl", startedAt: new Date().toISOString(), durationMs: 1 });
let worker;
try {
  if (withWorker === "worker") worker = await startWorker({ queueUrl: url, root, grade: async (o) => result(o.task), concurrency: 1, lockSeconds: 4, logger: quiet });
  const r = await queueGrade(url, { pollMs: 200 })({ root, task: "calc-node", mode: "baseline" });
  console.log(JSON.stringify({ verdict: r.verdict, message: r.message }));
} catch (e) {
  console.log(JSON.stringify({ code: e.code, error: e.message, hint: e.hint }));
} finally {
  await worker?.close();
  process.exit(0);
}
`;

async function client(url: string, options: { ca: boolean; worker: boolean }) {
  const script = join(temp.root, "client.mjs");
  const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: options.ca ? join(temp.root, "cert.pem") : "" };
  const out = await run(process.execPath, [script, url, temp.root, options.worker ? "worker" : "none"], {
    env,
    timeoutMs: 120_000,
  });
  const last = out.stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(last) as {
    verdict?: string;
    message?: string;
    code?: string;
    error?: string;
    hint?: string;
  };
}

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ "tasks/calc-node": "tasks/calc-node" });
  await writeFile(join(temp.root, "client.mjs"), CLIENT);
  // One self-signed certificate for 127.0.0.1: the server's, and the CA the clients are given.
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      join(temp.root, "key.pem"),
      "-out",
      join(temp.root, "cert.pem"),
      "-days",
      "2",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "pipe" },
  );
  cert = await readFile(join(temp.root, "cert.pem"), "utf8");
  port = await freePort();
  server = spawn(
    "redis-server",
    [
      "--port",
      "0",
      "--tls-port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--tls-cert-file",
      join(temp.root, "cert.pem"),
      "--tls-key-file",
      join(temp.root, "key.pem"),
      "--tls-ca-cert-file",
      join(temp.root, "cert.pem"),
      "--tls-auth-clients",
      "no",
      "--requirepass",
      PASSWORD,
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      temp.root,
      "--logfile",
      "redis.log",
    ],
    { stdio: "ignore" },
  );
  await waitFor(() => pongs(), {
    what: `redis-server over TLS on ${port} (see ${temp.root}/redis.log)`,
    timeoutMs: 30_000,
  });
}, 120_000);

afterAll(async () => {
  if (server) {
    server.kill("SIGTERM");
    await exited(server);
  }
  await temp?.cleanup();
});

const url = (password: string) => `rediss://:${encodeURIComponent(password)}@127.0.0.1:${port}`;

describe("the queue over TLS with a password", () => {
  it("a worker and a collector that trust the CA grade over rediss://", async () => {
    expect(await client(url(PASSWORD), { ca: true, worker: true })).toEqual({
      verdict: "PASS",
      message: "graded over TLS",
    });
  }, 120_000);

  it("a worker and a collector that do not trust the certificate stop at once, naming NODE_EXTRA_CA_CERTS", async () => {
    for (const worker of [true, false]) {
      const out = await client(url(PASSWORD), { ca: false, worker });
      expect(out.code).toBe("INFRA_ERROR");
      expect(out.error).toMatch(/its TLS certificate is not trusted here \(DEPTH_ZERO_SELF_SIGNED_CERT/);
      expect(out.error).not.toContain(PASSWORD);
      expect(out.hint).toMatch(/NODE_EXTRA_CA_CERTS/);
    }
  }, 120_000);

  it("a wrong password stops at once, with where the password goes", async () => {
    for (const worker of [true, false]) {
      const out = await client(url("wrong"), { ca: true, worker });
      expect(out.code).toBe("INFRA_ERROR");
      expect(out.error).toMatch(/refused the connection: WRONGPASS/);
      expect(out.hint).toMatch(/rediss:\/\/USER:PASSWORD@HOST:PORT/);
    }
  }, 120_000);
});
