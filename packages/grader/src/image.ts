import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fingerprintImage } from "@oracle/image-builder";
import { readRegistryFile } from "@oracle/spec";
import type { GradeDocker } from "./docker.js";

/** The image a run uses, or why there is none. */
export type ResolvedImage =
  | { ok: true; name: string; reference: string; digest: string; runAs: string; fingerprint: string }
  | { ok: false; name: string; reference: string | null; digest: string | null; message: string };

const BUILD_HINT = "run pnpm build-images";

/**
 * Resolves the task's image to its recorded, current, present build: the record in
 * images/registry.json, its fingerprint equal to the folder's, and the image in the engine (pulled
 * by digest when missing; a local image whose ID or repo digest matches the record also does).
 */
export async function resolveImage(root: string, name: string, docker: GradeDocker): Promise<ResolvedImage> {
  const registry = await readRegistryFile(root);
  const record = registry.images[name];
  if (!record)
    return {
      ok: false,
      name,
      reference: null,
      digest: null,
      message: `image '${name}' has no recorded build in images/registry.json; ${BUILD_HINT}`,
    };
  const stale = (message: string) => ({
    ok: false as const,
    name,
    reference: record.reference,
    digest: record.digest,
    message,
  });
  const folder = join(resolve(root), "images", name);
  if (
    !(await stat(folder).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return stale(`images/${name}/ does not exist; ${BUILD_HINT}`);
  const current = await fingerprintImage(folder);
  if (current.fingerprint !== record.fingerprint) {
    return stale(
      `image '${name}' is stale: images/${name}/ changed since it was built (fingerprint ${current.fingerprint.slice(0, 12)} ≠ recorded ${record.fingerprint.slice(0, 12)}); ${BUILD_HINT}`,
    );
  }
  const matches = (found: { id: string; repoDigests: string[] } | null) =>
    found !== null &&
    (found.id === record.imageId || found.repoDigests.some((d) => d.endsWith(`@${record.digest}`)));
  const ok = (runAs: string) => ({
    ok: true as const,
    name,
    reference: record.reference,
    digest: record.digest,
    runAs,
    fingerprint: record.fingerprint,
  });
  if (matches(await docker.findImage(record.reference))) return ok(record.reference);
  if (record.pushed) {
    try {
      await docker.pull(record.reference);
      if (matches(await docker.findImage(record.reference))) return ok(record.reference);
    } catch {
      // Fall back to a local image of the same ID below.
    }
  }
  if (matches(await docker.findImage(record.imageId))) return ok(record.imageId);
  return stale(`image '${name}' (${record.reference}) is neither in the engine nor pullable; ${BUILD_HINT}`);
}
