import { basename, relative, resolve, sep } from "node:path";
import { RECORD_FILE, SEAL_RECORD_FILE } from "@oracle/grader";
import { registryFilePath, tasksDir } from "@oracle/spec";
import { watch } from "chokidar";

/** What one changed path means for the sweep: a task's folder, or the image registry; null: nothing. */
export type WatchedChange = { kind: "task"; id: string } | { kind: "registry" };

const IGNORED = /(^|[/\\])(node_modules|\.git)([/\\]|$)/;

/**
 * What a change at `path` is about. Watched: every path inside a task's folder (`tasks/<id>/...`, the
 * folder itself when it is added or removed) and `images/registry.json`. Not watched: what the sweep
 * writes itself (tasks/health.json, tasks/quarantine.json and their temporary files at the top of
 * tasks/, a task's expected-tests.recorded.json and seals.recorded.json and their temporary files), node_modules and .git, anything else under images/.
 */
export function watchedChange(root: string, path: string, isDirEvent: boolean): WatchedChange | null {
  const absolute = resolve(path);
  if (absolute === registryFilePath(root)) return { kind: "registry" };
  const parts = relative(tasksDir(root), absolute).split(sep);
  if (parts[0] === "" || parts[0] === ".." || parts[0]?.startsWith(".")) return null;
  if (IGNORED.test(absolute)) return null;
  if (parts.length === 1 && !isDirEvent) return null;
  // The record and the temporary file it is written through (`<record>.<pid>.<hex>.tmp`, then renamed).
  const name = basename(absolute);
  const sweepOutput = (file: string) =>
    name === file || (name.startsWith(`${file}.`) && name.endsWith(".tmp"));
  if (parts.length === 2 && (sweepOutput(RECORD_FILE) || sweepOutput(SEAL_RECORD_FILE))) return null;
  return { kind: "task", id: parts[0]! };
}

/** Describes a batch of changes for a person: `tasks/calc-node, images/registry.json`. */
export function describeChanges(changes: readonly WatchedChange[]): string {
  const names = new Set(
    changes.map((c) => (c.kind === "registry" ? "images/registry.json" : `tasks/${c.id}`)),
  );
  return [...names].sort().join(", ");
}

export interface WatchSweepOptions {
  root: string;
  /** Stops watching: the running pass is interrupted (its grades stopped) and the watcher closed. */
  signal: AbortSignal;
  /** Quiet time after the last change before a pass starts (default 300 ms). */
  debounceMs?: number;
  /** One pass: a --changed sweep. Its errors are the caller's to report; watching goes on. */
  pass: () => Promise<void>;
  /** The watcher listens; the first pass starts right after. */
  onReady?: () => void;
  /** Changes noticed; a pass follows (after the running one, if any). */
  onChange?: (changes: WatchedChange[]) => void;
}

/** One pending change per task (and one for registry.json). */
const changeKey = (change: WatchedChange): string =>
  change.kind === "task" ? `task:${change.id}` : change.kind;

/**
 * Watches the task folders and images/registry.json, runs a pass at once and another
 * after each burst of changes (never two at once: changes during a pass start one more after it).
 * Each pass sweeps what is not current, so a task is swept again when its folder changes or when
 * build-images records a new digest for its image. Resolves when `signal` aborts, once the running pass
 * has settled and the watcher is closed.
 */
export async function watchSweeps(options: WatchSweepOptions): Promise<void> {
  const root = resolve(options.root);
  const debounceMs = options.debounceMs ?? 300;
  let pending: WatchedChange[] = [];
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const start = () => {
    if (options.signal.aborted) return;
    running = options.pass().finally(() => {
      running = undefined;
      if (again && !options.signal.aborted) {
        again = false;
        start();
      }
    });
  };
  const flush = () => {
    timer = undefined;
    const changes = pending;
    pending = [];
    if (changes.length === 0 || options.signal.aborted) return;
    options.onChange?.(changes);
    if (running) again = true;
    else start();
  };

  const images = resolve(registryFilePath(root), "..");
  const registry = registryFilePath(root);
  const watcher = watch([tasksDir(root), images], {
    ignoreInitial: true,
    // Under images/ only registry.json counts: the image folders are not even walked.
    ignored: (path: string) => {
      const absolute = resolve(path);
      if (IGNORED.test(absolute)) return true;
      const inImages = relative(images, absolute);
      return inImages !== "" && !inImages.startsWith("..") && absolute !== registry;
    },
  });
  watcher.on("all", (event, path) => {
    const change = watchedChange(root, path, event === "addDir" || event === "unlinkDir");
    if (!change) return;
    // One write can come as two events (add, then change): a pass names each task once.
    if (!pending.some((c) => changeKey(c) === changeKey(change))) pending.push(change);
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  });
  await new Promise<void>((ready, fail) => {
    watcher.once("ready", ready);
    watcher.once("error", fail);
  });
  options.onReady?.();
  // The first pass starts once the watcher listens: a change made while it runs starts another.
  start();
  await new Promise<void>((stopped) => {
    if (options.signal.aborted) return stopped();
    options.signal.addEventListener("abort", () => stopped(), { once: true });
  });
  if (timer) clearTimeout(timer);
  await watcher.close();
  while (running) await running.catch(() => {});
}
