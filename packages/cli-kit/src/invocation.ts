import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * The folder relative paths on the command line start from: the one the user typed the command in.
 * `pnpm <script>` runs a root script from the workspace root and passes that folder as INIT_CWD; it is
 * used only when `npm_lifecycle_event` is this command's own script, because an outer pnpm run (a
 * test suite, another script) leaves its INIT_CWD in the environment of every process it starts.
 */
export function invocationCwd(env: NodeJS.ProcessEnv, cwd: string, pnpmScript: string): string {
  return env.npm_lifecycle_event === pnpmScript && env.INIT_CWD ? env.INIT_CWD : cwd;
}

/** What makes a folder an oracle root. */
const ROOT_MARKERS = ["tasks", "images"] as const;

/**
 * The default `--root` of every command: the nearest folder upwards from `start` that holds tasks/ or
 * images/, else `start` itself (resolved).
 */
export function findRoot(start: string): string {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (ROOT_MARKERS.some((marker) => existsSync(join(dir, marker)))) return dir;
    if (dirname(dir) === dir) return resolve(start);
  }
}
