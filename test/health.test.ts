import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { HealthFileSchema } from "@oracle/spec";
import { binPath, makeTempRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CA = "/etc/ssl/certs/ca-certificates.crt";
let temp: { root: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ "tasks/calc-node": "tasks/calc-node", images: "images" });
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", CA, "--only", "node-mocha"],
    { timeoutMs: 1_800_000 },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
});

afterAll(async () => {
  await temp?.cleanup();
});

const sweepChanged = async () => {
  const result = await run(binPath("oracle-quarantine-sweep"), ["--root", temp.root, "--changed", "--json"], {
    timeoutMs: 300_000,
  });
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id);
};

const gradeValidation = async () => {
  const resultFile = join(temp.root, "result.json");
  const result = await run(
    binPath("oracle-grade"),
    ["--root", temp.root, "calc-node", "--baseline", "--result", resultFile],
    { timeoutMs: 300_000 },
  );
  const json = JSON.parse(await readFile(resultFile, "utf8")) as { validation: string };
  return { validation: json.validation, stderr: result.stderr };
};

describe("task health against the real engine", () => {
  it("sweeps a never-judged task, then nothing, then exactly the task whose content changed", async () => {
    expect((await gradeValidation()).validation).toBe("never");
    expect(await sweepChanged()).toEqual(["calc-node"]);
    const health = HealthFileSchema.parse(
      JSON.parse(await readFile(join(temp.root, "tasks", "health.json"), "utf8")),
    );
    expect(health.tasks["calc-node"]?.imageDigest).toMatch(/^sha256:/);
    expect((await gradeValidation()).validation).toBe("current");
    expect(await sweepChanged()).toEqual([]);
    await appendFile(join(temp.root, "tasks", "calc-node", "task.json"), "\n");
    const stale = await gradeValidation();
    expect(stale.validation).toBe("stale");
    expect(stale.stderr).toMatch(/task content .* -> .*; run pnpm quarantine-sweep --changed/);
    expect(await sweepChanged()).toEqual(["calc-node"]);
    expect(await sweepChanged()).toEqual([]);
  });

  it("makes a task stale when its image's folder no longer matches the recorded build", async () => {
    await appendFile(join(temp.root, "images", "node-mocha", "Dockerfile"), "# changed\n");
    expect(await sweepChanged()).toEqual(["calc-node"]);
  });
});
