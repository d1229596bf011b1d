import { relative, sep } from "node:path";
import { watch } from "chokidar";
import { type BuildImagesOptions, type BuildSummary, buildImages } from "./build-images.js";
import { imagesDir, listImageNames } from "./image-folders.js";

export interface WatchOptions extends Omit<BuildImagesOptions, "signal"> {
  /** Stops watching: the current build is cancelled and the watcher closed. */
  signal: AbortSignal;
  /** Quiet time after the last change before a rebuild starts (default 300 ms). */
  debounceMs?: number;
  /** After each pass (the first covers every selected image, later ones the changed images). */
  onSummary?: (summary: BuildSummary) => void;
  /** A pass that could not run at all (e.g. the registry is locked); watching goes on. */
  onError?: (error: unknown) => void;
  /** The watcher is set up and listening. */
  onReady?: () => void;
  /** Changes noticed, the names of the images a pass will consider. */
  onChange?: (names: string[]) => void;
}

/** The image a changed path belongs to, or null for files at the top of images/ (registry.json, its lock). */
export function imageOfPath(imagesFolder: string, path: string, isDirEvent: boolean): string | null {
  const parts = relative(imagesFolder, path).split(sep);
  if (parts[0] === "" || parts[0] === ".." || parts[0]?.startsWith(".")) return null;
  if (parts.length === 1 && !isDirEvent) return null;
  return parts[0] ?? null;
}

const IGNORED = /(^|[/\\])(node_modules|\.git)([/\\]|$)/;

/**
 * Builds what is out of date, then keeps watching `<root>/images/` and rebuilds only the images whose
 * folders change (bursts of changes are debounced). A failed build is reported and watching goes on.
 * Resolves when `signal` aborts, after the watcher is closed.
 */
export async function watchImages(options: WatchOptions): Promise<void> {
  const folder = imagesDir(options.root);
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const runPass = async (only: readonly string[] | undefined) => {
    try {
      options.onSummary?.(
        await buildImages({ ...options, ...(only ? { only } : {}), signal: options.signal }),
      );
    } catch (error) {
      if (!options.signal.aborted) options.onError?.(error);
    }
  };
  const flush = () => {
    timer = undefined;
    if (running || options.signal.aborted) return;
    const names = [...pending].sort();
    pending.clear();
    running = (async () => {
      const existing = await listImageNames(options.root).catch((): string[] => []);
      const selected = names.filter((name) => existing.includes(name));
      if (selected.length > 0) {
        options.onChange?.(selected);
        await runPass(selected);
      }
    })().finally(() => {
      running = undefined;
      if (pending.size > 0) flush();
    });
  };

  await runPass(options.only);
  if (options.signal.aborted) return;
  const watcher = watch(folder, { ignoreInitial: true, ignored: (path) => IGNORED.test(path) });
  watcher.on("all", (event, path) => {
    const name = imageOfPath(folder, path, event === "addDir" || event === "unlinkDir");
    if (!name || (options.only?.length && !options.only.includes(name))) return;
    pending.add(name);
    clearTimeout(timer);
    timer = setTimeout(flush, options.debounceMs ?? 300);
  });
  await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  options.onReady?.();
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  clearTimeout(timer);
  await running;
  await watcher.close();
}
