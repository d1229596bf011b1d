// `oracle-new-task` against the real engine: small repositories made here (Python with pytest, JS
// with mocha, Go), each turned into a task from its fix commit and validated healthy at once; bad
// input exits 2 and writes nothing; a SWE-bench dataset of two rows (made the same way) is imported
// with FAIL_TO_PASS / PASS_TO_PASS as the expected tests and graded with SWE-bench predictions.
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lockRegistry } from "@oracle/image-builder";
import { binPath, makeTempRoot, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, makeRepo } from "./fixtures/repos/make-repo.js";

let temp: { root: string; cleanup: () => Promise<void> };
let scratch: string;

const newTask = (args: string[]) =>
  run(binPath("oracle-new-task"), ["--root", temp.root, ...args], { timeoutMs: 900_000 });

async function readTask(id: string) {
  return JSON.parse(await readFile(join(temp.root, "tasks", id, "task.json"), "utf8"));
}

beforeAll(async () => {
  await requireDocker();
  temp = await makeTempRoot({ images: "images" });
  scratch = await mkdtemp(join(tmpdir(), "oracle-new-task-repos-"));
});

afterAll(async () => {
  await temp?.cleanup();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const PY_BASE = {
  "calc/__init__.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n",
  "tests/test_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
  "tests/test_mul.py": "from calc import mul\n\n\ndef test_mul_zero_one():\n    assert mul(2, 0) == 2\n",
};
const PY_FIX = {
  "calc/__init__.py": "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n",
  "tests/test_mul.py":
    "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_mul_zero():\n    assert mul(0, 5) == 0\n",
};

describe("oracle-new-task --repo --fix", () => {
  it("prints its help, and rejects bad input with exit 2 and nothing written", async () => {
    const help = await run(binPath("oracle-new-task"), ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--swebench FILE");
    const repo = join(scratch, "py-bad");
    const [root] = await makeRepo(repo, [PY_BASE, PY_FIX]);
    const cases: Array<[string[], RegExp]> = [
      [[], /say where the task comes from/],
      [["--repo", repo], /--fix COMMIT is missing/],
      [["--repo", repo, "--fix", "nope"], /--fix: 'nope' is not a commit/],
      [["--repo", repo, "--fix", root!], /root commit/],
      [["--repo", join(scratch, "missing"), "--fix", "HEAD"], /is not a git repository/],
      [["--repo", repo, "--fix", "HEAD", "--framework", "rspec"], /--framework: must be one of/],
      [["--repo", repo, "--fix", "HEAD", "--id", "../x"], /--id: '..\/x' is not a task id/],
      [["--repo", repo, "--fix", "HEAD", "--swebench", "x.jsonl"], /two different ways/],
      [["--repo", repo, "--fix", "HEAD", "--tests", "nothing/**"], /adds or changes no test file/],
    ];
    for (const [args, message] of cases) {
      const result = await newTask(args);
      expect(result.stderr, args.join(" ")).toMatch(message);
      expect(result.code, args.join(" ")).toBe(2);
    }
    const tasks = await readdir(join(temp.root, "tasks")).catch(() => []);
    expect(tasks).toEqual([]);
  });

  it("Python: makes a pytest task from a fix commit, validated healthy, with the mirror holding the base alone", async () => {
    const repo = join(scratch, "calc-py");
    const [base, fix] = await makeRepo(repo, [PY_BASE, PY_FIX]);
    // One validation run of each check, as the other cases here (the default, 2, is args.test.ts's).
    const result = await newTask(["--repo", repo, "--fix", "main", "--id", "calc-py", "--repeat", "1"]);
    expect(result.stdout).toContain("tasks/calc-py: healthy");
    expect(result.stdout).toMatch(/expected tests: recorded .*2 failToPass/);
    expect(result.code).toBe(0);
    const task = await readTask("calc-py");
    expect(task.repo.baseCommit).toBe(base);
    expect(task.framework).toBe("pytest");
    expect(task.suites.hidden.command).toMatch(/python3 -m pytest .* tests\/test_mul\.py$/);
    // The existing suite never runs the base version of the test file the fix changes.
    expect(task.suites.existing.command).toMatch(/ tests\/test_add\.py$/);
    expect(task.suites.existing.files).not.toContain("tests/test_mul.py");
    const dir = join(temp.root, "tasks", "calc-py");
    expect(await readFile(join(dir, "hidden-tests/tests/test_mul.py"), "utf8")).toBe(
      PY_FIX["tests/test_mul.py"],
    );
    const gold = await readFile(join(dir, "gold.diff"), "utf8");
    expect(gold).toContain("+    return a * b");
    expect(gold).not.toContain("test_mul");
    const heads = execFileSync("git", ["bundle", "list-heads", join(dir, "repo.bundle")], {
      encoding: "utf8",
    });
    expect(
      heads
        .trim()
        .split("\n")
        .every((line) => line.startsWith(`${base} `)),
    ).toBe(true);
    const clone = join(scratch, "calc-py-mirror");
    execFileSync("git", ["clone", "-q", "--mirror", join(dir, "repo.bundle"), clone]);
    expect(() =>
      execFileSync("git", ["-C", clone, "cat-file", "-e", `${fix}^{commit}`], { stdio: "ignore" }),
    ).toThrow();
    // Validated: graded now, the task is current and the baseline FAILs (healthy above is the
    // validation's gold run of this folder's gold.diff: PASS).
    const grade = (args: string[]) =>
      run(binPath("oracle-grade"), ["calc-py", "--root", temp.root, ...args], { timeoutMs: 300_000 });
    const resultFile = join(scratch, "calc-py-baseline.json");
    expect((await grade(["--baseline", "--result", resultFile])).code).toBe(1);
    const baseline = JSON.parse(await readFile(resultFile, "utf8"));
    expect(baseline.verdict).toBe("FAIL");
    expect(baseline.validation).toBe("current");
    // Made again without --force: refused, the folder untouched.
    const again = await newTask(["--repo", repo, "--fix", "main", "--id", "calc-py"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("tasks/calc-py/ already exists");
  });

  it("JS (mocha): a fix that edits an existing test file; the existing suite leaves that file out", async () => {
    const repo = join(scratch, "slug-js");
    const pkg = JSON.stringify({ name: "words", version: "1.0.0", devDependencies: { mocha: "10.8.2" } });
    await makeRepo(repo, [
      {
        "package.json": pkg,
        "src/words.js":
          "exports.count = (s) => s.split(' ').length;\nexports.upper = (s) => s.toUpperCase();\n",
        "test/upper.test.js":
          "const assert = require('node:assert');\nconst { upper } = require('../src/words');\nit('uppers', () => assert.strictEqual(upper('a'), 'A'));\n",
        "test/count.test.js":
          "const assert = require('node:assert');\nconst { count } = require('../src/words');\nit('counts words', () => assert.strictEqual(count('a b'), 2));\n",
      },
      {
        "src/words.js":
          "exports.count = (s) => s.split(/\\s+/).filter(Boolean).length;\nexports.upper = (s) => s.toUpperCase();\n",
        "test/count.test.js":
          "const assert = require('node:assert');\nconst { count } = require('../src/words');\nit('counts words', () => assert.strictEqual(count('a b'), 2));\nit('collapses runs of spaces', () => assert.strictEqual(count(' a   b '), 2));\n",
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "words-js", "--repeat", "1"]);
    expect(result.stdout).toContain("tasks/words-js: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("words-js");
    expect(task.framework).toBe("mocha");
    expect(task.image).toBe("node-mocha");
    expect(task.suites.hidden.command).toMatch(/mocha .* test\/count\.test\.js$/);
    expect(task.suites.existing.command).toMatch(/mocha .* test\/upper\.test\.js$/);
  });

  it("JS (jest): test files the repository's testMatch names (not *.test.js); their path patterns come before --reporters (an array option that took them as reporters)", async () => {
    const repo = join(scratch, "slug-jest");
    const pkg = JSON.stringify({
      name: "words",
      version: "1.0.0",
      devDependencies: { jest: "30.5.2", "jest-junit": "16.0.0" },
    });
    await makeRepo(repo, [
      {
        "package.json": pkg,
        "jest.config.js":
          "module.exports = {\n  testEnvironment: 'node',\n  // the unit tests, named after their module\n  testMatch: ['<rootDir>/test/**/*.js'],\n};\n",
        "src/words.js":
          "exports.count = (s) => s.split(' ').length;\nexports.upper = (s) => s.toUpperCase();\n",
        "test/upper.js":
          "const { upper } = require('../src/words');\ntest('uppers', () => expect(upper('a')).toBe('A'));\n",
        "test/count.js":
          "const { count } = require('../src/words');\ntest('counts words', () => expect(count('a b')).toBe(2));\n",
      },
      {
        "src/words.js":
          "exports.count = (s) => s.split(/\\s+/).filter(Boolean).length;\nexports.upper = (s) => s.toUpperCase();\n",
        "test/count.js":
          "const { count } = require('../src/words');\ntest('counts words', () => expect(count('a b')).toBe(2));\ntest('collapses runs of spaces', () => expect(count(' a   b ')).toBe(2));\n",
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "words-jest", "--repeat", "1"]);
    expect(result.stdout, result.stderr).toContain("tasks/words-jest: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("words-jest");
    expect(task.framework).toBe("jest");
    expect(task.suites.hidden.command).toMatch(
      /jest .*'\/test\/count\\\.js\$' --reporters=default --reporters=jest-junit$/,
    );
    expect(task.suites.existing.command).toContain("'/test/upper\\.js$'");
  });

  it("Go: the base version of the changed _test.go is removed before the existing suite runs its package", async () => {
    const repo = join(scratch, "clamp-go");
    await makeRepo(repo, [
      {
        "go.mod": "module example.com/clamp\n\ngo 1.19\n",
        "clamp.go":
          "package clamp\n\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\treturn v\n}\n",
        "clamp_test.go":
          'package clamp\n\nimport "testing"\n\nfunc TestLow(t *testing.T) {\n\tif Clamp(-1, 0, 9) != 0 {\n\t\tt.Fatal("low")\n\t}\n}\n',
        "other_test.go":
          'package clamp\n\nimport "testing"\n\nfunc TestInside(t *testing.T) {\n\tif Clamp(5, 0, 9) != 5 {\n\t\tt.Fatal("inside")\n\t}\n}\n',
      },
      {
        "clamp.go":
          "package clamp\n\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\tif v > hi {\n\t\treturn hi\n\t}\n\treturn v\n}\n",
        "clamp_test.go":
          'package clamp\n\nimport "testing"\n\nfunc TestLow(t *testing.T) {\n\tif Clamp(-1, 0, 9) != 0 {\n\t\tt.Fatal("low")\n\t}\n}\n\nfunc TestHigh(t *testing.T) {\n\tif Clamp(10, 0, 9) != 9 {\n\t\tt.Fatal("high")\n\t}\n}\n',
      },
    ]);
    const result = await newTask(["--repo", repo, "--fix", "HEAD", "--id", "clamp-go", "--repeat", "1"]);
    expect(result.stdout).toContain("tasks/clamp-go: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("clamp-go");
    expect(task.framework).toBe("go");
    expect(task.suites.existing.command).toMatch(/^rm -f -- clamp_test\.go && gotestsum .* -- -count=1 \.$/);
    expect(task.suites.existing.files).toContain("other_test.go");
    expect(task.suites.existing.files).not.toContain("clamp_test.go");
    expect(task.env).toMatchObject({ GOPROXY: "off" });
  });

  it("Go: a changed _test.go whose helper another test file uses stays, and the existing suite selects the other tests by name", async () => {
    const repo = join(scratch, "clamp-go-helper");
    // clamp_test.go declares check(), which other_test.go uses (gorilla/mux's newRequest); its base
    // version also holds TestOldHigh, asserting the old behaviour: the existing suite must not run it.
    const helper =
      'func check(t *testing.T, got, want int) {\n\tt.Helper()\n\tif got != want {\n\t\tt.Fatalf("got %d, want %d", got, want)\n\t}\n}\n';
    await makeRepo(repo, [
      {
        "go.mod": "module example.com/clamp\n\ngo 1.19\n",
        "clamp.go":
          "package clamp\n\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\treturn v\n}\n",
        "clamp_test.go": `package clamp\n\nimport "testing"\n\n${helper}\nfunc TestLow(t *testing.T) { check(t, Clamp(-1, 0, 9), 0) }\n\nfunc TestOldHigh(t *testing.T) { check(t, Clamp(10, 0, 9), 10) }\n`,
        "other_test.go":
          'package clamp\n\nimport "testing"\n\nfunc TestInside(t *testing.T) { check(t, Clamp(5, 0, 9), 5) }\n',
      },
      {
        "clamp.go":
          "package clamp\n\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\tif v > hi {\n\t\treturn hi\n\t}\n\treturn v\n}\n",
        "clamp_test.go": `package clamp\n\nimport "testing"\n\n${helper}\nfunc TestLow(t *testing.T) { check(t, Clamp(-1, 0, 9), 0) }\n\nfunc TestHigh(t *testing.T) { check(t, Clamp(10, 0, 9), 9) }\n`,
      },
    ]);
    const result = await newTask([
      "--repo",
      repo,
      "--fix",
      "HEAD",
      "--id",
      "clamp-go-helper",
      "--repeat",
      "1",
    ]);
    expect(result.stdout).toContain("tasks/clamp-go-helper: healthy");
    expect(result.code).toBe(0);
    const task = await readTask("clamp-go-helper");
    expect(task.suites.existing.command).toMatch(/^gotestsum .* -- -count=1 -run '\^\(TestInside\)\$' \.$/);
    expect(task.suites.existing.files).not.toContain("clamp_test.go");
  });
});

/**
 * Starts new-task and resolves `waitingOn` once its stderr matches `line`: the test acts on what the
 * run says, never after a fixed delay.
 */
function startNewTask(args: string[], line: RegExp) {
  const child = spawn(binPath("oracle-new-task"), ["--root", temp.root, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 900_000,
  });
  let stdout = "";
  let stderr = "";
  let seen: () => void;
  const waitingOn = new Promise<void>((done) => {
    seen = done;
  });
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    if (line.test(stderr)) seen();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((finish) =>
    child.on("close", (code) => finish({ code, stdout, stderr })),
  );
  return { waitingOn: Promise.race([waitingOn, done.then(() => undefined)]), done };
}

describe("oracle-new-task while another run holds images/registry.json", () => {
  it("waits for the lock (saying for whom), then goes on; past --lock-wait it fails leaving no task folder, its hints carrying --root", async () => {
    const repo = join(scratch, "locked-py");
    await makeRepo(repo, [PY_BASE, PY_FIX]);
    const args = ["--repo", repo, "--fix", "main", "--id", "locked-py", "--repeat", "1"];
    const held = await lockRegistry(temp.root);
    let release: (() => Promise<void>) | undefined = held;
    try {
      // Past its bound: exit 3, the holder named, no tasks/locked-py/ left, no build log named.
      const refused = await newTask([...args, "--lock-wait", "1"]);
      expect(refused.stderr).toMatch(/waiting for images\/registry\.json: .*\(pid \d+ on /);
      expect(refused.stderr).toMatch(/REGISTRY_LOCKED: .*pid \d+ on .*still after waiting 1 s/);
      expect(refused.stderr).toContain(`run pnpm build-images --root ${temp.root} again`);
      expect(refused.stderr).not.toContain("logs/build");
      expect(refused.code).toBe(3);
      expect(await readdir(join(temp.root, "tasks")).catch(() => [])).not.toContain("locked-py");
      // Within it: new-task says it waits, and goes on once the holder lets go (no --force needed).
      const second = startNewTask(args, /waiting for images\/registry\.json/);
      await second.waitingOn;
      expect(await readdir(join(temp.root, "tasks")).catch(() => [])).not.toContain("locked-py");
      release = undefined;
      await held();
      const result = await second.done;
      expect(result.stderr).toMatch(
        /waiting for images\/registry\.json: .*\(pid \d+ on .*waiting up to 1800 s/,
      );
      expect(result.stdout).toContain("tasks/locked-py: healthy");
      expect(result.code).toBe(0);
    } finally {
      await release?.();
    }
  });
});

describe("oracle-new-task --swebench", () => {
  it("imports SWE-bench rows (bad rows: file:LINE: field, nothing written), validates them, grades SWE-bench predictions", async () => {
    const repos = join(scratch, "repos");
    const repo = join(repos, "acme", "shapes");
    const base = {
      "shapes/__init__.py":
        "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return w + h\n\n\ndef square(s):\n    return s + s\n",
      "tests/test_area.py": "from shapes import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n",
    };
    const [baseSha] = await makeRepo(repo, [base]);
    // Each fix on its own branch; the rows carry their patches, the clone keeps only the base on main.
    const fixes: Array<{ id: string; code: [string, string]; test: [string, string]; f2p: string[] }> = [
      {
        id: "acme__shapes-1",
        code: ["return w + h\n", "return 2 * (w + h)\n"],
        test: [
          "tests/test_perimeter.py",
          "from shapes import perimeter\n\n\ndef test_perimeter():\n    assert perimeter(2, 3) == 10\n",
        ],
        f2p: ["tests/test_perimeter.py::test_perimeter"],
      },
      {
        id: "acme__shapes-2",
        code: ["return s + s\n", "return s * s\n"],
        test: [
          "tests/test_square.py",
          "from shapes import square\n\n\ndef test_square():\n    assert square(3) == 9\n",
        ],
        f2p: ["tests/test_square.py::test_square"],
      },
    ];
    const rows: Array<Record<string, unknown>> = [];
    for (const fix of fixes) {
      git(repo, "checkout", "-q", "-b", fix.id, baseSha!);
      const file = join(repo, "shapes/__init__.py");
      await writeFile(file, (await readFile(file, "utf8")).replace(fix.code[0], fix.code[1]));
      const patch = git(repo, "diff");
      git(repo, "checkout", "-q", "--", ".");
      await writeFile(join(repo, fix.test[0]), fix.test[1]);
      git(repo, "add", "-N", fix.test[0]);
      const testPatch = git(repo, "diff");
      git(repo, "reset", "-q");
      await rm(join(repo, fix.test[0]));
      git(repo, "checkout", "-q", "main");
      rows.push({
        instance_id: fix.id,
        repo: "acme/shapes",
        base_commit: baseSha,
        patch: `${patch}\n`,
        test_patch: `${testPatch}\n`,
        FAIL_TO_PASS: JSON.stringify(fix.f2p),
        PASS_TO_PASS: JSON.stringify(["tests/test_area.py::test_area"]),
        version: "1.0",
      });
    }
    const dataset = join(scratch, "dataset.jsonl");
    const bad = join(scratch, "bad.jsonl");
    await writeFile(
      bad,
      `${JSON.stringify(rows[0])}\n${JSON.stringify({ ...rows[1], base_commit: "abc" })}\n`,
    );
    const refused = await newTask(["--swebench", bad, "--repos", repos]);
    expect(refused.stderr).toContain(`${bad}:2: base_commit: must be a full 40-character hex commit sha`);
    expect(refused.code).toBe(2);
    expect(await readdir(join(temp.root, "tasks")).catch(() => [])).not.toContain("acme__shapes-1");

    await writeFile(dataset, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const imported = await newTask(["--swebench", dataset, "--repos", repos, "--repeat", "1"]);
    expect(imported.stdout).toContain("tasks/acme__shapes-1: healthy");
    expect(imported.stdout).toContain("tasks/acme__shapes-2: healthy");
    expect(imported.code).toBe(0);
    const task = await readTask("acme__shapes-1");
    expect(task.suites.hidden.expected).toEqual({ failToPass: ["tests/test_perimeter.py::test_perimeter"] });
    expect(task.suites.existing.expected).toEqual({ passToPass: ["tests/test_area.py::test_area"] });
    expect(task.suites.hidden.command).toMatch(/ tests\/test_perimeter\.py$/);

    // SWE-bench predictions: the first row's gold patch resolves it, the second gets an empty patch.
    const preds = join(scratch, "preds.jsonl");
    await writeFile(
      preds,
      [
        { instance_id: "acme__shapes-1", model_name_or_path: "m", model_patch: rows[0]!.patch },
        { instance_id: "acme__shapes-2", model_name_or_path: "m", model_patch: "" },
      ]
        .map((p) => JSON.stringify(p))
        .join("\n"),
    );
    const out = join(scratch, "out");
    const batch = await run(binPath("oracle-grade"), ["--root", temp.root, "--batch", preds, "--out", out], {
      timeoutMs: 600_000,
    });
    expect(batch.code, batch.stderr).toBe(0);
    // Validated by new-task: both count in the pass rate (none is set apart as not validated).
    expect(batch.stderr).toContain("pass rate 50.0%: 1 PASS / 2 graded");
    const report = JSON.parse(await readFile(join(out, "swebench-report.json"), "utf8"));
    expect(report.resolved_ids).toEqual(["acme__shapes-1"]);
    expect(report.empty_patch_ids).toEqual(["acme__shapes-2"]);
  });
});
