import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OracleError } from "./errors.js";
import { listTaskIds, loadTask, parseTask } from "./task.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";

function validTask(): Record<string, unknown> {
  return {
    id: "calc",
    image: "node-mocha",
    repo: { mirror: "repo.bundle", baseCommit: SHA },
    suites: {
      existing: { command: "npm test", files: ["test/**"] },
      hidden: { command: "npm run hidden" },
    },
    diff: { allow: ["**"], deny: ["test/**"] },
    timeoutSeconds: 120,
  };
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "spec-test-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeTask(folder: string, data: unknown, extras = true): Promise<void> {
  const dir = join(root, "tasks", folder);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "task.json"), typeof data === "string" ? data : JSON.stringify(data));
  if (extras) {
    await mkdir(join(dir, "hidden-tests"), { recursive: true });
    await writeFile(join(dir, "repo.bundle"), "bundle");
  }
}

async function loadError(folder: string): Promise<OracleError> {
  const error = await loadTask(root, folder).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OracleError);
  return error as OracleError;
}

describe("loadTask", () => {
  it("loads a valid task with defaults and host paths", async () => {
    await writeTask("calc", validTask());
    const loaded = await loadTask(root, "calc");
    expect(loaded.task.env).toEqual({});
    expect(loaded.task.resources).toEqual({ memoryMb: 2048, cpus: 2, pids: 512 });
    expect(loaded.task.repo.mirrorIn).toBe("host");
    expect(loaded.mirrorPath).toBe(join(root, "tasks", "calc", "repo.bundle"));
    expect(loaded.goldDiff).toBeNull();
  });

  it("names the file and the field of a missing field", async () => {
    const task = validTask();
    (task.suites as { hidden: Record<string, unknown> }).hidden = {};
    await writeTask("calc", task);
    const error = await loadError("calc");
    expect(error.code).toBe("TASK_INVALID");
    expect(error.message).toBe("tasks/calc/task.json: suites.hidden.command: Required");
  });

  it("names a field of the wrong type", async () => {
    await writeTask("calc", { ...validTask(), timeoutSeconds: "300" });
    expect((await loadError("calc")).message).toBe(
      "tasks/calc/task.json: timeoutSeconds: Invalid input: expected number, received string",
    );
  });

  it("rejects unknown fields one by one, nested too", async () => {
    const task = validTask();
    (task.suites as { hidden: Record<string, unknown> }).hidden = { command: "x", comand: "y" };
    await writeTask("calc", { ...task, timeout: 5 });
    const lines = (await loadError("calc")).message.split("\n");
    expect(lines).toContain("tasks/calc/task.json: timeout: Unknown field");
    expect(lines).toContain("tasks/calc/task.json: suites.hidden.comand: Unknown field");
  });

  it("rejects a bad sha", async () => {
    await writeTask("calc", { ...validTask(), repo: { mirror: "repo.bundle", baseCommit: "abc123" } });
    expect((await loadError("calc")).message).toBe(
      "tasks/calc/task.json: repo.baseCommit: must be a full 40-character lowercase hex commit sha",
    );
  });

  it("rejects an id that does not match the folder", async () => {
    await writeTask("calc-2", validTask());
    expect((await loadError("calc-2")).message).toBe(
      "tasks/calc-2/task.json: id: must equal the folder name 'calc-2', found 'calc'",
    );
  });

  it("rejects a missing mirror and a missing hidden-tests folder", async () => {
    await writeTask("calc", validTask(), false);
    const message = (await loadError("calc")).message;
    expect(message).toContain("tasks/calc/task.json: repo.mirror:");
    expect(message).toContain("tasks/calc/task.json: hidden-tests/: the folder is missing");
  });

  it("rejects env that overrides what the oracle fixes", async () => {
    await writeTask("calc", { ...validTask(), env: { TZ: "Europe/Paris", ORACLE_JUNIT: "x", "1X": "y" } });
    const lines = (await loadError("calc")).message.split("\n");
    expect(lines).toContain("tasks/calc/task.json: env.TZ: set by the oracle; a task may not override it");
    expect(lines).toContain("tasks/calc/task.json: env.ORACLE_JUNIT: ORACLE_* names are reserved");
    expect(lines.some((l) => l.startsWith("tasks/calc/task.json: env.1X"))).toBe(true);
  });

  it("reports unreadable JSON with the file name", async () => {
    await writeTask("calc", "{ not json");
    const error = await loadError("calc");
    expect(error.message).toMatch(/^tasks\/calc\/task\.json: not valid JSON/);
  });

  it("distinguishes an unknown task", async () => {
    const error = await loadError("nope");
    expect(error.code).toBe("TASK_NOT_FOUND");
  });

  it("requires an absolute path for a mirror baked into the image", () => {
    const task = validTask();
    task.repo = { mirror: "repo.bundle", mirrorIn: "image", baseCommit: SHA };
    expect(() => parseTask(task)).toThrow(
      "task.json: repo.mirror: with mirrorIn 'image' it must be an absolute path",
    );
  });
});

describe("listTaskIds", () => {
  it("lists folders holding a task.json, sorted", async () => {
    await writeTask("b", { ...validTask(), id: "b" });
    await writeTask("a", { ...validTask(), id: "a" });
    await mkdir(join(root, "tasks", "not-a-task"));
    await writeFile(join(root, "tasks", "quarantine.json"), "{}");
    expect(await listTaskIds(root)).toEqual(["a", "b"]);
  });
});
