import { join, resolve } from "node:path";
import { z } from "zod";
import { readJsonFile } from "./parse.js";

const sha256 = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256:<64 hex>");
const hex64 = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters");

/** One build of one image, as recorded. */
export const ImageBuildSchema = z.strictObject({
  /** What the grader runs: `<repo>@sha256:...` when pushed, else the image ID `sha256:...`. */
  reference: z.string().min(1),
  /** The repository digest when pushed, else the image ID. */
  digest: sha256,
  imageId: sha256,
  pushed: z.boolean(),
  fingerprint: hex64,
  dockerfileHash: hex64,
  /** Lockfile path (relative to the image folder) -> its fingerprint. */
  lockfiles: z.record(z.string(), hex64),
  /** Every build-context file (relative path) -> the hash it counts by; lets the builder say which file changed. */
  files: z.record(z.string(), hex64).optional(),
  builtAt: z.iso.datetime(),
  durationMs: z.number().int().nonnegative(),
});
export type ImageBuild = z.output<typeof ImageBuildSchema>;

export const ImageRecordSchema = z.strictObject({
  ...ImageBuildSchema.shape,
  /** Earlier builds, newest first. */
  history: z.array(ImageBuildSchema).default([]),
});
export type ImageRecord = z.output<typeof ImageRecordSchema>;

export const RegistryFileSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  images: z.record(z.string(), ImageRecordSchema),
});
export type RegistryFile = z.output<typeof RegistryFileSchema>;

/** images/.registry.lock.owner: who holds the lock on images/registry.json, for the REGISTRY_LOCKED message. */
export const RegistryLockOwnerSchema = z.strictObject({
  pid: z.number().int(),
  host: z.string(),
  since: z.iso.datetime(),
});
export type RegistryLockOwner = z.output<typeof RegistryLockOwnerSchema>;

export function registryFilePath(root: string): string {
  return join(resolve(root), "images", "registry.json");
}

/** Reads images/registry.json; a missing file is an empty registry. */
export async function readRegistryFile(root: string): Promise<RegistryFile> {
  const file = registryFilePath(root);
  try {
    return await readJsonFile(RegistryFileSchema, file, "images/registry.json");
  } catch (error) {
    if ((error as { cause?: NodeJS.ErrnoException }).cause?.code === "ENOENT")
      return { version: 1, images: {} };
    throw error;
  }
}
