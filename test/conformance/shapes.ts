// The conformance set's machinery (issue 14): task shapes written the way real tasks are, each a
// small task in one temporary root, made from a sample task (its bundle, hidden tests and gold diff,
// with the hidden command rewritten and `framework` left out, so the oracle must read the runner
// from the command) or from files written here (the pytest shapes). Every shape is graded against
// the real engine with the hostile harness's gradeCase (one tests_hash line, exit code, no container
// left, host unchanged, bounded memory): gold PASS, baseline FAIL, an in-process tampering diff FAIL,
// a diff that gets the hidden tests skipped FAIL and, for Go, forged output FAIL.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  binPath,
  keepImageRecords,
  makeTempRoot,
  repoRoot,
  requireDocker,
  run,
  seedImageRecords,
} from "@oracle/test-utils";
import { afterAll, beforeAll } from "vitest";
import {
  type Corpus,
  type FixtureTask,
  type Graded,
  gradeCase,
  makeDiff,
  writeFiles,
} from "../hostile/harness.js";

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "conformance",
  GIT_AUTHOR_EMAIL: "conformance@oracle.invalid",
  GIT_COMMITTER_NAME: "conformance",
  GIT_COMMITTER_EMAIL: "conformance@oracle.invalid",
  GIT_AUTHOR_DATE: "2024-01-02T03:04:05Z",
  GIT_COMMITTER_DATE: "2024-01-02T03:04:05Z",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};
const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024 }).toString();

type Files = Record<string, string>;

/** One shape: a task, the change a correct fix makes, and the attacks it must FAIL. */
export interface Shape {
  id: string;
  /** What the shape shows, for the test's name. */
  title: string;
  /** The sample task it is made from, or the files of its repository (base commit). */
  from: { sample: string } | { repo: Files; hidden: Files; task: Record<string, unknown> };
  /** The hidden suite's command (replaces the sample's). */
  hidden: string;
  /** The fix: files written over the base commit (default: the sample's gold.diff). */
  gold?: Files;
  /** In-process tampering that makes failing tests pass (files written over the base commit). */
  tamper: (work: string) => Files;
  /** Code that gets the hidden tests skipped (or deselected) at run time. */
  skip: (work: string) => Files;
  /** Go: output forged before the tests run. */
  forge?: (work: string) => Files;
  /**
   * The pair must be collected at gold (not only a strong seal): a selection the oracle rewrites to
   * name it (pytest node ids, a `-run`/`-t`/`--grep` anchored to exact names).
   */
  pair?: true;
}

export interface Conformance {
  corpus: Corpus;
  cleanup: () => Promise<void>;
}

const read = (work: string, path: string): string => readFileSync(join(work, path), "utf8");

export { read };

/** Every conformance task's limit (see makeConformance). */
export const GRADE_LIMIT_SECONDS = 200;

/** Builds every shape's task in one temporary root, with the images they use (built once, cached). */
export async function makeConformance(shapes: readonly Shape[]): Promise<Conformance> {
  const images = new Set<string>();
  const temp = await makeTempRoot();
  const work: Record<string, string> = {};
  for (const shape of shapes) {
    const dir = join(temp.root, "tasks", shape.id);
    const clone = join(temp.root, "work", shape.id);
    let task: Record<string, unknown>;
    if ("sample" in shape.from) {
      cpSync(join(repoRoot, "tasks", shape.from.sample), dir, { recursive: true });
      task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
      execFileSync("git", ["clone", "-q", join(dir, "repo.bundle"), clone], { env: GIT_ENV });
      git(clone, "checkout", "-q", (task.repo as { baseCommit: string }).baseCommit);
    } else {
      mkdirSync(clone, { recursive: true });
      writeFiles(clone, shape.from.repo);
      git(clone, "init", "-q", "-b", "main");
      git(clone, "add", "-A");
      git(clone, "commit", "-q", "-m", "base");
      mkdirSync(dir, { recursive: true });
      git(clone, "bundle", "create", "-q", join(dir, "repo.bundle"), "--all");
      writeFiles(join(dir, "hidden-tests"), shape.from.hidden);
      task = {
        ...shape.from.task,
        repo: { mirror: "repo.bundle", baseCommit: git(clone, "rev-parse", "HEAD").trim() },
      };
    }
    task.id = shape.id;
    // A limit far above what an honest grade takes: the verdicts are the shapes', not the machine's
    // (the grades run four at once; on a loaded machine one took tens of seconds, and the samples' own
    // limits are 90-120 s). The harness's bound on a grade (240 s) is above this one's (the limit + 10 s).
    task.timeoutSeconds = GRADE_LIMIT_SECONDS;
    delete task.framework;
    const suites = task.suites as { hidden: { command: string } };
    suites.hidden.command = shape.hidden;
    writeFileSync(join(dir, "task.json"), `${JSON.stringify(task, null, 2)}\n`);
    if (shape.gold === undefined && !("sample" in shape.from)) throw new Error(`${shape.id}: no gold`);
    images.add(task.image as string);
    work[shape.id] = clone;
  }
  for (const image of images)
    cpSync(join(repoRoot, "images", image), join(temp.root, "images", image), { recursive: true });
  mkdirSync(join(temp.root, "canary"));
  mkdirSync(join(temp.root, "out"));
  // The images as another root of this run built them, where their folders are the same (seedImageRecords).
  await seedImageRecords(temp.root);
  const built = await run(
    binPath("oracle-build-images"),
    ["--root", temp.root, "--no-push", "--ca-file", "/etc/ssl/certs/ca-certificates.crt"],
    { timeoutMs: 1_500_000 },
  );
  if (built.code !== 0) throw new Error(`oracle-build-images failed (${built.code}): ${built.stderr}`);
  await keepImageRecords(temp.root);
  const corpus: Corpus = {
    root: temp.root,
    work: work as unknown as Corpus["work"],
    out: join(temp.root, "out"),
    cleanup: temp.cleanup,
  };
  return { corpus, cleanup: temp.cleanup };
}

/**
 * The set-up every file that grades shapes starts with: Docker required, the shapes' tasks and images
 * made before the file's tests (then `setUp`, what the file adds: gold.diff files, a sweep), removed
 * after them. The set it returns is readable from the file's first test on.
 */
export function conformanceHooks(shapes: readonly Shape[], setUp?: () => void | Promise<void>): Conformance {
  let made: Conformance | undefined;
  const ready = (): Conformance => {
    if (made === undefined) throw new Error("the conformance set is made in beforeAll, before the tests");
    return made;
  };
  beforeAll(async () => {
    await requireDocker();
    made = await makeConformance(shapes);
    await setUp?.();
  }, 1_600_000);
  afterAll(async () => {
    await made?.cleanup();
  });
  return {
    get corpus() {
      return ready().corpus;
    },
    cleanup: () => ready().cleanup(),
  };
}

/** Lets at most `limit` grades run at once (the machine has 2 cores; a grade mostly waits). */
function limiter(limit: number): <T>(job: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    if (active >= limit) await new Promise<void>((go) => waiting.push(go));
    active++;
    try {
      return await job();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
const slot = limiter(4);

/** The gold diff of a shape: its own files, or its sample's gold.diff. */
export function goldDiff(c: Conformance, shape: Shape): Buffer {
  if (shape.gold !== undefined) {
    const files = shape.gold;
    return makeDiff(c.corpus, shape.id as FixtureTask, (dir) => writeFiles(dir, files));
  }
  return readFileSync(join(c.corpus.root, "tasks", shape.id, "gold.diff"));
}

/** Grades a shape's baseline (diff undefined) or a diff made of files written over the base commit. */
export function grade(c: Conformance, shape: Shape, name: string, diff?: Buffer | ((work: string) => Files)) {
  const task = shape.id as FixtureTask;
  const bytes =
    typeof diff === "function" ? makeDiff(c.corpus, task, (dir) => writeFiles(dir, diff(dir))) : diff;
  return slot(
    (): Promise<Graded> =>
      gradeCase(c.corpus, {
        task,
        name: `${shape.id}-${name}`,
        ...(bytes === undefined ? {} : { diff: bytes }),
      }),
  );
}

/**
 * One shape's named diffs graded at once: `"gold"` its gold diff, `"baseline"` the unfixed code, a
 * function the files of a diff of its own (the e2e seal files' frame).
 */
export async function gradeNamed(
  c: Conformance,
  shape: Shape,
  diffs: Record<string, "gold" | "baseline" | ((work: string) => Files)>,
): Promise<Record<string, Graded>> {
  const names = Object.keys(diffs);
  const graded = await Promise.all(
    names.map((name) => {
      const diff = diffs[name]!;
      if (diff === "gold") return grade(c, shape, name, goldDiff(c, shape));
      return diff === "baseline" ? grade(c, shape, name) : grade(c, shape, name, diff);
    }),
  );
  return Object.fromEntries(names.map((name, i) => [name, graded[i]!]));
}

/** Sweeps one shape's task in a copy of the root (the sweep writes tasks/; grades in the root must see it unchanged). */
export async function sweep(c: Conformance, shape: Shape): Promise<{ status: string; flags: string[] }> {
  const temp = await makeTempRoot();
  try {
    cpSync(join(c.corpus.root, "images"), join(temp.root, "images"), { recursive: true });
    cpSync(join(c.corpus.root, "tasks", shape.id), join(temp.root, "tasks", shape.id), { recursive: true });
    if (shape.gold !== undefined)
      writeFileSync(join(temp.root, "tasks", shape.id, "gold.diff"), goldDiff(c, shape));
    const out = await slot(() =>
      run(binPath("oracle-quarantine-sweep"), ["--root", temp.root, "--tasks", shape.id], {
        timeoutMs: 240_000,
      }),
    );
    const dir = /reports: (\S+)report\.html/.exec(out.stdout + out.stderr)?.[1];
    if (dir === undefined) throw new Error(`sweep printed no report (${out.code}): ${out.stderr}`);
    const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as {
      tasks: { status: string; reasons: { flag: string }[] }[];
    };
    const task = report.tasks[0]!;
    return { status: task.status, flags: task.reasons.map((r) => r.flag) };
  } finally {
    await temp.cleanup();
  }
}
