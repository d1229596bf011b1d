// The floor of a grade: the same steps with no oracle at all. One `docker run --rm` of the task's
// image under the task's limits, running a plain shell script: for each suite a fresh clone of the
// mirror at the base commit, the diff applied (if any), the hidden tests copied in for the hidden
// suite, then the suite's command. No protections checked, no driver, no report parsing, no log.
// Used by bench-grade.mjs (oracle / floor per grade) and bench-sweep.mjs (how both scale).
// The floor is the docker CLI on purpose (the cheapest way there is, what the oracle is measured
// against); only its labels come from @oracle/engine, like everything else the project creates.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** @oracle/engine (built): the labels, and the engine for what the scripts ask of it besides `docker run`. */
export const engine = await import(join(repo, "packages/engine/dist/index.js"));

/** The task's file and its recorded image, from a root holding tasks/ and images/registry.json. */
export function loadTask(root, id) {
  const taskDir = join(root, "tasks", id);
  const task = JSON.parse(readFileSync(join(taskDir, "task.json"), "utf8"));
  const registry = JSON.parse(readFileSync(join(root, "images", "registry.json"), "utf8"));
  const record = registry.images[task.image];
  if (!record)
    throw new Error(
      `no recorded image '${task.image}' in ${root}/images/registry.json: run pnpm build-images`,
    );
  return { id, taskDir, task, image: record.reference };
}

/** A single-quoted shell word. */
export const quote = (value) => `'${value.replaceAll("'", "'\\''")}'`;

/** The oracle's own env in a grade (its variables win over the task's). */
export const ORACLE_ENV = { HOME: "/tmp", TMPDIR: "/tmp", TZ: "UTC", LC_ALL: "C.UTF-8", PYTHONHASHSEED: "0" };

/** `docker run` flags setting `env`. */
export const envArgs = (env) => Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);

/** `docker run` flags setting `labels`. */
export const labelArgs = (labels) => Object.entries(labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]);

/**
 * Shell that makes a fresh checkout in `dir` and stays in it: a clone of `mirror` at `baseCommit`,
 * `diff` applied (a path, or null for a baseline), the folder `hidden` copied in (or null).
 */
export function checkoutScript({ dir, mirror, baseCommit, diff, hidden }) {
  return [
    `git clone -q --no-checkout ${mirror} ${dir} && cd ${dir} && git checkout -q --detach ${baseCommit}`,
    diff === null ? "" : `git apply --check ${diff} && git apply ${diff}`,
    hidden === null ? "" : `cp -R ${hidden}/. ${dir}/`,
  ].join("\n");
}

function suiteScript(name, command, baseCommit, withDiff) {
  const checkout = checkoutScript({
    dir: "/work/repo",
    mirror: "/m",
    baseCommit,
    diff: withDiff ? "/d.diff" : null,
    hidden: name === "hidden" ? "/h" : null,
  });
  return `
rm -rf /work/repo /tmp/report && mkdir -p /tmp/report
${checkout}
ORACLE_JUNIT=/tmp/report/junit.xml SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) sh -c ${quote(command)} > /dev/null 2>&1 || status=1
cp /tmp/report/junit.xml /tmp/${name}.xml 2>/dev/null; cd /`;
}

/** The `docker run` argv of the floor of one grade of `loaded` (from loadTask); `diff` is a file path or null (baseline). */
export function floorArgs(loaded, diff) {
  const { task, taskDir, image } = loaded;
  const { existing, hidden } = task.suites;
  const script = [
    "status=0",
    suiteScript("existing", existing.command, task.repo.baseCommit, diff !== null),
    suiteScript("hidden", hidden.command, task.repo.baseCommit, diff !== null),
    "exit $status",
  ].join("\n");
  // The task's env first, the oracle's after it: the grader's own variables win, as in a grade.
  const env = { ...(task.env ?? {}), ...ORACLE_ENV };
  const limits = task.resources ?? {};
  return [
    "run",
    "--rm",
    "--network",
    "none",
    "-u",
    "1000:1000",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--init",
    ...labelArgs(engine.benchLabels("floor")),
    ...(limits.memoryMb ? ["--memory", `${limits.memoryMb}m`, "--memory-swap", `${limits.memoryMb}m`] : []),
    ...(limits.cpus ? ["--cpus", String(limits.cpus)] : []),
    ...(limits.pids ? ["--pids-limit", String(limits.pids)] : []),
    ...envArgs(env),
    "--tmpfs",
    "/work:rw,exec,uid=1000,gid=1000",
    "--tmpfs",
    "/tmp:rw,exec,mode=1777",
    "-v",
    `${resolve(taskDir, task.repo.mirror)}:/m:ro`,
    "-v",
    `${join(taskDir, "hidden-tests")}:/h:ro`,
    ...(diff === null ? [] : ["-v", `${resolve(diff)}:/d.diff:ro`]),
    "-w",
    "/work",
    "--entrypoint",
    "sh",
    image,
    "-c",
    script,
  ];
}

/** Runs one floor grade; resolves to its wall time and exit code (0: both suites passed). */
export function runFloor(loaded, diff) {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint();
    const child = spawn("docker", floorArgs(loaded, diff), { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", fail);
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // 125-127: docker itself failed (no image, bad flag, no sh): not a grade at all. 137 is a
      // container killed (at its memory limit, say): a grade that failed.
      if (code !== null && code >= 125 && code <= 127)
        fail(new Error(`docker run (floor of ${loaded.id}) exited ${code}:\n${stderr}`));
      else done({ ms, code });
    });
  });
}
