import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeChanges, type WatchedChange, watchedChange, watchSweeps } from "./watch.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "oracle-sweep-watch-"));
  await mkdir(join(root, "tasks", "a", "hidden-tests"), { recursive: true });
  await mkdir(join(root, "images", "img"), { recursive: true });
  await writeFile(join(root, "tasks", "a", "task.json"), "{}\n");
  await writeFile(join(root, "images", "registry.json"), '{"version":1,"images":{}}\n');
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("watchedChange", () => {
  it("maps a task folder's paths to the task and registry.json to the registry; ignores the sweep's own files", () => {
    const at = (path: string, dir = false) => watchedChange(root, join(root, path), dir);
    expect(at("tasks/a/hidden-tests/t.py")).toEqual({ kind: "task", id: "a" });
    expect(at("tasks/a/task.json")).toEqual({ kind: "task", id: "a" });
    expect(at("tasks/b", true)).toEqual({ kind: "task", id: "b" });
    expect(at("images/registry.json")).toEqual({ kind: "registry" });
    expect(at("tasks/health.json")).toBeNull();
    expect(at("tasks/quarantine.json.1.ab.tmp")).toBeNull();
    expect(at("tasks/a/expected-tests.recorded.json")).toBeNull();
    expect(at("tasks/a/expected-tests.recorded.json.123.0a1b2c3d.tmp")).toBeNull();
    expect(at("tasks/a/expected-tests.recorded.json.bak")).toEqual({ kind: "task", id: "a" });
    expect(at("tasks/a/node_modules/x.js")).toBeNull();
    expect(at("tasks/.hidden", true)).toBeNull();
    expect(at("images/img/Dockerfile")).toBeNull();
    expect(at("images/registry.json.1.ab.tmp")).toBeNull();
    expect(at("logs/sweep/x/report.json")).toBeNull();
    expect(
      describeChanges([
        { kind: "task", id: "b" },
        { kind: "registry" },
        { kind: "task", id: "a" },
        { kind: "task", id: "b" },
      ]),
    ).toBe("images/registry.json, tasks/a, tasks/b");
  });
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("watchSweeps", () => {
  it("runs a pass at once, another after a task folder or registry.json changes, none for the sweep's own files", async () => {
    const controller = new AbortController();
    const seen: WatchedChange[][] = [];
    let passes = 0;
    let ready = false;
    const done = watchSweeps({
      root,
      signal: controller.signal,
      debounceMs: 50,
      pass: async () => {
        passes++;
      },
      onReady: () => {
        ready = true;
      },
      onChange: (changes) => seen.push(changes),
    });
    await until(() => ready && passes === 1, "the first pass");
    // The sweep's own outputs and image folders, then one real edit: only the edit is seen.
    await writeFile(join(root, "tasks", "health.json"), "{}\n");
    await writeFile(join(root, "tasks", "a", "expected-tests.recorded.json"), "{}\n");
    await writeFile(join(root, "images", "img", "Dockerfile"), "FROM x\n");
    await writeFile(join(root, "tasks", "a", "hidden-tests", "t.py"), "def test(): pass\n");
    await until(() => passes === 2, "a pass after the task edit");
    expect(seen).toEqual([[{ kind: "task", id: "a" }]]);
    await writeFile(join(root, "images", "registry.json"), '{"version":1,"images":{"img":{}}}\n');
    await until(() => passes === 3, "a pass after registry.json changed");
    expect(seen[1]?.[0]).toEqual({ kind: "registry" });
    controller.abort();
    await done;
  });

  it("never runs two passes at once: changes during a pass start one more after it", async () => {
    const controller = new AbortController();
    let passes = 0;
    let running = 0;
    let most = 0;
    let release: (() => void) | undefined;
    let ready = false;
    let changes = 0;
    const done = watchSweeps({
      root,
      signal: controller.signal,
      debounceMs: 20,
      onReady: () => {
        ready = true;
      },
      onChange: () => {
        changes++;
      },
      pass: async () => {
        passes++;
        running++;
        most = Math.max(most, running);
        if (passes === 1) await new Promise<void>((resolve) => (release = resolve));
        running--;
      },
    });
    await until(() => ready && release !== undefined, "the first pass to hold");
    await writeFile(join(root, "tasks", "a", "one.txt"), "1\n");
    await until(() => changes === 1, "the first change");
    await writeFile(join(root, "tasks", "a", "two.txt"), "2\n");
    await until(() => changes === 2, "the second change");
    expect(passes).toBe(1);
    release?.();
    await until(() => passes === 2, "the pass queued behind the first");
    expect(most).toBe(1);
    controller.abort();
    await done;
    expect(passes).toBe(2);
  });
});
