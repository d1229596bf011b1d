import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { TaskReport } from "../types.js";
import { packageOf } from "./js-imports.js";
import { DEFAULT_IMAGE, type Framework } from "./templates.js";

/**
 * Third-party modules the tests import that the task's image lacks. new-task adds the ones it knows
 * (python-deps.ts, the repository's package.json); an import it does not know is seen only when a
 * suite fails to load it. These read that failure out of the validation's logs, so new-task names the
 * module and the file, and says how to bring it, instead of leaving the user to read a log.
 */

export interface MissingModule {
  /** The module's name, or the fixture's when `fixture` is set. */
  module: string;
  /** The file that imports it, in the checkout, when the output says. */
  file: string | null;
  /** A pytest fixture the tests ask for that no conftest.py or installed plugin defines ("fixture 'benchmark' not found"). */
  fixture?: true;
}

/**
 * pytest plugins Debian bookworm packages, by the fixtures they define: the pin that brings each
 * (the version bookworm installs, as images/python-pytest/requirements.txt writes pins).
 */
export const FIXTURE_PLUGINS: Record<string, string> = {
  benchmark: "pytest-benchmark==3.2.2",
  mocker: "pytest-mock==3.8.2",
  class_mocker: "pytest-mock==3.8.2",
  module_mocker: "pytest-mock==3.8.2",
  session_mocker: "pytest-mock==3.8.2",
  requests_mock: "requests-mock==1.9.3",
  httpserver: "pytest-httpserver==1.0.6",
  subtests: "pytest-subtests==0.9.0",
  event_loop: "pytest-asyncio==0.20.3",
  datadir: "pytest-datadir==1.4.1",
  shared_datadir: "pytest-datadir==1.4.1",
};

/** The checkout-relative path of a path the runner printed (`/work/repo/tests/a.py` -> `tests/a.py`). */
function inCheckout(path: string): string {
  return path.replace(/^.*?\/repo\//, "").replace(/^\.\//, "");
}

/** The missing modules a suite's output names, each once, in order. */
export function missingModules(framework: Framework, raw: string): MissingModule[] {
  // A runner writing in colour wraps paths in escapes (pytest's `\x1b[1m\x1b[31mtests/a.py\x1b[0m:9:`).
  const output = raw.replace(/\x1b\[[0-9;]*m/g, "");
  const found = new Map<string, MissingModule>();
  const add = (module: string, file: string | null) => {
    if (!found.has(module)) found.set(module, { module, file });
  };
  if (framework === "pytest" || framework === "unittest") {
    // A fixture no plugin defines: pytest names the test's file (`file /work/repo/tests/a.py, line 9`) before it.
    for (const m of output.matchAll(/^E\s+fixture '(\w+)' not found$/gm)) {
      const files = [...output.slice(0, m.index).matchAll(/^file (\S+), line \d+$/gm)];
      const file = files.length > 0 ? inCheckout(files[files.length - 1]![1]!) : null;
      if (!found.has(`fixture:${m[1]}`)) found.set(`fixture:${m[1]}`, { module: m[1]!, file, fixture: true });
    }
    for (const m of output.matchAll(/(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'/g)) {
      // The traceback's last frame before the error is the file that imports it.
      const before = output.slice(0, m.index);
      const frames = [...before.matchAll(/^([^\s:]+\.py):\d+: in /gm)];
      const file = frames.length > 0 ? inCheckout(frames[frames.length - 1]![1]!) : null;
      add(m[1]!, file);
    }
  } else if (framework !== "go") {
    const patterns = [
      // jest: Cannot find module 'x' from 'tests/a.test.js'
      /Cannot find module '([^']+)' from '([^']+)'/g,
      // node (mocha): Error: Cannot find module 'x'\nRequire stack:\n- /work/repo/test/a.js
      /Cannot find module '([^']+)'\s*\nRequire stack:\s*\n- ([^\n]+)/g,
      // node ESM, vitest: Cannot find package 'x' imported from /work/repo/test/a.test.js
      /Cannot find package '([^']+)' imported from ([^\s]+)/g,
      // vitest: Failed to resolve import "x" from "test/a.test.ts"
      /Failed to resolve import "([^"]+)" from "([^"]+)"/g,
    ];
    for (const pattern of patterns)
      for (const m of output.matchAll(pattern)) {
        const name = packageOf(m[1]!);
        if (name !== null) add(name, inCheckout(m[2]!));
      }
  } else {
    // go: no required module provides package x; to add it: / cannot find package "x"
    for (const m of output.matchAll(
      /(?:no required module provides package ([^\s;:]+)|cannot find package "([^"]+)")/g,
    ))
      add((m[1] ?? m[2])!, null);
  }
  return [...found.values()];
}

/** The missing modules every run's suites name (their output, read from the oracle logs). */
export async function missingInRuns(
  root: string,
  framework: Framework,
  task: TaskReport,
): Promise<MissingModule[]> {
  const found = new Map<string, MissingModule>();
  for (const run of task.runs) {
    if (run.log === null) continue;
    const output: Record<string, string> = {};
    const lines = createInterface({
      input: createReadStream(join(root, run.log), "utf8"),
      crlfDelay: Infinity,
    });
    try {
      for await (const line of lines) {
        if (!line.includes('"message":"suite.output"')) continue;
        const event = JSON.parse(line) as { suite?: string; stream?: string; text?: string };
        const key = `${event.suite}.${event.stream}`;
        output[key] = (output[key] ?? "") + (event.text ?? "");
      }
    } catch {
      continue;
    }
    for (const text of Object.values(output))
      for (const m of missingModules(framework, text)) {
        const key = `${m.fixture ? "fixture:" : ""}${m.module}`;
        if (!found.has(key)) found.set(key, m);
      }
  }
  return [...found.values()];
}

/**
 * The top-level Python modules a repository holds itself (`pkg/`, `mod.py`, `src/pkg/`): one of them
 * missing is not a package the image lacks.
 */
export function ownPythonModules(files: readonly string[]): Set<string> {
  const own = new Set<string>();
  for (const p of files)
    if (p.endsWith(".py"))
      own.add(
        p
          .replace(/^src\//, "")
          .split("/")[0]!
          .replace(/\.py$/, ""),
      );
  return own;
}

/** What brings a missing module into the task's image: the line new-task prints. */
export function missingLine(
  framework: Framework,
  m: MissingModule,
  image: string,
  again: string,
  own: ReadonlySet<string> = new Set(),
): string {
  const where = m.file ? `${m.file} imports ${m.module}` : `the tests import ${m.module}`;
  if (m.fixture) return fixtureLine(m, image, again);
  if ((framework === "pytest" || framework === "unittest") && own.has(m.module.split(".")[0]!))
    return `${where}, the repository's own module, which is not in git (a build step writes it: setuptools-scm's or hatch-vcs's _version.py, a generated file): the image installs nothing of the repository, so the tests that import it cannot run as they are; no flag of new-task brings it (a task needs a fix whose tests run from the checkout)`;
  const pythonDist = m.module.split(".")[0]!;
  // A template image is shared by every task that uses it: the change goes to a copy.
  const shared = Object.values(DEFAULT_IMAGE).includes(image);
  const target = shared ? "NAME" : image;
  const copy = shared ? `cp -r images/${image} images/NAME, then ` : "";
  if (framework === "go")
    return `${where}, which images/${image} lacks: its Go has the standard library only (GOPROXY=off): the repository must vendor it (go mod vendor), or the task needs an image whose module cache holds it (--image NAME)`;
  if (framework === "pytest" || framework === "unittest")
    return `${where}, which images/${image} lacks: PyPI is out of reach, so only a Debian bookworm package can bring it (apt-cache search python3-${pythonDist.toLowerCase()}): ${copy}add its distribution==version to images/${target}/requirements.txt and run ${again} --image ${target} --force`;
  return `${where}, which images/${image} lacks (the repository's package.json does not list it): ${copy}add it to images/${target}/package.json's dependencies, refresh the lockfile (cd images/${target} && npm install --package-lock-only --ignore-scripts) and run ${again} --image ${target} --force`;
}

/** What brings a pytest fixture no plugin of the image defines: the plugin that does, when new-task knows it. */
function fixtureLine(m: MissingModule, image: string, again: string): string {
  const where = `${m.file ?? "a test"} asks for the pytest fixture '${m.module}' ("fixture '${m.module}' not found")`;
  const shared = Object.values(DEFAULT_IMAGE).includes(image);
  const target = shared ? "NAME" : image;
  const copy = shared ? `cp -r images/${image} images/NAME, then ` : "";
  const pin = FIXTURE_PLUGINS[m.module];
  if (pin !== undefined) {
    const name = pin.split("==")[0]!;
    return `${where}, which the pytest plugin ${name} defines and images/${image} lacks: ${copy}add ${pin} (Debian bookworm's python3-${name}) to images/${target}/requirements.txt and run ${again} --image ${target} --force`;
  }
  return `${where}, which no conftest.py the suite loads and no plugin in images/${image} defines: it comes from a pytest plugin new-task does not know; when Debian bookworm packages it (apt-cache search python3-pytest), ${copy}add its distribution==version to images/${target}/requirements.txt and run ${again} --image ${target} --force`;
}
