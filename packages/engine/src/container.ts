import type { Writable } from "node:stream";
import type Docker from "dockerode";
import { Demuxer } from "./demux.js";
import type { ContainerInspectInfo } from "./load.js";

/** The container's stdin (the driver's script, then its go-ahead) and the end of its output. */
export interface AttachedStreams {
  input: { write(data: Buffer | string): void; end(): void };
  ended: Promise<void>;
}

/** One container, as the grader drives it. */
export interface EngineContainer {
  readonly id: string;
  inspect(): Promise<ContainerInspectInfo>;
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
  /** Force-removes the container and its anonymous volumes. */
  remove(): Promise<void>;
}

function writeTo(target: Writable): (chunk: Buffer) => void {
  return (chunk) => {
    target.write(chunk);
  };
}

/** An {@link EngineContainer} over a dockerode container. */
export class DockerodeContainer implements EngineContainer {
  constructor(private readonly container: Docker.Container) {}

  get id(): string {
    return this.container.id;
  }

  inspect(): Promise<ContainerInspectInfo> {
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
