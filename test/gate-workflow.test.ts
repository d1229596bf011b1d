// .github/workflows/gate.yml, run here (issue 32): no GitHub runner grades on this machine, so this
// file reads the workflow and runs its steps the way a runner would, in order, in a temporary root
// that stands for the runner's workspace on a grading machine (images built and tasks swept, as the
// nightly job keeps them). Its `run:` scripts run as written, under `bash -eo pipefail` (a runner's
// default shell), with `${{ … }}` replaced by test values (an expression the test does not know
// fails it), `sudo --preserve-env=LIST` by `env -i` with exactly those variables (what sudo's
// env_reset leaves), and `pnpm SCRIPT` by pnpm itself, running the repository's root scripts. The
// artifact actions are played by copying folders as upload-artifact and download-artifact lay them
// out (several upload paths keep their least common ancestor as the artifact's root; one folder is
// uploaded as its contents). The checkout, Node, set-up and image-build steps are what the temporary
// root already is. A flag or a path broken in the workflow fails a step, and so this file.
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { GateReportSchema } from "@oracle/spec";
import { binPath, makeTempRoot, repoRoot, requireDocker, run } from "@oracle/test-utils";
import { load } from "js-yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOOP_DIFF } from "./fixtures/batch/harness.js";

const WORKFLOW = join(repoRoot, ".github", "workflows", "gate.yml");
const CA = "/etc/ssl/certs/ca-certificates.crt";
/**
 * Two tasks, gold against a diff that fixes nothing: a superiority gate rejects (exact p = 0.5), and a
 * non-inferiority gate within 50 points promotes (Tango's lower end is −31.5 points on two gains).
 */
const TASKS = ["calc-0", "calc-1"];

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Workflow {
  on: { workflow_dispatch: { inputs: Record<string, { required?: boolean; default?: string }> } };
  jobs: Record<string, { env?: Record<string, string>; steps: Step[] }>;
}

const readWorkflow = async (): Promise<{ text: string; workflow: Workflow }> => {
  const text = await readFile(WORKFLOW, "utf8");
  return { text, workflow: load(text) as Workflow };
};

/** The one job's steps (the gate workflow has a single job). */
function theJob(workflow: Workflow): { env: Record<string, string>; steps: Step[] } {
  const jobs = Object.values(workflow.jobs);
  expect(jobs).toHaveLength(1);
  return { env: jobs[0]!.env ?? {}, steps: jobs[0]!.steps };
}

const EXPRESSION = /\$\{\{\s*([^}]*?)\s*\}\}/g;

/** Replaces every `${{ expr }}` by its value; an expression without one fails the test. */
function substitute(text: string, values: Record<string, string>): string {
  return text.replace(EXPRESSION, (_, expr: string) => {
    const value = values[expr];
    if (value === undefined) throw new Error(`gate.yml uses \${{ ${expr} }}, which this test gives no value`);
    return value;
  });
}

/** `sudo [--preserve-env=A,B] CMD` -> `env -i HOME=… A="$A" B="$B" CMD`: sudo's reset environment. */
function withoutSudo(script: string): string {
  return script.replace(/\bsudo((?:\s+--?[\w-]+(?:=\S+)?)*)\s+/g, (_, options: string) => {
    const kept = /--preserve-env=(\S+)/.exec(options)?.[1]?.split(",") ?? [];
    return `env -i HOME="$HOME" ${kept.map((v) => `${v}="$${v}"`).join(" ")} `;
  });
}

/** The folder upload-artifact makes the artifact's root: one folder's own, or the paths' common ancestor. */
function artifactRoot(workspace: string, paths: string[]): string {
  const absolute = paths.map((p) => resolve(workspace, p));
  if (absolute.length === 1) return absolute[0]!;
  const parts = absolute.map((p) => dirname(p).split(sep));
  const common: string[] = [];
  for (let i = 0; parts.every((p) => p[i] !== undefined && p[i] === parts[0]![i]); i++)
    common.push(parts[0]![i]!);
  return common.join(sep) || sep;
}

interface JobRun {
  /** The job's outcome: 0, or the exit code of the first step that failed. */
  code: number;
  /** Each step run, with its exit code and output (skipped steps are left out). */
  steps: Array<{ name: string; code: number; output: string }>;
  summary: string;
  uploaded: Record<string, string[]>;
}

let temp: { root: string; cleanup: () => Promise<void> };
let runnerTemp = "";
let keyPem = "";

/**
 * Runs `steps` of the job as a runner would (an `if: always()` step runs after a failure, any other
 * is skipped), in the workspace `temp.root`, with the dispatch's `inputs`.
 */
async function runJob(
  job: { env: Record<string, string>; steps: Step[] },
  inputs: Record<string, string>,
  store: string,
): Promise<JobRun> {
  const summaryFile = join(runnerTemp, `summary-${Date.now()}.md`);
  await writeFile(summaryFile, "");
  const values: Record<string, string> = {
    "runner.temp": runnerTemp,
    "vars.ORACLE_BUILD_CA_FILE": CA,
    "secrets.ORACLE_SIGNING_KEY_PEM": keyPem,
    "github.token": "test-token",
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`inputs.${k}`, v])),
  };
  const jobEnv = Object.fromEntries(Object.entries(job.env).map(([k, v]) => [k, substitute(v, values)]));
  const result: JobRun = { code: 0, steps: [], summary: "", uploaded: {} };
  for (const step of job.steps) {
    const name = step.name ?? step.uses ?? step.run ?? "?";
    if (step.if !== undefined && step.if !== "always()")
      throw new Error(`${name}: if: ${step.if} is not played here`);
    if (result.code !== 0 && step.if !== "always()") continue;
    const withs = Object.fromEntries(
      Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v), values)]),
    );
    if (step.uses) {
      const action = step.uses.replace(/@.*/, "");
      if (action === "actions/checkout" || action === "actions/setup-node") continue;
      if (action === "actions/upload-artifact") {
        const paths = withs
          .path!.split("\n")
          .map((p) => p.trim())
          .filter(Boolean);
        result.uploaded[withs.name!] = paths;
        const missing = paths.filter((p) => !existsSync(join(temp.root, p)));
        const from = artifactRoot(temp.root, paths);
        const into = join(store, withs.name!);
        await rm(into, { recursive: true, force: true });
        for (const p of paths.filter((p) => existsSync(join(temp.root, p))))
          await cp(join(temp.root, p), join(into, relative(from, join(temp.root, p))), { recursive: true });
        result.steps.push({ name, code: 0, output: missing.length ? `missing: ${missing.join(", ")}` : "" });
        continue;
      }
      if (action === "actions/download-artifact") {
        const from = join(store, withs.name!);
        const ok = existsSync(from);
        if (ok) {
          await mkdir(dirname(join(temp.root, withs.path!)), { recursive: true });
          await cp(from, join(temp.root, withs.path!), { recursive: true });
        }
        result.steps.push({ name, code: ok ? 0 : 1, output: ok ? "" : `no artifact ${withs.name}` });
        if (!ok) result.code = 1;
        continue;
      }
      throw new Error(`${name}: uses ${step.uses}, which this test cannot play`);
    }
    const script = step.run!;
    // Set-up and image builds: the temporary root is already set up and its image built.
    if (/scripts\/setup\.sh|\bbuild-images\b/.test(script)) continue;
    const env = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(v, values)]),
    );
    const ran = await run(
      "bash",
      ["--noprofile", "--norc", "-eo", "pipefail", "-c", withoutSudo(substitute(script, values))],
      {
        cwd: temp.root,
        env: {
          ...jobEnv,
          ...env,
          CI: "true",
          GITHUB_STEP_SUMMARY: summaryFile,
          GITHUB_WORKSPACE: temp.root,
          RUNNER_TEMP: runnerTemp,
        },
        timeoutMs: 600_000,
      },
    );
    const code = ran.code ?? 128;
    result.steps.push({ name, code, output: `${ran.stdout}${ran.stderr}` });
    if (code !== 0 && result.code === 0) result.code = code;
  }
  result.summary = await readFile(summaryFile, "utf8");
  return result;
}

/** The job's steps that pass `test`, in order; none fails the test, saying what was looked for. */
function stepsOf(steps: Step[], test: (step: Step) => boolean, what: string): Step[] {
  const found = steps.filter(test);
  if (found.length === 0) throw new Error(`gate.yml has no step that ${what}`);
  return found;
}

let storeDir = "";
let keyDir = "";

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ images: "images", "tasks/calc-node": "tasks/calc-node" });
  const source = join(temp.root, "tasks", "calc-node");
  for (const id of TASKS) {
    await cp(source, join(temp.root, "tasks", id), { recursive: true });
    const file = join(temp.root, "tasks", id, "task.json");
    await writeFile(file, (await readFile(file, "utf8")).replace('"id": "calc-node"', `"id": "${id}"`));
  }
  await rm(source, { recursive: true });
  // The checkout: the repository's root scripts (pnpm grade, pnpm gate, …) and its installed bins.
  const pkg = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as { scripts: object };
  await writeFile(
    join(temp.root, "package.json"),
    `${JSON.stringify({ name: "gate-workflow-test", private: true, scripts: pkg.scripts }, null, 2)}\n`,
  );
  await symlink(join(repoRoot, "node_modules"), join(temp.root, "node_modules"));
  runnerTemp = join(temp.root, "..", `${relative(dirname(temp.root), temp.root)}-runner-temp`);
  storeDir = `${runnerTemp}-artifacts`;
  keyDir = `${runnerTemp}-key`;
  for (const dir of [runnerTemp, storeDir, keyDir]) await mkdir(dir, { recursive: true });
  // The installation's key (the secret), made as `pnpm oracle-key` makes one.
  const keyFile = join(keyDir, "signing-key.pem");
  const made = await run(binPath("oracle-key"), [], { env: { ORACLE_SIGNING_KEY: keyFile } });
  expect(made.code, made.stderr).toBe(0);
  keyPem = await readFile(keyFile, "utf8");
  // The grading machine's state: the image built, the tasks swept (signed health records).
  const build = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--ca-file", CA, "--only", "node-mocha"],
    {
      timeoutMs: 1_800_000,
    },
  );
  if (build.code !== 0) throw new Error(`oracle-build-images failed:\n${build.stderr}`);
  const sweep = await run(binPath("oracle-quarantine-sweep"), ["--root", temp.root, "--json"], {
    env: { ORACLE_SIGNING_KEY: keyFile },
    timeoutMs: 600_000,
  });
  expect(sweep.code, sweep.stderr).toBe(0);
  // Both models' predictions, files in the repository as the dispatch's input names them.
  await mkdir(join(temp.root, "predictions"));
  for (const [model, diff] of [
    ["incumbent", NOOP_DIFF],
    ["candidate", await readFile(join(temp.root, "tasks", "calc-0", "gold.diff"), "utf8")],
  ] as const)
    await writeFile(
      join(temp.root, "predictions", `${model}.jsonl`),
      `${TASKS.map((task) => JSON.stringify({ id: `${model}-${task}`, task, diff })).join("\n")}\n`,
    );
  // The incumbent's batch: an earlier run's key, grade and upload steps on the incumbent's predictions.
  const job = theJob((await readWorkflow()).workflow);
  const earlier = await runJob(
    {
      env: job.env,
      steps: [
        ...stepsOf(job.steps, (s) => s.env?.KEY !== undefined, "writes the signing key"),
        ...stepsOf(job.steps, (s) => /\bpnpm grade\b/.test(s.run ?? ""), "grades"),
        ...stepsOf(job.steps, (s) => s.uses?.startsWith("actions/upload-artifact@") ?? false, "uploads"),
      ],
    },
    { predictions: "predictions/incumbent.jsonl", "incumbent-run": "1", margin: "" },
    storeDir,
  );
  expect(earlier.code, JSON.stringify(earlier.steps, null, 1)).toBe(0);
  await rm(join(temp.root, "batches"), { recursive: true, force: true });
});

afterAll(async () => {
  for (const dir of [runnerTemp, storeDir, keyDir]) if (dir) await rm(dir, { recursive: true, force: true });
  await temp?.cleanup();
});

describe("gate.yml's structure", () => {
  it("parses; every action is pinned to a major version; every input it uses is declared, and every declared one used", async () => {
    const { text, workflow } = await readWorkflow();
    const { steps } = theJob(workflow);
    const uses = steps.flatMap((s) => (s.uses ? [s.uses] : []));
    expect(uses.length).toBeGreaterThan(0);
    for (const u of uses) expect(u).toMatch(/^[\w.-]+\/[\w.-]+@v\d+$/);
    const declared = Object.keys(workflow.on.workflow_dispatch.inputs).sort();
    const used = [...new Set([...text.matchAll(/\binputs\.([\w-]+)/g)].map((m) => m[1]!))].sort();
    expect(used).toEqual(declared);
    // Every `pnpm X` names a root script of the repository.
    const scripts = Object.keys(
      (JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as { scripts: object }).scripts,
    );
    for (const step of steps)
      for (const m of (step.run ?? "").matchAll(/\bpnpm ([\w-]+)/g))
        expect(scripts, step.name).toContain(m[1]);
  });
});

describe("gate.yml's steps on a grading machine", () => {
  it("non-inferiority (input margin 0.5): promote, exit 0; gate.md in the job summary; the upload's paths exist", async () => {
    const job = theJob((await readWorkflow()).workflow);
    const ran = await runJob(
      job,
      { predictions: "predictions/candidate.jsonl", "incumbent-run": "1", margin: "0.5" },
      storeDir,
    );
    const log = JSON.stringify(ran.steps, null, 1);
    expect(ran.code, log).toBe(0);
    expect(log).toContain(
      "gate: PROMOTE: exact McNemar over 2 tasks: no worse than the incumbent by more than 50.0 points",
    );
    const md = await readFile(join(temp.root, "batches", "candidate", "gate", "gate.md"), "utf8");
    expect(md).toContain("# Gate: PROMOTE");
    expect(ran.summary).toBe(md);
    const report = GateReportSchema.parse(
      JSON.parse(await readFile(join(temp.root, "batches", "candidate", "gate", "gate.json"), "utf8")),
    );
    expect(report.parameters).toMatchObject({ mode: "non-inferiority", margin: 0.5 });
    expect(report.test?.counts).toMatchObject({ gains: 2, regressions: 0 });
    const paths = Object.values(ran.uploaded).flat();
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) expect(existsSync(join(temp.root, p)), p).toBe(true);
    expect(ran.steps.filter((s) => s.output.startsWith("missing:"))).toEqual([]);
  });

  it("superiority (no margin): reject, exit 1; the job summary still gets gate.md", async () => {
    await rm(join(temp.root, "batches"), { recursive: true, force: true });
    const job = theJob((await readWorkflow()).workflow);
    const ran = await runJob(
      job,
      { predictions: "predictions/candidate.jsonl", "incumbent-run": "1", margin: "" },
      storeDir,
    );
    const log = JSON.stringify(ran.steps, null, 1);
    expect(ran.code, log).toBe(1);
    expect(log).toContain("gate: REJECT: exact McNemar over 2 tasks: not shown better");
    expect(ran.summary).toContain("# Gate: REJECT");
    const report = GateReportSchema.parse(
      JSON.parse(await readFile(join(temp.root, "batches", "candidate", "gate", "gate.json"), "utf8")),
    );
    expect(report.parameters).toMatchObject({ mode: "superiority" });
  });
});
