import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type ImageRecord, readRegistryFile } from "@oracle/spec";
import type { GradeDocker } from "./docker.js";
import { cachedFingerprint } from "./fingerprint-cache.js";

/** The task's image as it is today, each part computed once and only when asked for. */
export interface ImageState {
  name: string;
  /** images/<name>/'s fingerprint (fingerprint-cache.ts: the image builder runs only when its bytes changed). */
  fingerprint: () => Promise<string>;
  /** The recorded digest when the record is current (its fingerprint is the folder's), else null. */
  currentDigest: () => Promise<string | null>;
}

/** The same promise on every call; the work starts on the first. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/** Image `name`'s state under `root`: one fingerprint, however often it is asked for. */
export function imageState(root: string, name: string): ImageState {
  const fingerprint = once(() => cachedFingerprint(root, name, join(root, "images", name)));
  const currentDigest = once(async () => {
    const record = (await readRegistryFile(root)).images[name];
    if (!record) return null;
    try {
      return (await fingerprint()) === record.fingerprint ? record.digest : null;
    } catch {
      return null;
    }
  });
  return { name, fingerprint, currentDigest };
}

/** The image a run uses, or why there is none. */
export type ResolvedImage =
  | { ok: true; name: string; reference: string; digest: string; runAs: string; record: ImageRecord }
  | { ok: false; name: string; reference: string | null; digest: string | null; message: string };

const BUILD_HINT = "run pnpm build-images";

/**
 * Resolves the task's image to its recorded build, present in the engine: the record in
 * images/registry.json, the image found by its reference (pulled by digest when missing), or a local
 * image whose ID matches the record. Whether the record is still current is {@link staleImageMessage}'s job.
 */
export async function resolveImage(root: string, name: string, docker: GradeDocker): Promise<ResolvedImage> {
  const record = (await readRegistryFile(root)).images[name];
  if (!record) {
    return {
      ok: false,
      name,
      reference: null,
      digest: null,
      message: `image '${name}' has no recorded build in images/registry.json; ${BUILD_HINT}`,
    };
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
    record,
  });
  if (matches(await docker.findImage(record.reference))) return ok(record.reference);
  if (record.pushed) {
    try {
      await docker.pull(record.reference);
      if (matches(await docker.findImage(record.reference))) return ok(record.reference);
    } catch {
      // The registry may be down: a local image of the same ID does as well.
    }
  }
  if (matches(await docker.findImage(record.imageId))) return ok(record.imageId);
  return {
    ok: false,
    name,
    reference: record.reference,
    digest: record.digest,
    message: `image '${name}' (${record.reference}) is neither in the engine nor pullable; ${BUILD_HINT}`,
  };
}

/**
 * Null when images/<name>/ still has the recorded fingerprint, else why the record is stale. It runs
 * beside container start-up; `fingerprint` is the image's, computed once per grade ({@link imageState}).
 */
export async function staleImageMessage(
  root: string,
  name: string,
  record: ImageRecord,
  fingerprint: () => Promise<string>,
): Promise<string | null> {
  const folder = join(resolve(root), "images", name);
  if (
    !(await stat(folder).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return `images/${name}/ does not exist; ${BUILD_HINT}`;
  const current = await fingerprint();
  if (current === record.fingerprint) return null;
  return `image '${name}' is stale: images/${name}/ changed since it was built (fingerprint ${current.slice(0, 12)} ≠ recorded ${record.fingerprint.slice(0, 12)}); ${BUILD_HINT}`;
}
