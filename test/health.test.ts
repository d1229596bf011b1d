import { spawn } from "node:child_process";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HealthFileSchema, readRegistryFile } from "@oracle/spec";
import { binPath, makeTempRoot, repoRoot, requireDocker, run, waitFor } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CA = "/etc/ssl/certs/ca-certificates.crt";
type Temp = { root: string; cleanup: () => Promise<void> };

/** A temporary root with copies of `tasks` and `images`, the images built (layer cache: seconds). */
async function builtRoot(tasks: string[], images: string[]): Promise<Temp> {
  await requireDocker();
  const temp = await makeTempRoot(
    Object.fromEntries(
      [...tasks.map((id) => `tasks/${id}`), ...images.map((name) => `images/${name}`)].map((path) => [
        path,
        path,
      ]),
    ),
  );
  const build = await buildImages(temp.root, "--only", images.join(","));
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
  return temp;
}

const buildImages = (root: string, ...args: string[]) =>
  run(binPath("oracle-build-images"), ["--root", root, "--ca-file", CA, ...args], { timeoutMs: 1_800_000 });

const sweepChanged = async (root: string) => {
  const result = await run(binPath("oracle-quarantine-sweep"), ["--root", root, "--changed", "--json"], {
    timeoutMs: 300_000,
  });
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id);
};

/**
 * What a grade of `task` says of its validation, and its stderr. The grade is of an empty diff: the
 * grader reads the task's state (health.json against the task's content and its image's digest) the
 * same for every diff and mode, and an empty diff starts no container (a baseline grade ran both
 * suites only to be read here).
 */
const gradeValidation = async (root: string, task: string) => {
  const resultFile = join(root, `result-${task}.json`);
  const empty = join(root, "empty.diff");
  await writeFile(empty, "");
  const result = await run(
    binPath("oracle-grade"),
    ["--root", root, task, "--diff", empty, "--result", resultFile],
    { timeoutMs: 300_000 },
  );
  const json = JSON.parse(await readFile(resultFile, "utf8")) as { validation: string; reason: string };
  expect(json.reason, result.stderr).toBe("DIFF_EMPTY_AFTER_FILTER");
  return { validation: json.validation, stderr: result.stderr };
};

const healthFile = async (root: string) =>
  HealthFileSchema.parse(JSON.parse(await readFile(join(root, "tasks", "health.json"), "utf8")));

describe("task health against the real engine", () => {
  let temp: Temp;
  beforeAll(async () => {
    temp = await builtRoot(["calc-node"], ["node-mocha"]);
  });
  afterAll(async () => {
    await temp?.cleanup();
  });

  it("sweeps a never-judged task, then nothing, then exactly the task whose content changed", async () => {
    const { root } = temp;
    expect((await gradeValidation(root, "calc-node")).validation).toBe("never");
    expect(await sweepChanged(root)).toEqual(["calc-node"]);
    const health = await healthFile(root);
    expect(health.tasks["calc-node"]?.imageDigest).toMatch(/^sha256:/);
    expect((await gradeValidation(root, "calc-node")).validation).toBe("current");
    expect(await sweepChanged(root)).toEqual([]);
    await appendFile(join(root, "tasks", "calc-node", "task.json"), "\n");
    const stale = await gradeValidation(root, "calc-node");
    expect(stale.validation).toBe("stale");
    expect(stale.stderr).toMatch(/task content .* -> .*; run pnpm quarantine-sweep --root \S+ --changed/);

    expect(await sweepChanged(root)).toEqual(["calc-node"]);
    expect(await sweepChanged(root)).toEqual([]);
  });

  it("makes a task stale when its image's folder no longer matches the recorded build", async () => {
    await appendFile(join(temp.root, "images", "node-mocha", "Dockerfile"), "# changed\n");
    expect(await sweepChanged(temp.root)).toEqual(["calc-node"]);
  });
});

const MOCHA_ENTRY = '    "node_modules/mocha": {\n      "version": "10.8.2",\n';
const MOCHA_RESOLVED = '      "resolved": "https://registry.npmjs.org/mocha/-/mocha-10.8.2.tgz",\n';

describe("a rebuilt image against the real engine", () => {
  // Two tasks on two images; only node-mocha's lockfile changes. The change gives mocha its
  // `resolved` URL: a real lockfile change (npm ci fetches again, the installed tree's hidden
  // lockfile differs, so the image gets a new digest) that needs no other package version.
  let temp: Temp;
  beforeAll(async () => {
    temp = await builtRoot(["calc-node", "freebusy-py"], ["node-mocha", "python-pytest"]);
  });
  afterAll(async () => {
    await temp?.cleanup();
  });

  it("a lockfile change in an image: build-images names exactly its tasks, they alone become stale, --changed sweeps them once", async () => {
    const { root } = temp;
    expect(await sweepChanged(root)).toEqual(["calc-node", "freebusy-py"]);
    const judged = await healthFile(root);

    const lockfile = join(root, "images", "node-mocha", "package-lock.json");
    const entry = MOCHA_ENTRY;
    const text = await readFile(lockfile, "utf8");
    expect(text).toContain(entry);
    await writeFile(
      lockfile,
      text.replace(
        entry,
        `${entry}      "resolved": "https://registry.npmjs.org/mocha/-/mocha-10.8.2.tgz",\n`,
      ),
    );
    const build = await buildImages(root, "--only", "node-mocha,python-pytest", "--json");
    expect(build.code, build.stderr).toBe(0);
    const summary = JSON.parse(build.stdout) as {
      images: Array<{ name: string; status: string; why: string[] }>;
      newDigests: Array<{
        image: string;
        previousDigest: string | null;
        digest: string;
        staleTasks: string[];
      }>;
    };
    expect(summary.images.map((i) => [i.name, i.status, i.why])).toEqual([
      ["node-mocha", "built", ["lockfile package-lock.json changed"]],
      ["python-pytest", "up-to-date", []],
    ]);
    const recorded = (await readRegistryFile(root)).images["node-mocha"]!.digest;
    expect(summary.newDigests).toEqual([
      {
        image: "node-mocha",
        previousDigest: judged.tasks["calc-node"]!.imageDigest,
        digest: recorded,
        staleTasks: ["calc-node"],
        neverValidated: [],
      },
    ]);
    expect(recorded).not.toBe(judged.tasks["calc-node"]!.imageDigest);
    expect(build.stderr).toContain(
      `new digest for node-mocha: tasks now stale: calc-node (validate them with: pnpm quarantine-sweep --root ${root} --changed)`,
    );
    expect(build.stderr).not.toContain("new digest for python-pytest");

    const [calc, freebusy] = await Promise.all([
      gradeValidation(root, "calc-node"),
      gradeValidation(root, "freebusy-py"),
    ]);
    expect(calc.validation).toBe("stale");
    expect(calc.stderr).toMatch(/changed since its last sweep: image digest sha256:\w+… -> sha256:\w+…;/);
    expect(freebusy.validation).toBe("current");

    expect(await sweepChanged(root)).toEqual(["calc-node"]);
    const after = await healthFile(root);
    expect(after.tasks["calc-node"]?.imageDigest).toBe(recorded);
    expect(after.tasks["freebusy-py"]).toEqual(judged.tasks["freebusy-py"]);
    expect(await sweepChanged(root)).toEqual([]);

    // The nightly job on a root where everything is current: nothing built, nothing swept.
    const nightly = await run("bash", [join(repoRoot, "scripts", "nightly.sh"), "--root", root], {
      env: { NIGHTLY_WEEKDAY: "3", NIGHTLY_REPEAT: "1", ORACLE_BUILD_CA_FILE: CA },
      timeoutMs: 300_000,
    });
    expect(nightly.code, nightly.stderr).toBe(0);
    expect(nightly.stderr).toContain("2 images: 0 built, 2 up to date, 0 failed");
    expect(nightly.stderr).toContain("sweep: 0 tasks, 0 runs");
    expect(nightly.stderr).not.toContain("new digest");
  });

  it("--watch sweeps a task again when its image's recorded digest or its folder changes, and stops on SIGINT", async () => {
    // Everything is current here (the test above ends so); node-mocha's lockfile has mocha's `resolved`.
    const { root } = temp;
    const child = spawn(binPath("oracle-quarantine-sweep"), ["--root", root, "--watch", "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    const passes = () =>
      stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id));
    const passCount = (n: number, what: string) =>
      waitFor(
        () => {
          if (child.exitCode !== null) throw new Error(`the watcher exited ${child.exitCode}:\n${stderr}`);
          return passes().length >= n;
        },
        { what, timeoutMs: 120_000, detail: () => `stderr so far:\n${stderr}` },
      );
    try {
      await passCount(1, "the first pass");
      expect(stderr).toContain("watching tasks/ and images/registry.json for changes");
      expect(passes()).toEqual([[]]);

      // Back to the lockfile calc-node was first judged on: rebuilt (layer cache), a new recorded digest.
      const lockfile = join(root, "images", "node-mocha", "package-lock.json");
      await writeFile(lockfile, (await readFile(lockfile, "utf8")).replace(MOCHA_RESOLVED, ""));
      const build = await buildImages(root, "--only", "node-mocha");
      expect(build.code, build.stderr).toBe(0);
      expect(build.stderr).toContain("new digest for node-mocha: tasks now stale: calc-node");
      await passCount(2, "a pass after registry.json changed");
      expect(passes()[1]).toEqual(["calc-node"]);
      expect(stderr).toContain("changed: images/registry.json");

      const hidden = join(root, "tasks", "freebusy-py", "hidden-tests", "tests", "regression");
      await appendFile(join(hidden, "test_contained_meetings.py"), "# edited\n");
      await passCount(3, "a pass after a hidden test changed");
      expect(passes()[2]).toEqual(["freebusy-py"]);
      // Only freebusy-py: the record the calc-node pass wrote (through a temporary file) is the sweep's own.
      expect(stderr).toContain("changed: tasks/freebusy-py\n");

      child.kill("SIGINT");
      expect(await exited, stderr).toEqual({ code: 0, signal: null });
      expect(stderr).toContain("stopped watching");
      expect(passes()).toHaveLength(3);
      expect(await sweepChanged(root)).toEqual([]);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
