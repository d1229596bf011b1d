// chooseImage's own Node image for a repository: resolved with npm against the npm registry (the
// registry every build here reaches), so these cases take seconds, not milliseconds.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isOracleError } from "@oracle/spec";
import { afterEach, describe, expect, it } from "vitest";
import { chooseImage, unservedPackage } from "./image.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const temp = async () => {
  const dir = await mkdtemp(join(tmpdir(), "oracle-image-test-"));
  dirs.push(dir);
  return dir;
};
const npm = (cwd: string, ...args: string[]) =>
  execFileSync("npm", [...args, "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier"], {
    cwd,
    stdio: "pipe",
  });
const locked = (lock: string, name: string): string | undefined =>
  (JSON.parse(lock) as { packages: Record<string, { version?: string }> }).packages[`node_modules/${name}`]
    ?.version;

describe("chooseImage: a JS repository's own image", () => {
  it("starts from the repository's package-lock.json: its pinned versions, not the newest", async () => {
    // The repository pins left-pad 1.1.3 under the range ^1.1.0 (the newest is 1.3.0).
    const repo = await temp();
    await writeFile(join(repo, "package.json"), JSON.stringify({ name: "r", version: "1.0.0" }));
    npm(repo, "install", "--package-lock-only", "--save-exact", "left-pad@1.1.3");
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      dependencies: { "left-pad": "^1.1.0" },
    });
    const lockfile = await readFile(join(repo, "package-lock.json"), "utf8");
    expect(locked(lockfile, "left-pad")).toBe("1.1.3");

    const root = await temp();
    const choice = await chooseImage({
      root,
      framework: "mocha",
      taskId: "r-1",
      repoPackageJson: packageJson,
      repoLockfile: lockfile,
    });
    expect(choice.name).toBe("r-1");
    const image = await readFile(join(root, "images", "r-1", "package-lock.json"), "utf8");
    expect(locked(image, "left-pad")).toBe("1.1.3");
    expect(locked(image, "mocha")).toBeDefined();
    expect(choice.notes.join("\n")).toContain("starts from the repository's own package-lock.json");

    // Without it, npm takes the newest the range allows.
    const fresh = await temp();
    await chooseImage({ root: fresh, framework: "mocha", taskId: "r-1", repoPackageJson: packageJson });
    const newest = await readFile(join(fresh, "images", "r-1", "package-lock.json"), "utf8");
    expect(locked(newest, "left-pad")).not.toBe("1.1.3");
  }, 180_000);

  it("a plugin pinned to another runner major: the repository's own runner, and a note", async () => {
    // @vitest/coverage-v8 1.6.0 wants vitest 1.6.0 as a peer; the template pins vitest 2.
    const root = await temp();
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      devDependencies: { vitest: "1.6.0", "@vitest/coverage-v8": "1.6.0" },
    });
    const choice = await chooseImage({
      root,
      framework: "vitest",
      taskId: "r-2",
      repoPackageJson: packageJson,
    });
    const image = await readFile(join(root, "images", "r-2", "package-lock.json"), "utf8");
    expect(locked(image, "vitest")).toBe("1.6.0");
    expect(choice.notes.join("\n")).toMatch(/ERESOLVE.*uses the repository's own vitest 1\.6\.0/);
  }, 180_000);

  it("a locked plugin whose peer range the template's runner breaks: the repository's own runner", async () => {
    // The repository locks ts-jest 29.3.1 (peer jest ^29) and jest 29.7.0; npm keeps ts-jest 29.3.1
    // beside the template's jest 30 without a word, and the image's npm ci then refuses the lockfile.
    const repo = await temp();
    await writeFile(join(repo, "package.json"), JSON.stringify({ name: "r", version: "1.0.0" }));
    npm(
      repo,
      "install",
      "--package-lock-only",
      "--save-dev",
      "--save-exact",
      "jest@29.7.0",
      "ts-jest@29.3.1",
    );
    const lockfile = await readFile(join(repo, "package-lock.json"), "utf8");
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      devDependencies: { jest: "^29.7.0", "ts-jest": "^29.0.3" },
    });
    const root = await temp();
    const choice = await chooseImage({
      root,
      framework: "jest",
      taskId: "r-5",
      repoPackageJson: packageJson,
      repoLockfile: lockfile,
    });
    const image = await readFile(join(root, "images", "r-5", "package-lock.json"), "utf8");
    expect(locked(image, "jest")).toBe("29.7.0");
    expect(locked(image, "ts-jest")).toBe("29.3.1");
    expect(choice.notes.join("\n")).toMatch(/uses the repository's own jest \^29\.7\.0/);
  }, 240_000);

  it("a version the registry no longer serves, pinned by the repository: left out, with a note", async () => {
    const root = await temp();
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      devDependencies: { "left-pad": "1.1.99", "is-number": "7.0.0" },
    });
    const choice = await chooseImage({
      root,
      framework: "mocha",
      taskId: "r-4",
      repoPackageJson: packageJson,
    });
    const image = await readFile(join(root, "images", "r-4", "package-lock.json"), "utf8");
    expect(locked(image, "left-pad")).toBeUndefined();
    expect(locked(image, "is-number")).toBe("7.0.0");
    expect(choice.notes.join("\n")).toContain("the registry does not serve left-pad@1.1.99");
  }, 180_000);

  it("dependencies npm cannot resolve: IMAGE_INVALID with npm's words and a hint, no folder left", async () => {
    const root = await temp();
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      // react-dom 18 wants react 18 as a peer
      dependencies: { react: "17.0.2", "react-dom": "18.2.0" },
    });
    const error = await chooseImage({
      root,
      framework: "mocha",
      taskId: "r-3",
      repoPackageJson: packageJson,
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isOracleError(error, "IMAGE_INVALID")).toBe(true);
    expect((error as Error).message).toMatch(/npm cannot resolve[\s\S]*react/);
    expect((error as { hint?: string }).hint).toMatch(/--image r-3/);
    await expect(readFile(join(root, "images", "r-3", "package.json"))).rejects.toThrow();
  }, 180_000);

  it("reads which package npm says the registry does not serve", () => {
    expect(unservedPackage("npm error notarget No matching version found for top-sites@1.1.89.")).toBe(
      "top-sites",
    );
    expect(
      unservedPackage(
        "npm error 404  The requested resource '@scope/pkg@1.0.0' could not be found or you do not have permission",
      ),
    ).toBe("@scope/pkg");
    expect(unservedPackage("npm error 404  'left-pad@9.9.9' is not in this registry.")).toBe("left-pad");
    expect(unservedPackage("npm error code ERESOLVE")).toBeNull();
  });
});
