import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ExpectedTests, OracleError } from "@oracle/spec";
import { z } from "zod";
import { addOwnModulesCheck, lockedVersion, repoSuiteInputs } from "./from-fix.js";
import { catBlob, git, treeFiles } from "./git.js";
import { chooseImage, type ImageChoice, runnerNeeds } from "./image.js";
import { suiteImports } from "./js-imports.js";
import {
  checkTaskId,
  deniedGoldPaths,
  deniedGoldWarning,
  npmLockfile,
  planSuites,
  readJestConfigs,
  readVitestConfigs,
  type SuitePlan,
  schemaRef,
  type TaskPlan,
  taskJson,
} from "./make.js";
import { otherLockRunners } from "./other-locks.js";
import { repoPythonNeeds } from "./python-deps.js";
import {
  detectFramework,
  type Framework,
  forJestVersion,
  forVitestVersion,
  goModule,
  pythonSrcLayout,
  runsAsTest,
  scriptEnv,
} from "./templates.js";

/**
 * SWE-bench's dataset rows (one JSON object per line, as its Hugging Face exports and the harness
 * read them): FAIL_TO_PASS and PASS_TO_PASS may be arrays or JSON-encoded arrays (the HF datasets
 * store them as strings).
 */
const idList = z.preprocess(
  (value) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  },
  z.array(z.string().min(1)),
);

export const SwebenchRowSchema = z.looseObject({
  instance_id: z.string().min(1),
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/name"),
  base_commit: z.string().regex(/^[0-9a-f]{40}$/, "must be a full 40-character hex commit sha"),
  patch: z.string().min(1, "the gold patch is empty"),
  test_patch: z.string().min(1, "the test patch is empty"),
  FAIL_TO_PASS: idList,
  PASS_TO_PASS: idList.default([]),
  version: z.union([z.string(), z.number()]).optional(),
  problem_statement: z.string().optional(),
});
export type SwebenchRow = z.output<typeof SwebenchRowSchema>;

export interface ParsedRow {
  line: number;
  row: SwebenchRow;
}

/** Every row of a dataset file, or one USAGE error listing every bad one as `file:LINE: field: …`. */
export async function readDataset(file: string): Promise<ParsedRow[]> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new OracleError("USAGE", `--swebench: cannot read ${file}: ${error.code ?? error.message}`);
  });
  const rows: ParsedRow[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch (error) {
      problems.push(`${file}:${line}: not a JSON object (${(error as Error).message})`);
      return;
    }
    const parsed = SwebenchRowSchema.safeParse(data);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`${file}:${line}: ${issue.path.join(".") || "(row)"}: ${issue.message}`);
      return;
    }
    const earlier = seen.get(parsed.data.instance_id);
    if (earlier !== undefined) {
      problems.push(`${file}:${line}: instance_id: '${parsed.data.instance_id}' is also on line ${earlier}`);
      return;
    }
    seen.set(parsed.data.instance_id, line);
    rows.push({ line, row: parsed.data });
  });
  if (problems.length === 0 && rows.length === 0) problems.push(`${file}: no rows`);
  if (problems.length > 0)
    throw new OracleError("USAGE", problems.join("\n"), { hint: "fix those rows; nothing was written" });
  return rows;
}

async function isDir(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** The local clone of `owner/name` under DIR: DIR/owner/name, DIR/owner__name or DIR/name. */
export async function findClone(reposDir: string, repo: string): Promise<string | null> {
  const [owner, name] = repo.split("/") as [string, string];
  for (const candidate of [
    join(reposDir, owner, name),
    join(reposDir, `${owner}__${name}`),
    join(reposDir, name),
  ]) {
    if (await isDir(candidate)) return resolve(candidate);
  }
  return null;
}

/** The paths a patch touches, with whether it deletes them (git apply --numstat / --summary). */
async function patchPaths(scratch: string, patch: string): Promise<{ paths: string[]; deleted: string[] }> {
  const numstat = await git(scratch, ["apply", "--numstat", "-z", "-"], { input: patch });
  const paths = numstat
    .split("\0")
    .map((entry) => entry.split("\t")[2])
    .filter((p): p is string => !!p);
  const summary = await git(scratch, ["apply", "--summary", "-"], { input: patch });
  const deleted = [...summary.matchAll(/^ delete mode \d+ (.+)$/gm)].map((m) => m[1]!);
  return { paths, deleted };
}

/** The SWE-bench test id's file (`tests/test_x.py::test_y` -> `tests/test_x.py`), or null. */
function idFile(id: string): string | null {
  const at = id.indexOf("::");
  return at > 0 ? id.slice(0, at) : null;
}

export interface SwebenchOptions {
  root: string;
  dataset: string;
  repos: string;
  image?: string;
  framework?: Framework;
}

/**
 * Plans one row: the hidden tests are the test patch's files as they are after applying it to the
 * base commit; the gold diff is the row's patch; FAIL_TO_PASS and PASS_TO_PASS become the expected
 * tests (PASS_TO_PASS tests of other files, with their files, go to the existing suite).
 */
async function planRow(options: SwebenchOptions, { line, row }: ParsedRow, label: string) {
  const where = (field: string) => `${label}:${line}: ${field}`;
  const clone = await findClone(options.repos, row.repo);
  if (!clone)
    throw new Error(
      `${where("repo")}: no clone of ${row.repo} under ${options.repos} (looked for ${row.repo}, ${row.repo.replace("/", "__")}, ${row.repo.split("/")[1]})`,
    );
  let id: string;
  try {
    id = checkTaskId(row.instance_id);
  } catch {
    throw new Error(
      `${where("instance_id")}: '${row.instance_id}' cannot name a task folder (letters, digits, '.', '_', '-')`,
    );
  }
  const scratch = await mkdtemp(join(tmpdir(), "oracle-swebench-"));
  try {
    const bare = join(scratch, "r.git");
    await git(scratch, ["clone", "-q", "--bare", "--shared", clone, bare]);
    const env = { GIT_DIR: bare, GIT_INDEX_FILE: join(scratch, "index") };
    try {
      await git(scratch, ["cat-file", "-e", `${row.base_commit}^{commit}`], { env });
    } catch {
      throw new Error(`${where("base_commit")}: ${row.base_commit} is not a commit of ${clone}`);
    }
    await git(scratch, ["read-tree", row.base_commit], { env });
    try {
      await git(scratch, ["apply", "--cached", "--check", "-"], { env, input: row.patch });
    } catch (error) {
      throw new Error(`${where("patch")}: does not apply to base_commit (${(error as Error).message})`);
    }
    try {
      await git(scratch, ["apply", "--cached", "-"], { env, input: row.test_patch });
    } catch (error) {
      throw new Error(`${where("test_patch")}: does not apply to base_commit (${(error as Error).message})`);
    }
    const touched = await patchPaths(scratch, row.test_patch);
    const deleted = new Set(touched.deleted);
    const hiddenPaths = touched.paths.filter((p) => !deleted.has(p));
    if (hiddenPaths.length === 0) throw new Error(`${where("test_patch")}: adds or changes no file`);
    const hidden = await Promise.all(
      hiddenPaths.map(async (path) => {
        const blob = (await git(scratch, ["ls-files", "-s", "--", `:(literal)${path}`], { env })).split(
          /\s+/,
        )[1]!;
        const bytes = await catBlob(bare, blob);
        return { path, bytes };
      }),
    );
    const packageJson = await git(scratch, ["cat-file", "blob", `${row.base_commit}:package.json`], {
      env,
    }).catch(() => null);
    const packageLock =
      packageJson === null
        ? null
        : await git(scratch, ["cat-file", "blob", `${row.base_commit}:package-lock.json`], { env }).then(
            npmLockfile,
            () => null,
          );
    let framework: Framework;
    try {
      framework = options.framework ?? detectFramework(hiddenPaths, packageJson);
    } catch (error) {
      throw new Error(`${where("test_patch")}: ${(error as Error).message} (give --framework)`);
    }
    const hiddenSet = new Set(hiddenPaths);
    const hiddenExpected: ExpectedTests = { failToPass: row.FAIL_TO_PASS };
    const hiddenPass = row.PASS_TO_PASS.filter((t) => {
      const file = idFile(t);
      return file === null || hiddenSet.has(file);
    });
    const existingPass = row.PASS_TO_PASS.filter((t) => !hiddenPass.includes(t));
    if (hiddenPass.length > 0) hiddenExpected.passToPass = hiddenPass;
    const baseFiles = await treeFiles(bare, row.base_commit);
    const jestConfigs = framework === "jest" ? await readJestConfigs(bare, row.base_commit) : [];
    const vitestConfigs = framework === "vitest" ? await readVitestConfigs(bare, row.base_commit) : [];
    // As --fix reads the repository (from-fix.ts): its runner flags and jest rule, the folders its
    // test script names, a version file's stand-in, Go's changed test files kept for their helpers.
    const repoInputs = await repoSuiteInputs({
      repo: bare,
      base: row.base_commit,
      framework,
      packageJson,
      jestConfigs,
      vitestConfigs,
      baseFiles,
      hidden: hiddenPaths,
    });
    const repoTests = repoInputs.repoTests ?? null;
    const existingOnly = [...new Set(existingPass.map((t) => idFile(t)!))].filter((f) =>
      runsAsTest(framework, f, repoTests),
    );
    let suites: SuitePlan;
    try {
      suites = await planSuites({
        ...repoInputs,
        framework,
        baseFiles,
        hidden: hiddenPaths,
        deletedTests: [...deleted],
        ...(existingOnly.length > 0 ? { existingOnly } : {}),
      });
    } catch (error) {
      throw new Error(`${where("test_patch")}: ${(error as Error).message}`);
    }
    // As --fix: the repository's own copy of a module the image has too is the one the tests import.
    const ownModules = options.image
      ? []
      : await addOwnModulesCheck(bare, row.base_commit, framework, baseFiles, hidden, suites);
    const pythonNeeds =
      framework === "pytest" || framework === "unittest"
        ? await repoPythonNeeds(bare, row.base_commit, baseFiles, hidden)
        : [];
    // What the suites import, read from the base with the test patch applied (the index), as
    // --fix reads it at the fix: the image falls back to these packages when the repository's
    // devDependencies do not resolve together (image.ts).
    let repoImports: string[] | undefined;
    if (framework === "jest" || framework === "mocha" || framework === "vitest") {
      const tree = (await git(scratch, ["write-tree"], { env })).trim();
      repoImports = await suiteImports(bare, tree, await treeFiles(bare, tree), [
        ...hiddenPaths,
        ...suites.existing.files,
      ]);
    }
    const goldPaths = (await patchPaths(scratch, row.patch)).paths;
    const warnings = deniedGoldPaths(goldPaths, []).map(
      (p) => `${id}: ${deniedGoldWarning("the gold patch", p)}`,
    );
    warnings.push(...[...suites.notes, ...ownModules].map((note) => `${id}: ${note}`));
    const lockedRunners =
      packageJson !== null && packageLock === null
        ? await otherLockRunners(bare, row.base_commit, packageJson)
        : null;
    return {
      id,
      clone,
      framework,
      packageJson,
      packageLock,
      // As --fix: ts-node for a jest.config.ts, the runner a pnpm-lock.yaml or yarn.lock pins.
      needs: runnerNeeds(framework, jestConfigs[0]?.path ?? null, packageJson),
      lockedRunners,
      pythonNeeds,
      ...(repoImports ? { repoImports } : {}),
      hidden,
      hiddenPaths,
      suites,
      baseFiles,
      warnings,
      expected: {
        hidden: hiddenExpected,
        ...(existingPass.length > 0 ? { existing: { passToPass: existingPass } } : {}),
      },
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Plans every row; any bad row fails the whole import, naming each problem, before anything is written. */
export async function planDataset(
  options: SwebenchOptions,
): Promise<{ plans: TaskPlan[]; images: ImageChoice[] }> {
  if (!(await isDir(options.repos)))
    throw new OracleError("USAGE", `--repos: ${options.repos} is not a folder`, {
      hint: "give the folder holding local clones of the dataset's repositories (DIR/owner/name)",
    });
  const rows = await readDataset(options.dataset);
  const planned: Array<Awaited<ReturnType<typeof planRow>> & { row: SwebenchRow }> = [];
  const problems: string[] = [];
  for (const parsed of rows) {
    try {
      planned.push({ ...(await planRow(options, parsed, options.dataset)), row: parsed.row });
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0)
    throw new OracleError("USAGE", problems.join("\n"), { hint: "fix those rows; nothing was written" });
  const plans: TaskPlan[] = [];
  const images: ImageChoice[] = [];
  for (const p of planned) {
    const image = await chooseImage({
      root: options.root,
      framework: p.framework,
      taskId: p.id,
      repoPackageJson: p.packageJson,
      repoLockfile: p.packageLock,
      pythonNeeds: p.pythonNeeds,
      ...(p.repoImports ? { repoImports: p.repoImports } : {}),
      ...(options.image ? { image: options.image } : {}),
      runnerNeeds: p.needs,
      ...(p.lockedRunners ? { repoLockedRunners: p.lockedRunners } : {}),
    });
    images.push(image);
    if (p.framework === "vitest") {
      // The image may hold the repository's own vitest: its flags must be that version's.
      const version = await lockedVersion(resolve(options.root, "images", image.name), "vitest");
      p.suites.existing.command = forVitestVersion(p.suites.existing.command, version);
      p.suites.hidden.command = forVitestVersion(p.suites.hidden.command, version);
    }
    if (p.framework === "jest") {
      const version = await lockedVersion(resolve(options.root, "images", image.name), "jest");
      p.suites.existing.command = forJestVersion(p.suites.existing.command, version);
      p.suites.hidden.command = forJestVersion(p.suites.hidden.command, version);
    }
    const task = taskJson({
      id: p.id,
      description: `SWE-bench ${p.row.instance_id} (${p.row.repo}${p.row.version !== undefined ? ` ${p.row.version}` : ""})`,
      image: image.name,
      framework: p.framework,
      base: p.row.base_commit,
      suites: p.suites,
      hidden: p.hiddenPaths,
      hasVendor: p.baseFiles.some((f) => f.startsWith("vendor/")),
      goModule: goModule(p.baseFiles),
      srcLayout: pythonSrcLayout(p.baseFiles),
      scriptEnv: scriptEnv(p.framework, p.packageJson),
      expected: p.expected,
      schema: await schemaRef(options.root, p.id),
    });
    plans.push({
      id: p.id,
      task,
      hidden: p.hidden,
      goldDiff: p.row.patch.endsWith("\n") ? p.row.patch : `${p.row.patch}\n`,
      mirror: { repo: p.clone, base: p.row.base_commit },
      framework: p.framework,
      image: image.name,
      warnings: p.warnings,
    });
  }
  return { plans, images };
}
