import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CONTAINER_SANDBOX } from "./container-config.js";
import { prepScript } from "./prep.js";
import { runnerGuardFor, runnerGuardLines } from "./runner-guard.js";

const task = (env: Record<string, string>, existing = "python3 -m pytest", hidden = existing) => ({
  env,
  suites: { existing: { command: existing, files: [] }, hidden: { command: hidden } },
});

describe("runnerGuardFor", () => {
  it("always holds the checkout root", () => {
    expect(runnerGuardFor(task({}))).toEqual({ startDirs: ["."], imageDirs: [] });
  });

  it("adds the task's PYTHONPATH entries: inside the checkout relative, outside as image folders", () => {
    const guard = runnerGuardFor(task({ PYTHONPATH: "src:/work/repo/lib/:./x/../y:/opt/deps::../up" }));
    expect(guard).toEqual({ startDirs: [".", "lib", "src", "y"], imageDirs: ["/opt/deps", "/work/up"] });
  });

  it("reads PYTHONPATH assignments and cd in the commands, best effort", () => {
    const guard = runnerGuardFor(
      task({}, "PYTHONPATH=src:$PYTHONPATH python3 -m pytest", "cd 'pkg dir' && PYTHONPATH=\"a:b\" pytest"),
    );
    expect(guard.startDirs).toEqual([".", "a", "b", "pkg dir", "src"]);
  });

  it("reads $PWD (the suite's cwd is the checkout) and skips what it cannot know", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
    const guard = runnerGuardFor(task({}, 'PYTHONPATH="$PWD/lib:${HOME}/x:$(pwd)" python3 -m pytest'));
    expect(guard).toEqual({ startDirs: [".", "lib"], imageDirs: [] });
  });
});

const root = mkdtempSync(join(tmpdir(), "oracle-runner-guard-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;

/** A repository with `base` committed, then `after` written (null deletes), and the guard run as the prep runs it. */
function guard(
  base: Record<string, string>,
  after: Record<string, string | null>,
  startDirs = ["."],
  env: NodeJS.ProcessEnv = process.env,
) {
  const dir = join(root, String(count++));
  const write = (files: Record<string, string | null>) => {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) rmSync(join(dir, path), { recursive: true, force: true });
      else {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), content);
      }
    }
  };
  mkdirSync(dir);
  write({ "README.md": "base\n", ...base });
  const git = "git -c user.name=t -c user.email=t@t.invalid";
  const init = spawnSync("sh", ["-c", `${git} init -q . && ${git} add -A && ${git} commit -q -m base`], {
    cwd: dir,
    encoding: "utf8",
  });
  expect(init.status, init.stderr).toBe(0);
  write(after);
  const script = [
    "set -u",
    `fail() { code=$1; shift; printf 'oracle-prep: %s\\n' "$*" >&2; exit "$code"; }`,
    "t0=$(git rev-parse 'HEAD^{tree}')",
    "git add -A -f && t1=$(git write-tree) && git reset -q || exit 99",
    ...runnerGuardLines({ startDirs, imageDirs: [] }, { shadow: 16, guard: 17 }),
    "exit 0",
  ].join("\n");
  const check = spawnSync("/bin/sh", ["-c", script], { cwd: dir, encoding: "utf8", env });
  return { code: check.status, stderr: check.stderr, stdout: check.stdout };
}

describe("runnerGuardLines (run in sh with this host's git and python3)", () => {
  it.each<[string, Record<string, string>]>([
    ["a package named like a stdlib module", { "json/__init__.py": "" }],
    ["a module file named like a stdlib module", { "email.py": "" }],
    ["a compiled module", { "types.cpython-311-x86_64-linux-gnu.so": "" }],
    ["a sourceless module", { "enum.pyc": "" }],
    ["an interpreter start-up hook", { "sitecustomize.py": "" }],
    ["lower-case dist-info", { "x-1.0.dist-info/entry_points.txt": "[pytest11]\n" }],
    ["upper-case DIST-INFO", { "calc.DIST-INFO/entry_points.txt": "[pytest11]\n" }],
    ["egg-info in mixed case", { "X.Egg-Info/entry_points.txt": "" }],
    ["an egg-link", { "x.EGG-LINK": "/tmp\n" }],
    ["a .pth file", { "evil.PTH": "import os\n" }],
    ["node_modules at the root", { "node_modules/mocha/index.js": "" }],
    ["node_modules below the tests", { "checks/node_modules/chai/index.js": "" }],
  ])("fails %s with the shadow code, naming it", (_name, files) => {
    const out = guard({}, files);
    expect(out.code, out.stderr).toBe(16);
    expect(out.stderr).toContain(Object.keys(files)[0]?.split("/")[0]);
    expect(out.stderr).toMatch(/DIFF_SHADOWS_RUNNER/);
    expect(out.stdout).toBe("");
  });

  it.each<[string, Record<string, string>, Record<string, string | null>]>([
    ["new modules under a package of the project", { "calc/__init__.py": "" }, { "calc/json.py": "" }],
    ["a new top-level module with its own name", {}, { "calc_helpers.py": "x = 1\n" }],
    ["a namespace folder named like a module (no __init__)", {}, { "json/data.txt": "" }],
    ["a change to a top-level module the base already has", { "types.py": "a\n" }, { "types.py": "b\n" }],
    ["a new file in a package the base already has", { "json/__init__.py": "" }, { "json/extra.py": "" }],
    ["deleting a module the base had", { "email.py": "" }, { "email.py": null }],
    ["a file without a module suffix", {}, { "json.txt": "", "email.md": "" }],
    ["packaging metadata deeper than a start folder", {}, { "docs/x.dist-info/entry_points.txt": "" }],
  ])("lets %s through", (_name, base, after) => {
    const out = guard(base, after);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe("");
  });

  it("without python3 in the image, node_modules still fails and the rest is let through", () => {
    const bin = join(root, "bin-without-python");
    mkdirSync(bin);
    for (const tool of ["git", "head"])
      symlinkSync(
        execFileSync("sh", ["-c", `command -v ${tool}`])
          .toString()
          .trim(),
        join(bin, tool),
      );
    const env = { ...process.env, PATH: bin };
    expect(guard({}, { "node_modules/.bin/mocha": "" }, ["."], env)).toMatchObject({ code: 16 });
    expect(guard({}, { "a/node_modules/x.js": "" }, ["."], env).stderr).toMatch(/a\/node_modules\/x\.js/);
    expect(guard({}, { "json/__init__.py": "", "node_modulesx/y.js": "" }, ["."], env)).toMatchObject({
      code: 0,
    });
  });

  it("a PYTHONPATH folder is a start folder like the root", () => {
    expect(guard({}, { "src/json/__init__.py": "" }, [".", "src"]).code).toBe(16);
    expect(guard({}, { "src/json/__init__.py": "" }, ["."]).code).toBe(0);
    expect(guard({}, { "src/y.dist-info/entry_points.txt": "" }, [".", "src"]).code).toBe(16);
  });
});

describe("prepScript runs the guard", () => {
  const plan = {
    baseCommit: "a".repeat(40),
    mirror: "/oracle/mirror",
    applyDiff: true,
    reset: ["tests/t.py"],
    hiddenFiles: null,
    reportDir: "/oracle/report/existing",
    list: true,
    runnerGuard: { startDirs: ["."], imageDirs: [] },
    sandbox: CONTAINER_SANDBOX,
  };

  it("after the listing and the reset, in valid sh", () => {
    const script = prepScript(plan);
    expect(spawnSync("sh", ["-n", "-c", script]).status).toBe(0);
    expect(script.indexOf("python3 -I -c")).toBeGreaterThan(script.indexOf("git checkout -q HEAD --"));
    expect(script.indexOf("python3 -I -c")).toBeGreaterThan(script.indexOf("git diff --name-only -z"));
  });

  it("only in list mode and with a diff (nothing to check otherwise)", () => {
    expect(prepScript({ ...plan, list: false })).not.toContain("python3");
    expect(prepScript({ ...plan, applyDiff: false })).not.toContain("python3");
    expect(prepScript({ ...plan, runnerGuard: null })).not.toContain("python3");
  });
});
