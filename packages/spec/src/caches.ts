import { z } from "zod";

/**
 * `<root>/.oracle/grader-fingerprints.json`: image fingerprints the grader computed, by image name,
 * with the digest of the image folder's bytes and the image builder's version they were computed
 * from. A cache: an unreadable or outdated file is recomputed, never an error.
 */
export const FingerprintCacheSchema = z.record(
  z.string(),
  z.strictObject({ folderDigest: z.string(), builderVersion: z.string(), fingerprint: z.string() }),
);
export type FingerprintCache = z.output<typeof FingerprintCacheSchema>;

/**
 * `<root>/.oracle/lockfile-fingerprints.json`: npm lockfile fingerprints the image builder computed,
 * by a hash of every input Arborist reads. A cache, like the one above.
 */
export const LockfileCacheFileSchema = z.strictObject({
  version: z.literal(1),
  entries: z.record(z.string(), z.string()),
});
export type LockfileCacheFile = z.output<typeof LockfileCacheFileSchema>;
