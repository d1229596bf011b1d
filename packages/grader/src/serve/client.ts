import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { connect } from "node:net";
import { basename, dirname, join, resolve } from "node:path";
import { GRADE_FILE_FLAGS } from "../cli/grade-flags.js";

/**
 * The client of a local grader (`oracle-grade --serve`, server.ts): the bin tries it before it loads
 * the grader. It loads nothing but Node's own modules (a grade through a server pays no zod,
 * dockerode or tree-sitter at start), finds the root as the grader would, and hands the command line
 * to the server of that root when one of the same build listens there; the server runs it as
 * in-process (the same parse, grade, output and exit code) and sends back what it writes. Null: no
 * such server (no socket, another build, another root or environment, or a file named through /dev or
 * /proc, which would be the server's: {@link sameFileForServer}), so the bin grades in process.
 */

/** The local grader's socket under its root. */
export const socketPath = (root: string): string => join(root, ".oracle", "serve.sock");

/**
 * The environment a grade reads besides its arguments (the signing key's file, the Docker engine, the
 * home and config folders, the time zone, CI): a server whose values differ does not grade for a client.
 */
const PINNED_ENV = /^(ORACLE_|DOCKER_)|^(HOME|XDG_CONFIG_HOME|TZ|CI)$/;

export function pinnedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const pinned: Record<string, string> = {};
  for (const name of Object.keys(env).sort())
    if (PINNED_ENV.test(name) && env[name] !== undefined) pinned[name] = env[name];
  return pinned;
}

/** The build the bin belongs to: dist/build-id, written by the bundle script (scripts/bundle.mjs). */
function buildId(): string | null {
  try {
    return readFileSync(new URL("../build-id", import.meta.url), "utf8").trim();
  } catch {
    return null;
  }
}

/** The first request line: what the server needs to run the command as the client's process would. */
export interface ServeRequest {
  build: string;
  argv: string[];
  cwd: string;
  /** {@link pinnedEnv}, with INIT_CWD and npm_lifecycle_event (`pnpm grade`'s working folder). */
  env: Record<string, string>;
  /** Whether the client's stderr is a terminal (warnings are coloured there). */
  stderrTTY: boolean;
}

/** A line from the server: stdout or stderr text, the exit code, or why it does not grade this request. */
export type ServeFrame = { o: string } | { e: string } | { x: number } | { f: string };

/** cli-kit's invocationCwd and findRoot, without loading cli-kit (which loads zod). */
function rootOf(argv: readonly string[], env: NodeJS.ProcessEnv): { cwd: string; root: string } {
  const cwd = env.npm_lifecycle_event === "grade" && env.INIT_CWD ? env.INIT_CWD : process.cwd();
  let given: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (arg === "--root") given = argv[i + 1];
    else if (arg.startsWith("--root=")) given = arg.slice("--root=".length);
  }
  if (given) return { cwd, root: resolve(cwd, given) };
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "tasks")) || existsSync(join(dir, "images"))) return { cwd, root: dir };
    if (dirname(dir) === dir) return { cwd, root: resolve(cwd) };
  }
}

/** Whether argv is a single grade (--batch and --serve are never sent to a server). */
export function isSingleGrade(argv: readonly string[]): boolean {
  return !argv.some((a) => /^--(batch|serve)(=|$)/.test(a));
}

/** The flags whose value the grade opens as a file (grade-flags.ts, which the grade's parser reads too). */
const PATH_FLAGS = GRADE_FILE_FLAGS.map((flag) => `--${flag}`);

/** The files argv names, absolute against `cwd`. */
function pathArguments(argv: readonly string[], cwd: string): string[] {
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--") break;
    for (const flag of PATH_FLAGS) {
      if (arg === flag && argv[i + 1] !== undefined) paths.push(resolve(cwd, argv[i + 1]!));
      else if (arg.startsWith(`${flag}=`)) paths.push(resolve(cwd, arg.slice(flag.length + 1)));
    }
  }
  return paths;
}

const processFolder = (path: string): boolean => /^\/(dev|proc)(\/|$)/.test(path);

/** The real path of `path`'s folder (or of its nearest folder that exists), with `path`'s own name. */
function realFolder(path: string): string {
  let dir = dirname(path);
  let rest = basename(path);
  for (;;) {
    try {
      return join(realpathSync(dir), rest);
    } catch {
      if (dirname(dir) === dir) return path;
      rest = join(basename(dir), rest);
      dir = dirname(dir);
    }
  }
}

/**
 * Whether the server opens the same file the client means by `path`: a regular file, or a new one in
 * a real folder, reached through no name under /dev or /proc. `/dev/stdin`, `/dev/stdout`, `/dev/fd/N`
 * and `/proc/self/…` (or a link to one, at any hop) name the opening process's own descriptors, which
 * in a server are the server's, not the client's (an attack review, s26: `--diff /dev/stdin` read the
 * server's stdin, `--result /dev/stdout` wrote to the server's).
 */
export function sameFileForServer(path: string): boolean {
  let current = path;
  for (let hop = 0; hop < 40; hop += 1) {
    if (processFolder(current) || processFolder(realFolder(current))) return false;
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(current);
    } catch {
      return true;
    }
    if (!info.isSymbolicLink()) return info.isFile();
    current = resolve(dirname(current), readlinkSync(current));
  }
  return false;
}

/** Whether every file argv names is one the server would open as the client means it. */
export const servablePaths = (argv: readonly string[], cwd: string): boolean =>
  pathArguments(argv, cwd).every(sameFileForServer);

const SIGNAL_NUMBER = { SIGINT: 2, SIGTERM: 15 } as const;

/**
 * Runs argv through the local grader of its root and resolves to the exit code, or null when there is
 * none to use (then nothing was written). A signal goes to the server, which stops the grade as an
 * in-process one would; a second one exits at once.
 */
export function viaServer(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  build: string | null = buildId(),
): Promise<number | null> {
  if (!isSingleGrade(argv)) return Promise.resolve(null);
  const { cwd, root } = rootOf(argv, env);
  if (!servablePaths(argv, cwd)) return Promise.resolve(null);
  const path = socketPath(root);
  try {
    // Only a socket of this user's: the server made it so (mode 0600); anything else is not one.
    const info = lstatSync(path);
    if (!info.isSocket() || info.uid !== process.getuid?.()) return Promise.resolve(null);
  } catch {
    return Promise.resolve(null);
  }
  if (!build) return Promise.resolve(null);
  const invocation: Record<string, string> = pinnedEnv(env);
  if (env.INIT_CWD !== undefined) invocation.INIT_CWD = env.INIT_CWD;
  if (env.npm_lifecycle_event !== undefined) invocation.npm_lifecycle_event = env.npm_lifecycle_event;
  const request: ServeRequest = {
    build,
    argv: [...argv],
    cwd,
    env: invocation,
    stderrTTY: process.stderr.isTTY === true,
  };
  return new Promise((done) => {
    const socket = connect(path);
    /** Set at the first output: from then on the grade is the server's, whatever happens. */
    let committed = false;
    let signalled: keyof typeof SIGNAL_NUMBER | undefined;
    let buffered = "";
    const onSignal = (name: keyof typeof SIGNAL_NUMBER) => {
      if (signalled) {
        process.stderr.write(`\n${name} again: exiting at once\n`);
        process.exit(128 + SIGNAL_NUMBER[name]);
      }
      signalled = name;
      socket.write(`${JSON.stringify({ s: name })}\n`);
    };
    let finished = false;
    const finish = (code: number | null) => {
      if (finished) return;
      finished = true;
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      socket.destroy();
      done(code);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        const frame = JSON.parse(buffered.slice(0, end)) as ServeFrame;
        buffered = buffered.slice(end + 1);
        if ("f" in frame) return finish(committed ? 3 : null);
        committed = true;
        if ("o" in frame) process.stdout.write(frame.o);
        else if ("e" in frame) process.stderr.write(frame.e);
        else return finish(frame.x);
      }
    });
    // A server that is gone (a stale socket) or ends before answering: the bin grades in process.
    const lost = () => {
      if (finished) return;
      if (!committed) return finish(signalled ? 128 + SIGNAL_NUMBER[signalled] : null);
      process.stderr.write(`the local grader at ${path} ended before the grade did\n`);
      finish(3);
    };
    socket.on("error", lost);
    socket.on("close", lost);
  });
}
