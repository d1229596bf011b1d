export type { EngineClient } from "./build-image.js";
export type { BuildImagesOptions, BuildReporter, BuildSummary, ImageOutcome } from "./build-images.js";
export { buildImages, DEFAULT_BUILD_TIMEOUT_MS, DEFAULT_REGISTRY } from "./build-images.js";
export type { ContextEntry } from "./context.js";
export { CA_ENTRY_NAME, listBuildContext } from "./context.js";
export type { RebuildDecision, RebuildReason } from "./decision.js";
export { decideRebuild, describeReason } from "./decision.js";
export type { FingerprintOptions, ImageFingerprint } from "./fingerprint.js";
export { fingerprintImage } from "./fingerprint.js";
export { LockfileCache } from "./lockfile-cache.js";
export {
  fingerprintNpmLockfile,
  fingerprintTextLockfile,
  lockfileKind,
  normaliseLockfileText,
} from "./lockfiles.js";
export { lockRegistry, recordBuild } from "./registry-file.js";
export type { NewDigest } from "./stale-tasks.js";
export { describeNewDigest, imagesOfTasks, newDigests, VALIDATE_COMMAND } from "./stale-tasks.js";
export type { WatchOptions } from "./watch.js";
export { watchImages } from "./watch.js";
