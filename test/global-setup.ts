// Once per vitest run, before any test file: a folder the run's temporary roots share their
// content-keyed caches through (makeTempRoot in @oracle/test-utils seeds each new root's .oracle/ from
// it and gives back what the root added). Made fresh for every run and removed after it, so no entry
// outlives the build that computed it; the workers inherit its path from this process's environment.
//
// With ORACLE_TEST_PREBUILD=1 (`npm test`, scripts/test.mjs: the whole suite) it also builds the
// repository's sample images once, in a root of its own, and keeps their records for the roots that
// build only to grade (seedImageRecords): without it the two files that start the run (the
// conformance set and grade.test.ts, each building every sample image) built the same images at once
// from an empty cache, every step twice (the Go image's standard-library warm-up among them), and
// each later root that builds them ran the engine's build again, every step a cache hit.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binPath, keepImageRecords, makeTempRoot, run, SHARED_CACHES_ENV } from "@oracle/test-utils";

const CA = "/etc/ssl/certs/ca-certificates.crt";

/**
 * Best effort: when the build fails (or outlives its bound on a loaded machine: at load 50 the Go
 * image alone took 770 s), the files build what they need as before, and a broken image fails them
 * there, not the whole run before any file.
 */
async function prebuildImages(): Promise<void> {
  const started = Date.now();
  const { root, cleanup } = await makeTempRoot({ images: "images" });
  try {
    // A lock or records copied from a build-images run in the repository are not this root's.
    for (const name of [".registry.lock", ".registry.lock.owner", "registry.json"])
      await rm(join(root, "images", name), { recursive: true, force: true });
    const built = await run(binPath("oracle-build-images"), ["--root", root, "--no-push", "--ca-file", CA], {
      timeoutMs: 1_800_000,
    });
    // What it built before a failure is recorded: those records are kept too.
    await keepImageRecords(root);
    const seconds = Math.round((Date.now() - started) / 1000);
    process.stderr.write(
      built.code === 0
        ? `global setup: the sample images built in ${seconds} s\n`
        : `global setup: oracle-build-images (the sample images) exited ${built.code} after ${seconds} s; the files build what they need: ${built.stderr.trim().split("\n").slice(-3).join(" / ")}\n`,
    );
  } finally {
    await cleanup();
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "oracle-test-caches-"));
  process.env[SHARED_CACHES_ENV] = dir;
  if (process.env.ORACLE_TEST_PREBUILD === "1")
    await prebuildImages().catch((error: Error) =>
      process.stderr.write(
        `global setup: the sample images not built (${error.message}); the files build them\n`,
      ),
    );
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
