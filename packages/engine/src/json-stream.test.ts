import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BuildStreamTracker, JsonLineSplitter, PushStreamTracker } from "./json-stream.js";

// Recorded from the engine here (dockerd 20.10, legacy builder), CRLF line ends and all.
const failing = readFileSync(join(import.meta.dirname, "fixtures/failing-build-stream.jsonl"));
const succeeding = readFileSync(join(import.meta.dirname, "fixtures/successful-build-stream.jsonl"));

function replay(
  bytes: Buffer,
  chunkSize: number,
): { tracker: BuildStreamTracker; log: string; stoppedAt: number } {
  const splitter = new JsonLineSplitter();
  const tracker = new BuildStreamTracker();
  let log = "";
  let messages = 0;
  for (let offset = 0; offset < bytes.length; offset += chunkSize) {
    for (const message of splitter.push(bytes.subarray(offset, offset + chunkSize))) {
      messages++;
      log += tracker.follow(message);
      if (tracker.error) return { tracker, log, stoppedAt: messages };
    }
  }
  for (const message of splitter.end()) log += tracker.follow(message);
  return { tracker, log, stoppedAt: messages };
}

describe("build stream", () => {
  it.each([1, 7, 64, 100_000])(
    "fails at the first errorDetail with the failing step (chunks of %i bytes)",
    (size) => {
      const { tracker, log } = replay(failing, size);
      expect(tracker.error).toEqual({
        step: 'Step 3/6 : RUN echo "about to fail" && exit 3',
        message: `The command '/bin/sh -c echo "about to fail" && exit 3' returned a non-zero code: 3`,
      });
      expect(log).toContain("about to fail\n");
      expect(log).toContain("ERROR: The command");
      expect(tracker.imageId).toBeUndefined();
    },
  );

  it("stops reading at the error line", () => {
    const extra = Buffer.concat([failing, Buffer.from('{"stream":"Step 4/6 : RUN echo never"}\r\n')]);
    const { stoppedAt, tracker } = replay(extra, 13);
    expect(stoppedAt).toBe(failing.toString().trim().split("\n").length);
    expect(tracker.step).toMatch(/^Step 3\/6/);
  });

  it("follows steps and the image ID of a successful build", () => {
    const { tracker } = replay(succeeding, 5);
    expect(tracker.error).toBeUndefined();
    expect(tracker.step).toBe("Step 4/4 : LABEL dev.oracle.project=oracle");
    expect(tracker.imageId).toBe("sha256:39bbfa89069c31d9c14a02df96322d9274bee03bd23c28a1567b92296576fdfb");
  });

  it("keeps a non-JSON line as text", () => {
    const splitter = new JsonLineSplitter();
    expect(splitter.push("oops\n{")).toEqual([{ stream: "oops\n" }]);
    expect(splitter.end()).toEqual([{ stream: "{\n" }]);
  });
});

describe("push stream", () => {
  const digest = `sha256:${"ab".repeat(32)}`;

  it("takes the digest from aux.Digest", () => {
    const tracker = new PushStreamTracker();
    const splitter = new JsonLineSplitter();
    const lines = [
      { status: "The push refers to repository [127.0.0.1:5000/oracle/x]" },
      { status: "Pushing", progressDetail: { current: 1, total: 2 }, progress: "[==>  ]", id: "abc" },
      { status: `fp12: digest: ${digest} size: 735` },
      { progressDetail: {}, aux: { Tag: "fp12", Digest: digest, Size: 735 } },
    ];
    const log = splitter
      .push(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`)
      .map((m) => tracker.follow(m))
      .join("");
    expect(tracker.digest).toBe(digest);
    expect(tracker.error).toBeUndefined();
    expect(log).not.toContain("[==>");
  });

  it("reports the first error", () => {
    const tracker = new PushStreamTracker();
    tracker.follow({ errorDetail: { message: "connection refused" }, error: "connection refused" });
    expect(tracker.error).toBe("connection refused");
  });
});
