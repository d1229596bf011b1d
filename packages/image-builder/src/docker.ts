import type { Readable } from "node:stream";
import { OracleError } from "@oracle/spec";
import Docker from "dockerode";
import { BuildStreamTracker, JsonLineSplitter, PushStreamTracker } from "./json-stream.js";

/** Everything the image builder asks of the Docker engine; the rest of the package sees only this. */
export interface EngineClient {
  /** Fails with DOCKER_UNAVAILABLE when the engine does not answer. */
  ping(): Promise<void>;
  /** Builds from a tar context; rejects with BUILD_FAILED naming the failing step, or the signal's reason. */
  build(request: BuildRequest): Promise<{ imageId: string }>;
  /** Pushes `repo:tag`; resolves with the repository digest (`sha256:...`). */
  push(request: PushRequest): Promise<{ digest: string }>;
  /** Whether the engine or the registry still has `reference` (an image ID or `repo@sha256:...`). */
  imageExists(reference: string): Promise<boolean>;
}

export interface StreamCallbacks {
  /** Text for the build log, as it arrives. */
  onText?: (text: string) => void;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface BuildRequest extends StreamCallbacks {
  context: Readable;
  tag: string;
  labels: Record<string, string>;
  noCache: boolean;
  /** Called with each new `Step N/M : ...` line. */
  onStep?: (step: string) => void;
}

export interface PushRequest extends StreamCallbacks {
  repository: string;
  tag: string;
}

interface Follower {
  follow(message: import("./json-stream.js").EngineMessage): string;
}

/** Reads an engine JSON stream to its end, a deadline, an abort, or the first error line (whichever first). */
function followStream(
  stream: Readable,
  tracker: Follower & { hasError(): boolean },
  options: StreamCallbacks & { onMessage?: () => void; describeTimeout: () => OracleError },
): Promise<void> {
  const splitter = new JsonLineSplitter();
  return new Promise((resolve, reject) => {
    const finish = (error?: unknown) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      stream.removeAllListeners("data");
      if (error !== undefined || tracker.hasError()) stream.destroy();
      if (error !== undefined) reject(error);
      else resolve();
    };
    const onAbort = () => finish(options.signal?.reason);
    const timer = setTimeout(() => finish(options.describeTimeout()), options.timeoutMs);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const handle = (messages: ReturnType<JsonLineSplitter["push"]>) => {
      for (const message of messages) {
        options.onText?.(tracker.follow(message));
        options.onMessage?.();
        if (tracker.hasError()) return finish();
      }
    };
    stream.on("data", (chunk: Buffer) => handle(splitter.push(chunk)));
    stream.once("end", () => {
      handle(splitter.end());
      finish();
    });
    stream.once("error", (error) => finish(error));
  });
}

async function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function manifestUrl(reference: string): URL | undefined {
  const match = reference.match(/^([^/]+)\/(.+)@(sha256:[0-9a-f]{64})$/);
  if (!match) return undefined;
  const [, host = "", repo, digest] = match;
  if (!host.includes(".") && !host.includes(":") && host !== "localhost") return undefined;
  const local = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(host);
  return new URL(`${local ? "http" : "https"}://${host}/v2/${repo}/manifests/${digest}`);
}

const MANIFEST_TYPES = [
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.oci.image.index.v1+json",
].join(", ");

/** Whether a registry answers HEAD /v2/<repo>/manifests/<digest> with 200. */
export async function registryHasManifest(reference: string): Promise<boolean> {
  const url = manifestUrl(reference);
  if (!url) return false;
  try {
    const response = await fetch(url, {
      method: "HEAD",
      headers: { accept: MANIFEST_TYPES },
      signal: AbortSignal.timeout(5000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

/** The EngineClient over dockerode. */
export function createEngineClient(docker: Docker = new Docker()): EngineClient {
  return {
    async ping() {
      try {
        await docker.ping();
      } catch (cause) {
        throw new OracleError(
          "DOCKER_UNAVAILABLE",
          `the Docker engine does not answer (${(cause as Error).message})`,
          {
            cause,
            hint: "start it (bash scripts/setup.sh on the oracle machine) or set DOCKER_HOST",
          },
        );
      }
    },
    build: (request) => buildWith(docker, request),
    push: (request) => pushWith(docker, request),
    async imageExists(reference) {
      try {
        await docker.getImage(reference).inspect();
        return true;
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 404) throw error;
      }
      return registryHasManifest(reference);
    },
  };
}

async function buildWith(docker: Docker, request: BuildRequest): Promise<{ imageId: string }> {
  const tracker = new BuildStreamTracker();
  let lastStep: string | undefined;
  const stream = await startBuild(docker, request);
  await followStream(stream, Object.assign(tracker, { hasError: () => tracker.error !== undefined }), {
    ...request,
    onMessage: () => {
      if (tracker.step !== lastStep && tracker.step) request.onStep?.(tracker.step);
      lastStep = tracker.step;
    },
    describeTimeout: () =>
      new OracleError(
        "BUILD_FAILED",
        `build timed out after ${Math.round(request.timeoutMs / 1000)} s at ${tracker.step ?? "the start"}`,
        {
          hint: "raise --build-timeout, or look at the build log for a step that hangs",
        },
      ),
  });
  if (tracker.error) {
    const where = tracker.error.step ?? "the start of the build";
    throw new OracleError("BUILD_FAILED", `${where}: ${tracker.error.message}`, {
      hint: "fix the Dockerfile or its inputs; the full output is in the build log",
    });
  }
  if (tracker.imageId) return { imageId: tracker.imageId };
  const inspected = await docker.getImage(request.tag).inspect();
  return { imageId: inspected.Id };
}

async function startBuild(docker: Docker, request: BuildRequest): Promise<Readable> {
  const options = {
    t: request.tag,
    labels: request.labels,
    rm: true,
    forcerm: true,
    nocache: request.noCache,
  };
  try {
    return (await raceSignal(docker.buildImage(request.context, options), request.signal)) as Readable;
  } catch (cause) {
    if (request.signal?.aborted) throw cause;
    throw new OracleError("BUILD_FAILED", `the engine refused the build: ${(cause as Error).message}`, {
      cause,
      hint: "check the Dockerfile's syntax and the engine's log",
    });
  }
}

async function pushWith(docker: Docker, request: PushRequest): Promise<{ digest: string }> {
  const tracker = new PushStreamTracker();
  const target = `${request.repository}:${request.tag}`;
  const failed = (message: string, cause?: unknown) =>
    new OracleError("PUSH_FAILED", `push of ${target} failed: ${message}`, {
      cause,
      hint: "check that the registry is running and reachable (for the local one: bash scripts/setup.sh)",
    });
  let stream: Readable;
  try {
    stream = (await raceSignal(
      docker.getImage(request.repository).push({ tag: request.tag, authconfig: {} }),
      request.signal,
    )) as Readable;
  } catch (cause) {
    if (request.signal?.aborted) throw cause;
    throw failed((cause as Error).message, cause);
  }
  await followStream(stream, Object.assign(tracker, { hasError: () => tracker.error !== undefined }), {
    ...request,
    describeTimeout: () => failed(`timed out after ${Math.round(request.timeoutMs / 1000)} s`),
  });
  if (tracker.error) throw failed(tracker.error);
  if (tracker.digest) return { digest: tracker.digest };
  const digests = (await docker.getImage(target).inspect()).RepoDigests ?? [];
  const digest = digests.find((d) => d.startsWith(`${request.repository}@`))?.split("@")[1];
  if (!digest) throw failed("the engine reported no repository digest");
  return { digest };
}
