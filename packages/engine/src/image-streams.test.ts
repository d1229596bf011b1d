import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type BuildRequest, buildImage, pushImage } from "./image-streams.js";
import type { Dockerode } from "./load.js";

const failing = readFileSync(join(import.meta.dirname, "fixtures/failing-build-stream.jsonl"));
const succeeding = readFileSync(join(import.meta.dirname, "fixtures/successful-build-stream.jsonl"));

/** A dockerode whose build and push answer with `stream`, and whose inspect knows one image. */
function fakeDocker(stream: Readable): Dockerode {
  const fake = {
    buildImage: async () => stream,
    getImage: (name: string) => ({
      push: async () => stream,
      inspect: async () => ({
        Id: "sha256:inspected",
        RepoDigests: [`${name.replace(/:[^:/]+$/, "")}@sha256:fromInspect`],
      }),
    }),
  };
  return fake as unknown as Dockerode;
}

const request = (over: Partial<BuildRequest> = {}): BuildRequest => ({
  context: Readable.from([]),
  tag: "oracle-test:tmp",
  labels: {},
  noCache: false,
  timeoutMs: 60_000,
  ...over,
});

describe("buildImage", () => {
  it("follows a build to its image ID, reporting each step and the text", async () => {
    const steps: string[] = [];
    let text = "";
    const built = await buildImage(
      fakeDocker(Readable.from([succeeding])),
      request({ onStep: (s) => steps.push(s), onText: (t) => (text += t) }),
    );
    expect(built).toEqual({
      imageId: "sha256:39bbfa89069c31d9c14a02df96322d9274bee03bd23c28a1567b92296576fdfb",
    });
    expect(steps).toEqual([
      "Step 1/4 : FROM debian:bookworm-slim",
      "Step 2/4 : RUN echo ok > /ok",
      "Step 3/4 : LABEL dev.oracle.image=failsample-ib",
      "Step 4/4 : LABEL dev.oracle.project=oracle",
    ]);
    expect(text).toContain("Successfully built 39bbfa89069c");
  });

  it("fails at the first errorDetail line, naming the step, without waiting for the stream's end", async () => {
    const stream = new PassThrough();
    // The engine ends each line with a newline, the error line too; the stream stays open.
    stream.write(Buffer.concat([failing, Buffer.from("\n")]));
    const build = buildImage(fakeDocker(stream), request());
    await expect(build).rejects.toMatchObject({
      code: "BUILD_FAILED",
      message: expect.stringMatching(
        /^Step 3\/6 : RUN echo "about to fail" && exit 3: The command .* code: 3$/,
      ),
    });
    expect(stream.destroyed).toBe(true);
  });

  it("a build that does not end in time fails with BUILD_FAILED at its current step", async () => {
    const stream = new PassThrough();
    stream.write('{"stream":"Step 1/2 : RUN sleep 1000"}\n');
    await expect(buildImage(fakeDocker(stream), request({ timeoutMs: 50 }))).rejects.toMatchObject({
      code: "BUILD_FAILED",
      message: "build timed out after 0 s at Step 1/2 : RUN sleep 1000",
    });
    expect(stream.destroyed).toBe(true);
  });

  it("an abort rejects with the signal's reason and stops reading", async () => {
    const stream = new PassThrough();
    const controller = new AbortController();
    const abort = () => controller.abort(new DOMException("stop", "AbortError"));
    const build = buildImage(fakeDocker(stream), request({ signal: controller.signal, onStep: abort }));
    stream.write('{"stream":"Step 1/2 : RUN sleep 1000"}\n');
    await expect(build).rejects.toMatchObject({ name: "AbortError" });
    expect(stream.destroyed).toBe(true);
  });
});

describe("pushImage", () => {
  const push = { repository: "127.0.0.1:5000/oracle/x", tag: "fp12", timeoutMs: 60_000 };
  const lines = (...messages: object[]) => Readable.from([messages.map((m) => JSON.stringify(m)).join("\n")]);

  it("resolves with the digest the stream announces", async () => {
    const digest = `sha256:${"a".repeat(64)}`;
    const stream = lines({ status: "Pushed", id: "abc" }, { status: `fp12: digest: ${digest} size: 1` });
    expect(await pushImage(fakeDocker(stream), push)).toEqual({ digest });
  });

  it("falls back to the engine's repository digest when the stream names none", async () => {
    expect(await pushImage(fakeDocker(lines({ status: "Pushed" })), push)).toEqual({
      digest: "sha256:fromInspect",
    });
  });

  it("an error line fails the push with PUSH_FAILED", async () => {
    const stream = lines({ errorDetail: { message: "connection refused" }, error: "connection refused" });
    await expect(pushImage(fakeDocker(stream), push)).rejects.toMatchObject({
      code: "PUSH_FAILED",
      message: "push of 127.0.0.1:5000/oracle/x:fp12 failed: connection refused",
    });
  });
});
