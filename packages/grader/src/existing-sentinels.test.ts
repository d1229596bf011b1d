import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { basePackageScripts } from "./existing-sentinels.js";

const work = mkdtempSync(join(tmpdir(), "oracle-scripts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A repository whose base commit holds `files`; a later commit changes the root's test script. */
function repoWith(files: Record<string, string>): { gitDir: string; base: string } {
  const dir = join(work, `repo-${Object.keys(files).length}`);
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      encoding: "utf8",
    });
  mkdirSync(dir, { recursive: true });
  git("init", "-q");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git("add", "-A");
  git("commit", "-qm", "base");
  const base = git("rev-parse", "HEAD").trim();
  writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "jest" } }));
  git("commit", "-qam", "later");
  return { gitDir: join(dir, ".git"), base };
}

describe("basePackageScripts", () => {
  it("reads the base commit's scripts of the packages the commands run in, upwards, and nothing else", async () => {
    const { gitDir, base } = repoWith({
      "package.json": JSON.stringify({ scripts: { test: "mocha 'test/*.test.js'", n: 3 } }),
      "web/package.json": JSON.stringify({ scripts: { test: "vitest run" } }),
      "bad/package.json": "{ not json",
      "bom/package.json": `\uFEFF${JSON.stringify({ name: "bom" })}`,
      "other/package.json": JSON.stringify({ scripts: { test: "jest" } }),
    });
    const scripts = await basePackageScripts(gitDir, base, [
      "cd web/src && npm test -- a.js",
      "cd bad && npm test",
      "cd bom && npm test",
      "mocha test",
    ]);
    // The root's script as the base commit has it (the later commit's jest is not read); a script
    // that is not a string is dropped; other/ is named by no command; bad/ is there but not JSON.
    expect(Object.fromEntries(scripts)).toEqual({
      "": { test: "mocha 'test/*.test.js'" },
      web: { test: "vitest run" },
      bad: null,
      // A byte-order mark is read past, as npm does; no scripts is none.
      bom: {},
    });
  });

  it("reads nothing for commands that run no package script", async () => {
    const { gitDir, base } = repoWith({ "package.json": "{}", "a.txt": "" });
    expect((await basePackageScripts(gitDir, base, ["pytest tests", "go test ./..."])).size).toBe(0);
  });
});
