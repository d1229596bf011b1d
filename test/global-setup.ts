// Once per vitest run, before any test file: a folder the run's temporary roots share their
// content-keyed caches through (makeTempRoot in @oracle/test-utils seeds each new root's .oracle/ from
// it and gives back what the root added). Made fresh for every run and removed after it, so no entry
// outlives the build that computed it; the workers inherit its path from this process's environment.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHARED_CACHES_ENV } from "@oracle/test-utils";

export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "oracle-test-caches-"));
  process.env[SHARED_CACHES_ENV] = dir;
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
