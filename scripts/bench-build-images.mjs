#!/usr/bin/env node
// Benchmark: a no-op `oracle-build-images` over 100 generated image folders whose records are current.
// Usage: node scripts/bench-build-images.mjs [--images 100] [--runs 5]
// Needs the built package (pnpm --filter @oracle/image-builder... build) and the Docker engine.
import { spawnSync } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: { images: { type: "string", default: "100" }, runs: { type: "string", default: "5" } },
});
const count = Number(values.images);
const runs = Number(values.runs);
const { fingerprintImage } = await import(join(repo, "packages/image-builder/dist/index.js"));
const { dockerEngine } = await import(join(repo, "packages/engine/dist/index.js"));
const bin = join(repo, "packages/image-builder/bin/oracle-build-images.js");

async function baseImageId() {
  const engine = dockerEngine();
  await engine.ping();
  const found = await engine.findImage("debian:bookworm-slim");
  if (!found) throw new Error("the engine has no debian:bookworm-slim: run bash scripts/setup.sh");
  return found.id;
}

async function generate(root, imageId) {
  const images = {};
  for (let i = 0; i < count; i++) {
    const name = `bench-${String(i).padStart(3, "0")}`;
    const dir = join(root, "images", name);
    // Half carry an npm lockfile (read with Arborist), half a requirements.txt (normalised text).
    if (i % 2 === 0) await cp(join(repo, "test/fixtures/images/npm-demo"), dir, { recursive: true });
    else await cp(join(repo, "test/fixtures/images/text-demo"), dir, { recursive: true });
    await writeFile(join(dir, "README.md"), `image ${name}\n`);
    const fp = await fingerprintImage(dir);
    images[name] = {
      reference: imageId,
      digest: imageId,
      imageId,
      pushed: false,
      fingerprint: fp.fingerprint,
      dockerfileHash: fp.dockerfileHash,
      lockfiles: fp.lockfiles,
      files: fp.files,
      builtAt: new Date().toISOString(),
      durationMs: 0,
      history: [],
    };
  }
  await writeFile(
    join(root, "images", "registry.json"),
    `${JSON.stringify({ version: 1, images }, null, 2)}\n`,
  );
}

function timeRun(root) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [bin, "--root", root, "--no-push", "--json"], {
    encoding: "utf8",
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`run failed (${result.status}): ${result.stderr}`);
  const summary = JSON.parse(result.stdout);
  const notSkipped = summary.images.filter((image) => image.status !== "up-to-date");
  if (summary.images.length !== count || notSkipped.length > 0)
    throw new Error(`not a no-op: ${JSON.stringify(notSkipped[0])}`);
  return { ms, inner: summary.durationMs };
}

const root = await mkdtemp(join(tmpdir(), "oracle-bench-"));
try {
  await mkdir(join(root, "images"), { recursive: true });
  await generate(root, await baseImageId());
  timeRun(root); // warm the OS file cache
  const cold = [];
  for (let i = 0; i < runs; i++) {
    // Without <root>/.oracle the npm lockfiles are read with Arborist again.
    await rm(join(root, ".oracle"), { recursive: true, force: true });
    cold.push(timeRun(root));
  }
  const warm = Array.from({ length: runs }, () => timeRun(root));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `no-op build-images over ${count} current images (${count / 2} npm lockfiles), ${runs} runs each:`,
  );
  for (const [label, samples] of [
    ["lockfile cache cold", cold],
    ["lockfile cache warm", warm],
  ]) {
    const wall = samples.map((s) => s.ms);
    console.log(
      `  ${label}: wall median ${median(wall).toFixed(0)} ms (min ${Math.min(...wall).toFixed(0)}, max ${Math.max(...wall).toFixed(0)}), inside buildImages() median ${median(samples.map((s) => s.inner))} ms`,
    );
  }
  const worst = median(cold.map((s) => s.ms));
  console.log(`  target: < 2000 ms wall (cold) -> ${worst < 2000 ? "MET" : "NOT MET"}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
