import { createHash } from "node:crypto";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { GRADE_JOB_VERSION, type GradeJob } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { fakeGrade, tempRootWithTasks } from "../prediction/testing.js";
import { taskContentHash } from "../task/task-hash.js";
import { GRADER_VERSION } from "../version.js";
import { queueConnection, redactQueueUrl } from "./connection.js";
import { gradeJobId, gradeJobOptions } from "./job.js";
import { processGradeJob } from "./process-job.js";

describe("queue connection", () => {
  it("reads host, port, db and credentials from a redis URL", () => {
    expect(queueConnection("redis://127.0.0.1:6390")).toEqual({
      host: "127.0.0.1",
      port: 6390,
      maxRetriesPerRequest: null,
    });
    expect(queueConnection("redis://u:p%40ss@h/2")).toMatchObject({
      host: "h",
      port: 6379,
      db: 2,
      username: "u",
      password: "p@ss",
    });
    expect(redactQueueUrl("redis://u:secret@h:1")).toBe("redis://u:***@h:1");
  });

  it("refuses other schemes and paths as USAGE", () => {
    expect(() => queueConnection("http://h:1")).toThrow(/redis:\/\/HOST:PORT/);
    expect(() => queueConnection("redis://h:1/x")).toThrow(/database number/);
  });
});

describe("grade job ids", () => {
  it("are the same for the same batch, prediction and diff, and differ otherwise", () => {
    const id = gradeJobId("b", "p1", "d");
    expect(id).toBe(gradeJobId("b", "p1", "d"));
    expect(id).toMatch(/^grade-[0-9a-f]{40}$/);
    expect(
      new Set([id, gradeJobId("c", "p1", "d"), gradeJobId("b", "p2", "d"), gradeJobId("b", "p1", "e")]).size,
    ).toBe(4);
  });

  it("allow 1 + infraRetries attempts and keep results for a resume", () => {
    expect(gradeJobOptions("j", 2)).toMatchObject({
      jobId: "j",
      attempts: 3,
      removeOnComplete: { age: 604800 },
    });
  });
});

describe("a worker", () => {
  const fix = Buffer.from("fix");
  const job = (taskHash: string, extra: Partial<GradeJob> = {}): GradeJob => ({
    v: GRADE_JOB_VERSION,
    batchId: "b",
    id: "p1",
    task: "calc-node",
    mode: "grade",
    taskHash,
    imageDigest: null,
    graderVersion: GRADER_VERSION,
    diff: { base64: fix.toString("base64"), sha256: createHash("sha256").update(fix).digest("hex") },
    allowQuarantined: false,
    ...extra,
  });

  it("grades a job whose task folder matches, from the diff bytes it carries, with the task it prepared", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const hash = await taskContentHash(join(temp.root, "tasks", "calc-node"));
      const grade = fakeGrade();
      const seen: unknown[] = [];
      const spy: typeof grade = Object.assign(
        async (o: Parameters<typeof grade>[0]) => {
          seen.push({ diff: o.diff, prepared: o.prepared?.loaded.task.id });
          return grade(o);
        },
        { calls: grade.calls },
      );
      const done = await processGradeJob(job(hash), { root: temp.root, grade: spy, worker: "w:1" });
      expect(done.line).toMatchObject({ outcome: "graded", verdict: "PASS", worker: "w:1" });
      expect(seen).toEqual([{ diff: { bytes: fix }, prepared: "calc-node" }]);
    } finally {
      await temp.cleanup();
    }
  });

  it("refuses, as INFRA_ERROR and without grading, a job whose task folder, image or grader differs", async () => {
    const temp = await tempRootWithTasks("calc-node");
    try {
      const folder = join(temp.root, "tasks", "calc-node");
      const hash = await taskContentHash(folder);
      const grade = fakeGrade();
      const run = (j: GradeJob) => processGradeJob(j, { root: temp.root, grade, worker: "w:1" });
      const byImage = await run(job(hash, { imageDigest: `sha256:${"a".repeat(64)}` }));
      expect(byImage.line.message).toMatch(/image 'node-mocha' differs on this worker/);
      const byVersion = await run(job(hash, { graderVersion: "0.0.0-other" }));
      expect(byVersion.line.message).toMatch(/enqueued by grader 0\.0\.0-other/);
      const byDiff = await run(
        job(hash, { diff: { base64: fix.toString("base64"), sha256: "0".repeat(64) } }),
      );
      expect(byDiff.line.message).toMatch(/the job's diff does not have the SHA-256 it names/);
      await appendFile(join(folder, "task.json"), "\n");
      const byTask = await run(job(hash));
      expect(byTask.line).toMatchObject({
        outcome: "infra_error",
        reason: null,
        error: "INFRA_ERROR",
        verdict: null,
      });
      expect(byTask.line.message).toMatch(/task folder tasks\/calc-node\/ differs on this worker/);
      expect(grade.calls).toHaveLength(0);
    } finally {
      await temp.cleanup();
    }
  });
});
