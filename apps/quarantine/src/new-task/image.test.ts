// chooseImage's own Node image for a repository: resolved with npm against the npm registry (the
// registry every build here reaches), so these cases take seconds, not milliseconds. Half of those
// seconds are npm waiting on the registry (measured: 41 s of CPU in 82 s), so the cases run at once,
// each in folders of its own.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { isOracleError } from "@oracle/spec";
import { afterAll, describe, expect, it } from "vitest";
import {
  chooseImage,
  foreignPlatformPackages,
  IMAGE_NODE,
  peerClash,
  runnerNeeds,
  runnersNeedingNewerNode,
  TEMPLATE_IMAGES,
  unservedPackage,
  withVitestCacheLink,
} from "./image.js";

const dirs: string[] = [];
// After all: the cases run at once, and each one's folders must outlive the others' ends.
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const temp = async () => {
  const dir = await mkdtemp(join(tmpdir(), "oracle-image-test-"));
  dirs.push(dir);
  return dir;
};
const npm = (cwd: string, ...args: string[]) =>
  promisify(execFile)(
    "npm",
    [...args, "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier"],
    {
      cwd,
    },
  );
const locked = (lock: string, name: string): string | undefined =>
  (JSON.parse(lock) as { packages: Record<string, { version?: string }> }).packages[`node_modules/${name}`]
    ?.version;

describe.concurrent("chooseImage: a JS repository's own image", () => {
  it("starts from the repository's package-lock.json: its pinned versions, not the newest", async () => {
    // The repository pins left-pad 1.1.3 under the range ^1.1.0 (the newest is 1.3.0).
    const repo = await temp();
    await writeFile(join(repo, "package.json"), JSON.stringify({ name: "r", version: "1.0.0" }));
    await npm(repo, "install", "--package-lock-only", "--save-exact", "left-pad@1.1.3");
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

  it("a pnpm or yarn repository: the runner its lockfile pins, not the newest of its range, and a note", async () => {
    // mocha ^10.0.0 would be 10.8.2 (the newest 10); the repository's pnpm-lock.yaml says 10.2.0.
    const root = await temp();
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      devDependencies: { mocha: "^10.0.0", "left-pad": "1.3.0" },
    });
    const choice = await chooseImage({
      root,
      framework: "mocha",
      taskId: "r-pnpm",
      repoPackageJson: packageJson,
      repoLockedRunners: { file: "pnpm-lock.yaml", versions: { mocha: "10.2.0" } },
    });
    const image = await readFile(join(root, "images", "r-pnpm", "package-lock.json"), "utf8");
    expect(locked(image, "mocha")).toBe("10.2.0");
    expect(choice.notes.join("\n")).toContain(
      "the repository's pnpm-lock.yaml pins mocha 10.2.0 (npm reads only package-lock.json): images/r-pnpm/ takes it",
    );
  }, 180_000);

  it("a plugin pinned to a runner major the image's Node cannot run: the image's runner, the plugin left out, and a note", async () => {
    // vitest 4 asks for Node 20 (the images have 18); @vitest/coverage-v8 4 wants vitest 4 as a peer.
    const root = await temp();
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      devDependencies: { vitest: "4.0.16", "@vitest/coverage-v8": "4.0.16", "left-pad": "1.3.0" },
    });
    const choice = await chooseImage({
      root,
      framework: "vitest",
      taskId: "r-4",
      repoPackageJson: packageJson,
    });
    const image = await readFile(join(root, "images", "r-4", "package-lock.json"), "utf8");
    expect(locked(image, "vitest")).toBe("2.1.9");
    expect(locked(image, "@vitest/coverage-v8")).toBeUndefined();
    expect(locked(image, "left-pad")).toBe("1.3.0");
    expect(choice.notes.join("\n")).toMatch(
      /own vitest 4\.0\.16 \(node [^)]*\) needs a newer Node than the image's 18\.[\d.]+: images\/r-4\/ keeps the image's vitest 2\.1\.9 and leaves out @vitest\/coverage-v8@4\.0\.16/,
    );
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
    expect(choice.notes.join("\n")).toMatch(
      /uses the repository's own vitest 1\.6\.0 \(the node-vitest template has vitest /,
    );
  }, 180_000);

  it("vercel/ms 5e40ced: the repository pins jest 30.0.5, the template 30.5.2: the repository's own, with a note", async () => {
    const root = await temp();
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      devDependencies: { jest: "30.0.5", "@jest/globals": "30.0.5", "left-pad": "1.3.0" },
    });
    const choice = await chooseImage({
      root,
      framework: "jest",
      taskId: "r-6",
      repoPackageJson: packageJson,
    });
    const image = await readFile(join(root, "images", "r-6", "package-lock.json"), "utf8");
    expect(locked(image, "jest")).toBe("30.0.5");
    expect(locked(image, "jest-junit")).toBeDefined();
    expect(choice.notes.join("\n")).toMatch(
      /uses the repository's own jest 30\.0\.5 \(the node-jest template has jest 30\.5\.2\)/,
    );
  }, 180_000);

  it("vercel/ms 5e40ced: jest.config.ts, and no ts-node in the package.json: the image adds it, with a note", async () => {
    const packageJson = JSON.stringify({
      name: "r",
      version: "1.0.0",
      devDependencies: { jest: "30.0.5", "@jest/globals": "30.0.5", typescript: "5.8.3" },
    });
    expect(runnerNeeds("jest", "jest.config.ts", packageJson)).toEqual({ "ts-node": "10.9.2" });
    expect(runnerNeeds("jest", "jest.config.js", packageJson)).toEqual({});
    expect(runnerNeeds("vitest", "vitest.config.ts", packageJson)).toEqual({});
    const withTsNode = JSON.stringify({ devDependencies: { jest: "30.0.5", "ts-node": "^10.9.1" } });
    expect(runnerNeeds("jest", "jest.config.mts", withTsNode)).toEqual({});
    const root = await temp();
    const choice = await chooseImage({
      root,
      framework: "jest",
      taskId: "r-7",
      repoPackageJson: packageJson,
      runnerNeeds: runnerNeeds("jest", "jest.config.ts", packageJson),
    });
    const image = await readFile(join(root, "images", "r-7", "package-lock.json"), "utf8");
    expect(locked(image, "ts-node")).toBe("10.9.2");
    expect(locked(image, "jest")).toBe("30.0.5");
    expect(choice.notes.join("\n")).toMatch(
      /jest reads the repository's TypeScript config with ts-node 10\.9\.2, which its package\.json does not list: images\/r-7\/ adds it/,
    );
  }, 180_000);

  it("a locked plugin whose peer range the template's runner breaks: the repository's own runner", async () => {
    // The repository locks ts-jest 29.3.1 (peer jest ^29) and jest 29.7.0; npm keeps ts-jest 29.3.1
    // beside the template's jest 30 without a word, and the image's npm ci then refuses the lockfile.
    const repo = await temp();
    await writeFile(join(repo, "package.json"), JSON.stringify({ name: "r", version: "1.0.0" }));
    await npm(
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

  it("devDependencies npm cannot resolve together: only those the suites import, a clashing one left out, and a note", async () => {
    // unjs/defu 11ba022: typescript ^6 clashes with unbuild's optional peer typescript ^5 (pnpm
    // installs it; npm refuses), so neither the image's vitest nor the repository's own resolves.
    const root = await temp();
    const packageJson = JSON.stringify({
      name: "defu",
      version: "6.1.4",
      devDependencies: {
        "@vitest/coverage-v8": "^4.1.2",
        "expect-type": "^1.3.0",
        typescript: "^6.0.2",
        unbuild: "^3.6.1",
        vitest: "^4.1.2",
      },
    });
    const repoImports = ["expect-type", "vitest"];
    const choice = await chooseImage({
      root,
      framework: "vitest",
      taskId: "r-6",
      repoPackageJson: packageJson,
      repoImports,
    });
    const image = await readFile(join(root, "images", "r-6", "package-lock.json"), "utf8");
    expect(locked(image, "vitest")).toBe("2.1.9");
    expect(locked(image, "expect-type")).toMatch(/^1\./);
    expect(locked(image, "unbuild")).toBeUndefined();
    expect(locked(image, "typescript")).toBeUndefined();
    const manifest = JSON.parse(await readFile(join(root, "images", "r-6", "package.json"), "utf8"));
    expect(manifest.devDependencies).toEqual({ "expect-type": "^1.3.0", vitest: "2.1.9" });
    expect(choice.notes.join("\n")).toContain(
      "has only the packages the suites import (the test files, the runner's config and the files they import: expect-type, vitest) and leaves out @vitest/coverage-v8, typescript, unbuild",
    );

    // A package the suites import that still clashes is left out by name; the runtime dependencies stay.
    const clash = await temp();
    const clashing = await chooseImage({
      root: clash,
      framework: "mocha",
      taskId: "r-7",
      repoPackageJson: JSON.stringify({
        name: "r",
        version: "1.0.0",
        dependencies: { react: "17.0.2" },
        devDependencies: { "react-dom": "18.2.0", "left-pad": "1.3.0", "is-number": "7.0.0" },
      }),
      repoImports: ["react-dom", "left-pad"],
    });
    const lock7 = await readFile(join(clash, "images", "r-7", "package-lock.json"), "utf8");
    expect(locked(lock7, "react")).toBe("17.0.2");
    expect(locked(lock7, "left-pad")).toBe("1.3.0");
    expect(locked(lock7, "react-dom")).toBeUndefined();
    const manifest7 = JSON.parse(await readFile(join(clash, "images", "r-7", "package.json"), "utf8"));
    expect(Object.keys(manifest7.devDependencies).sort()).toEqual([
      "left-pad",
      "mocha",
      "mocha-junit-reporter",
      "react",
    ]);
    expect(clashing.notes.join("\n")).toContain(
      "leaving out react-dom@18.2.0, which clashes with the rest (ERESOLVE), and leaves out is-number",
    );
  }, 300_000);

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
      repoImports: ["react-dom", "node-fetch"],
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isOracleError(error, "IMAGE_INVALID")).toBe(true);
    expect((error as Error).message).toMatch(/npm cannot resolve[\s\S]*react/);
    expect((error as { hint?: string }).hint).toMatch(/--image r-3/);
    expect((error as { hint?: string }).hint).toContain("the suites need react, react-dom:");
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

describe("a repository's own runner that needs a newer Node than the image's", () => {
  // npm 11's words for ufo's @vitest/coverage-v8 ^4 beside the image's vitest 2.1.9.
  const eresolve = `npm error code ERESOLVE
npm error ERESOLVE unable to resolve dependency tree
npm error
npm error While resolving: x@undefined
npm error Found: vitest@2.1.9
npm error node_modules/vitest
npm error   dev vitest@"2.1.9" from the root project
npm error   peer vitest@"2.1.9" from @vitest/ui@2.1.9
npm error
npm error Could not resolve dependency:
npm error peer vitest@"4.1.12" from @vitest/coverage-v8@4.1.12
npm error node_modules/@vitest/coverage-v8
npm error   dev @vitest/coverage-v8@"^4.0.16" from the root project
npm error
npm error Fix the upstream dependency conflict, or retry this command with --force or --legacy-peer-deps`;

  it("names the root dependency that clashes, as npm 11 and npm 9 write it", () => {
    expect(peerClash(eresolve)).toBe("@vitest/coverage-v8");
    expect(peerClash(eresolve.replace(/npm error/g, "npm ERR!"))).toBe("@vitest/coverage-v8");
    // A clash deeper in the tree: the root dependency that brings it in.
    const deep = eresolve.replace(
      'npm error   dev @vitest/coverage-v8@"^4.0.16" from the root project',
      'npm error   peer @vitest/coverage-v8@"4.1.12" from vite-plugin-x@1.0.0\nnpm error   node_modules/vite-plugin-x\nnpm error     dev vite-plugin-x@"^1.0.0" from the root project',
    );
    expect(peerClash(deep)).toBe("vite-plugin-x");
    expect(peerClash("npm error code ETARGET")).toBeNull();
  });

  it("reads the runner's engines.node from the lockfile, against the image's Node", () => {
    expect(IMAGE_NODE).toMatch(/^18\./);
    const lock = JSON.stringify({
      lockfileVersion: 3,
      packages: {
        "node_modules/vitest": { version: "4.1.12", engines: { node: "^20.0.0 || ^22.0.0 || >=24.0.0" } },
        "node_modules/jest": {
          version: "30.5.2",
          engines: { node: "^18.14.0 || ^20.0.0 || ^22.0.0 || >=24.0.0" },
        },
        "node_modules/mocha": { version: "10.8.2" },
      },
    });
    expect(runnersNeedingNewerNode(lock, ["vitest", "jest", "mocha"])).toEqual([
      "vitest 4.1.12 (node ^20.0.0 || ^22.0.0 || >=24.0.0)",
    ]);
  });
});

describe("a lockfile the image's npm 9 refuses (EBADPLATFORM)", () => {
  it("dayjs 99691c5: npm 11 wrote semantic-release's typescript 7 platform packages unmarked; optional ones and this platform's pass", () => {
    // The entries as npm 11.19 wrote them for dayjs's devDependencies (@semantic-release/github ^11).
    const lock = JSON.stringify({
      lockfileVersion: 3,
      packages: {
        "": { devDependencies: { jest: "^22.4.3" } },
        "node_modules/@typescript/typescript-aix-ppc64": { version: "7.0.2", os: ["aix"], cpu: ["ppc64"] },
        "node_modules/@typescript/typescript-linux-x64": { version: "7.0.2", os: ["linux"], cpu: ["x64"] },
        "node_modules/fsevents": { version: "2.3.3", os: ["darwin"], optional: true },
        "node_modules/semantic-release/node_modules/win-only": { version: "1.0.0", os: ["win32"] },
        "node_modules/not-windows": { version: "1.0.0", os: ["!win32"] },
        "node_modules/jest": { version: "22.4.4" },
      },
    });
    expect(foreignPlatformPackages(lock, "x64")).toEqual([
      "@typescript/typescript-aix-ppc64@7.0.2",
      "win-only@1.0.0",
    ]);
    expect(foreignPlatformPackages(lock, "arm64")).toContain("@typescript/typescript-linux-x64@7.0.2");
  });
});

describe("vitest 0.x's and 1.x's results cache (node_modules/.vitest, node_modules/.vite)", () => {
  it("points it into /tmp in an image that installs vitest 0.x, and leaves other images' Dockerfiles as they are", async () => {
    const template = await readFile(join(TEMPLATE_IMAGES, "node-vitest", "Dockerfile"), "utf8");
    const lock = (version: string) =>
      JSON.stringify({ packages: { "": {}, "node_modules/vitest": { version } } });
    const old = withVitestCacheLink(template, lock("0.34.6"));
    const lines = old.split("\n");
    const temp = lines.indexOf("RUN ln -s /tmp /opt/deps/node_modules/.vite-temp");
    expect(lines.indexOf("RUN ln -s /tmp /opt/deps/node_modules/.vitest")).toBeGreaterThan(temp);
    expect(old.replace(/# vitest 0\.34\.6 [\s\S]*?\.vitest\n/, "")).toBe(template);
    for (const v1 of ["1.0.1", "1.6.1"]) {
      const linked = withVitestCacheLink(template, lock(v1)).split("\n");
      expect(linked.indexOf("RUN ln -s /tmp /opt/deps/node_modules/.vite")).toBeGreaterThan(temp);
      expect(linked).not.toContain("RUN ln -s /tmp /opt/deps/node_modules/.vitest");
    }
    expect(withVitestCacheLink(template, lock("2.1.9"))).toBe(template);
    expect(withVitestCacheLink(template, "{")).toBe(template);
    expect(withVitestCacheLink("FROM x\n", lock("0.34.6"))).toMatch(
      /^FROM x\n#[\s\S]*\nRUN ln -s \/tmp \/opt\/deps\/node_modules\/\.vitest\n$/,
    );
  });
});
