// Answers that do not come from a worker (issue 30), with a real Redis (password required) and a
// real oracle-worker. Redis is not a trust boundary: anyone who can reach it can take a job and
// write its return value. On 1ebdaf2 a client that was not a worker answered a grade job PASS for a
// diff that fixes nothing; the batch counted it and cached it, and a later batch without the queue
// served it as "PASS (cached)". Now every answer must be signed by a trusted key, for that very job,
// and seen once; every line and cache entry is signed too, and reused only when it verifies.
import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createConnection } from "node:net";
import { join } from "node:path";
import { type ResultLine, ResultLineSchema } from "@oracle/spec";
import { binPath, makeTempRoot, requireDocker, run, waitFor } from "@oracle/test-utils";
import { type Job, Queue, Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  exited,
  NOOP_DIFF,
  readLog,
  startProcess,
  TestRedis,
  workerCommand,
} from "../fixtures/batch/harness.js";

const GRADE = binPath("oracle-grade");
const QUEUE = "oracle-grade";
const PASSWORD = "s3cret-queue-pass";

let temp: { root: string; cleanup: () => Promise<void> };
let redis: TestRedis;
let gold = "";

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ "tasks/calc-node": "tasks/calc-node", images: "images" });
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "--only", "node-mocha"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
  await mkdir(join(temp.root, "redis"));
  redis = await TestRedis.start(join(temp.root, "redis"), { password: PASSWORD });
  gold = await readFile(join(temp.root, "tasks", "calc-node", "gold.diff"), "utf8");
});

afterAll(async () => {
  await redis?.down();
  await temp?.cleanup();
});

const connection = () => ({
  host: "127.0.0.1",
  port: redis.port,
  password: PASSWORD,
  maxRetriesPerRequest: null,
});

/** A batch of `preds` through the queue (or here, without `queue`), into `out`; its lines by id. */
async function batch(
  name: string,
  preds: Array<{ id: string; diff: string }>,
  options: { queue?: boolean; out?: string } = {},
): Promise<{ lines: Map<string, ResultLine>; stderr: string; code: number | null }> {
  const file = join(temp.root, `${name}.jsonl`);
  await writeFile(file, preds.map((p) => JSON.stringify({ ...p, task: "calc-node" })).join("\n"));
  const out = options.out ?? join(temp.root, `out-${name}`);
  const args = [
    "--batch",
    file,
    "--out",
    out,
    "--root",
    temp.root,
    "--allow-unvalidated",
    "--infra-retries",
    "0",
  ];
  // Queued batches never use the cache: the answer under test must come from the queue.
  const queued = options.queue ? ["--queue", redis.url, "--no-cache"] : [];
  const result = await run(GRADE, [...args, ...queued], {
    timeoutMs: 300_000,
  });
  const text = await readFile(join(out, "results.jsonl"), "utf8");
  const lines = text
    .trim()
    .split("\n")
    .map((l) => ResultLineSchema.parse(JSON.parse(l)));
  return { lines: new Map(lines.map((l) => [l.id, l])), stderr: result.stderr, code: result.code };
}

/** A client of the queue's Redis that is not a worker: it takes every job and answers with `answer(job)`. */
async function forger(answer: (job: Job) => unknown): Promise<Worker> {
  const worker = new Worker(QUEUE, async (job) => answer(job), { connection: connection(), concurrency: 4 });
  await worker.waitUntilReady();
  return worker;
}

/** The line a forger claims: PASS, for the job's own prediction, diff, task and image. */
function passFor(job: Job): ResultLine {
  const d = job.data;
  return {
    id: d.id,
    task: d.task,
    outcome: "graded",
    verdict: "PASS",
    reason: "PASS",
    error: null,
    message: "both suites ran and passed",
    testsHash: "f".repeat(64),
    log: null,
    seconds: 1,
    cached: false,
    attempts: 1,
    diffSha256: d.diff?.sha256 ?? null,
    imageDigest: d.imageDigest,
    taskHash: d.taskHash,
    graderVersion: d.graderVersion,
    worker: "forger:1",
  };
}

/** DSSE over an in-toto statement of `line`, bound to the job, signed with the forger's own ed25519 key. */
function signedByStranger(job: Job, line: ResultLine, key: KeyObject, keyid: string) {
  const statement = {
    _type: "https://in-toto.io/Statement/v1",
    subject: [{ name: "diff", digest: { sha256: line.diffSha256 } }],
    predicateType: "https://oracle.invalid/attestation/grade/v1",
    predicate: {
      prediction: line.id,
      task: line.task,
      outcome: line.outcome,
      verdict: line.verdict,
      reason: line.reason,
      error: line.error,
      testsHash: line.testsHash,
      taskHash: line.taskHash,
      imageDigest: line.imageDigest,
      graderVersion: line.graderVersion,
      timeoutSeconds: null,
      cached: false,
      job: job.id,
      batch: job.data.batchId,
      worker: line.worker,
      seconds: line.seconds,
      signedAt: new Date().toISOString(),
    },
  };
  const type = "application/vnd.in-toto+json";
  const payload = Buffer.from(JSON.stringify(statement));
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} ${type} ${payload.length} `), payload]);
  return {
    payloadType: type,
    payload: payload.toString("base64"),
    signatures: [{ keyid, sig: sign(null, pae, key).toString("base64") }],
  };
}

function expectRefused(line: ResultLine | undefined, why: RegExp): void {
  expect(line, "no line").toBeDefined();
  // Not graded, and counted against the pass rate (an infra error): never a PASS.
  expect({ outcome: line?.outcome, verdict: line?.verdict }, line?.message).toEqual({
    outcome: "infra_error",
    verdict: null,
  });
  expect(line?.message).toMatch(/the queue's answer was refused: /);
  expect(line?.message).toMatch(why);
}

describe("queue answers that no trusted worker signed", () => {
  it("unsigned-queue-answer: a forged PASS is refused, and never becomes a cached PASS", async () => {
    const w = await forger((job) => ({ line: passFor(job), result: null }));
    try {
      const queued = await batch("unsigned", [{ id: "noop", diff: NOOP_DIFF }], { queue: true });
      expectRefused(queued.lines.get("noop"), /not a signed answer/);
      expect(queued.stderr).toMatch(/the answer for noop \(job grade-[0-9a-f]+\) was refused/);
    } finally {
      await w.close();
    }
    // Graded here afterwards: a real run, not a cached PASS.
    const local = await batch("unsigned-local", [{ id: "noop", diff: NOOP_DIFF }]);
    expect(local.lines.get("noop")).toMatchObject({ verdict: "FAIL", reason: "TESTS_FAILED", cached: false });
  });

  it("answer-signed-by-unknown-key: a well-formed statement for the job, signed by a key nobody trusts", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const keyid = createHash("sha256")
      .update(publicKey.export({ type: "spki", format: "der" }))
      .digest("hex");
    const w = await forger((job) => {
      const line = passFor(job);
      return { line, result: null, attestation: signedByStranger(job, line, privateKey, keyid) };
    });
    try {
      const queued = await batch("stranger", [{ id: "noop", diff: NOOP_DIFF }], { queue: true });
      expectRefused(queued.lines.get("noop"), /signed by a key not in the trust list/);
    } finally {
      await w.close();
    }
  });

  it("genuine-answer-of-another-job and replayed-answer: a worker's real PASS, given to other jobs", async () => {
    // A real worker grades the gold diff; its signed PASS is kept as Redis holds it.
    const [command, prefix] = workerCommand();
    const log = join(temp.root, "worker.log");
    const real = startProcess(command, [...prefix, "--queue", redis.url, "--root", temp.root], log);
    let genuine: unknown;
    try {
      await waitFor(() => readLog(log).includes("worker "), {
        what: "the worker to start",
        timeoutMs: 120_000,
      });
      const first = await batch("genuine", [{ id: "fix", diff: gold }], { queue: true });
      expect(first.lines.get("fix"), first.stderr).toMatchObject({ outcome: "graded", verdict: "PASS" });
      const queue = new Queue(QUEUE, { connection: connection() });
      const [done] = await queue.getCompleted();
      genuine = done?.returnvalue;
      await queue.close();
      expect(genuine).toMatchObject({
        line: { id: "fix", verdict: "PASS" },
        attestation: { payloadType: expect.any(String) },
      });
    } finally {
      real.kill("SIGTERM");
      await exited(real);
    }
    // The same answer for another prediction, and for the same prediction in a later batch whose diff fixes nothing.
    const w = await forger(() => genuine);
    try {
      const replayed = await batch(
        "replayed",
        [
          { id: "fix", diff: NOOP_DIFF },
          { id: "other", diff: NOOP_DIFF },
        ],
        { queue: true },
      );
      expectRefused(replayed.lines.get("fix"), /job \(signed "grade-[0-9a-f]+", claimed "grade-[0-9a-f]+"\)/);
      expectRefused(replayed.lines.get("other"), /job \(signed/);
    } finally {
      await w.close();
    }
  });

  it("unauthenticated-queue-client: without the password a client cannot take or answer a job", async () => {
    // What any client without the password gets for any command: the queue's keys are out of reach.
    const answer = await new Promise<string>((done, fail) => {
      const socket = createConnection({ host: "127.0.0.1", port: redis.port }, () =>
        socket.write("KEYS bull:oracle-grade:*\r\n"),
      );
      socket.on("data", (data) => {
        done(data.toString());
        socket.destroy();
      });
      socket.on("error", fail);
    });
    expect(answer).toMatch(/^-NOAUTH/);
    const preds = join(temp.root, "denied.jsonl");
    await writeFile(preds, `${JSON.stringify({ id: "noop", task: "calc-node", diff: NOOP_DIFF })}\n`);
    const denied = await run(
      GRADE,
      [
        "--batch",
        preds,
        "--queue",
        redis.openUrl,
        "--root",
        temp.root,
        "--out",
        join(temp.root, "out-denied"),
        "--no-cache",
      ],
      { timeoutMs: 120_000 },
    );
    expect(denied.code, denied.stderr).toBe(3);
    expect(denied.stderr).toMatch(/NOAUTH|Authentication required/);
  });
});

describe("recorded results", () => {
  it("cache-entry-edited-on-disk: a recorded FAIL turned into PASS is graded again, not served", async () => {
    const first = await batch("cache-1", [{ id: "noop", diff: NOOP_DIFF }]);
    expect(first.lines.get("noop")).toMatchObject({ verdict: "FAIL", reason: "TESTS_FAILED" });
    const dir = join(temp.root, ".oracle", "cache", "results");
    const files: string[] = [];
    for (const sub of await readdir(dir))
      for (const f of await readdir(join(dir, sub))) files.push(join(dir, sub, f));
    for (const file of files) {
      const entry = JSON.parse(await readFile(file, "utf8"));
      await writeFile(file, JSON.stringify({ ...entry, verdict: "PASS", reason: "PASS" }));
    }
    const second = await batch("cache-2", [{ id: "noop", diff: NOOP_DIFF }]);
    expect(second.lines.get("noop")).toMatchObject({
      verdict: "FAIL",
      reason: "TESTS_FAILED",
      cached: false,
    });
    // And a results.jsonl line edited the same way is graded again on resume.
    const out = join(temp.root, "out-cache-2");
    const text = await readFile(join(out, "results.jsonl"), "utf8");
    await writeFile(
      join(out, "results.jsonl"),
      text
        .replace('"verdict":"FAIL"', '"verdict":"PASS"')
        .replace('"reason":"TESTS_FAILED"', '"reason":"PASS"'),
    );
    const resumed = await batch("cache-2", [{ id: "noop", diff: NOOP_DIFF }], { out });
    expect(resumed.lines.get("noop")).toMatchObject({ verdict: "FAIL", reason: "TESTS_FAILED" });
    expect(resumed.stderr).toMatch(/1 regraded: not signed as recorded 1/);
    const verified = await run(binPath("oracle-verify"), [join(out, "results.jsonl")], { timeoutMs: 60_000 });
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(
      /^ok .*noop \(calc-node\): FAIL TESTS_FAILED( \(cached\))?; graded on diff [0-9a-f]{12}, task [0-9a-f]{12}, image [0-9a-f]{12}/m,
    );
  });
});
