import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Engine, imageLabels } from "@oracle/engine";
import type { ImageBuild } from "@oracle/spec";
import { listBuildContext, packBuildContext } from "./context.js";
import type { RebuildReason } from "./decision.js";
import { describeReason } from "./decision.js";
import type { ImageFingerprint } from "./fingerprint.js";

/** What the image builder asks of the Docker engine; the rest of the package sees only this. */
export type EngineClient = Pick<Engine, "ping" | "build" | "push" | "imageExists">;

/** `20250102T030405Z`: a UTC time that sorts and is safe in file names. */
export function utcStamp(date: Date = new Date()): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
}

export interface BuildOneOptions {
  root: string;
  name: string;
  current: ImageFingerprint;
  reasons: RebuildReason[];
  engine: EngineClient;
  /** `host:port` to push to, or null to record the image ID. */
  registry: string | null;
  caBundle: Buffer;
  timeoutMs: number;
  force: boolean;
  signal?: AbortSignal;
  onStep?: (step: string) => void;
}

/** Builds (and pushes) one image, writing the full log to `<root>/logs/build/<name>-<utc>.log`. */
export async function buildOneImage(
  options: BuildOneOptions,
): Promise<{ build: ImageBuild; logFile: string }> {
  const started = new Date();
  const logFile = join(resolve(options.root), "logs", "build", `${options.name}-${utcStamp(started)}.log`);
  await mkdir(join(resolve(options.root), "logs", "build"), { recursive: true });
  const log = createWriteStream(logFile);
  const write = (text: string) => {
    if (text) log.write(text);
  };
  write(`image: ${options.name}\nfingerprint: ${options.current.fingerprint}\n`);
  write(`why: ${options.reasons.map(describeReason).join("; ")}\nstarted: ${started.toISOString()}\n\n`);
  try {
    const build = await buildAndPin(options, write, started);
    write(`\nrecorded: ${build.reference}\nduration: ${build.durationMs} ms\n`);
    return { build, logFile };
  } catch (error) {
    write(`\nFAILED: ${(error as Error).message}\n`);
    throw Object.assign(error as Error, { logFile });
  } finally {
    log.end();
    await once(log, "close");
  }
}

async function buildAndPin(
  options: BuildOneOptions,
  write: (text: string) => void,
  started: Date,
): Promise<ImageBuild> {
  const { name, current, engine, registry } = options;
  const imageDir = join(resolve(options.root), "images", name);
  const fp12 = current.fingerprint.slice(0, 12);
  const repository = registry ? `${registry}/oracle/${name}` : `oracle/${name}`;
  const entries = await listBuildContext(imageDir);
  const common = { onText: write, timeoutMs: options.timeoutMs, signal: options.signal };
  const { imageId } = await engine.build({
    ...common,
    context: packBuildContext(imageDir, entries, options.caBundle),
    tag: `${repository}:${fp12}`,
    labels: imageLabels(name, current.fingerprint),
    noCache: options.force,
    onStep: options.onStep,
  });
  let digest = imageId;
  if (registry) {
    write(`\npushing ${repository}:${fp12}\n`);
    digest = (await engine.push({ ...common, repository, tag: fp12 })).digest;
  }
  return {
    reference: registry ? `${repository}@${digest}` : imageId,
    digest,
    imageId,
    pushed: registry !== null,
    fingerprint: current.fingerprint,
    dockerfileHash: current.dockerfileHash,
    lockfiles: current.lockfiles,
    files: current.files,
    builtAt: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
  };
}
