import { readFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { OracleError } from "@oracle/spec";
import picomatch from "picomatch";
import type { LeaveOut } from "./broken.js";
import {
  changedFiles,
  checkRepo,
  commitSubject,
  diffOf,
  parents,
  resolveCommit,
  showFile,
  showFiles,
  treeFiles,
} from "./git.js";
import { goModWarnings } from "./go-tests.js";
import { chooseImage, type ImageChoice, runnerNeeds } from "./image.js";
import { jestTests } from "./jest-config.js";
import { suiteImports } from "./js-imports.js";
import {
  checkTaskId,
  deniedGoldPaths,
  deniedGoldWarning,
  planSuites,
  readJestConfigs,
  readPackageJson,
  readPackageLock,
  readVitestConfigs,
  type SuitePlan,
  type SuitePlanInput,
  schemaRef,
  type TaskPlan,
  taskIdFrom,
  taskJson,
} from "./make.js";
import { otherLockRunners } from "./other-locks.js";
import { ownModulesCheck, repoPythonNeeds, repoShadowedModules } from "./python-deps.js";
import { namedUnchangedTests, splitFix } from "./split.js";
import {
  detectFramework,
  type Framework,
  forJestVersion,
  forVitestVersion,
  goModule,
  jestRunFlags,
  jestSplitRule,
  pythonSrcLayout,
  pythonVersionFile,
  repoRunnerFlags,
  runsAsTest,
  runsByName,
  scriptEnv,
  scriptTestPaths,
  versionFilePrelude,
  vitestSplitRule,
} from "./templates.js";
import { vitestTests } from "./vitest-config.js";

export interface FromFixOptions {
  root: string;
  repo: string;
  fix: string;
  id?: string;
  image?: string;
  framework?: Framework;
  tests: string[];
  /** Limit the existing suite to these test files (new-task's second try when the whole suite was too large: narrow.ts). */
  existingOnly?: readonly string[];
  /** Existing tests to leave out (new-task's next try when some fail at the base commit: broken.ts). */
  leaveOut?: LeaveOut;
  /** Flags that leave hidden tests out (new-task's next try when some fail at the base and with gold.diff alike: broken.ts). */
  hiddenLeaveOut?: readonly string[];
}

/** Why the go-gotestsum image's Go cannot load the base commit's go.mod ({@link goModWarnings}), if it cannot. */
async function goVersionWarning(repo: string, commit: string): Promise<string[]> {
  const text = await showFile(repo, commit, "go.mod").then(
    (b) => b.toString("utf8"),
    () => "",
  );
  return goModWarnings(text);
}

/**
 * The base text of every Go test file when the fix changes one the base has (new-task then tells
 * whether the existing suite can remove it; make.ts `planSuites`), else none.
 */
async function goTestTexts(
  repo: string,
  base: string,
  baseFiles: readonly string[],
  hidden: readonly string[],
): Promise<Map<string, string>> {
  const baseSet = new Set(baseFiles);
  if (!hidden.some((p) => p.endsWith("_test.go") && baseSet.has(p))) return new Map();
  const files = await showFiles(
    repo,
    base,
    baseFiles.filter((p) => p.endsWith("_test.go")),
  );
  return new Map([...files].map(([path, bytes]) => [path, bytes.toString("utf8")]));
}

/**
 * What the suites' plan reads of the repository at the base commit, the same for `--fix` and a
 * `--swebench` row: the runner flags its own scripts or jest config give, jest's test rule, the
 * folders its test script names (the existing suite keeps to them), the stand-in for a version file
 * the build writes, and (Go) the base text of the test files, to tell which changed ones the
 * existing suite must keep for their helpers.
 */
export async function repoSuiteInputs(input: {
  repo: string;
  base: string;
  framework: Framework;
  packageJson: string | null;
  jestConfigs: ReadonlyArray<{ path: string; text: string }>;
  /** The vitest config file at the root (vitest-config.ts), read for test.include. */
  vitestConfigs?: ReadonlyArray<{ path: string; text: string }>;
  baseFiles: readonly string[];
  hidden: readonly string[];
}): Promise<Pick<SuitePlanInput, "goTexts" | "runnerFlags" | "repoTests" | "scriptPaths" | "prelude">> {
  const { repo, base, framework, packageJson, jestConfigs, baseFiles } = input;
  // A version file the build writes (hatch-vcs, setuptools-scm) is not in git: the suites write a stand-in.
  const versionFile =
    framework === "pytest" || framework === "unittest"
      ? pythonVersionFile(
          baseFiles.includes("pyproject.toml")
            ? (await showFile(repo, base, "pyproject.toml")).toString("utf8")
            : null,
        )
      : null;
  return {
    ...(framework === "go" ? { goTexts: await goTestTexts(repo, base, baseFiles, input.hidden) } : {}),
    runnerFlags:
      framework === "jest"
        ? jestRunFlags(
            packageJson,
            jestConfigs.map((c) => c.text),
          )
        : repoRunnerFlags(framework, packageJson),
    repoTests:
      framework === "jest"
        ? jestTests(packageJson, jestConfigs).tests
        : framework === "vitest"
          ? vitestTests(input.vitestConfigs ?? []).tests
          : null,
    scriptPaths: scriptTestPaths(framework, packageJson, baseFiles),
    ...(versionFile !== null && !baseFiles.includes(versionFile)
      ? { prelude: versionFilePrelude(versionFile) }
      : {}),
  };
}

/**
 * pytest/unittest on the template image: a module of the repository's own that the image has too
 * gets a check at the start of both suite commands that the tests find the repository's copy, so a
 * diff deleting it cannot PASS on the image's. Returns the warning to print (none when no module is).
 */
export async function addOwnModulesCheck(
  repo: string,
  base: string,
  framework: Framework,
  baseFiles: readonly string[],
  hidden: ReadonlyArray<{ path: string; bytes: Buffer }>,
  suites: SuitePlan,
): Promise<string[]> {
  if (framework !== "pytest" && framework !== "unittest") return [];
  const shadowed = await repoShadowedModules(repo, base, baseFiles, hidden);
  if (shadowed.length === 0) return [];
  const check = ownModulesCheck(shadowed);
  suites.existing.command = `${check}${suites.existing.command}`;
  suites.hidden.command = `${check}${suites.hidden.command}`;
  return [
    `the image has a copy of its own of ${shadowed.join(", ")} (Debian's, for pytest), which the repository provides and its tests import: both suite commands first check that Python finds the repository's copy (a diff that deletes it fails there, instead of running the tests on the image's copy)`,
  ];
}

/** Folder names that say nothing of the repository: a clone's `.git`, a mirror's `repo` or `repo.git`. */
const GENERIC = new Set(["", ".git", "repo", "git", "src", "source", "checkout"]);

/**
 * A fix commit's task id when --id is not given: `<repo folder>-<sha7>`; for a folder named only
 * `.git`, `repo` (a mirror's `owner+name/repo`) or the like, the folder that holds it.
 */
export function defaultTaskId(repo: string, fix: string): string {
  const path = resolve(repo);
  const own = basename(path).replace(/\.git$/, "");
  const name = GENERIC.has(own.toLowerCase()) ? basename(dirname(path)).replace(/\.git$/, "") || own : own;
  return taskIdFrom(`${name}-${fix.slice(0, 7)}`);
}

/**
 * A task from a fix commit: the base is the fix's parent, the hidden tests are the test files the fix
 * adds or changes (at the fix), the gold diff is the rest of the fix.
 */
export async function planFromFix(options: FromFixOptions): Promise<{ plan: TaskPlan; image: ImageChoice }> {
  const repo = resolve(options.repo);
  await checkRepo(repo, "--repo");
  const fix = await resolveCommit(repo, options.fix, "--fix");
  const up = await parents(repo, fix);
  if (up.length === 0)
    throw new OracleError(
      "USAGE",
      `--fix: ${fix.slice(0, 12)} is a root commit: it has no parent to be the base`,
      {
        hint: "give the commit that fixed the bug; its parent is the task's base commit",
      },
    );
  if (up.length > 1)
    throw new OracleError("USAGE", `--fix: ${fix.slice(0, 12)} is a merge commit`, {
      hint: "give the commit that made the fix (one parent), not the merge that brought it in",
    });
  const base = up[0]!;
  const fixPackageJson = await readPackageJson(repo, fix);
  const packageJson = fixPackageJson ?? (await readPackageJson(repo, base));
  const jestConfigs = await readJestConfigs(repo, fix);
  const jest = jestTests(packageJson, jestConfigs);
  const vitestConfigs = await readVitestConfigs(repo, fix);
  const vitest = vitestTests(vitestConfigs);
  const split = splitFix(
    await changedFiles(repo, base, fix),
    options.tests,
    jestSplitRule(jest.tests, packageJson, options.framework) ??
      vitestSplitRule(vitest.tests, packageJson, options.framework),
  );
  if (split.hidden.length === 0)
    throw new OracleError(
      "USAGE",
      `--fix: ${fix.slice(0, 12)} adds or changes no test file${options.tests && options.tests.length > 0 ? " --tests names" : ""}: there is nothing to hide (it changes ${split.code.slice(0, 5).join(", ")}${split.code.length > 5 ? ", …" : ""})`,
      {
        hint: "name the test files the fix changes with --tests GLOB (repeatable) when they are not under test/, tests/ or named like tests; when it changes only a fixture its tests import, name the fixture and those tests (--tests 'src/__fixtures__/**' --tests 'src/*.spec.ts'): the named test files are run with the fixture as at the fix",
      },
    );
  if (split.code.length === 0)
    throw new OracleError(
      "USAGE",
      `--fix: ${fix.slice(0, 12)} changes only test files: there is no gold diff`,
      {
        hint: "give the commit that fixed the code (with or after its tests), or narrow --tests",
      },
    );
  const framework = options.framework ?? detectFramework(split.hidden, packageJson);
  // The fix changes only files the runner does not run (a fixture its specs import): the unchanged
  // files --tests names are hidden tests too, as planSuites reads them.
  const namedTests =
    options.tests && options.tests.length > 0 ? picomatch([...options.tests], { dot: true }) : () => false;
  const added = namedUnchangedTests(
    options.tests ?? [],
    split.hidden,
    await treeFiles(repo, fix),
    split.code,
    (p) =>
      runsAsTest(
        framework,
        p,
        framework === "jest" ? jest.tests : framework === "vitest" ? vitest.tests : null,
      ) ||
      (namedTests(p) && runsByName(framework, p)),
  );
  split.hidden.push(...added);
  const id = checkTaskId(options.id ?? defaultTaskId(repo, fix));
  const baseFiles = await treeFiles(repo, base);
  const suites = await planSuites({
    ...(await repoSuiteInputs({
      repo,
      base,
      framework,
      packageJson,
      jestConfigs,
      vitestConfigs,
      baseFiles,
      hidden: split.hidden,
    })),
    framework,
    baseFiles,
    hidden: split.hidden,
    deletedTests: split.deletedTests,
    testGlobs: options.tests,
    ...(options.existingOnly ? { existingOnly: options.existingOnly } : {}),
    ...(options.leaveOut ? { leaveOut: options.leaveOut } : {}),
    ...(options.hiddenLeaveOut ? { hiddenLeaveOut: options.hiddenLeaveOut } : {}),
  });
  const hidden = await Promise.all(
    split.hidden.map(async (path) => ({ path, bytes: await showFile(repo, fix, path) })),
  );
  const goldDiff = await diffOf(repo, base, fix, split.code);
  const subject = await commitSubject(repo, fix);
  const warnings = deniedGoldPaths(split.code, []).map((p) => deniedGoldWarning("gold.diff", p));
  warnings.push(...suites.notes);
  if (added.length > 0)
    warnings.push(
      `the fix changes no file the ${framework} runner runs as a test (only ${split.hidden.filter((p) => !added.includes(p)).join(", ")}): the hidden tests are also the unchanged files --tests names, ${added.join(", ")}, taken at the fix commit`,
    );
  // The go-gotestsum image's Go; an image given by --image brings its own.
  if (framework === "go" && (options.image ?? "go-gotestsum") === "go-gotestsum")
    warnings.push(...(await goVersionWarning(repo, base)));
  if (framework === "jest" && jest.warning)
    warnings.push(
      `${jest.warning}: new-task took jest's default test files (**/__tests__/**/*.[jt]s?(x), **/?(*.)+(spec|test).[jt]s?(x))`,
    );
  if (framework === "vitest" && vitest.warning)
    warnings.push(
      `${vitest.warning}: ${vitest.tests ? "new-task left out only what vitest's default exclude leaves out" : "new-task took the test files by name (*.test.*, *.spec.*, __tests__/)"}`,
    );
  const hasVendor = baseFiles.some((p) => p.startsWith("vendor/"));
  // A pnpm or yarn repository's lockfile pins its runner (npm reads only package-lock.json).
  const lockCommit = fixPackageJson === null ? base : fix;
  const repoLockfile = await readPackageLock(repo, lockCommit);
  const lockedRunners = repoLockfile === null ? await otherLockRunners(repo, lockCommit, packageJson) : null;
  // Last, since it may write an image folder: every check of the fix has passed.
  const image = await chooseImage({
    root: options.root,
    framework,
    taskId: id,
    repoPackageJson: packageJson,
    repoLockfile,
    ...(lockedRunners ? { repoLockedRunners: lockedRunners } : {}),
    ...(framework === "jest" || framework === "mocha" || framework === "vitest"
      ? {
          repoImports: await suiteImports(repo, fix, await treeFiles(repo, fix), [
            ...split.hidden,
            ...suites.existing.files,
          ]),
        }
      : {}),
    ...(framework === "pytest" || framework === "unittest"
      ? { pythonNeeds: await repoPythonNeeds(repo, base, baseFiles, hidden) }
      : {}),
    ...(options.image ? { image: options.image } : {}),
    runnerNeeds: runnerNeeds(framework, jestConfigs[0]?.path ?? null, packageJson),
  });
  if (!options.image)
    warnings.push(...(await addOwnModulesCheck(repo, base, framework, baseFiles, hidden, suites)));
  if (framework === "vitest") {
    // The image may hold the repository's own vitest (image.ts): its flags must be that version's.
    const version = await lockedVersion(resolve(options.root, "images", image.name), "vitest");
    suites.existing.command = forVitestVersion(suites.existing.command, version);
    suites.hidden.command = forVitestVersion(suites.hidden.command, version);
  }
  if (framework === "jest") {
    // The image may hold the repository's own jest (dayjs: 22.4.4): its flags must be that version's.
    const version = await lockedVersion(resolve(options.root, "images", image.name), "jest");
    suites.existing.command = forJestVersion(suites.existing.command, version);
    suites.hidden.command = forJestVersion(suites.hidden.command, version);
  }
  const task = taskJson({
    id,
    description: `${subject} (made by new-task from ${basename(repo)} ${fix.slice(0, 12)})`,
    image: image.name,
    framework,
    base,
    suites,
    hidden: split.hidden,
    hasVendor,
    goModule: goModule(baseFiles),
    srcLayout: pythonSrcLayout(baseFiles),
    scriptEnv: scriptEnv(framework, packageJson),
    schema: await schemaRef(options.root, id),
  });
  return {
    plan: { id, task, hidden, goldDiff, mirror: { repo, base }, framework, image: image.name, warnings },
    image,
  };
}

/** The version of `name` an image folder's package-lock.json holds; null when it cannot be read. */
export async function lockedVersion(imageDir: string, name: string): Promise<string | null> {
  try {
    const lock = JSON.parse(await readFile(resolve(imageDir, "package-lock.json"), "utf8")) as {
      packages?: Record<string, { version?: unknown }>;
    };
    const version = lock.packages?.[`node_modules/${name}`]?.version;
    return typeof version === "string" ? version : null;
  } catch {
    return null;
  }
}
