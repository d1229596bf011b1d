import { DEFAULT_DENY } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { type DiffRules, filterDiff, pathsToReset } from "./filter.js";
import { DiffParseError } from "./split.js";

const ALL: { allow: string[]; deny: string[] } = { allow: ["**"], deny: [] };
const run = (text: string, rules: DiffRules = ALL) => filterDiff(Buffer.from(text, "latin1"), rules);
const kept = (text: string, rules = ALL) => run(text, rules).kept.map((f) => f.newPath ?? f.oldPath);
const why = (text: string, rules: DiffRules = ALL) =>
  run(text, rules).dropped.map((d) => `${d.path}: ${d.why}`);

const modify = (path: string, a = "a/", b = "b/") =>
  `diff --git ${a}${path} ${b}${path}\nindex 1111111..2222222 100644\n--- ${a}${path}\n+++ ${b}${path}\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n`;

describe("filterDiff keeps what the rules admit, byte for byte", () => {
  it("keeps a plain modification whole and hashes before/after", () => {
    const text = modify("src/x.js");
    const result = run(text);
    expect(result.filtered.toString("latin1")).toBe(text);
    expect(result.sha256).toBe(result.filteredSha256);
    expect(result.expectedChanged).toEqual(["src/x.js"]);
  });

  it("drops text outside file sections (commit message preamble, trailer)", () => {
    const text = `From abc Mon Sep 17 00:00:00 2001\nSubject: fix\n\n---\n${modify("a.py")}-- \n2.39.5\n`;
    expect(run(text).filtered.toString("latin1")).toBe(modify("a.py"));
  });

  it("handles several hunks, no-newline markers and CRLF content", () => {
    const text =
      "diff --git a/w.txt b/w.txt\n--- a/w.txt\n+++ b/w.txt\n@@ -1 +1 @@\n-a\r\n+b\r\n@@ -5,2 +5,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n";
    const result = run(text);
    expect(result.kept[0]?.hunks.map((h) => h.header)).toEqual(["@@ -1 +1 @@", "@@ -5,2 +5,2 @@"]);
    expect(result.filtered.toString("latin1")).toBe(text);
  });

  it("accepts a traditional diff without the git header", () => {
    expect(kept("--- a/x.c\t2024-01-01\n+++ b/x.c\t2024-01-02\n@@ -1 +1 @@\n-a\n+b\n")).toEqual(["x.c"]);
  });

  it("understands new, deleted, renamed, copied and mode-changed files", () => {
    const text = [
      "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..e69de29\n",
      "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex e69de29..0000000\n",
      "diff --git a/old name.py b/new name.py\nsimilarity index 100%\nrename from old name.py\nrename to new name.py\n",
      "diff --git a/src.c b/copy.c\nsimilarity index 100%\ncopy from src.c\ncopy to copy.c\n",
      "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
    ].join("");
    const result = run(text);
    expect(result.kept.map((f) => f.kind)).toEqual(["create", "delete", "rename", "copy", "modify"]);
    expect(result.expectedChanged.sort()).toEqual([
      "copy.c",
      "gone.txt",
      "new name.py",
      "new.txt",
      "old name.py",
      "run.sh",
    ]);
  });

  it("decodes C-quoted names with octal escapes (non-UTF-8 bytes survive)", () => {
    const text =
      'diff --git "a/caf\\303\\251 \\"q\\".txt" "b/caf\\303\\251 \\"q\\".txt"\nnew file mode 100644\n--- /dev/null\n+++ "b/caf\\303\\251 \\"q\\".txt"\n@@ -0,0 +1 @@\n+x\n';
    const result = run(text);
    expect(result.dropped).toEqual([]);
    expect(Buffer.from(result.expectedChanged[0]!, "latin1").toString("utf8")).toBe('café "q".txt');
  });

  it("keeps binary patches (literal and reverse blocks)", () => {
    const text =
      "diff --git a/img.png b/img.png\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 5\nMcmZ?wbhEHb1\n\nliteral 0\nHcmV?d00001\n\n";
    const result = run(text);
    expect(result.kept[0]?.binary).toBe(true);
    expect(result.filtered.toString("latin1")).toBe(text);
  });
});

describe("filterDiff always drops what may never be touched", () => {
  it.each([
    ["../outside.txt", "escapes"],
    ["src/../../etc/passwd", "escapes"],
    [".git/config", ".git/"],
    [".GIT/hooks/pre-commit", ".git/"],
    ["sub/.Git/HEAD", ".git/"],
    ["sub/.git", ".git/"],
    [".git./config", ".git/"],
    ["GIT~1/config", ".git/"],
  ])("%s", (path, reason) => {
    expect(why(modify(path)).join()).toContain(reason);
  });

  it("absolute names: -p1 strips the first component as git does; rename lines are not stripped", () => {
    expect(run("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n").expectedChanged).toEqual([
      "etc/passwd",
    ]);
    const text = "diff --git a/ok.txt b/etc/x\nsimilarity index 100%\nrename from ok.txt\nrename to /etc/x\n";
    expect(why(text).join()).toContain("absolute path");
  });

  it("a rename whose source is fine but target escapes", () => {
    const text =
      "diff --git a/ok.txt b/../x.txt\nsimilarity index 100%\nrename from ok.txt\nrename to ../x.txt\n";
    expect(why(text).join()).toContain("escapes");
  });

  it("symlinks: new file, mode change and index line", () => {
    const created =
      "diff --git a/link b/link\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n";
    expect(why(created)).toEqual(["link: symlink mode 120000"]);
    expect(why("diff --git a/f b/f\nold mode 100644\nnew mode 120000\n").join()).toContain("symlink");
    expect(
      why(
        "diff --git a/l b/l\nindex 1111111..2222222 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-x\n+y\n",
      ).join(),
    ).toContain("symlink");
  });

  it("gitlinks", () => {
    expect(
      why(
        "diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..1111111\n--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit 1111111111111111111111111111111111111111\n",
      ).join(),
    ).toContain("gitlink");
  });

  it("logs every hunk of a dropped file with its header", () => {
    const text =
      "diff --git a/.git/x b/.git/x\n--- a/.git/x\n+++ b/.git/x\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n";
    expect(run(text).dropped).toEqual([
      { path: ".git/x", hunk: "@@ -1 +1 @@", why: "path inside .git/" },
      { path: ".git/x", hunk: "@@ -9 +9 @@", why: "path inside .git/" },
    ]);
  });
});

describe("filterDiff applies the task's globs", () => {
  const rules = { allow: ["src/**", "*.md"], deny: ["src/**/*.test.js", "**/conftest.py"] };
  it("deny wins over allow; not allowed is dropped; dotfiles match", () => {
    const text =
      modify("src/a.js") +
      modify("src/a.test.js") +
      modify("lib/b.js") +
      modify("src/.hidden.js") +
      modify("x/conftest.py");
    expect(kept(text, rules)).toEqual(["src/a.js", "src/.hidden.js"]);
    expect(why(text, rules)).toEqual([
      "src/a.test.js: matches diff.deny 'src/**/*.test.js'",
      "lib/b.js: not matched by diff.allow",
      "x/conftest.py: matches diff.deny '**/conftest.py'",
    ]);
  });

  it("the default deny list applies after the task's own, with its own reason", () => {
    const text = modify("src/a.js") + modify("src/conftest.py") + modify("src/b.test.js");
    const withDefaults: DiffRules = {
      allow: ["src/**"],
      deny: ["src/**/*.test.js"],
      defaultDeny: ["**/conftest.py", "**/*.test.js"],
    };
    expect(why(text, withDefaults)).toEqual([
      "src/conftest.py: matches the default deny list '**/conftest.py' (diff.denyDefaults)",
      "src/b.test.js: matches diff.deny 'src/**/*.test.js'",
    ]);
  });

  it("deny globs, the task's and the defaults, ignore letter case; allow globs do not", () => {
    const text =
      modify("calc.DIST-INFO/entry_points.txt") +
      modify("X.Egg-Info/entry_points.txt") +
      modify("Src/Conftest.PY") +
      modify("SRC/a.js");
    const rules: DiffRules = {
      allow: ["src/**", "Src/**", "*/**"],
      deny: ["src/**/conftest.py"],
      defaultDeny: DEFAULT_DENY,
    };
    expect(why(text, rules)).toEqual([
      "calc.DIST-INFO/entry_points.txt: matches the default deny list '**/*.dist-info/**' (diff.denyDefaults)",
      "X.Egg-Info/entry_points.txt: matches the default deny list '**/*.egg-info/**' (diff.denyDefaults)",
      "Src/Conftest.PY: matches diff.deny 'src/**/conftest.py'",
    ]);
    expect(kept(modify("SRC/a.js"), { allow: ["src/**"], deny: [] })).toEqual([]);
  });

  it("the files pnpm and yarn read in place of package.json, or run as yarn itself, are denied by default (red team, npm scripts)", () => {
    const text = [
      "sub/package.yaml",
      "sub/package.json5",
      ".yarn/releases/yarn-4.5.0.cjs",
      ".yarn/plugins/@yarnpkg/plugin-x.cjs",
      ".pnp.cjs",
      ".pnp.loader.mjs",
      "src/fix.js",
    ]
      .map((path) => modify(path))
      .join("");
    expect(run(text, { ...ALL, defaultDeny: DEFAULT_DENY }).kept.map((f) => f.newPath)).toEqual([
      "src/fix.js",
    ]);
  });

  it("coverage's configuration is denied by default: its plugins load when pytest-cov starts coverage, before any test", () => {
    const text = [".coveragerc", "sub/.coveragerc", "src/fix.py"].map((path) => modify(path)).join("");
    expect(run(text, { ...ALL, defaultDeny: DEFAULT_DENY }).kept.map((f) => f.newPath)).toEqual([
      "src/fix.py",
    ]);
  });

  it("a rename into a denied path is dropped although its source is allowed", () => {
    const text =
      "diff --git a/src/a.js b/src/a.test.js\nsimilarity index 100%\nrename from src/a.js\nrename to src/a.test.js\n";
    expect(why(text, rules)).toEqual(["src/a.test.js: matches diff.deny 'src/**/*.test.js'"]);
  });

  it("nothing left: an empty filtered diff", () => {
    const result = run(modify("lib/b.js"), rules);
    expect(result.kept).toEqual([]);
    expect(result.filtered.length).toBe(0);
  });
});

describe("filterDiff refuses what it cannot parse", () => {
  it.each([
    ["garbage", "this is not a diff\nat all\n"],
    ["a hunk cut short", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n"],
    ["a corrupt hunk line", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n*b\n+c\n"],
    ["a malformed hunk header", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -x +y @@\n"],
    ["a hunk longer than its header", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n-b\n+c\n"],
    ["corrupt binary data", "diff --git a/x b/x\nGIT binary patch\nliteral 3\n!!!\n\n"],
    ["a git header without names", "diff --git a/x b/y z\n"],
  ])("%s", (_name, text) => {
    expect(() => run(text)).toThrow(DiffParseError);
  });

  it("an empty diff parses to nothing", () => {
    expect(run("").kept).toEqual([]);
  });
});

describe("pathsToReset", () => {
  it("names kept paths under the existing suite's globs, old and new names of renames", () => {
    const text =
      modify("tests/test_a.py") +
      modify("src/a.py") +
      "diff --git a/tests/t.py b/src/t.py\nsimilarity index 100%\nrename from tests/t.py\nrename to src/t.py\n";
    expect(pathsToReset(run(text).kept, ["tests/**"]).sort()).toEqual(["tests/t.py", "tests/test_a.py"]);
  });
});
