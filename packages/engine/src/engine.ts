import { DockerodeContainer, type EngineContainer } from "./container.js";
import { type BuildRequest, buildImage, type PushRequest, pushImage } from "./image-streams.js";
import { type ContainerCreateOptions, connectDocker, type Dockerode } from "./load.js";
import { pingEngine } from "./ping.js";
import { registryHasManifest } from "./registry.js";

/** A local image: its ID and the repository digests it is known by. */
export interface ImageFound {
  id: string;
  repoDigests: string[];
}

/** A container as a label query finds it. */
export interface ContainerFound {
  id: string;
  labels: Record<string, string>;
}

/**
 * Everything the oracle asks of the Docker engine. {@link dockerEngine} is the real one; each part
 * takes the few methods it uses (`Pick<Engine, …>`), so that its unit tests pass a small fake.
 */
export interface Engine {
  /** Fails with DOCKER_UNAVAILABLE, and how to start the engine, when it does not answer. */
  ping(): Promise<void>;
  /** The local image's ID and repo digests, or null when the engine does not have it. */
  findImage(reference: string): Promise<ImageFound | null>;
  /** Whether the engine or the registry still has `reference` (an image ID or `repo@sha256:...`). */
  imageExists(reference: string): Promise<boolean>;
  /** Pulls `reference`; fails with the first error the pull reports. */
  pull(reference: string): Promise<void>;
  /** Builds from a tar context; rejects with BUILD_FAILED naming the failing step, or the signal's reason. */
  build(request: BuildRequest): Promise<{ imageId: string }>;
  /** Pushes `repo:tag`; resolves with the repository digest (`sha256:...`). */
  push(request: PushRequest): Promise<{ digest: string }>;
  createContainer(options: ContainerCreateOptions): Promise<EngineContainer>;
  /** Containers (any state) carrying every label given as `key=value` (`labelFilter`). */
  listContainers(labels: string[], signal?: AbortSignal): Promise<ContainerFound[]>;
  /**
   * Force-removes a container and its anonymous volumes; resolves once it is gone, also when it
   * already was (404) or another removal of it is under way (409).
   */
  removeContainer(id: string, signal?: AbortSignal): Promise<void>;
}

/** dockerode's request option that ends a request on abort (absent, not undefined, without one). */
const aborted = (signal: AbortSignal | undefined) => (signal ? { abortSignal: signal } : {});

const statusOf = (error: unknown): number | undefined => (error as { statusCode?: number }).statusCode;

async function findImage(docker: Dockerode, reference: string): Promise<ImageFound | null> {
  try {
    const info = await docker.getImage(reference).inspect();
    return { id: info.Id, repoDigests: info.RepoDigests ?? [] };
  } catch (error) {
    if (statusOf(error) === 404) return null;
    throw error;
  }
}

async function pull(docker: Dockerode, reference: string): Promise<void> {
  const stream = await docker.pull(reference);
  await new Promise<void>((done, fail) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null) => (error ? fail(error) : done()),
      (event: { error?: string }) => {
        if (event.error) fail(new Error(event.error));
      },
    );
  });
}

/** The engine through dockerode; by default the one DOCKER_HOST (else the local socket) names. */
export function dockerEngine(docker: Dockerode = connectDocker()): Engine {
  return {
    ping: () => pingEngine(docker),
    findImage: (reference) => findImage(docker, reference),
    async imageExists(reference) {
      return (await findImage(docker, reference)) !== null || registryHasManifest(reference);
    },
    pull: (reference) => pull(docker, reference),
    build: (request) => buildImage(docker, request),
    push: (request) => pushImage(docker, request),
    async createContainer(options) {
      return new DockerodeContainer(await docker.createContainer(options));
    },
    async listContainers(labels, signal) {
      const list = await docker.listContainers({ all: true, filters: { label: labels }, ...aborted(signal) });
      return list.map((c) => ({ id: c.Id, labels: c.Labels ?? {} }));
    },
    async removeContainer(id, signal) {
      try {
        await docker.getContainer(id).remove({ force: true, v: true, ...aborted(signal) });
      } catch (error) {
        const status = statusOf(error);
        if (status !== 404 && status !== 409) throw error;
      }
    },
  };
}
