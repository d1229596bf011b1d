// Health records forged by whoever can write the root's tasks/health.json (issue 30). The diff
// never sees that file (it is outside every container); the forger is a person or a process beside
// the oracle that wants a changed task graded as validated, so that the gate counts its grades.
// The sweep signs each record; a grade believes `current` only from a record that verifies.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { taskInputs } from "@oracle/grader";
import { HealthFileSchema } from "@oracle/spec";
import { binPath, makeTempRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TASK = "calc-node";
let temp: { root: string; cleanup: () => Promise<void> };

const healthPath = () => join(temp.root, "tasks", "health.json");
const readHealth = async () => HealthFileSchema.parse(JSON.parse(await readFile(healthPath(), "utf8")));

/**
 * The grade's `validation` and its stderr, for an empty diff: the grader reads the task's state the
 * same for every diff and mode, and an empty diff starts no container (a baseline ran both suites).
 */
async function gradeValidation(): Promise<{ validation: string; stderr: string }> {
  const resultFile = join(temp.root, "result.json");
  const empty = join(temp.root, "empty.diff");
  await writeFile(empty, "");
  const result = await run(
    binPath("oracle-grade"),
    ["--root", temp.root, TASK, "--diff", empty, "--result", resultFile],
    {
      timeoutMs: 300_000,
    },
  );
  const json = JSON.parse(await readFile(resultFile, "utf8")) as { validation: string; reason: string };
  expect(json.reason, result.stderr).toBe("DIFF_EMPTY_AFTER_FILTER");
  return { validation: json.validation, stderr: result.stderr };
}

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ [`tasks/${TASK}`]: `tasks/${TASK}`, "images/node-mocha": "images/node-mocha" });
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", "/etc/ssl/certs/ca-certificates.crt", "--only", "node-mocha"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
  const sweep = await run(binPath("oracle-quarantine-sweep"), ["--root", temp.root, "--json"], {
    timeoutMs: 300_000,
  });
  if (sweep.code !== 0) throw new Error(`oracle-quarantine-sweep failed:\n${sweep.stderr}`);
  // The task changes after its sweep: its grades must say so until it is swept again.
  const taskFile = join(temp.root, "tasks", TASK, "task.json");
  await writeFile(taskFile, `${await readFile(taskFile, "utf8")}\n`);
}, 1_800_000);

afterAll(async () => {
  await temp?.cleanup();
});

describe("health records forged beside the oracle", () => {
  it("a signed record edited to say the changed content was judged -> stale, with why", async () => {
    const judged = await readHealth();
    const now = await taskInputs(temp.root, join(temp.root, "tasks", TASK), "node-mocha");
    expect(judged.tasks[TASK]?.taskHash).not.toBe(now.taskHash);
    const forged = {
      ...judged,
      tasks: { ...judged.tasks, [TASK]: { ...judged.tasks[TASK]!, taskHash: now.taskHash } },
    };
    await writeFile(healthPath(), `${JSON.stringify(forged, null, 2)}\n`);
    const grade = await gradeValidation();
    expect(grade.validation).toBe("stale");
    expect(grade.stderr).toMatch(
      /its record in tasks\/health\.json does not verify \(it differs from the statement its signature covers: changed after signing/,
    );
  });

  it("a record written whole, unsigned, for the content as it is now -> stale, with why", async () => {
    const judged = await readHealth();
    const now = await taskInputs(temp.root, join(temp.root, "tasks", TASK), "node-mocha");
    const { attestation: _, ...bare } = judged.tasks[TASK]!;
    const forged = { ...judged, tasks: { [TASK]: { ...bare, taskHash: now.taskHash } } };
    await writeFile(healthPath(), `${JSON.stringify(forged, null, 2)}\n`);
    const grade = await gradeValidation();
    expect(grade.validation).toBe("stale");
    expect(grade.stderr).toMatch(/its record in tasks\/health\.json does not verify \(not signed\)/);
  });
});
