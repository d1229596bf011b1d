import { readdirSync, statSync } from "node:fs";
import { chmod, lstat, mkdir, unlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import {
  abortError,
  type Command,
  type RunContext,
  runCommand,
  type SignalTrap,
  signalExitCode,
  type TrapOptions,
  wantsHelp,
} from "@oracle/cli-kit";
import { OracleError, readRegistryFile } from "@oracle/spec";
import { parserFiles } from "@oracle/test-set";
import { type CliOptions, parseCliArgs } from "../cli/cli-options.js";
import { gradeCommandWith } from "../cli/grade-command.js";
import { dockerodeGradeDocker } from "../image/docker.js";
import { WarmPool, type WarmTicket } from "../run/warm-pool.js";
import { type PreparedTask, prepareTask } from "../task/prepare.js";
import { buildId } from "../version.js";
import { pinnedEnv, type ServeFrame, type ServeRequest, socketPath } from "./client.js";
import { parseServeArgs, SERVE_HELP, type ServeCliOptions } from "./serve-options.js";

/**
 * oracle-grade --serve: a long-running local grader for one root (issue 33). A single grade's time
 * above the floor went to the process start, module loading and two container creates and starts;
 * here the process and its modules are up, and the next grade of each task graded finds its two
 * suite containers made, checked and started by a warm pool (warm-pool.ts), each driver waiting on
 * stdin. The bin's client (client.ts) sends the command line; the server runs the grade command
 * itself (cli.ts, the same parse, grade and output) with the client's streams, signals and exit code.
 * A ready slot is used only when made from the task and image record of today (else removed, and the
 * grade makes its own) and while its lease covers the grade; it is made again before its lease could
 * run out, for tasks graded in the last {@link IDLE_MS}.
 */

/** A task's ready slot is made again as it ages only when the task was graded this recently. */
const IDLE_MS = 30 * 60 * 1000;
/** Room between a ready slot's lease and the end of the grade it is handed to: 15 s, or a quarter of a shorter limit. */
const leaseMargin = (limitMs: number) => Math.min(15_000, limitMs / 4);

interface Ready {
  ticket: WarmTicket;
  key: string;
  madeAt: number;
  /** The lease the pool gave the slot: twice the task's limit (warm-pool.ts). */
  leaseMs: number;
  renew: NodeJS.Timeout;
}

/** What a ready slot was made from: the task as loaded and its image's record. */
async function slotKey(root: string, prepared: PreparedTask): Promise<string> {
  const record = (await readRegistryFile(root)).images[prepared.loaded.task.image] ?? null;
  const { task, hiddenTestsDir, mirrorPath } = prepared.loaded;
  return JSON.stringify({ task, hiddenTestsDir, mirrorPath, record });
}

/** The next grade's containers of each task graded, one slot per task. */
class ReadySlots {
  readonly #root: string;
  readonly #pool: WarmPool;
  readonly #ready = new Map<string, Ready>();
  readonly #making = new Set<string>();
  readonly #graded = new Map<string, number>();
  #closed = false;

  constructor(root: string, pool: WarmPool) {
    this.#root = root;
    this.#pool = pool;
  }

  /** The slot for a grade of `prepared` with this limit, when one is ready and still fits; removed otherwise. */
  async take(prepared: PreparedTask, timeoutSeconds: number | undefined): Promise<WarmTicket | undefined> {
    const id = prepared.loaded.task.id;
    this.#graded.set(id, Date.now());
    const ready = this.#ready.get(id);
    if (!ready) return undefined;
    this.#ready.delete(id);
    clearTimeout(ready.renew);
    const runMs = (timeoutSeconds ?? prepared.loaded.task.timeoutSeconds) * 1000;
    const current = ready.key === (await slotKey(this.#root, prepared).catch(() => null));
    const margin = leaseMargin(ready.leaseMs / 2);
    if (current && Date.now() + runMs + margin <= ready.madeAt + ready.leaseMs) return ready.ticket;
    ready.ticket.release().catch(() => undefined);
    return undefined;
  }

  /**
   * Makes task `id`'s next slot, unless one is ready or under way, the task is gone or unreadable, or
   * memory is short; never throws (the grade then makes its own containers).
   */
  async refill(id: string): Promise<void> {
    if (this.#closed || this.#ready.has(id) || this.#making.has(id)) return;
    this.#making.add(id);
    try {
      await this.#make(id);
    } catch (error) {
      process.stderr.write(`warn: could not make ${id}'s next containers: ${(error as Error).message}\n`);
    } finally {
      this.#making.delete(id);
    }
  }

  async #make(id: string): Promise<void> {
    const prepared = await prepareTask(this.#root, id).catch(() => null);
    if (!prepared || this.#closed || !this.#pool.fits(prepared)) return;
    const key = await slotKey(this.#root, prepared);
    const madeAt = Date.now();
    this.#pool.forgetImages();
    const ticket = this.#pool.warm(prepared);
    const limitMs = prepared.loaded.task.timeoutSeconds * 1000;
    // Half its lease gone, a grade could outlast it (pipeline.ts warmFits): made again if still used.
    const renew = setTimeout(() => {
      if (this.#ready.get(id) !== ready) return;
      this.#ready.delete(id);
      ready.ticket.release().catch(() => undefined);
      if (Date.now() - (this.#graded.get(id) ?? 0) < IDLE_MS) void this.refill(id);
    }, limitMs - leaseMargin(limitMs));
    const ready: Ready = { ticket, key, madeAt, leaseMs: 2 * limitMs, renew };
    this.#ready.set(id, ready);
  }

  /** Removes every ready slot; none is made after. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const ready of this.#ready.values()) clearTimeout(ready.renew);
    this.#ready.clear();
    await this.#pool.close();
  }
}

/** One client's grade: its output streams and the signals it forwards. */
class Connection {
  readonly #socket: Socket;
  #deliver: ((signal: NodeJS.Signals) => void) | null = null;
  #pending: NodeJS.Signals | null = null;

  constructor(socket: Socket) {
    this.#socket = socket;
  }

  send(frame: ServeFrame): void {
    if (!this.#socket.destroyed) this.#socket.write(`${JSON.stringify(frame)}\n`);
  }

  stream(kind: "o" | "e", isTTY = false): NodeJS.WritableStream {
    const writable = new Writable({
      decodeStrings: false,
      write: (chunk: string | Buffer, _encoding, done) => {
        const text = String(chunk);
        this.send(kind === "o" ? { o: text } : { e: text });
        done();
      },
    });
    return Object.assign(writable, { isTTY });
  }

  /** The client's SIGINT/SIGTERM (or its going away) as runCommand's trap: the first stops the grade. */
  trap = (options: TrapOptions): SignalTrap => {
    const controller = new AbortController();
    let first: NodeJS.Signals | undefined;
    this.#deliver = (signal) => {
      if (first !== undefined) return;
      first = signal;
      const message = options.message ?? ((s: NodeJS.Signals) => `${s}: stopping…`);
      options.stderr?.write(`\n${message(signal)}\n`);
      controller.abort(abortError(`interrupted by ${signal}`));
    };
    if (this.#pending) this.#deliver(this.#pending);
    return { signal: controller.signal, received: () => first, dispose: () => undefined };
  };

  signal(name: NodeJS.Signals): void {
    if (this.#deliver) this.#deliver(name);
    else this.#pending ??= name;
  }
}

/** The socket under the root, made for this user only: a path not this user's socket is refused, a stale one replaced. */
async function listenOnRoot(root: string, server: Server): Promise<string> {
  const uid = process.getuid?.();
  const dir = join(root, ".oracle");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const folder = await lstat(dir);
  if (!folder.isDirectory() || folder.uid !== uid)
    throw new OracleError(
      "USAGE",
      `${dir} is not a folder of this user's: the local grader's socket goes there`,
    );
  const path = socketPath(root);
  const found = await lstat(path).catch(() => null);
  if (found) {
    if (!found.isSocket() || found.uid !== uid)
      throw new OracleError(
        "USAGE",
        `${path} is there and is not a socket of this user's; not replacing it`,
        {
          hint: "remove it if it is yours to remove",
        },
      );
    if (await answers(path))
      throw new OracleError("USAGE", `a local grader already serves ${root} at ${path}`);
    await unlink(path);
  }
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(path, () => {
        server.off("error", fail);
        done();
      });
    });
  } finally {
    process.umask(umask);
  }
  await chmod(path, 0o600);
  return path;
}

/** Whether a server listens at `path` (a stale socket refuses the connection). */
function answers(path: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = connect(path);
    probe.once("connect", () => {
      probe.destroy();
      done(true);
    });
    probe.once("error", () => done(false));
  });
}

const ENV_OF_INVOCATION = new Set(["INIT_CWD", "npm_lifecycle_event"]);

/**
 * The files a grade loads at run time from outside the bundle that the build id hashes: the parser and
 * its grammars (@oracle/test-set's parserFiles), the image builder's modules (loaded on a fingerprint
 * cache miss) and dockerode's package. `pnpm install` or a rebuild of the image builder changes them
 * while the bundle, and so the build id, stays: a server that loaded the old ones would grade with code
 * the client's own process would not run.
 */
export function loadedFiles(): string[] {
  const files = [...parserFiles()];
  const here = createRequire(import.meta.url);
  try {
    const builder = dirname(here.resolve("@oracle/image-builder"));
    for (const name of readdirSync(builder).sort()) if (name.endsWith(".js")) files.push(join(builder, name));
  } catch {
    // not installed: nothing of it can change under the server
  }
  try {
    const engine = createRequire(here.resolve("@oracle/engine/package.json"));
    files.push(engine.resolve("dockerode/package.json"));
  } catch {
    // the same
  }
  return files;
}

/** What changes when a file is replaced or rewritten (its inode, size and modification time), per file. */
export function filesStamp(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const stat = statSync(file, { bigint: true });
        return `${file}\0${stat.ino}\0${stat.size}\0${stat.mtimeNs}`;
      } catch {
        return `${file}\0missing`;
      }
    })
    .join("\n");
}

/** The build a server grades with: the bundle's id and the stamp of the files it loads besides ({@link loadedFiles}). */
export interface ServedBuild {
  id: string;
  files: readonly string[];
  stamp: string;
}

/** Why this server does not grade `request` (the client then grades in process), or null. */
export function mismatch(request: ServeRequest, build: ServedBuild, root: string): string | null {
  if (request.build !== build.id) return "another build";
  if (filesStamp(build.files) !== build.stamp)
    return "another build (node_modules changed since the server started)";
  const theirs = Object.fromEntries(
    Object.entries(request.env).filter(([name]) => !ENV_OF_INVOCATION.has(name)),
  );
  if (JSON.stringify(theirs) !== JSON.stringify(pinnedEnv(process.env))) return "another environment";
  if (wantsHelp(request.argv)) return null;
  let options: CliOptions;
  try {
    options = parseCliArgs(request.argv, invocationFolder(request));
  } catch {
    return null; // the grade command prints the usage error, as in process
  }
  return options.root === root ? null : "another root";
}

const invocationFolder = (request: ServeRequest) =>
  request.env.npm_lifecycle_event === "grade" && request.env.INIT_CWD ? request.env.INIT_CWD : request.cwd;

interface Serving {
  root: string;
  build: ServedBuild;
  slots: ReadySlots;
  connections: Set<Connection>;
  grades: Set<Promise<void>>;
}

/** Reads the client's request, then its signals; grades and answers with the output and the exit code. */
function onConnection(serving: Serving, socket: Socket): void {
  const connection = new Connection(socket);
  socket.setEncoding("utf8");
  socket.on("error", () => undefined);
  let buffered = "";
  let started = false;
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      let message: ServeRequest | { s: NodeJS.Signals };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        socket.destroy();
        return;
      }
      if ("s" in message) {
        if (message.s === "SIGINT" || message.s === "SIGTERM") connection.signal(message.s);
      } else if (!started) {
        started = true;
        const grading = serveRequest(serving, connection, message).finally(() => {
          serving.grades.delete(grading);
          serving.connections.delete(connection);
          socket.end();
        });
        serving.grades.add(grading);
        serving.connections.add(connection);
      }
    }
  });
  // A client gone before the end (killed, or its second signal) stops its grade.
  socket.on("close", () => connection.signal("SIGTERM"));
}

async function serveRequest(serving: Serving, connection: Connection, request: ServeRequest): Promise<void> {
  const why = mismatch(request, serving.build, serving.root);
  if (why) {
    process.stderr.write(`declined (${why}): the client grades in its own process\n`);
    return connection.send({ f: why });
  }
  const started = Date.now();
  let ticket: WarmTicket | undefined;
  let task: string | undefined;
  const command = gradeCommandWith(async (options: CliOptions) => {
    task = options.task;
    const prepared = await prepareTask(options.root, options.task);
    ticket = await serving.slots.take(prepared, options.timeoutSeconds);
    return { prepared, ...(ticket ? { warm: ticket } : {}) };
  });
  const code = await runCommand(command, request.argv, {
    stdout: connection.stream("o"),
    stderr: connection.stream("e", request.stderrTTY),
    env: request.env,
    cwd: request.cwd,
    trap: connection.trap,
  });
  connection.send({ x: code });
  // A grade that stopped before its run (a quarantined task) leaves the slot to be removed here.
  await Promise.resolve((ticket as WarmTicket | undefined)?.release()).catch(() => undefined);
  process.stderr.write(
    `${task ?? "-"}: exit ${code}, ${ticket ? "ready containers" : "own containers"}, ${Date.now() - started} ms\n`,
  );
  if (task) void serving.slots.refill(task);
}

async function serve(options: ServeCliOptions, context: RunContext): Promise<number> {
  // A server outlives the terminal or pipe it was started from: a closed stderr must not stop it.
  process.stderr.on("error", () => undefined);
  const id = buildId();
  if (!id) throw new OracleError("INTERNAL", "the grader has no dist/build-id: run pnpm build");
  const files = loadedFiles();
  const build: ServedBuild = { id, files, stamp: filesStamp(files) };
  const pool = new WarmPool({
    root: options.root,
    docker: dockerodeGradeDocker(),
    concurrency: 1,
    warn: (message) => process.stderr.write(`warn: ${message}\n`),
  });
  const serving: Serving = {
    root: options.root,
    build,
    slots: new ReadySlots(options.root, pool),
    connections: new Set(),
    grades: new Set(),
  };
  const server = createServer((socket) => onConnection(serving, socket));
  let path: string | null = null;
  try {
    path = await listenOnRoot(options.root, server);
    context.io.stderr.write(`serving ${options.root} at ${path} (pid ${process.pid})\n`);
    await new Promise<void>((done) => {
      if (context.signal.aborted) done();
      context.signal.addEventListener("abort", () => done(), { once: true });
    });
    return signalExitCode(context.interruptedBy() ?? "SIGTERM");
  } finally {
    server.close();
    const signal = context.interruptedBy() ?? "SIGTERM";
    for (const connection of serving.connections) connection.signal(signal);
    await Promise.allSettled([...serving.grades]);
    await serving.slots.close();
    if (path) await unlink(path).catch(() => undefined);
  }
}

export const serveCommand: Command<ServeCliOptions> = {
  name: "oracle-grade --serve",
  pnpmScript: "grade",
  help: SERVE_HELP,
  parse: (argv, at) => parseServeArgs(argv, at.cwd),
  run: serve,
  stopping: (signal) => `${signal}: stopping the local grader, removing its containers`,
};

export function serveMain(argv: readonly string[]): Promise<number> {
  return runCommand(serveCommand, argv);
}
