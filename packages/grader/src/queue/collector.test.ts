import type { Job } from "bullmq";
import { describe, expect, it } from "vitest";
import { type JobReader, readJob } from "./collector.js";

/**
 * A queue whose one job finishes right after the collector's first read, whichever read that is:
 * the race a worker that answers at once won against the collector.
 */
function finishingDuringTheRead(): JobReader {
  let finished = false;
  let reads = 0;
  const after = <T>(value: () => T): T => {
    const seen = value();
    reads += 1;
    if (reads === 1) finished = true;
    return seen;
  };
  return {
    getJobState: async () => after(() => (finished ? "completed" : "active")),
    getJob: async () =>
      after(() => ({ id: "j", returnvalue: finished ? { answer: 1 } : null }) as unknown as Job),
  };
}

describe("readJob", () => {
  it("never pairs a finished state with a running job's hash", async () => {
    const queue = finishingDuringTheRead();
    expect(await readJob(queue, "j")).toEqual({ kind: "running" });
    const read = await readJob(queue, "j");
    expect(read).toMatchObject({ kind: "finished", state: "completed", job: { returnvalue: { answer: 1 } } });
  });

  it("says missing for a job Redis no longer has", async () => {
    const gone: JobReader = { getJobState: async () => "unknown", getJob: async () => undefined };
    expect(await readJob(gone, "j")).toEqual({ kind: "missing" });
  });
});
