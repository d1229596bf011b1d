import { createRequire, Module } from "node:module";
import type { Writable } from "node:stream";
import type Docker from "dockerode";

const require = createRequire(import.meta.url);

/** Puts a stand-in for a CommonJS module in the require cache that loads the real one on first call. */
function deferModule(load: NodeJS.Require, path: string): void {
  if (load.cache[path]) return;
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = function deferred(this: unknown, ...args: unknown[]) {
    delete load.cache[path];
    return (load(path) as (...a: unknown[]) => unknown).apply(this, args);
  };
  load.cache[path] = standIn;
}

/**
 * dockerode loads gRPC/protobuf (BuildKit sessions) and docker-modem loads ssh2 (ssh:// hosts) when
 * imported: most of a grade's start-up, and the grader uses neither. Both are deferred to their
 * first use, so nothing changes for a caller in the same process that does need them.
 */
export function loadDockerode(): typeof Docker {
  deferModule(require, require.resolve("dockerode/lib/session.js"));
  const fromDockerode = createRequire(require.resolve("dockerode"));
  deferModule(fromDockerode, fromDockerode.resolve("docker-modem/lib/ssh.js"));
  return require("dockerode") as typeof Docker;
}

/** What the grader needs of the engine; the real one wraps dockerode, unit tests use a fake. */
export interface GradeDocker {
  /** The local image's ID and repo digests, or null when the engine does not have it. */
  findImage(reference: string): Promise<{ id: string; repoDigests: string[] } | null>;
  pull(reference: string): Promise<void>;
  createContainer(options: Docker.ContainerCreateOptions): Promise<GradeContainer>;
  /** Containers (any state) carrying every label given as `key=value`. */
  listContainers(labels: string[]): Promise<Array<{ id: string; labels: Record<string, string> }>>;
  removeContainer(id: string): Promise<void>;
}

/** The container's stdin (the driver's script, then its go-ahead) and the end of its output. */
export interface AttachedStreams {
  input: { write(data: Buffer | string): void; end(): void };
  ended: Promise<void>;
}

export interface GradeContainer {
  readonly id: string;
  inspect(): Promise<Docker.ContainerInspectInfo>;
  /**
   * Attaches to the (not yet started) container's stdin, stdout and stderr; stdout and stderr are
   * demultiplexed into the two writers. Resolves once attached with the container's stdin and a
   * promise of the output's end.
   */
  attach(stdout: Writable, stderr: Writable): Promise<AttachedStreams>;
  /** Resolves with the exit code of the container's next exit (call before start). */
  waitForExit(): Promise<number | null>;
  start(): Promise<void>;
  kill(): Promise<void>;
  remove(): Promise<void>;
}

/**
 * Splits Docker's multiplexed exec stream (8-byte frame headers: stream type, 3 zero bytes, size)
 * into stdout and stderr without ever holding more than one partial frame.
 */
export class Demuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    private readonly stdout: (chunk: Buffer) => void,
    private readonly stderr: (chunk: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    while (data.length >= 8) {
      const size = data.readUInt32BE(4);
      const type = data[0];
      const available = Math.min(size, data.length - 8);
      if (available > 0) {
        const payload = data.subarray(8, 8 + available);
        (type === 2 ? this.stderr : this.stdout)(payload);
      }
      if (available < size) {
        // Rewrite the header so the rest of this frame is read next time.
        const header = Buffer.alloc(8);
        header[0] = type ?? 1;
        header.writeUInt32BE(size - available, 4);
        this.pending = header;
        return;
      }
      data = data.subarray(8 + size);
    }
    this.pending = Buffer.from(data);
  }
}

function writeTo(target: Writable): (chunk: Buffer) => void {
  return (chunk) => {
    target.write(chunk);
  };
}

class DockerodeContainer implements GradeContainer {
  constructor(private readonly container: Docker.Container) {}

  get id(): string {
    return this.container.id;
  }

  inspect(): Promise<Docker.ContainerInspectInfo> {
    return this.container.inspect();
  }

  async start(): Promise<void> {
    await this.container.start();
  }

  async attach(stdout: Writable, stderr: Writable): Promise<AttachedStreams> {
    // Hijacked: one socket carries stdin up and the multiplexed output down.
    const stream = (await this.container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as NodeJS.ReadWriteStream;
    const demux = new Demuxer(writeTo(stdout), writeTo(stderr));
    const ended = new Promise<void>((done, fail) => {
      stream.on("data", (chunk: Buffer) => demux.push(chunk));
      stream.on("end", () => done());
      stream.on("close", () => done());
      stream.on("error", fail);
    });
    // A write after the container is gone fails on the socket: the output's end says what happened.
    const input = {
      write: (data: Buffer | string) => {
        stream.write(data);
      },
      end: () => {
        stream.end();
      },
    };
    return { input, ended };
  }

  async waitForExit(): Promise<number | null> {
    const result = (await this.container.wait({ condition: "next-exit" })) as { StatusCode?: number };
    return typeof result.StatusCode === "number" ? result.StatusCode : null;
  }

  async kill(): Promise<void> {
    await this.container.kill({ signal: "SIGKILL" });
  }

  async remove(): Promise<void> {
    await this.container.remove({ force: true, v: true });
  }
}

/** The grader's view of a real engine through dockerode. */
export function dockerodeGradeDocker(given?: Docker): GradeDocker {
  const docker = given ?? new (loadDockerode())();
  return {
    async findImage(reference) {
      try {
        const info = await docker.getImage(reference).inspect();
        return { id: info.Id, repoDigests: info.RepoDigests ?? [] };
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return null;
        throw error;
      }
    },
    async pull(reference) {
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
    },
    async createContainer(options) {
      return new DockerodeContainer(await docker.createContainer(options));
    },
    async listContainers(labels) {
      const list = await docker.listContainers({ all: true, filters: { label: labels } });
      return list.map((c) => ({ id: c.Id, labels: c.Labels ?? {} }));
    },
    async removeContainer(id) {
      await docker.getContainer(id).remove({ force: true, v: true });
    },
  };
}
