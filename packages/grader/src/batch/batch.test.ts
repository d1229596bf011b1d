import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ErrorCode, type ReasonCode, type ResultLine, ResultLineSchema } from "@oracle/spec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSigningKey, trustList } from "../attest/keys.js";
import { MANIFEST_FILE, verifyManifest } from "../attest/manifest.js";
import { signedLine } from "../attest/statement.js";
import { lineFromError } from "../prediction/lines.js";
import { fakeGrade, tempRootWithTasks } from "../prediction/testing.js";
import { taskContentHash } from "../task/task-hash.js";
import { GRADER_VERSION } from "../version.js";
import { cacheKey, isReusable, ResultCache } from "./cache.js";
import { localExecutor } from "./executor.js";
import { type BatchEvent, gradeBatch } from "./grade-batch.js";
import { readPredictions } from "./predictions.js";
import { plainBatchProgress } from "./progress.js";
import { ResultsWriter, readResultLines } from "./results-file.js";
import { renderSummary, summarize } from "./summary.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "oracle-batch-test-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function predictionsFile(lines: unknown[]): Promise<string> {
  const file = join(dir, "preds.jsonl");
  await writeFile(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"));
  return file;
}

/** A line with a verdict has a reason (`code`, default PASS or TESTS_FAILED); one without has an error (default TASK_QUARANTINED). */
function line(
  id: string,
  task: string,
  outcome: ResultLine["outcome"],
  verdict: ResultLine["verdict"],
  code?: ReasonCode | ErrorCode,
): ResultLine {
  return {
    id,
    task,
    outcome,
    verdict,
    reason:
      verdict === null
        ? null
        : ((code as ReasonCode | undefined) ?? (verdict === "PASS" ? "PASS" : "TESTS_FAILED")),
    error: verdict === null ? ((code as ErrorCode | undefined) ?? "TASK_QUARANTINED") : null,
    message: "",
    testsHash: null,
    log: null,
    seconds: 2,
    cached: false,
    attempts: 1,
    diffSha256: null,
    imageDigest: null,
    worker: null,
  };
}

// Moved from queue/queue.test.ts: batch/ and queue/ no longer import each other, tests included.
describe("readPredictions", () => {
  it("parses diff text and diffPath (relative to the file), numbers as ids, skips blank lines", async () => {
    const file = await predictionsFile([
      { id: 1, task: "a", diff: "x" },
      "",
      { id: "b", task: "a", diffPath: "d/x.diff" },
    ]);
    const got = await readPredictions(file);
    expect(got).toEqual([
      { id: "1", task: "a", line: 1, diff: { text: "x" } },
      { id: "b", task: "a", line: 3, diff: { path: join(dir, "d/x.diff") } },
    ]);
  });

  it("fails the whole batch listing every bad line with its number", async () => {
    const file = await predictionsFile([
      { id: "a", task: "t", diff: "" },
      "{not json",
      { id: "b", task: "t" },
      { id: "a", task: "t", diff: "", extra: 1 },
      { id: "c", task: "t", diff: "", diffPath: "x" },
    ]);
    const error = await readPredictions(file, "preds.jsonl").catch((e: Error & { code: string }) => e);
    expect((error as { code: string }).code).toBe("FILE_INVALID");
    const message = (error as Error).message.split("\n");
    expect(message[0]).toMatch(/^preds\.jsonl:2: not valid JSON/);
    expect(message).toContain(
      'preds.jsonl:3: diff: give exactly one of "diff" (the diff text) or "diffPath"',
    );
    expect(message).toContain("preds.jsonl:4: extra: Unknown field");
    expect(message).toContain(
      'preds.jsonl:5: diff: give exactly one of "diff" (the diff text) or "diffPath"',
    );
  });

  it("rejects an id used twice and an empty file", async () => {
    const twice = await predictionsFile([
      { id: "a", task: "t", diff: "" },
      { id: "a", task: "u", diff: "" },
    ]);
    await expect(readPredictions(twice, "p")).rejects.toThrow("p:2: id: 'a' already used on line 1");
    const empty = await predictionsFile(["", ""]);
    await expect(readPredictions(empty, "p")).rejects.toThrow("p: holds no prediction");
  });
});

describe("results.jsonl", () => {
  it("reads back what was appended and cuts a torn last line before appending", async () => {
    const file = join(dir, "out", "results.jsonl");
    const writer = await ResultsWriter.open(file, 0);
    await writer.append(line("a", "t", "graded", "PASS"));
    await writer.close();
    await appendFile(file, '{"id":"b","task":');
    const read = await readResultLines(file);
    expect([...read.lines.keys()]).toEqual(["a"]);
    const again = await ResultsWriter.open(file, read.validBytes);
    await again.append(line("c", "t", "graded", "FAIL"));
    await again.close();
    expect(
      (await readFile(file, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).id),
    ).toEqual(["a", "c"]);
  });
});

describe("cache keys", () => {
  const inputs = {
    graderVersion: "1",
    imageDigest: "sha256:a",
    taskHash: "t",
    diffSha256: "d",
    timeoutSeconds: 60,
  };
  it("change with every input", () => {
    const base = cacheKey(inputs);
    expect(cacheKey({ ...inputs })).toBe(base);
    for (const change of [
      { graderVersion: "2" },
      { imageDigest: "sha256:b" },
      { taskHash: "u" },
      { diffSha256: "e" },
      { timeoutSeconds: 61 },
    ])
      expect(cacheKey({ ...inputs, ...change })).not.toBe(base);
  });

  it("records only graded results whose reason depends on the inputs alone", () => {
    expect(isReusable(line("a", "t", "graded", "PASS"))).toBe(true);
    expect(isReusable(line("a", "t", "graded", "FAIL", "TIMEOUT"))).toBe(false);
    expect(isReusable(line("a", "t", "infra_error", "FAIL", "INFRA_ERROR"))).toBe(false);
    expect(isReusable(line("a", "t", "quarantined", null))).toBe(false);
  });

  it("serves an entry only as signed: edited on disk, unsigned or copied to other inputs, it is a miss", async () => {
    const dir = await mkdtemp(join(tmpdir(), "oracle-cache-"));
    try {
      const key = loadSigningKey(join(dir, "key.pem"));
      const cache = new ResultCache(dir, trustList(key));
      const real = { ...inputs, diffSha256: "d".repeat(64) };
      const graded = signedLine(
        {
          ...line("a", "t", "graded", "FAIL", "TESTS_FAILED"),
          diffSha256: real.diffSha256,
          imageDigest: real.imageDigest,
          taskHash: real.taskHash,
          graderVersion: real.graderVersion,
          timeoutSeconds: real.timeoutSeconds,
        },
        key,
      );
      await cache.put(real, graded);
      expect(await cache.get(real)).toMatchObject({ verdict: "FAIL", reason: "TESTS_FAILED" });
      // The attack of issue 30: the recorded FAIL turned into a PASS on disk.
      const file = join(cache.dir, cacheKey(real).slice(0, 2), `${cacheKey(real)}.json`);
      const entry = JSON.parse(await readFile(file, "utf8"));
      await writeFile(file, JSON.stringify({ ...entry, verdict: "PASS", reason: "PASS" }));
      expect(await cache.get(real)).toBeNull();
      // The same signed entry filed under other inputs (another diff's key) is no hit either.
      const other = { ...real, diffSha256: "e".repeat(64) };
      const otherKey = cacheKey(other);
      await mkdir(join(cache.dir, otherKey.slice(0, 2)), { recursive: true });
      await writeFile(
        join(cache.dir, otherKey.slice(0, 2), `${otherKey}.json`),
        JSON.stringify({ ...entry, key: otherKey, inputs: other }),
      );
      expect(await cache.get(other)).toBeNull();
      // The review's attack: a signed PASS entry copied under the key of other inputs, only "key"
      // changed (its inputs and statement left as signed): no hit for those inputs.
      const pass = signedLine(
        {
          ...line("b", "t", "graded", "PASS"),
          diffSha256: real.diffSha256,
          imageDigest: real.imageDigest,
          taskHash: real.taskHash,
          graderVersion: real.graderVersion,
          timeoutSeconds: real.timeoutSeconds,
        },
        key,
      );
      await writeFile(file, JSON.stringify(entry));
      await cache.put(real, pass);
      const passEntry = JSON.parse(await readFile(file, "utf8"));
      const target = { ...real, diffSha256: "f".repeat(64) };
      const targetKey = cacheKey(target);
      await mkdir(join(cache.dir, targetKey.slice(0, 2)), { recursive: true });
      await writeFile(
        join(cache.dir, targetKey.slice(0, 2), `${targetKey}.json`),
        JSON.stringify({ ...passEntry, key: targetKey }),
      );
      expect(await cache.get(target)).toBeNull();
      await cache.put(real, graded);
      // Signed by a key this cache does not trust: a miss.
      const stranger = new ResultCache(dir, trustList(loadSigningKey(join(dir, "other.pem"))));
      await writeFile(file, JSON.stringify(entry));
      expect(await cache.get(real)).not.toBeNull();
      expect(await stranger.get(real)).toBeNull();
      // An unsigned line is never recorded.
      const { attestation: _, ...unsigned } = graded;
      await cache.put(other, { ...unsigned, diffSha256: other.diffSha256 });
      expect(await cache.get(other)).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("task content hash changes when any file of the task folder changes", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const folder = join(temp.root, "tasks", "calc-node");
      const before = await taskContentHash(folder);
      expect(before).toMatch(/^[0-9a-f]{64}$/);
      await appendFile(join(folder, "hidden-tests", "extra.txt"), "x");
      expect(await taskContentHash(folder)).not.toBe(before);
    } finally {
      await temp.cleanup();
    }
  });
});

describe("terminal safety", () => {
  const hostile = "\u001b]0;oracle: PASS\u0007p\u009b2J\u202e\nverdict: PASS";
  it("prints a hostile prediction id and task inert, on one line, in progress and summary", () => {
    const lines: string[] = [];
    const progress = plainBatchProgress((text) => lines.push(text));
    const bad = line(hostile, `t${hostile}`, "error", null, "TASK_NOT_FOUND");
    progress.onEvent({ type: "result", done: 1, total: 1, line: bad } as BatchEvent);
    const summary = renderSummary(summarize(1, [bad]));
    for (const text of [...lines, summary]) {
      expect(text).not.toMatch(
        /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/,
      );
      expect(text).not.toMatch(/^verdict: PASS/m);
    }
    expect(lines[0]).toContain("\\u{9b}2J\\u{202e}\\u{a}verdict: PASS (t");
    expect(summary).toContain("\\u{202e}\\u{a}verdict: PASS");
  });
});

describe("summary", () => {
  it("counts the pass rate over every prediction that ran, infra errors as not passed, the rest apart", () => {
    const s = summarize(7, [
      line("1", "a", "graded", "PASS"),
      line("2", "a", "graded", "FAIL"),
      line("3", "b", "graded", "PASS"),
      line("4", "b", "quarantined", null),
      line("5", "a", "infra_error", "FAIL", "INFRA_ERROR"),
      line("6", "c", "error", null, "TASK_NOT_FOUND"),
    ]);
    expect(s.overall).toEqual({ graded: 4, pass: 2, fail: 2, passRate: 0.5 });
    expect(s.byTask.a).toMatchObject({ graded: 3, pass: 1, fail: 2, infraErrors: 1, passRate: 0.333333 });
    expect(s.byTask.b).toMatchObject({ graded: 1, pass: 1, passRate: 1, quarantined: 1 });
    expect(s.byTask.c).toMatchObject({ graded: 0, passRate: null, errors: 1 });
    expect(s.quarantined).toEqual({ count: 1, ids: ["4"] });
    expect(s.infraErrors).toEqual({ count: 1, ids: ["5"] });
    expect(s.errors).toEqual({ count: 1, ids: ["6"] });
    expect(s.missing).toBe(1);
    expect(s.gradeSeconds).toBe(12);
    expect(s.byReason).toEqual({ PASS: 2, TESTS_FAILED: 1, INFRA_ERROR: 1 });
    expect(s.byError).toEqual({ TASK_QUARANTINED: 1, TASK_NOT_FOUND: 1 });
    const text = renderSummary(s);
    expect(text).toContain("pass rate 50.0%: 2 PASS / 4 graded (2 FAIL, 1 of them INFRA_ERROR)");
    expect(text).toContain("infra errors after retries, counted as not passed: 1 (5)");
    expect(text).toContain("quarantined, not counted: 1 (4)");
    expect(text).toContain("still without a result: 1");
  });

  it("a failure turned into INFRA_ERROR does not leave the denominator (the pass rate cannot rise by it)", () => {
    const honest = summarize(2, [line("1", "a", "graded", "PASS"), line("2", "a", "graded", "FAIL")]);
    const hidden = summarize(2, [
      line("1", "a", "graded", "PASS"),
      line("2", "a", "infra_error", "FAIL", "INFRA_ERROR"),
    ]);
    // The queue reports a job that failed for good as an infra error without a verdict.
    const lost = summarize(2, [
      line("1", "a", "graded", "PASS"),
      line("2", "a", "infra_error", null, "INFRA_ERROR"),
    ]);
    expect(honest.overall.passRate).toBe(0.5);
    expect(hidden.overall.passRate).toBe(0.5);
    expect(lost.overall.passRate).toBe(0.5);
    expect(lost.overall).toEqual({ graded: 2, pass: 1, fail: 1, passRate: 0.5 });
    expect(lost.infraErrors).toEqual({ count: 1, ids: ["2"] });
  });

  it("lists predictions on tasks no current sweep validated apart, counted only when allowed", () => {
    const lines = [
      line("1", "a", "graded", "PASS"),
      line("2", "b", "graded", "PASS"),
      line("3", "c", "graded", "FAIL"),
      line("4", "d", "quarantined", null),
    ];
    const validation = new Map([
      ["a", "current"],
      ["b", "stale"],
      ["c", "never"],
    ] as const);
    const apart = summarize(4, lines, { validation });
    expect(apart.overall).toEqual({ graded: 1, pass: 1, fail: 0, passRate: 1 });
    expect(apart.unvalidated).toEqual({
      count: 2,
      ids: ["2", "3"],
      tasks: { b: "stale", c: "never" },
      counted: false,
    });
    expect(apart.byTask.b).toMatchObject({ graded: 0, passRate: null });
    const text = renderSummary(apart);
    expect(text).toContain("on tasks not validated, not counted: 2 (2, 3)");
    expect(text).toContain(
      "tasks: b (stale), c (never); validate them with: pnpm quarantine-sweep --changed",
    );
    const allowed = summarize(4, lines, { validation, allowUnvalidated: true });
    expect(allowed.overall).toEqual({ graded: 3, pass: 2, fail: 1, passRate: 0.666667 });
    expect(allowed.unvalidated.counted).toBe(true);
    expect(renderSummary(allowed)).toContain("on tasks not validated, counted (--allow-unvalidated): 2");
  });

  it("says n/a when nothing was graded", () => {
    expect(summarize(1, [line("1", "a", "quarantined", null)]).overall.passRate).toBeNull();
    expect(renderSummary(summarize(0, []))).toContain("pass rate n/a");
  });
});

describe("gradeBatch with a fake grader", () => {
  it("grades, resumes without regrading, retries INFRA_ERROR and reports unknown tasks apart", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const file = await predictionsFile([
        { id: "p1", task: "calc-node", diff: "fix" },
        { id: "p2", task: "calc-node", diff: "wrong" },
        { id: "p3", task: "calc-node", diff: "flaky fix" },
        { id: "p4", task: "no-such-task", diff: "fix" },
      ]);
      const grade = fakeGrade({ "flaky fix": ["INFRA_ERROR"] });
      const executor = localExecutor({ root: temp.root, grade, concurrency: 2 });
      const out = join(dir, "out");
      const first = await gradeBatch({
        root: temp.root,
        predictionsFile: file,
        outDir: out,
        executor,
        allowUnvalidated: true,
      });
      expect(first.interrupted).toBe(false);
      expect(first.summary.overall).toEqual({ graded: 3, pass: 2, fail: 1, passRate: 0.666667 });
      expect(first.summary.errors.ids).toEqual(["p4"]);
      const lines = (await readFile(first.resultsFile, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines.find((l) => l.id === "p3")).toMatchObject({ verdict: "PASS", attempts: 2 });
      expect(lines.find((l) => l.id === "p4")).toMatchObject({
        outcome: "error",
        reason: null,
        error: "TASK_NOT_FOUND",
      });
      expect(grade.calls).toHaveLength(4);
      const again = await gradeBatch({
        root: temp.root,
        predictionsFile: file,
        outDir: out,
        executor,
        allowUnvalidated: true,
      });
      expect(grade.calls).toHaveLength(4);
      expect(again.summary).toEqual(first.summary);
      expect(JSON.parse(await readFile(join(out, "summary.json"), "utf8")).batchId).toBe(first.batchId);
      // The signed manifest lists every prediction: a line deleted from results.jsonl shows.
      const key = loadSigningKey();
      const manifest = verifyManifest(
        JSON.parse(await readFile(join(out, MANIFEST_FILE), "utf8")),
        new Map([[key.keyid, key]]),
      );
      expect(manifest.ok && manifest.manifest.batchId).toBe(first.batchId);
      expect(manifest.ok && manifest.manifest.predictions.map((p) => `${p.id}:${p.task}`)).toEqual([
        "p1:calc-node",
        "p2:calc-node",
        "p3:calc-node",
        "p4:no-such-task",
      ]);
    } finally {
      await temp.cleanup();
    }
  });

  it("refuses to resume a batch under another root (its lines would be graded on other tasks)", async () => {
    const temp = await tempRootWithTasks("calc-node");
    const other = await tempRootWithTasks("calc-node");
    try {
      const file = await predictionsFile([{ id: "p1", task: "calc-node", diff: "fix" }]);
      const out = join(dir, "out-root");
      const grade = fakeGrade({});
      const run = (root: string) =>
        gradeBatch({
          root,
          predictionsFile: file,
          outDir: out,
          executor: localExecutor({ root, grade, concurrency: 1 }),
          allowUnvalidated: true,
        });
      await run(temp.root);
      await expect(run(other.root)).rejects.toMatchObject({
        code: "USAGE",
        message: expect.stringContaining(`was graded with --root ${temp.root}, not ${other.root}`),
        hint: `resume it with --root ${temp.root}, or grade into a new --out folder`,
      });
      expect(grade.calls).toHaveLength(1);
    } finally {
      await temp.cleanup();
      await other.cleanup();
    }
  });

  it("prepares each task once: its predictions' grades get the same preparation", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const file = await predictionsFile([
        { id: "p1", task: "calc-node", diff: "fix" },
        { id: "p2", task: "calc-node", diff: "wrong" },
      ]);
      const base = fakeGrade();
      const prepared = new Set<unknown>();
      const grade: typeof base = Object.assign(
        async (o: Parameters<typeof base>[0]) => {
          prepared.add(o.prepared);
          return base(o);
        },
        { calls: base.calls },
      );
      const executor = localExecutor({ root: temp.root, grade, concurrency: 2 });
      await gradeBatch({ root: temp.root, predictionsFile: file, outDir: join(dir, "o"), executor });
      expect(base.calls).toHaveLength(2);
      expect([...prepared]).toEqual([expect.objectContaining({ root: temp.root, quarantine: null })]);
    } finally {
      await temp.cleanup();
    }
  });

  it("resumes a line only for the inputs it was graded on: a changed diff or task is graded again", async () => {
    const temp = await tempRootWithTasks("calc-node", "freebusy-py");
    try {
      const write = (rows: object[]) => predictionsFile(rows);
      const out = join(dir, "out-keyed");
      const grade = fakeGrade();
      const executor = localExecutor({ root: temp.root, grade, concurrency: 1 });
      const events: BatchEvent[] = [];
      const run = (predictionsFile: string) =>
        gradeBatch({
          root: temp.root,
          predictionsFile,
          outDir: out,
          allowUnvalidated: true,
          executor,
          onEvent: (e) => events.push(e),
        });
      const first = await run(
        await write([
          { id: "p1", task: "calc-node", diff: "fix" },
          { id: "p2", task: "freebusy-py", diff: "fix" },
        ]),
      );
      expect(first.summary.overall.pass).toBe(2);
      const recorded = (await readFile(first.resultsFile, "utf8"))
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(recorded[0]).toMatchObject({
        taskHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        graderVersion: GRADER_VERSION,
      });
      // The same id with another diff, and a hidden test changed in the other task's folder.
      await appendFile(
        join(
          temp.root,
          "tasks",
          "freebusy-py",
          "hidden-tests",
          "tests",
          "regression",
          "test_contained_meetings.py",
        ),
        "\n# changed\n",
      );
      const second = await run(
        await write([
          { id: "p1", task: "calc-node", diff: "broken" },
          { id: "p2", task: "freebusy-py", diff: "fix" },
        ]),
      );
      expect(grade.calls).toEqual(["fix", "fix", "broken", "fix"]);
      expect(second.summary.overall).toMatchObject({ pass: 1, fail: 1 });
      const start = events.filter((e) => e.type === "start").at(-1);
      expect(start).toMatchObject({ resumed: 0, regraded: 2, regradedWhy: "diff changed 1, task changed 1" });
      const lines = (await readFile(second.resultsFile, "utf8")).trim().split("\n");
      expect(lines).toHaveLength(2);
      // Nothing changed since: both resumed.
      await run(
        await write([
          { id: "p1", task: "calc-node", diff: "broken" },
          { id: "p2", task: "freebusy-py", diff: "fix" },
        ]),
      );
      expect(grade.calls).toHaveLength(4);
      expect(events.filter((e) => e.type === "start").at(-1)).toMatchObject({ resumed: 2, regraded: 0 });
    } finally {
      await temp.cleanup();
    }
  });

  it("regrades, and says so, the lines of a results.jsonl an older grader wrote (snake_case, reason or error in one field)", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const out = join(dir, "out-legacy");
      const old = (id: string) => ({
        id,
        task: "calc-node",
        outcome: "graded",
        verdict: "PASS",
        reason: "PASS",
        message: "",
        tests_hash: "a".repeat(64),
        log: null,
        seconds: 1,
        cached: false,
        attempts: 1,
        diff_sha256: null,
        image_digest: null,
        worker: null,
      });
      await mkdir(out, { recursive: true });
      await writeFile(
        join(out, "results.jsonl"),
        `${JSON.stringify(old("p1"))}\n${JSON.stringify(old("gone"))}\n`,
      );
      const grade = fakeGrade();
      const events: BatchEvent[] = [];
      const outcome = await gradeBatch({
        root: temp.root,
        predictionsFile: await predictionsFile([{ id: "p1", task: "calc-node", diff: "fix" }]),
        outDir: out,
        executor: localExecutor({ root: temp.root, grade, concurrency: 1 }),
        allowUnvalidated: true,
        onEvent: (e) => events.push(e),
      });
      expect(grade.calls).toEqual(["fix"]);
      expect(events[0]).toMatchObject({
        type: "start",
        resumed: 0,
        regraded: 1,
        regradedWhy: "older results format 1",
        legacyDropped: 2,
      });
      const lines = (await readFile(outcome.resultsFile, "utf8")).trim().split("\n");
      expect(lines.map((l) => ResultLineSchema.parse(JSON.parse(l)).id)).toEqual(["p1"]);
    } finally {
      await temp.cleanup();
    }
  });

  it("reports quarantined tasks apart without grading them", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const now = new Date().toISOString();
      const entry = {
        reasons: [{ flag: "FLAKY", message: "m", evidence: [] }],
        firstSeen: now,
        lastChecked: now,
      };
      await writeFile(
        join(temp.root, "tasks", "quarantine.json"),
        JSON.stringify({ version: 1, tasks: { "calc-node": entry } }),
      );
      const file = await predictionsFile([{ id: "p1", task: "calc-node", diff: "fix" }]);
      const grade = fakeGrade();
      const executor = localExecutor({ root: temp.root, grade, concurrency: 1 });
      const outcome = await gradeBatch({
        root: temp.root,
        predictionsFile: file,
        outDir: join(dir, "o"),
        executor,
      });
      expect(grade.calls).toHaveLength(0);
      expect(outcome.summary.quarantined.ids).toEqual(["p1"]);
      expect(JSON.parse(await readFile(outcome.resultsFile, "utf8"))).toMatchObject({
        outcome: "quarantined",
        verdict: null,
        reason: null,
        error: "TASK_QUARANTINED",
        message: "task 'calc-node' is quarantined (FLAKY: m)",
      });
      expect(outcome.summary.overall.passRate).toBeNull();
    } finally {
      await temp.cleanup();
    }
  });

  it("stops on abort, keeps the results so far and says it was interrupted", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const file = await predictionsFile(
        [1, 2, 3, 4].map((n) => ({ id: `p${n}`, task: "calc-node", diff: "fix" })),
      );
      const controller = new AbortController();
      const base = fakeGrade();
      const grade: typeof base = Object.assign(
        async (o: Parameters<typeof base>[0]) => {
          if (base.calls.length === 2)
            controller.abort(Object.assign(new Error("stop"), { name: "AbortError" }));
          return base(o);
        },
        { calls: base.calls },
      );
      const executor = localExecutor({ root: temp.root, grade, concurrency: 1 });
      const outcome = await gradeBatch({
        root: temp.root,
        predictionsFile: file,
        outDir: join(dir, "o"),
        executor,
        signal: controller.signal,
      });
      expect(outcome.interrupted).toBe(true);
      expect(outcome.summary.done).toBe(2);
      expect(outcome.summary.missing).toBe(2);
    } finally {
      await temp.cleanup();
    }
  });

  it("turns a refusal into a line that is not counted", () => {
    const l = lineFromError({ id: "x", task: "t" }, new Error("boom"), { worker: null });
    expect(l).toMatchObject({
      outcome: "error",
      reason: null,
      error: "INTERNAL",
      verdict: null,
      cached: false,
    });
  });
});

describe("progress", () => {
  it("prints one plain line per result, and a rewritten status line on a TTY", async () => {
    const { plainBatchProgress, ttyBatchProgress } = await import("./progress.js");
    const plain: string[] = [];
    const p = plainBatchProgress((l) => plain.push(l));
    const start = {
      type: "start",
      total: 2,
      pending: 1,
      resumed: 1,
      regraded: 0,
      regradedWhy: "",
      legacyDropped: 0,
      outDir: "/o",
      executor: "local, concurrency 1",
    } as const;
    p.onEvent(start);
    p.onEvent({
      type: "result",
      line: { ...line("a", "t", "graded", "PASS"), cached: true },
      done: 2,
      total: 2,
    });
    expect(plain).toEqual([
      "batch: 2 predictions, 1 to grade, 1 already done (resumed); local, concurrency 1; out /o",
      "[2/2] a (t): PASS PASS, cached (reused the result of a 2.0s run)",
    ]);
    let written = "";
    const stream = { write: (text: string) => (written += text) } as unknown as NodeJS.WriteStream;
    const tty = ttyBatchProgress(stream, () => 0);
    tty.onEvent(start);
    tty.onEvent({ type: "result", line: line("q", "t", "quarantined", null), done: 2, total: 2 });
    tty.finish();
    expect(written).toContain("\r\x1b[2Kq (t): QUARANTINED TASK_QUARANTINED, 2.0s\n");
    expect(written).toContain("[2/2] 0 PASS · 0 FAIL · 1 not counted · 0 cached · 0s");
  });
});
