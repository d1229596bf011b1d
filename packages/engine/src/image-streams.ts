import type { Readable } from "node:stream";
import { OracleError } from "@oracle/spec";
import {
  BuildStreamTracker,
  type EngineMessage,
  JsonLineSplitter,
  PushStreamTracker,
} from "./json-stream.js";
import type { Dockerode } from "./load.js";
import { raceSignal } from "./signals.js";

export interface StreamCallbacks {
  /** Text for the build log, as it arrives. */
  onText?: (text: string) => void;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface BuildRequest extends StreamCallbacks {
  /** The build context as a tar stream. */
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

interface Follow extends StreamCallbacks {
  /** Reads one message; returns its text for the log. */
  follow: (message: EngineMessage) => string;
  /** Called after each message's text went to `onText`. */
  onMessage?: () => void;
  /** Whether a message so far carried an error: the stream is not read further. */
  failed: () => boolean;
  describeTimeout: () => OracleError;
}

/**
 * Reads an engine JSON stream to its end, the deadline, the caller's abort, or the first error line,
 * whichever comes first. Past the deadline it rejects with `describeTimeout()`, on abort with the
 * signal's reason; an error line resolves (the caller reads the error from its tracker).
 */
function followStream(stream: Readable, options: Follow): Promise<void> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const stop = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const splitter = new JsonLineSplitter();
  return new Promise((resolve, reject) => {
    const finish = (error?: unknown) => {
      stop.removeEventListener("abort", onStop);
      stream.removeAllListeners("data");
      if (error !== undefined || options.failed()) stream.destroy();
      if (error !== undefined) reject(error);
      else resolve();
    };
    const onStop = () => finish(options.signal?.aborted ? options.signal.reason : options.describeTimeout());
    if (stop.aborted) return onStop();
    stop.addEventListener("abort", onStop, { once: true });
    const handle = (messages: EngineMessage[]) => {
      for (const message of messages) {
        // Followed whether or not anyone reads the text (`onText?.(follow(m))` would skip it).
        const text = options.follow(message);
        options.onText?.(text);
        options.onMessage?.();
        if (options.failed()) return finish();
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

/** The engine's stream once the request is accepted; an abort before then rejects, and the late stream is closed. */
function started(request: Promise<unknown>, signal: AbortSignal | undefined): Promise<Readable> {
  request.then(
    (stream) => {
      if (signal?.aborted) (stream as Readable).destroy();
    },
    () => undefined,
  );
  return raceSignal(request, signal) as Promise<Readable>;
}

async function startBuild(docker: Dockerode, request: BuildRequest): Promise<Readable> {
  const options = {
    t: request.tag,
    labels: request.labels,
    rm: true,
    forcerm: true,
    nocache: request.noCache,
  };
  try {
    return await started(docker.buildImage(request.context, options), request.signal);
  } catch (cause) {
    if (request.signal?.aborted) throw cause;
    throw new OracleError("BUILD_FAILED", `the engine refused the build: ${(cause as Error).message}`, {
      cause,
      hint: "check the Dockerfile's syntax and the engine's log",
    });
  }
}

/**
 * Builds from a tar context with the classic builder; the first stream line with `errorDetail` fails
 * the build at once with BUILD_FAILED naming the step. Rejects with BUILD_FAILED past the deadline,
 * and with the signal's reason on abort.
 */
export async function buildImage(docker: Dockerode, request: BuildRequest): Promise<{ imageId: string }> {
  const tracker = new BuildStreamTracker();
  let lastStep: string | undefined;
  const stream = await startBuild(docker, request);
  await followStream(stream, {
    ...request,
    follow: (message) => tracker.follow(message),
    onMessage: () => {
      if (tracker.step !== lastStep && tracker.step) request.onStep?.(tracker.step);
      lastStep = tracker.step;
    },
    failed: () => tracker.error !== undefined,
    describeTimeout: () =>
      new OracleError(
        "BUILD_FAILED",
        `build timed out after ${Math.round(request.timeoutMs / 1000)} s at ${tracker.step ?? "the start"}`,
        { hint: "raise --build-timeout, or look at the build log for a step that hangs" },
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

/** Pushes `repository:tag`; resolves with the repository digest, fails with PUSH_FAILED. */
export async function pushImage(docker: Dockerode, request: PushRequest): Promise<{ digest: string }> {
  const tracker = new PushStreamTracker();
  const target = `${request.repository}:${request.tag}`;
  const failed = (message: string, cause?: unknown) =>
    new OracleError("PUSH_FAILED", `push of ${target} failed: ${message}`, {
      cause,
      hint: "check that the registry is running and reachable (for the local one: bash scripts/setup.sh)",
    });
  let stream: Readable;
  try {
    stream = await started(
      docker.getImage(request.repository).push({ tag: request.tag, authconfig: {} }),
      request.signal,
    );
  } catch (cause) {
    if (request.signal?.aborted) throw cause;
    throw failed((cause as Error).message, cause);
  }
  await followStream(stream, {
    ...request,
    follow: (message) => tracker.follow(message),
    failed: () => tracker.error !== undefined,
    describeTimeout: () => failed(`timed out after ${Math.round(request.timeoutMs / 1000)} s`),
  });
  if (tracker.error) throw failed(tracker.error);
  if (tracker.digest) return { digest: tracker.digest };
  const digests = (await docker.getImage(target).inspect()).RepoDigests ?? [];
  const digest = digests.find((d) => d.startsWith(`${request.repository}@`))?.split("@")[1];
  if (!digest) throw failed("the engine reported no repository digest");
  return { digest };
}
