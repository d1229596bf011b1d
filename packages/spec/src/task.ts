import { readdir, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { OracleError } from "./errors.js";
import { parseWith, readJsonFile } from "./parse.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Variables the oracle fixes in every run; a task may not override them. */
export const RESERVED_ENV = ["TZ", "LC_ALL", "PYTHONHASHSEED", "SOURCE_DATE_EPOCH", "HOME", "PATH"] as const;

const globs = z.array(z.string().min(1, "a glob may not be empty"));

const suiteCommand = z
  .string()
  .min(1, "may not be empty")
  .describe(
    "Shell command run in the checkout (sh -c) as the non-root user; writes JUnit XML to $ORACLE_JUNIT.",
  );

const testIds = z.array(z.string().min(1, "a test id may not be empty").max(4096)).max(50_000);

/**
 * The tests a suite must run, in the spirit of SWE-bench's FAIL_TO_PASS / PASS_TO_PASS. Each entry is
 * a test id as a task author writes it: a pytest node id (`tests/test_x.py::TestC::test_n[p-1]`), a
 * Go test name (`TestX`, `TestX/sub`), a JS full title (`describe title test title`), or the
 * oracle's own id (`hidden:<classname>::<name>`). A PASS needs every one to have run and passed.
 */
export const ExpectedTestsSchema = z
  .strictObject({
    failToPass: testIds
      .optional()
      .describe("Tests that fail at baseCommit and must pass with a correct diff (hidden suite)."),
    passToPass: testIds.optional().describe("Tests that pass at baseCommit and must still pass."),
  })
  .describe(
    "Tests that must run and pass; entries are pytest node ids, Go test names, JS full titles or hidden:<classname>::<name>. Without it the sweep's recorded list is used.",
  );

export const ExistingSuiteSchema = z.strictObject({
  command: suiteCommand,
  expected: ExpectedTestsSchema.refine((e) => !e.failToPass?.length, {
    message: "the existing suite passes at baseCommit: list its tests under passToPass",
    path: ["failToPass"],
  }).optional(),
  files: globs
    .min(1, "list at least one glob")
    .describe("Globs of the existing suite's files; reset to the base commit after the diff is applied."),
});

export const HiddenSuiteSchema = z.strictObject({
  command: suiteCommand,
  expected: ExpectedTestsSchema.optional(),
});

export const ResourcesSchema = z.strictObject({
  memoryMb: z.number().int().min(64).max(65536).default(2048).describe("Memory limit, no swap."),
  cpus: z.number().positive().max(64).default(2).describe("CPU limit in cores."),
  pids: z.number().int().min(16).max(65536).default(512).describe("Process limit."),
});

/** Variable names: valid for a shell, and none the oracle sets itself. */
function checkEnvNames(
  env: Record<string, string>,
  ctx: z.core.$RefinementCtx<Record<string, string>>,
): void {
  for (const name of Object.keys(env)) {
    let message: string | null = null;
    if (!ENV_NAME.test(name)) message = "not a valid variable name";
    else if ((RESERVED_ENV as readonly string[]).includes(name))
      message = "set by the oracle; a task may not override it";
    else if (name.startsWith("ORACLE_")) message = "ORACLE_* names are reserved";
    if (message) ctx.addIssue({ code: "custom", path: [name], message });
  }
}

export const TaskSchema = z
  .strictObject({
    $schema: z.string().optional(),
    id: z.string().regex(NAME, "letters, digits, '.', '_' or '-', starting with a letter or digit"),
    description: z.string().optional(),
    image: z.string().regex(NAME, "the name of a folder under images/"),
    repo: z.strictObject({
      mirror: z
        .string()
        .min(1, "may not be empty")
        .describe(
          "Bare repository or git bundle. With mirrorIn 'host': a path relative to the task folder, or absolute on the oracle host. With 'image': an absolute path inside the image.",
        ),
      mirrorIn: z.enum(["host", "image"]).default("host"),
      baseCommit: z.string().regex(/^[0-9a-f]{40}$/, "must be a full 40-character lowercase hex commit sha"),
    }),
    suites: z.strictObject({ existing: ExistingSuiteSchema, hidden: HiddenSuiteSchema }),
    diff: z
      .strictObject({
        allow: globs.default(["**"]),
        deny: globs.default([]),
        denyDefaults: z
          .boolean()
          .default(true)
          .describe(
            "Also deny the oracle's default list (runner hooks and config, start-up hooks, package scripts, lockfiles, test trees); see docs/security.md.",
          ),
      })
      .default({ allow: ["**"], deny: [], denyDefaults: true }),
    timeoutSeconds: z.number().int().min(1).max(86400).default(300),
    env: z.record(z.string(), z.string()).superRefine(checkEnvNames).default({}),
    resources: ResourcesSchema.default({ memoryMb: 2048, cpus: 2, pids: 512 }),
    framework: z
      .enum(["pytest", "vitest", "jest", "mocha", "node-test", "go", "cargo", "maven", "other"])
      .optional()
      .describe(
        "The test runner; picks the must-fail/must-pass sentinels (default: read from the hidden command; other turns them off).",
      ),
  })
  .superRefine((task, ctx) => {
    if (task.repo.mirrorIn === "image" && !task.repo.mirror.startsWith("/")) {
      ctx.addIssue({
        code: "custom",
        path: ["repo", "mirror"],
        message: "with mirrorIn 'image' it must be an absolute path inside the image",
      });
    }
  });

export type Task = z.output<typeof TaskSchema>;
export type ExpectedTests = z.output<typeof ExpectedTestsSchema>;

/** A loaded task: the parsed file plus where its pieces are on the host. */
export interface LoadedTask {
  task: Task;
  /** Absolute path of tasks/<id>/. */
  dir: string;
  /** Absolute host path of the mirror, or null when it is baked into the image. */
  mirrorPath: string | null;
  hiddenTestsDir: string;
  goldDiff: string | null;
}

export function tasksDir(root: string): string {
  return join(resolve(root), "tasks");
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Checks that do not fit a schema: the id names the folder, the mirror and hidden tests exist. */
async function checkTaskFolder(task: Task, dir: string, label: string): Promise<LoadedTask> {
  const folder = dir.split(/[\\/]/).pop();
  const problems: string[] = [];
  if (task.id !== folder)
    problems.push(`${label}: id: must equal the folder name '${folder}', found '${task.id}'`);
  let mirrorPath: string | null = null;
  if (task.repo.mirrorIn === "host") {
    mirrorPath = isAbsolute(task.repo.mirror) ? task.repo.mirror : resolve(dir, task.repo.mirror);
    if (!(await exists(mirrorPath))) problems.push(`${label}: repo.mirror: ${mirrorPath} does not exist`);
  }
  const hiddenTestsDir = join(dir, "hidden-tests");
  if (!(await exists(hiddenTestsDir))) problems.push(`${label}: hidden-tests/: the folder is missing`);
  if (problems.length > 0) {
    throw new OracleError("TASK_INVALID", problems.join("\n"), { hint: `fix ${label} and try again` });
  }
  const gold = join(dir, "gold.diff");
  return { task, dir, mirrorPath, hiddenTestsDir, goldDiff: (await exists(gold)) ? gold : null };
}

/** Parses a task object that is already in memory (no folder checks). */
export function parseTask(data: unknown, label = "task.json"): Task {
  return parseWith(TaskSchema, data, label, "TASK_INVALID");
}

/** Loads tasks/<id>/task.json under `root`, with errors that name the file and the field. */
export async function loadTask(root: string, id: string): Promise<LoadedTask> {
  if (!NAME.test(id))
    throw new OracleError("TASK_NOT_FOUND", `'${id}' is not a task id`, {
      hint: "task ids are folder names under tasks/",
    });
  const dir = join(tasksDir(root), id);
  const label = `tasks/${id}/task.json`;
  if (!(await exists(dir))) {
    throw new OracleError("TASK_NOT_FOUND", `no task '${id}' under ${tasksDir(root)}`, {
      hint: "list the tasks with: ls tasks/",
    });
  }
  const task = await readJsonFile(TaskSchema, join(dir, "task.json"), label, "TASK_INVALID");
  return checkTaskFolder(task, dir, label);
}

/** The ids of every folder under tasks/ that holds a task.json, sorted. */
export async function listTaskIds(root: string): Promise<string[]> {
  const dir = tasksDir(root);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const ids: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory() && (await exists(join(dir, entry.name, "task.json")))) ids.push(entry.name);
  }
  return ids.sort();
}
