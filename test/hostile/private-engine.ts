// A Docker daemon and a registry of the test's own, so that the engine-fault cases can stop and
// restart them without touching the engine and registry other tests share. Both are real (dockerd
// with its managed containerd, Debian's docker-registry); the test owns their processes and kills
// only those, by pid. It is reached through @oracle/engine like the shared one.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { connectDocker, type Dockerode, dockerEngine, pingEngine } from "@oracle/engine";
import type { RegistryFile } from "@oracle/spec";
import { waitFor } from "@oracle/test-utils";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once("exit", () => done()));
}

/** Sends `signal` to the process and waits (bounded) for it to exit; SIGKILL after `ms`. */
export async function stopProcess(child: ChildProcess | null, signal: NodeJS.Signals, ms = 30_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const done = await Promise.race([exited(child).then(() => true), sleep(ms).then(() => false)]);
  if (!done) {
    child.kill("SIGKILL");
    await exited(child);
  }
}

const shell = (command: string): string =>
  execFileSync("sh", ["-c", command], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

export class PrivateEngine {
  private daemon: ChildProcess | null = null;
  private registryProcess: ChildProcess | null = null;
  readonly socket: string;
  readonly docker: Dockerode;

  constructor(
    readonly dir: string,
    readonly registryAddress: string,
  ) {
    this.socket = join(dir, "d.sock");
    this.docker = connectDocker({ socketPath: this.socket });
    mkdirSync(join(dir, "registry"), { recursive: true });
  }

  /** A bridge of this engine's own: dockerd given `--bridge none` deletes the host's docker0 at start. */
  private get bridge(): string {
    return `oracle-pe${process.pid % 100000}`;
  }

  private ensureBridge(): void {
    try {
      execFileSync("ip", ["link", "show", this.bridge], { stdio: "ignore" });
    } catch {
      execFileSync("ip", ["link", "add", "name", this.bridge, "type", "bridge"], { stdio: "ignore" });
    }
  }

  /** Starts dockerd (its own bridge, no iptables) on a socket and data-root of its own; resolves once it answers. */
  async startDaemon(): Promise<void> {
    this.ensureBridge();
    const log = openSync(join(this.dir, "dockerd.log"), "a");
    this.daemon = spawn(
      "dockerd",
      [
        "--host",
        `unix://${this.socket}`,
        "--data-root",
        join(this.dir, "data"),
        "--exec-root",
        join(this.dir, "x"),
        "--pidfile",
        join(this.dir, "d.pid"),
        "--bridge",
        this.bridge,
        "--iptables=false",
        "--ip-masq=false",
        "--storage-driver",
        "overlay2",
      ],
      { stdio: ["ignore", log, log] },
    );
    await waitFor(
      () =>
        pingEngine(this.docker).then(
          () => true,
          () => false,
        ),
      { what: `the private dockerd to answer (see ${join(this.dir, "dockerd.log")})`, timeoutMs: 60_000 },
    );
  }

  /** Stops the daemon as `kill <pid>` does (SIGTERM), or abruptly with SIGKILL. */
  stopDaemon(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    return stopProcess(this.daemon, signal);
  }

  async startRegistry(): Promise<void> {
    const config = join(this.dir, "registry.yml");
    writeFileSync(
      config,
      `version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: ${join(this.dir, "registry")}\nhttp:\n  addr: ${this.registryAddress}\n`,
    );
    const log = openSync(join(this.dir, "registry.log"), "a");
    this.registryProcess = spawn("docker-registry", ["serve", config], { stdio: ["ignore", log, log] });
    await waitFor(
      () =>
        fetch(`http://${this.registryAddress}/v2/`).then(
          (response) => response.ok,
          () => false,
        ),
      { what: `the private registry to answer on ${this.registryAddress}`, timeoutMs: 30_000 },
    );
  }

  stopRegistry(): Promise<void> {
    return stopProcess(this.registryProcess, "SIGTERM");
  }

  /** A daemon and a registry of their own in a fresh folder `/tmp/<prefix>XXXXXX`, both started. */
  static async start(prefix: string, registryAddress: string): Promise<PrivateEngine> {
    const engine = new PrivateEngine(mkdtempSync(join("/tmp", prefix)), registryAddress);
    await engine.startDaemon();
    await engine.startRegistry();
    return engine;
  }

  /**
   * Copies an image recorded in `<root>/images/registry.json` (built in the shared engine) into this
   * engine, pushes it to this registry under `tag`, and records it there by that digest.
   */
  async recordImage(root: string, name: string, tag: string): Promise<void> {
    const file = join(root, "images", "registry.json");
    const registry = JSON.parse(readFileSync(file, "utf8")) as RegistryFile;
    const record = registry.images[name]!;
    const saved = await connectDocker().getImage(record.imageId).get();
    await finished((await this.docker.loadImage(saved, { quiet: true })).resume());
    const repo = `${this.registryAddress}/oracle/${name}`;
    await this.docker.getImage(record.imageId).tag({ repo, tag });
    const { digest } = await dockerEngine(this.docker).push({ repository: repo, tag, timeoutMs: 300_000 });
    registry.images[name] = { ...record, reference: `${repo}@${digest}`, digest, pushed: true };
    writeFileSync(file, `${JSON.stringify(registry, null, 2)}\n`);
  }

  /** {@link shutdown}, then the engine's folder removed (its overlay mounts first). */
  async dispose(): Promise<void> {
    await this.shutdown();
    try {
      shell(`umount -R ${this.dir}/data/overlay2/*/merged 2>/dev/null; true`);
      rmSync(this.dir, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`could not remove ${this.dir}: ${(error as Error).message}\n`);
    }
  }

  /** Stops everything this engine started (containers go with the daemon). */
  async shutdown(): Promise<void> {
    await this.stopRegistry();
    if (this.daemon && this.daemon.exitCode === null && this.daemon.signalCode === null) {
      const containers = await this.docker.listContainers({ all: true }).catch(() => []);
      for (const c of containers)
        await this.docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => undefined);
    }
    await this.stopDaemon("SIGTERM");
    try {
      execFileSync("ip", ["link", "del", this.bridge], { stdio: "ignore" });
    } catch {
      // already gone
    }
  }
}
