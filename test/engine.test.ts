// @oracle/engine against the real Docker engine and the local registry (127.0.0.1:5000): the one
// wrapper over dockerode that the grader, the image builder and the sweep use. What it makes carries
// this file's unique names and labels, and is removed at the end.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import {
  type Dockerode,
  dockerEngine,
  type Engine,
  type EngineContainer,
  gradeLabels,
  imageLabels,
  LABEL,
  labelFilter,
  removeLeftovers,
} from "@oracle/engine";
import { requireDocker } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const suffix = `${process.pid}-${Date.now().toString(36)}`;
const NAME = `e2e-engine-${suffix}`;
const REPO = `127.0.0.1:5000/oracle/${NAME}`;
const BASE = "debian:bookworm-slim";

let docker: Dockerode;
let engine: Engine;
let imageId: string;
const made: string[] = [];

/** `Dockerfile` as a build context: a tar stream of a folder holding only it. */
async function contextOf(dockerfile: string) {
  const dir = await mkdtemp(join(tmpdir(), "oracle-engine-"));
  await writeFile(join(dir, "Dockerfile"), dockerfile);
  const tar = spawn("tar", ["-c", "-C", dir, "."], { stdio: ["ignore", "pipe", "inherit"] });
  tar.on("close", () => void rm(dir, { recursive: true, force: true }));
  return tar.stdout;
}

/** A writer that keeps what it is given. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

/** A container of the built image running `script`, labelled as a grade of `run`, stopped. */
async function create(
  run: string,
  script: string,
  labels = gradeLabels(run, NAME, new Date(Date.now() + 600_000)),
) {
  const container = await engine.createContainer({
    Image: imageId,
    Entrypoint: ["sh", "-c", script],
    Labels: labels,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    HostConfig: { NetworkMode: "none" },
  });
  made.push(container.id);
  return container;
}

beforeAll(async () => {
  docker = await requireDocker();
  engine = dockerEngine(docker);
  if (!(await engine.findImage(BASE)))
    throw new Error(`the engine has no ${BASE}: run bash scripts/setup.sh`);
});

afterAll(async () => {
  for (const id of made) await engine?.removeContainer(id);
  const images = await docker?.listImages({
    all: true,
    filters: { label: [labelFilter(LABEL.image, NAME)] },
  });
  for (const image of images ?? [])
    await docker
      .getImage(image.Id)
      .remove({ force: true })
      .catch(() => undefined);
});

describe("dockerEngine against the real engine", () => {
  it("ping answers", async () => {
    await expect(engine.ping()).resolves.toBeUndefined();
  });

  it("builds from a tar context: the steps as they come, the image ID, the labels on the image", async () => {
    const steps: string[] = [];
    const built = await engine.build({
      context: await contextOf(`FROM ${BASE}\nRUN echo built > /built\n`),
      tag: `${REPO}:build`,
      labels: imageLabels(NAME, "fp-e2e"),
      noCache: false,
      timeoutMs: 300_000,
      onStep: (step) => steps.push(step),
    });
    imageId = built.imageId;
    expect(imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The FROM and RUN steps, then the classic builder's own LABEL step for each of the 4 labels.
    expect(steps.slice(0, 2)).toEqual([`Step 1/6 : FROM ${BASE}`, "Step 2/6 : RUN echo built > /built"]);
    expect(steps.slice(2)).toEqual(
      Array(4).fill(expect.stringMatching(/^Step [3-6]\/6 : LABEL "?dev\.oracle\./)),
    );
    expect((await engine.findImage(imageId))?.id).toBe(imageId);
    expect((await docker.getImage(imageId).inspect()).Config.Labels).toMatchObject(
      imageLabels(NAME, "fp-e2e"),
    );
    expect(await engine.findImage(`${REPO}:absent`)).toBeNull();
    expect(await engine.imageExists(`${REPO}:absent`)).toBe(false);
  });

  it("a failing step fails the build with BUILD_FAILED naming the step", async () => {
    const failing = engine.build({
      context: await contextOf(`FROM ${BASE}\nRUN echo nearly && exit 3\n`),
      tag: `${REPO}:failing`,
      labels: imageLabels(NAME, "fp-failing"),
      noCache: true,
      timeoutMs: 300_000,
    });
    await expect(failing).rejects.toMatchObject({
      code: "BUILD_FAILED",
      message: expect.stringMatching(/^Step 2\/6 : RUN echo nearly && exit 3: .*3$/),
    });
  });

  it("pushes to the registry by digest, which the registry then has and a pull finds", async () => {
    const { digest } = await engine.push({ repository: REPO, tag: "build", timeoutMs: 300_000 });
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await engine.imageExists(`${REPO}@${digest}`)).toBe(true);
    expect(await engine.imageExists(`${REPO}@sha256:${"0".repeat(64)}`)).toBe(false);
    await expect(engine.pull(`${REPO}@${digest}`)).resolves.toBeUndefined();
    expect((await engine.findImage(`${REPO}@${digest}`))?.id).toBe(imageId);
    await expect(engine.pull(`${REPO}:absent`)).rejects.toThrow();
  });

  it("a container: stdin in, stdout and stderr apart, its exit code, found by its labels, removed", async () => {
    const run = `e2e-io-${suffix}`;
    const container = await create(run, 'read line; echo "out:$line"; echo "err:$line" >&2; exit 7');
    const out = collector();
    const err = collector();
    const streams = await container.attach(out.stream, err.stream);
    const exited = container.waitForExit();
    await container.start();
    streams.input.write("hello\n");
    streams.input.end();
    expect(await exited).toBe(7);
    await streams.ended;
    expect({ out: out.text(), err: err.text() }).toEqual({ out: "out:hello\n", err: "err:hello\n" });
    expect((await container.inspect()).Config.Labels).toMatchObject({ [LABEL.run]: run });
    const found = await engine.listContainers([labelFilter(LABEL.run, run)]);
    expect(found).toEqual([{ id: container.id, labels: expect.objectContaining({ [LABEL.run]: run }) }]);
    await container.remove();
    expect(await engine.listContainers([labelFilter(LABEL.run, run)])).toEqual([]);
    await expect(engine.removeContainer(container.id)).resolves.toBeUndefined();
  });

  it("kill stops a running container at once (SIGKILL)", async () => {
    const container: EngineContainer = await create(`e2e-kill-${suffix}`, "sleep 300");
    const exited = container.waitForExit();
    await container.start();
    await container.kill();
    expect(await exited).toBe(137);
  });

  it("removeLeftovers removes the dead runs' grade containers only, never one without the grader's labels", async () => {
    const past = new Date(Date.now() - 1000);
    const expired = await create(
      `e2e-expired-${suffix}`,
      "true",
      gradeLabels(`e2e-expired-${suffix}`, NAME, past),
    );
    const current = await create(`e2e-current-${suffix}`, "true");
    // Expired by its deadline, but not labelled as a grade container of the project: not the rule's.
    const foreign = await create(`e2e-foreign-${suffix}`, "true", {
      [LABEL.run]: `e2e-foreign-${suffix}`,
      [LABEL.deadline]: String(past.getTime()),
    });
    const first = await removeLeftovers(engine);
    // The expired one is gone: removed by this call, or (e2e files run two at a time on one engine)
    // by another grader's start a moment earlier, which applies the same rule. Either way none is left.
    const expiredLeft = await engine.listContainers([labelFilter(LABEL.run, `e2e-expired-${suffix}`)]);
    expect({ removedHere: first.includes(expired.id), left: expiredLeft }).toMatchObject({ left: [] });
    expect(first).not.toContain(current.id);
    expect(first).not.toContain(foreign.id);
    // This process's own container goes once the caller says its runs have ended (the sweep after an interrupt).
    expect(await removeLeftovers(engine, { ownRunsEnded: true })).toContain(current.id);
    const left = await engine.listContainers([labelFilter(LABEL.run, `e2e-foreign-${suffix}`)]);
    expect(left.map((c) => c.id)).toEqual([foreign.id]);
    expect(await engine.listContainers([labelFilter(LABEL.run, `e2e-expired-${suffix}`)])).toEqual([]);
  });
});
