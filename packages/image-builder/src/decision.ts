import type { ImageRecord } from "@oracle/spec";
import type { ImageFingerprint } from "./fingerprint.js";

/** Why an image is (re)built. */
export type RebuildReason =
  | { kind: "new" }
  | { kind: "force" }
  | { kind: "image-missing"; reference: string }
  | { kind: "dockerfile-changed" }
  | { kind: "lockfile-changed" | "lockfile-added" | "lockfile-removed"; path: string }
  | { kind: "file-changed" | "file-added" | "file-removed"; path: string }
  | { kind: "context-changed" };

/** The outcome of comparing an image folder with its record: build it or not, and why. */
export interface RebuildDecision {
  rebuild: boolean;
  reasons: RebuildReason[];
}

function diffMaps(
  before: Record<string, string>,
  after: Record<string, string>,
): { changed: string[]; added: string[]; removed: string[] } {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changed = keys.filter((key) => key in before && key in after && before[key] !== after[key]);
  const added = keys.filter((key) => !(key in before));
  const removed = keys.filter((key) => !(key in after));
  return { changed, added, removed };
}

/** What differs between the recorded fingerprint's parts and the current ones. */
export function fingerprintChanges(current: ImageFingerprint, record: ImageRecord): RebuildReason[] {
  const reasons: RebuildReason[] = [];
  if (current.dockerfileHash !== record.dockerfileHash) reasons.push({ kind: "dockerfile-changed" });
  const locks = diffMaps(record.lockfiles, current.lockfiles);
  for (const path of locks.changed) reasons.push({ kind: "lockfile-changed", path });
  for (const path of locks.added) reasons.push({ kind: "lockfile-added", path });
  for (const path of locks.removed) reasons.push({ kind: "lockfile-removed", path });
  if (record.files) {
    const isOther = (path: string) =>
      path !== "Dockerfile" && !(path in current.lockfiles) && !(path in record.lockfiles);
    const files = diffMaps(record.files, current.files);
    for (const path of files.changed.filter(isOther)) reasons.push({ kind: "file-changed", path });
    for (const path of files.added.filter(isOther)) reasons.push({ kind: "file-added", path });
    for (const path of files.removed.filter(isOther)) reasons.push({ kind: "file-removed", path });
  }
  if (reasons.length === 0) reasons.push({ kind: "context-changed" });
  return reasons;
}

/**
 * Decides whether an image must be built. `recordedImageExists` is consulted only when the fingerprint
 * matches the record (it is the expensive part): pass a function that answers it.
 */
export async function decideRebuild(
  current: ImageFingerprint,
  record: ImageRecord | undefined,
  options: { force: boolean; recordedImageExists: (reference: string) => Promise<boolean> },
): Promise<RebuildDecision> {
  if (!record) return { rebuild: true, reasons: [{ kind: "new" }] };
  const force: RebuildReason[] = options.force ? [{ kind: "force" }] : [];
  if (current.fingerprint !== record.fingerprint) {
    return { rebuild: true, reasons: [...force, ...fingerprintChanges(current, record)] };
  }
  if (options.force) return { rebuild: true, reasons: force };
  if (!(await options.recordedImageExists(record.reference))) {
    return { rebuild: true, reasons: [{ kind: "image-missing", reference: record.reference }] };
  }
  return { rebuild: false, reasons: [] };
}

/** A reason as a person reads it. */
export function describeReason(reason: RebuildReason): string {
  switch (reason.kind) {
    case "new":
      return "new image (no record)";
    case "force":
      return "--force";
    case "image-missing":
      return `recorded image ${reason.reference} is gone from the engine and the registry`;
    case "dockerfile-changed":
      return "Dockerfile changed";
    case "context-changed":
      return "build context changed";
    case "lockfile-changed":
      return `lockfile ${reason.path} changed`;
    case "lockfile-added":
      return `lockfile ${reason.path} added`;
    case "lockfile-removed":
      return `lockfile ${reason.path} removed`;
    case "file-changed":
      return `context file ${reason.path} changed`;
    case "file-added":
      return `context file ${reason.path} added`;
    case "file-removed":
      return `context file ${reason.path} removed`;
  }
}
