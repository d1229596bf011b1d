import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { BuildRequest, PushRequest } from "@oracle/engine";
import { OracleError, readRegistryFile } from "@oracle/spec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EngineClient } from "./build-image.js";
import { buildImages } from "./build-images.js";
import { describeNewDigest } from "./stale-tasks.js";

const fixtures = resolve(import.meta.dirname, "../../../test/fixtures/images");

/** A fake engine: builds succeed unless the Dockerfile says FAIL; it remembers what exists. */
class FakeEngine implements EngineClient {
  readonly existing = new Set<string>();
  readonly built: string[] = [];
  #n = 0;
  async ping() {}
  async build(request: BuildRequest) {
    const chunks: Buffer[] = [];
    for await (const chunk of request.context) chunks.push(chunk as Buffer);
    request.onStep?.("Step 1/1 : FROM debian:bookworm-slim");
    if (Buffer.concat(chunks).includes("TLSFAIL"))
      throw new OracleError(
        "BUILD_FAILED",
        "Step 2/2 : RUN npm ci: npm ERR! request to https://registry.npmjs.org/p-limit failed, reason: self-signed certificate in certificate chain",
        { hint: "fix the Dockerfile or its inputs; the full output is in the build log" },
      );
    if (Buffer.concat(chunks).includes("FAIL"))
      throw new OracleError("BUILD_FAILED", "Step 2/2 : RUN FAIL: exit 1");
    this.built.push(request.tag);
    const imageId = `sha256:${String(++this.#n).padStart(64, "0")}`;
    this.existing.add(imageId);
    return { imageId };
  }
  async push(request: PushRequest) {
    const digest = `sha256:${String(this.#n).padStart(64, "f")}`;
    this.existing.add(`${request.repository}@${digest}`);
    return { digest };
  }
  async imageExists(reference: string) {
    return this.existing.has(reference);
  }
}

let root: string;
let engine: FakeEngine;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "oracle-build-"));
  await cp(fixtures, join(root, "images"), { recursive: true });
  engine = new FakeEngine();
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("buildImages (fake engine)", () => {
  it("builds new images, records pinned references, then skips them", async () => {
    const first = await buildImages({ root, engine });
    expect(first.ok).toBe(true);
    expect(first.images.map((i) => [i.name, i.status, i.why])).toEqual([
      ["npm-demo", "built", ["new image (no record)"]],
      ["text-demo", "built", ["new image (no record)"]],
    ]);
    const registry = await readRegistryFile(root);
    expect(registry.images["npm-demo"]?.reference).toMatch(
      /^127\.0\.0\.1:5000\/oracle\/npm-demo@sha256:f+1$/,
    );
    expect(engine.built[0]).toMatch(/^127\.0\.0\.1:5000\/oracle\/npm-demo:[0-9a-f]{12}$/);
    const logs = await readdir(join(root, "logs", "build"));
    expect(logs.filter((f) => f.startsWith("npm-demo-"))).toHaveLength(1);

    const second = await buildImages({ root, engine });
    expect(second.images.map((i) => i.status)).toEqual(["up-to-date", "up-to-date"]);
    expect(engine.built).toHaveLength(2);
  });

  it("records nothing for a failed build, keeps the previous record, and still builds the others", async () => {
    await buildImages({ root, engine, registry: null });
    const before = await readFile(join(root, "images", "registry.json"), "utf8");
    await writeFile(join(root, "images", "text-demo", "Dockerfile"), "FROM debian:bookworm-slim\nRUN FAIL\n");
    await writeFile(join(root, "images", "npm-demo", "extra.txt"), "new file\n");
    const summary = await buildImages({ root, engine, registry: null });
    expect(summary.ok).toBe(false);
    const [npm, text] = summary.images;
    expect(npm).toMatchObject({ status: "built", why: ["context file extra.txt added"] });
    expect(text).toMatchObject({
      status: "failed",
      why: ["Dockerfile changed"],
      error: { code: "BUILD_FAILED" },
    });
    expect(await readFile(text!.logFile!, "utf8")).toContain("FAILED: Step 2/2 : RUN FAIL");
    const registry = await readRegistryFile(root);
    expect(registry.images["text-demo"]).toEqual(JSON.parse(before).images["text-demo"]);
    expect(registry.images["npm-demo"]?.history).toHaveLength(1);
    expect(registry.images["npm-demo"]?.reference).toMatch(/^sha256:/);
  });

  it("a build that did not trust a TLS certificate: the hint names --ca-file, unless a CA bundle was offered", async () => {
    await writeFile(
      join(root, "images", "text-demo", "Dockerfile"),
      "FROM debian:bookworm-slim\nRUN TLSFAIL\n",
    );
    const bare = await buildImages({ root, engine, registry: null, only: ["text-demo"] });
    expect(bare.images[0]?.error?.hint).toBe(
      "the build could not verify a TLS certificate (a TLS-intercepting proxy?): offer the host's CA bundle to builds with --ca-file /etc/ssl/certs/ca-certificates.crt (or ORACLE_BUILD_CA_FILE=/etc/ssl/certs/ca-certificates.crt)",
    );
    const ca = join(root, "ca.pem");
    await writeFile(ca, "-----BEGIN CERTIFICATE-----\n");
    const offered = await buildImages({ root, engine, registry: null, only: ["text-demo"], caFile: ca });
    expect(offered.images[0]?.error?.hint).toBe(
      "fix the Dockerfile or its inputs; the full output is in the build log",
    );
  });

  it("rebuilds an image whose recorded image is gone, and only with --only the named one", async () => {
    await buildImages({ root, engine });
    engine.existing.clear();
    const summary = await buildImages({ root, engine, only: ["text-demo"] });
    expect(summary.images).toHaveLength(1);
    expect(summary.images[0]?.why[0]).toMatch(
      /^recorded image 127\.0\.0\.1:5000\/oracle\/text-demo@sha256:\w+ is gone/,
    );
  });

  it("reports an out-of-sync lockfile as that image's failure", async () => {
    await writeFile(
      join(root, "images", "npm-demo", "package.json"),
      '{"name":"x","dependencies":{"left-pad":"1.3.0"}}',
    );
    const summary = await buildImages({ root, engine });
    expect(summary.images[0]).toMatchObject({ status: "failed", error: { code: "LOCKFILE_OUT_OF_SYNC" } });
    expect(summary.images[1]?.status).toBe("built");
  });

  it("names the tasks on each image whose recorded digest changed, and none when nothing was rebuilt", async () => {
    const task = async (id: string, json: string) => {
      await mkdir(join(root, "tasks", id), { recursive: true });
      await writeFile(join(root, "tasks", id, "task.json"), json);
    };
    await task("b-npm", JSON.stringify({ id: "b-npm", image: "npm-demo" }));
    await task("a-npm", JSON.stringify({ id: "a-npm", image: "npm-demo" }));
    await task("c-text", JSON.stringify({ id: "c-text", image: "text-demo" }));
    await task("d-broken", "{ not json");
    const first = await buildImages({ root, engine });
    expect(first.newDigests.map((d) => [d.image, d.previousDigest, d.staleTasks, d.neverValidated])).toEqual([
      ["npm-demo", null, [], ["a-npm", "b-npm"]],
      ["text-demo", null, [], ["c-text"]],
    ]);
    expect(describeNewDigest(first.newDigests[1]!)).toBe(
      "new digest for text-demo: tasks never validated: c-text (validate them with: pnpm quarantine-sweep --changed)",
    );
    expect((await buildImages({ root, engine })).newDigests).toEqual([]);

    // A sweep judged a-npm and c-text on today's digests; b-npm never.
    const before = (await readRegistryFile(root)).images["npm-demo"]!.digest;
    const record = (image: string, imageDigest: string) => ({
      taskHash: "0".repeat(64),
      image,
      imageDigest,
      graderVersion: "1",
      checkedAt: new Date().toISOString(),
      outcome: "healthy",
    });
    await writeFile(
      join(root, "tasks", "health.json"),
      JSON.stringify({
        version: 1,
        tasks: {
          "a-npm": record("npm-demo", before),
          "c-text": record("text-demo", (await readRegistryFile(root)).images["text-demo"]!.digest),
        },
      }),
    );
    await writeFile(join(root, "images", "npm-demo", "extra.txt"), "new file\n");
    const second = await buildImages({ root, engine });
    const after = (await readRegistryFile(root)).images["npm-demo"]!.digest;
    expect(second.newDigests).toEqual([
      {
        image: "npm-demo",
        previousDigest: before,
        digest: after,
        staleTasks: ["a-npm"],
        neverValidated: ["b-npm"],
      },
    ]);
    expect(describeNewDigest(second.newDigests[0]!)).toBe(
      "new digest for npm-demo: tasks now stale: a-npm; tasks never validated: b-npm (validate them with: pnpm quarantine-sweep --changed)",
    );
    expect(describeNewDigest({ ...second.newDigests[0]!, staleTasks: [], neverValidated: [] })).toBe(
      "new digest for npm-demo: no task turns stale",
    );
  });

  it("names no task for a failed build (the recorded digest stands)", async () => {
    await mkdir(join(root, "tasks", "t"), { recursive: true });
    await writeFile(join(root, "tasks", "t", "task.json"), JSON.stringify({ image: "text-demo" }));
    await buildImages({ root, engine });
    await writeFile(join(root, "images", "text-demo", "Dockerfile"), "FROM debian:bookworm-slim\nRUN FAIL\n");
    const summary = await buildImages({ root, engine });
    expect(summary.images.find((i) => i.name === "text-demo")?.status).toBe("failed");
    expect(summary.newDigests).toEqual([]);
  });

  it("rejects an unknown --only name with USAGE before building", async () => {
    await expect(buildImages({ root, engine, only: ["nope"] })).rejects.toMatchObject({ code: "USAGE" });
    expect(engine.built).toEqual([]);
  });
});
