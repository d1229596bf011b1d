import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { OracleError } from "@oracle/spec";
import { satisfies, validRange } from "semver";
import type { PythonNeed } from "./python-deps.js";
import { DEFAULT_IMAGE, type Framework, packageDeps } from "./templates.js";

/** This repository's images/: the templates new-task copies when a root has no image for a runner. */
export const TEMPLATE_IMAGES = fileURLToPath(new URL("../../../../images/", import.meta.url));

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export interface ImageChoice {
  name: string;
  /** What new-task wrote under images/ (nothing when the image was there). */
  made: string | null;
  notes: string[];
}

const JS_RUNNERS = new Set<Framework>(["jest", "mocha", "vitest"]);
const RUNNER_PACKAGES = new Set(["jest", "jest-junit", "mocha", "mocha-junit-reporter", "vitest"]);

/** The repository's JS dependencies that the image's package.json does not install. */
export function missingDeps(repoPackageJson: string | null, imagePackageJson: string | null): string[] {
  const wanted = packageDeps(repoPackageJson);
  const have = packageDeps(imagePackageJson);
  return Object.keys(wanted)
    .filter((name) => !(name in have) && !RUNNER_PACKAGES.has(name) && !name.startsWith("@types/"))
    .sort();
}

/** npm in `dir`: null when it exited 0, else what it said. */
function npm(dir: string, args: string[]): Promise<string | null> {
  return new Promise((done) => {
    execFile(
      "npm",
      [...args, "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier"],
      { cwd: dir, env: process.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done(error ? `${stderr.trim()}\n${stdout.trim()}`.trim() || error.message : null),
    );
  });
}

/**
 * `npm install --package-lock-only` in `dir`, then `npm ls --all --package-lock-only`: npm keeps a
 * locked version whose peer range the new tree breaks (ts-jest 29.3 beside jest 30), and the image's
 * `npm ci` then refuses the lockfile; `ls` finds it first. Null when both pass, else what npm said
 * (a broken peer reads as ERESOLVE, as `npm ci` would say).
 */
async function npmLock(dir: string): Promise<string | null> {
  const install = await npm(dir, ["install", "--package-lock-only"]);
  if (install !== null) return install;
  const listed = await npm(dir, ["ls", "--all", "--package-lock-only"]);
  if (listed === null) return null;
  // Only a broken range counts: `ls` also exits 1 for what `npm ci` accepts (an extraneous entry).
  const invalid = listed.split("\n").filter((line) => / invalid: /.test(line));
  if (invalid.length === 0) return null;
  return `ERESOLVE (npm ls): the lockfile breaks a dependency's range:\n${invalid.map((l) => l.replace(/^[\s│├└─┬]+/, "")).join("\n")}`;
}

/** What npm said, without its log files' paths (in npm's cache, gone with it): the last 12 lines. */
const npmWords = (stderr: string): string =>
  stderr
    .split("\n")
    .filter((line) => !/_logs\/|complete log of this run|For a full report see/.test(line))
    .slice(-12)
    .join("\n");

/** The package npm says the registry does not serve (ETARGET: no such version; E404: no such package), or null. */
export function unservedPackage(stderr: string): string | null {
  const name = "((?:@[^\\s@/']+/)?[^\\s@/']+)";
  const found =
    new RegExp(`No matching version found for ${name}@`).exec(stderr) ??
    new RegExp(`'${name}@[^\\s']*' (?:could not be found|is not in this registry)`).exec(stderr);
  return found?.[1] ?? null;
}

/** The test runners a repository may pin itself (the reporters stay the image's). */
const OWN_RUNNERS = ["jest", "mocha", "vitest"];

/** ts-node, which jest needs to read a TypeScript config (jest.config.ts) on the images' Node. */
export const TS_NODE = "10.9.2";

/**
 * What the runner itself needs to read the repository's configuration that the repository's
 * package.json may not list: jest reads jest.config.ts (.mts, .cts) with ts-node on Node 18 (vercel/ms
 * 5e40ced: "jest-config imports ts-node"; pnpm installs it for the repository as a peer, npm does not).
 */
export function runnerNeeds(
  framework: Framework,
  configPath: string | null,
  repoPackageJson: string | null,
): Record<string, string> {
  if (framework !== "jest" || configPath === null || !/\.[cm]?ts$/.test(configPath)) return {};
  return "ts-node" in packageDeps(repoPackageJson) ? {} : { "ts-node": TS_NODE };
}

/** The Node the Node images run: Debian bookworm's nodejs (images/README.md). */
export const IMAGE_NODE = "18.20.4";

/** The npm that installs the Node images' package-lock.json: Debian bookworm's npm. */
export const IMAGE_NPM = "9.2.0";

/**
 * The repository's own dependency that npm's ERESOLVE says cannot stand beside the image's runner
 * (a plugin that peer-depends on another major of it), named as the root project names it; or null.
 */
export function peerClash(stderr: string): string | null {
  const text = stderr.replace(/^npm (?:ERR!|error) ?/gm, "");
  const at = text.indexOf("Could not resolve dependency:");
  if (at < 0) return null;
  const root =
    /^\s*(?:dev |optional |peer |peerOptional )*((?:@[^\s@/]+\/)?[^\s@/]+)@"[^"]*" from the root project$/m.exec(
      text.slice(at),
    );
  return root?.[1] ?? null;
}

/** Runners in `lockfile` (package-lock.json text) whose `engines.node` the image's Node does not meet. */
export function runnersNeedingNewerNode(lockfile: string, runners: readonly string[]): string[] {
  const packages =
    (JSON.parse(lockfile) as { packages?: Record<string, { version?: string; engines?: { node?: string } }> })
      .packages ?? {};
  return runners.flatMap((r) => {
    const entry = packages[`node_modules/${r}`];
    const range = entry?.engines?.node;
    if (range === undefined || !validRange(range) || satisfies(IMAGE_NODE, range)) return [];
    return [`${r} ${entry?.version ?? "?"} (node ${range})`];
  });
}

/** Whether an npm `os` or `cpu` list admits `value` (npm's rule: `!x` excludes x; any name listed admits only those). */
function admits(list: unknown, value: string): boolean {
  if (!Array.isArray(list) || list.length === 0) return true;
  const names = list.filter((x): x is string => typeof x === "string");
  if (names.includes(`!${value}`)) return false;
  const only = names.filter((n) => !n.startsWith("!"));
  return only.length === 0 || only.includes(value);
}

/**
 * Packages in `lockfile` (package-lock.json text) built for another platform than the image's
 * (linux, this host's CPU) and not marked optional: the image's npm 9 refuses the whole install
 * (EBADPLATFORM). npm 11 writes such entries for a peer's platform packages (dayjs 99691c5:
 * semantic-release's typescript 7 brought @typescript/typescript-aix-ppc64 7.0.2, unmarked).
 */
export function foreignPlatformPackages(lockfile: string, cpu: string = process.arch): string[] {
  const packages =
    (
      JSON.parse(lockfile) as {
        packages?: Record<string, { version?: string; os?: unknown; cpu?: unknown; optional?: unknown }>;
      }
    ).packages ?? {};
  return Object.entries(packages)
    .filter(
      ([path, e]) => path !== "" && e.optional !== true && (!admits(e.os, "linux") || !admits(e.cpu, cpu)),
    )
    .map(([path, e]) => `${path.replace(/^.*node_modules\//, "")}@${e.version ?? "?"}`)
    .sort();
}

/**
 * The repository's dependencies a task's suites need: every runtime dependency, the test runners it
 * pins, and the devDependencies in `imports` (the packages the suites import), each at its range.
 */
export function suiteDeps(
  repoPackageJson: string | null,
  imports: readonly string[],
): Record<string, string> {
  const all = packageDeps(repoPackageJson);
  let runtime: Record<string, string> = {};
  try {
    const parsed = JSON.parse(repoPackageJson ?? "{}") as { dependencies?: unknown };
    if (parsed.dependencies && typeof parsed.dependencies === "object")
      runtime = parsed.dependencies as Record<string, string>;
  } catch {}
  const wanted = new Set(imports);
  return Object.fromEntries(
    Object.entries(all).filter(([d]) => d in runtime || wanted.has(d) || OWN_RUNNERS.includes(d)),
  );
}

interface Resolved {
  /** What npm said when it failed, else null. */
  failed: string | null;
  /** The repository's own runner version replaced the image's. */
  own: boolean;
  /** The repository's own runner did not resolve beside its dependencies (ERESOLVE): the image's it is. */
  ownFailed?: boolean;
  /** The repository's runners that need a newer Node than the image's (the image's runner kept). */
  needNewer?: string[];
  /** The repository's packages left out because they clash with the image's runner. */
  left?: string[];
}

/**
 * A Node image for a repository whose dependencies the runner's image lacks: the template's
 * Dockerfile, a package.json with the image's runner and the repository's dependencies, and a
 * package-lock.json resolved now (on this host, through the npm registry), so the build is pinned.
 * The repository's own package-lock.json, when it has one, is where the resolution starts: npm keeps
 * every version it pins that the ranges still take, so the image has the versions the repository's
 * suite passes with, not the newest. The runner is the repository's own range when it names one
 * (resolveOnce says when the template's stays); when the lockfile pins versions the registry here
 * does not serve, the ranges are resolved afresh. Notes say which.
 */
async function makeNodeImage(
  root: string,
  name: string,
  template: string,
  repo: {
    packageJson: string;
    lockfile: string | null;
    imports?: readonly string[];
    /** Packages the runner needs for the repository's config (runnerNeeds), added to its dependencies. */
    extra?: Record<string, string>;
    /** The runner versions its pnpm-lock.yaml or yarn.lock pins: its range replaced by them. */
    lockedRunners?: { file: string; versions: Record<string, string> };
  },
): Promise<string[]> {
  const dir = join(resolve(root), "images", name);
  const scratch = await mkdtemp(join(tmpdir(), "oracle-image-"));
  try {
    const templatePackage = JSON.parse(await readFile(join(template, "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    const repoManifest = JSON.parse(repo.packageJson) as Record<string, unknown>;
    const extra = repo.extra ?? {};
    const declared = packageDeps(repo.packageJson);
    const pinned = Object.fromEntries(
      Object.entries(repo.lockedRunners?.versions ?? {}).filter(([n]) => n in declared),
    );
    let repoDeps = { ...declared, ...pinned, ...extra };
    const runnerDeps = templatePackage.devDependencies as Record<string, string>;
    const manifest = (devDependencies: Record<string, string>) => ({
      name: `oracle-image-${name}`.toLowerCase(),
      private: true,
      description: `Test dependencies of task ${name}: ${String(repoManifest.name ?? "the repository")}'s dependencies and the runner.`,
      ...(repoManifest.type ? { type: repoManifest.type } : {}),
      devDependencies,
    });
    const lock = async (devDependencies: Record<string, string>, seed: string | null) => {
      await rm(join(scratch, "package-lock.json"), { force: true });
      if (seed !== null) await writeFile(join(scratch, "package-lock.json"), seed);
      await writeFile(
        join(scratch, "package.json"),
        `${JSON.stringify(manifest(devDependencies), null, 2)}\n`,
      );
      return npmLock(scratch);
    };
    const own = OWN_RUNNERS.filter((r) => r in runnerDeps && r in repoDeps && repoDeps[r] !== runnerDeps[r]);
    const ownRunners = (deps: Record<string, string>) => own.map((r) => `${r} ${deps[r]}`).join(", ");
    /**
     * The repository's own runner first (the version its suite passes with: vercel/ms pins jest
     * 30.0.5, the template 30.5.2), unless it needs a newer Node than the image's or does not resolve
     * beside the repository's dependencies: then the image's runner, and when the repository's
     * packages clash with it (plugins of the other major), those are left out.
     */
    const resolveOnce = async (seed: string | null): Promise<Resolved> => {
      let needNewer: string[] = [];
      let ownFailed = false;
      if (own.length > 0) {
        const mine = await lock({ ...runnerDeps, ...repoDeps }, seed);
        if (mine === null) {
          needNewer = runnersNeedingNewerNode(
            await readFile(join(scratch, "package-lock.json"), "utf8"),
            own,
          );
          if (needNewer.length === 0) return { failed: null, own: true };
        } else if (!/ERESOLVE/.test(mine)) return { failed: mine, own: false };
        else ownFailed = true;
      }
      const first = await lock({ ...repoDeps, ...runnerDeps }, seed);
      if (first === null)
        return { failed: null, own: false, ownFailed, ...(needNewer.length > 0 ? { needNewer } : {}) };
      if (!/ERESOLVE/.test(first) || needNewer.length === 0) return { failed: first, own: false };
      const left: string[] = [];
      const deps = { ...repoDeps, ...runnerDeps };
      for (let failed: string | null = first; failed !== null; ) {
        const clash = peerClash(failed);
        if (clash === null || !(clash in repoDeps) || clash in runnerDeps || left.length >= 5) {
          // The image's runner cannot stay: the repository's own it is, and the build will say why.
          await lock({ ...runnerDeps, ...repoDeps }, seed);
          return { failed: null, own: true };
        }
        left.push(`${clash}@${repoDeps[clash]}`);
        delete deps[clash];
        failed = await lock(deps, seed);
      }
      return { failed: null, own: false, needNewer, left };
    };
    // A dependency of the repository's own that the registry no longer serves (an unpublished
    // version pinned exactly) is left out, and a note names it: a test that needs it fails, and the
    // sweep says which.
    const dropped: string[] = [];
    const resolveWith = async (seed: string | null) => {
      for (;;) {
        const tried = await resolveOnce(seed);
        const gone = tried.failed === null ? null : unservedPackage(tried.failed);
        if (gone === null || !(gone in repoDeps) || gone in runnerDeps || dropped.length >= 5) return tried;
        dropped.push(`${gone}@${repoDeps[gone]}`);
        delete repoDeps[gone];
      }
    };
    /** Every dependency in repoDeps: from the repository's lockfile, then afresh; notes say which. */
    const resolveAll = async (): Promise<{ tried: Resolved; notes: string[] }> => {
      const notes: string[] = [];
      let tried = await resolveWith(repo.lockfile);
      if (repo.lockfile !== null && tried.failed === null)
        notes.push(`images/${name}/package-lock.json starts from the repository's own package-lock.json`);
      if (repo.lockfile !== null && tried.failed !== null) {
        // A lockfile can pin versions the registry here does not serve: resolve the ranges afresh.
        const seeded = tried.failed;
        tried = await resolveWith(null);
        if (tried.failed === null)
          notes.push(
            `npm could not install the repository's package-lock.json here (${npmWords(seeded).split("\n").slice(0, 2).join(" ")}): images/${name}/ resolves the repository's ranges afresh, with the newest versions they allow`,
          );
      }
      if (tried.needNewer)
        notes.push(
          `the repository's own ${tried.needNewer.join(", ")} needs a newer Node than the image's ${IMAGE_NODE}: images/${name}/ keeps the image's ${ownRunners(runnerDeps)}${tried.left && tried.left.length > 0 ? ` and leaves out ${tried.left.join(", ")}, which needs the other` : ""} (a test that uses it fails; the sweep says which)`,
        );
      if (tried.own && Object.keys(pinned).some((r) => own.includes(r)))
        notes.push(
          `the repository's ${repo.lockedRunners!.file} pins ${Object.entries(pinned)
            .map(([n, v]) => `${n} ${v}`)
            .join(
              ", ",
            )} (npm reads only package-lock.json): images/${name}/ takes ${Object.keys(pinned).length === 1 ? "it" : "them"}, not the newest ${Object.keys(pinned).length === 1 ? "its range allows" : "their ranges allow"}`,
        );
      if (tried.own)
        notes.push(
          `images/${name}/ uses the repository's own ${ownRunners(repoDeps)} (the ${template.split("/").pop()} template has ${ownRunners(runnerDeps)})`,
        );
      if (tried.ownFailed)
        notes.push(
          `npm could not resolve the repository's own ${ownRunners(repoDeps)} beside its dependencies (ERESOLVE): images/${name}/ uses the image's ${ownRunners(runnerDeps)}`,
        );
      if (tried.failed === null && dropped.length > 0)
        notes.push(
          `the registry does not serve ${dropped.join(", ")}, which the repository's package.json names: left out of images/${name}/ (a test that needs it fails; the sweep says which)`,
        );
      return { tried, notes };
    };
    /** What keeps the lockfile npm wrote from installing in the image (EBADPLATFORM), else null. */
    const foreign = async (): Promise<string | null> => {
      const found = foreignPlatformPackages(await readFile(join(scratch, "package-lock.json"), "utf8"));
      return found.length === 0
        ? null
        : `EBADPLATFORM: the lockfile npm wrote here installs ${found.slice(0, 3).join(", ")}${found.length > 3 ? ", …" : ""}, built for another platform and not marked optional, which the image's npm ${IMAGE_NPM} refuses`;
    };
    let { tried, notes } = await resolveAll();
    if (tried.failed === null) {
      const platform = await foreign();
      if (platform !== null) tried = { ...tried, failed: platform };
    }
    const extraNote =
      Object.keys(extra).length > 0
        ? `jest reads the repository's TypeScript config with ${Object.entries(extra)
            .map(([n, v]) => `${n} ${v}`)
            .join(", ")}, which its package.json does not list: images/${name}/ adds it`
        : null;
    const whole = tried.failed;
    const imported = repo.imports ? { ...suiteDeps(repo.packageJson, repo.imports), ...extra } : null;
    if (
      whole !== null &&
      /ERESOLVE|EBADPLATFORM/.test(whole) &&
      imported !== null &&
      Object.keys(imported).length < Object.keys(repoDeps).length
    ) {
      // The repository's devDependencies do not resolve together under npm's peer rules (pnpm and
      // yarn are laxer): only those the suites import, each at the repository's range; one that
      // still clashes is left out too.
      const unused = Object.keys(repoDeps)
        .filter((d) => !(d in imported))
        .sort();
      const clashing: string[] = [];
      repoDeps = { ...imported };
      dropped.length = 0;
      ({ tried, notes } = await resolveAll());
      for (;;) {
        const clash = tried.failed === null ? null : peerClash(tried.failed);
        if (clash === null || !(clash in repoDeps) || clash in runnerDeps || clashing.length >= 5) break;
        clashing.push(`${clash}@${repoDeps[clash]}`);
        delete repoDeps[clash];
        ({ tried, notes } = await resolveAll());
      }
      if (tried.failed === null) tried = { ...tried, failed: await foreign() };
      const cause = /^EBADPLATFORM/.test(whole)
        ? whole
        : `npm cannot resolve all the repository's dependencies together (ERESOLVE${peerClash(whole) ? ` at ${peerClash(whole)}` : ""})`;
      if (tried.failed === null)
        notes.unshift(
          `${cause}: images/${name}/ has only the packages the suites import (the test files, the runner's config and the files they import: ${Object.keys(repoDeps).sort().join(", ") || "none"})${clashing.length > 0 ? `, leaving out ${clashing.join(", ")}, which clashes with the rest (ERESOLVE),` : ""} and leaves out ${unused.join(", ")} (a test that needs one fails; the sweep says which)`,
        );
      else tried = { ...tried, failed: whole };
    }
    const failed = tried.failed;
    if (failed !== null)
      throw new OracleError(
        "IMAGE_INVALID",
        `npm cannot resolve the repository's dependencies for images/${name}/ (npm install --package-lock-only):\n${npmWords(failed)}`,
        {
          hint: `make the image by hand: copy ${template} to images/${name}/, put the repository's test dependencies${imported ? ` (the suites need ${Object.keys(imported).sort().join(", ") || "none of its packages"}: the runtime dependencies, the runner, and the packages its test files, the runner's config and the files they import by relative path import)` : ""} in its package.json with versions npm can install together, run npm install --package-lock-only there, then run new-task again with --image ${name}`,
        },
      );
    if (extraNote !== null) notes.push(extraNote);
    await mkdir(dir, { recursive: true });
    const dockerfile = await readFile(join(template, "Dockerfile"), "utf8");
    const locked = await readFile(join(scratch, "package-lock.json"), "utf8");
    await writeFile(join(dir, "Dockerfile"), withVitestCacheLink(dockerfile, locked));
    await cp(join(scratch, "package.json"), join(dir, "package.json"));
    await cp(join(scratch, "package-lock.json"), join(dir, "package-lock.json"));
    return notes;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const VITE_TEMP_LINK = "RUN ln -s /tmp /opt/deps/node_modules/.vite-temp";

/**
 * A Node image's Dockerfile for the lockfile it installs. vitest 0.x writes its results cache to
 * node_modules/.vitest once the tests have run, and has no option that turns it off (`--no-cache`
 * came in 2; 1 writes elsewhere): the suites link node_modules to the image's, which a grade cannot
 * write, so every run printed "Unhandled Error: ENOENT … mkdir '…/node_modules/.vitest'" and exited 1
 * with all its tests passed (unjs/destr f9c78d4, its own vitest 0.34.6). Such an image points that
 * entry into /tmp, as the template does node_modules/.vite-temp. vitest 1 writes it to
 * node_modules/.vite (vite's cache folder) and fails the same way: "Serialized Error: { code:
 * 'EACCES', syscall: 'mkdir', path: '…/node_modules/.vite' }", exit 1 with every test passed (unjs/radix3
 * 94778fd, its own vitest 1.6.1; a new user's round, s26), and its `--no-cache` is not in every 1.x
 * (1.0.1 stopped at it): that entry goes to /tmp too.
 */
export function withVitestCacheLink(dockerfile: string, lockfile: string): string {
  let version: unknown;
  try {
    version = (JSON.parse(lockfile) as { packages?: Record<string, { version?: unknown }> }).packages?.[
      "node_modules/vitest"
    ]?.version;
  } catch {
    return dockerfile;
  }
  if (typeof version !== "string" || !/^[01]\./.test(version)) return dockerfile;
  const entry = version.startsWith("0.") ? ".vitest" : ".vite";
  const link = `# vitest ${version} writes its results cache to node_modules/${entry} after the tests (no option turns\n# it off before vitest 2): into /tmp, as .vite-temp.\nRUN ln -s /tmp /opt/deps/node_modules/${entry}\n`;
  const at = dockerfile.indexOf(`${VITE_TEMP_LINK}\n`);
  if (at < 0) return `${dockerfile.replace(/\n*$/, "\n")}${link}`;
  const after = at + VITE_TEMP_LINK.length + 1;
  return `${dockerfile.slice(0, after)}${link}${dockerfile.slice(after)}`;
}

/** A Python task's own image: the template's folder, its requirements.txt with the needs added. */
async function makePythonImage(
  template: string,
  target: string,
  taskId: string,
  needs: readonly PythonNeed[],
): Promise<void> {
  await cp(template, target, { recursive: true });
  const requirements = join(target, "requirements.txt");
  const text = await readFile(requirements, "utf8");
  const added = needs.map((n) => `${n.pin}  # ${n.why.replace(/[\r\n]/g, " ")}`);
  await writeFile(
    requirements,
    `${text.replace(/\n*$/, "\n")}# Added by new-task for ${taskId}: what the repository's tests need (from Debian bookworm).\n${added.join("\n")}\n`,
  );
}

/**
 * The task's own image, named after it: made by `make` unless the folder already has a Dockerfile
 * (a second new-task of the same id keeps what the author may have edited).
 */
async function ownImage(
  images: string,
  taskId: string,
  make: (own: string) => Promise<string[]>,
  why: (own: string) => string,
  notes: string[],
): Promise<ImageChoice> {
  const own = taskId.toLowerCase();
  if (!(await exists(join(images, own, "Dockerfile")))) notes.push(...(await make(own)));
  notes.push(why(own));
  return { name: own, made: `images/${own}/`, notes };
}

/**
 * Picks the task's image: --image when given (it must exist under images/), else the runner's
 * default image, copied from this repository's templates when the root has none; a JS repository
 * whose dependencies the default image lacks, or a Python repository whose tests need more than it
 * has, gets an image of its own, named after the task.
 */
export async function chooseImage(options: {
  root: string;
  framework: Framework;
  image?: string;
  taskId: string;
  repoPackageJson: string | null;
  /** The repository's package-lock.json beside that package.json, if it has one. */
  repoLockfile?: string | null;
  /**
   * The packages the task's suites import (js-imports.ts): when npm cannot resolve all the
   * repository's dependencies together, the image has only these (and the runtime dependencies).
   */
  repoImports?: readonly string[];
  /** The runner versions the repository's pnpm-lock.yaml or yarn.lock pins (other-locks.ts), when it has no package-lock.json. */
  repoLockedRunners?: { file: string; versions: Record<string, string> };
  /** Python: what the repository's tests need beyond the template (python-deps.ts). */
  pythonNeeds?: readonly PythonNeed[];
  /** The runner's own needs for the repository's configuration ({@link runnerNeeds}). */
  runnerNeeds?: Record<string, string>;
}): Promise<ImageChoice> {
  const images = join(resolve(options.root), "images");
  if (options.image) {
    if (!(await exists(join(images, options.image, "Dockerfile"))))
      throw new OracleError(
        "USAGE",
        `--image: there is no images/${options.image}/Dockerfile under ${options.root}`,
        {
          hint: `leave --image out to use the ${options.framework} template (${DEFAULT_IMAGE[options.framework]}), or make the folder (see images/README.md)`,
        },
      );
    return { name: options.image, made: null, notes: [] };
  }
  const name = DEFAULT_IMAGE[options.framework];
  const notes: string[] = [];
  let made: string | null = null;
  if (!(await exists(join(images, name, "Dockerfile")))) {
    await cp(join(TEMPLATE_IMAGES, name), join(images, name), { recursive: true });
    made = `images/${name}/`;
    notes.push(`copied the ${options.framework} image template to images/${name}/`);
  }
  if (JS_RUNNERS.has(options.framework) && options.repoPackageJson) {
    const imagePackage = await readFile(join(images, name, "package.json"), "utf8").catch(() => null);
    const extra = options.runnerNeeds ?? {};
    const have = packageDeps(imagePackage);
    const missing = [
      ...missingDeps(options.repoPackageJson, imagePackage),
      ...Object.keys(extra).filter((n) => !(n in have)),
    ].sort();
    if (missing.length > 0) {
      const repo = {
        packageJson: options.repoPackageJson,
        lockfile: options.repoLockfile ?? null,
        ...(options.repoImports ? { imports: options.repoImports } : {}),
        ...(Object.keys(extra).length > 0 ? { extra } : {}),
        ...(options.repoLockedRunners ? { lockedRunners: options.repoLockedRunners } : {}),
      };
      return ownImage(
        images,
        options.taskId,
        (own) => makeNodeImage(options.root, own, join(images, name), repo),
        (own) =>
          `images/${name} lacks the repository's dependencies (${missing.join(", ")}): made images/${own}/ from it with them pinned in its package-lock.json (but for any a note leaves out)`,
        notes,
      );
    }
  }
  const needs = options.pythonNeeds ?? [];
  if ((options.framework === "pytest" || options.framework === "unittest") && needs.length > 0)
    return ownImage(
      images,
      options.taskId,
      async (own) => {
        await makePythonImage(join(images, name), join(images, own), own, needs);
        return [];
      },
      (own) =>
        `images/${name} lacks what the repository's tests need (${needs.map((n) => `${n.pin}: ${n.why}`).join("; ")}): made images/${own}/ from it with them pinned in its requirements.txt (Debian's python3-* packages)`,
      notes,
    );
  if (options.framework === "pytest" || options.framework === "unittest")
    notes.push(
      `images/${name} has Python 3.11 and pytest 7 from Debian only: a repository that imports other packages needs them in the image (images/README.md)`,
    );
  if (options.framework === "go")
    notes.push(
      `images/${name} has Go 1.19 and the standard library only: modules must be vendored (GOPROXY=off)`,
    );
  return { name, made, notes };
}
