import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Dockerode, dockerEngine } from "@oracle/engine";
import { OracleError, type RegistryFile, readRegistryFile } from "@oracle/spec";
import pLimit from "p-limit";
import winston from "winston";
import { buildOneImage, type EngineClient } from "./build-image.js";
import { decideRebuild, describeReason, type RebuildDecision, type RebuildReason } from "./decision.js";
import { fingerprintImage, type ImageFingerprint } from "./fingerprint.js";
import { imagesDir, isValidImageName, listImageNames } from "./image-folders.js";
import { LockfileCache } from "./lockfile-cache.js";
import { lockRegistry, saveBuild } from "./registry-file.js";
import { type NewDigest, newDigests } from "./stale-tasks.js";

/** The local registry that set-up starts. */
export const DEFAULT_REGISTRY = "127.0.0.1:5000";
export const DEFAULT_BUILD_TIMEOUT_MS = 30 * 60 * 1000;
/** How long the command waits for another run's lock on images/registry.json (a build of its own may take that long). */
export const DEFAULT_LOCK_WAIT_MS = 30 * 60 * 1000;

/** Hooks for showing progress; all optional. */
export interface BuildReporter {
  /** The decision for one image, before any build starts. */
  decided?(name: string, decision: RebuildDecision): void;
  building?(name: string): void;
  step?(name: string, step: string): void;
  finished?(outcome: ImageOutcome): void;
}

export interface BuildImagesOptions {
  /** The folder that holds images/ (and tasks/). */
  root: string;
  /** Only these image names (default: all). */
  only?: readonly string[];
  force?: boolean;
  /** `host:port` to push to; null records the image ID instead (--no-push). Default: the local registry. */
  registry?: string | null;
  /** A CA bundle to offer builds as `oracle-build-ca.pem` in the context. */
  caFile?: string;
  buildTimeoutMs?: number;
  /** How long to wait for another run's registry lock (default 5 s). */
  lockWaitMs?: number;
  /** Told when this run waits for another's lock (whom: `pid N on HOST, since T`). */
  onLockWait?: (holder: string, waitMs: number) => void;
  logger?: winston.Logger;
  reporter?: BuildReporter;
  signal?: AbortSignal;
  /** The engine to build with (default: the one DOCKER_HOST names). */
  docker?: Dockerode;
  /** Replaces the dockerode-backed engine client (tests). */
  engine?: EngineClient;
}

/** What happened to one image. */
export interface ImageOutcome {
  name: string;
  status: "built" | "up-to-date" | "failed";
  reasons: RebuildReason[];
  /** The reasons as a person reads them. */
  why: string[];
  fingerprint?: string;
  /** The recorded reference after this run (new when built). */
  reference?: string;
  previousReference?: string;
  durationMs: number;
  logFile?: string;
  error?: { code: string; message: string; hint?: string };
}

/** The result of one build-images run. */
export interface BuildSummary {
  root: string;
  registry: string | null;
  ok: boolean;
  images: ImageOutcome[];
  /**
   * The images whose recorded digest this run changed, each with the tasks on it (tasks/<id>/task.json
   * names it): their health was measured on another image, `pnpm quarantine-sweep --changed` validates them.
   */
  newDigests: NewDigest[];
  durationMs: number;
}

async function readCaBundle(caFile: string | undefined): Promise<Buffer> {
  if (!caFile) return Buffer.alloc(0);
  try {
    return await readFile(caFile);
  } catch (cause) {
    throw new OracleError(
      "USAGE",
      `--ca-file ${caFile}: cannot be read (${(cause as NodeJS.ErrnoException).code})`,
      {
        cause,
        hint: "name a PEM bundle, e.g. /etc/ssl/certs/ca-certificates.crt",
      },
    );
  }
}

/** What package managers print when a TLS-intercepting proxy's certificate is not trusted (npm, pip, go, curl). */
const UNTRUSTED_TLS =
  /self[- ]signed certificate in certificate chain|unable to get local issuer certificate|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT|CERTIFICATE_VERIFY_FAILED|certificate signed by unknown authority|SSL certificate problem/i;

/** The host's CA bundle on Debian, which scripts/setup.sh and the demo offer builds. */
export const HOST_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/**
 * A hint for a build whose log shows a certificate its package manager did not trust, when no CA
 * bundle was offered to the build; null otherwise (the generic hint stands).
 */
export function untrustedTlsHint(log: string, caOffered: boolean): string | null {
  if (caOffered || !UNTRUSTED_TLS.test(log)) return null;
  return `the build could not verify a TLS certificate (a TLS-intercepting proxy?): offer the host's CA bundle to builds with --ca-file ${HOST_CA_BUNDLE} (or ORACLE_BUILD_CA_FILE=${HOST_CA_BUNDLE})`;
}

function errorInfo(error: unknown): { code: string; message: string; hint?: string } {
  if (error instanceof OracleError)
    return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  return { code: "INTERNAL", message: error instanceof Error ? error.message : String(error) };
}

async function fingerprintAll(
  root: string,
  names: string[],
  lockfileCache: LockfileCache,
): Promise<Map<string, ImageFingerprint | Error>> {
  const limit = pLimit(8);
  const results = await Promise.all(
    names.map((name) =>
      limit(async () => {
        if (!isValidImageName(name)) {
          return new OracleError("IMAGE_INVALID", `images/${name}/: "${name}" cannot be an image name`, {
            hint: "use lowercase letters, digits and single . _ - separators",
          });
        }
        return fingerprintImage(join(imagesDir(root), name), { lockfileCache }).catch(
          (error: Error) => error,
        );
      }),
    ),
  );
  return new Map(names.map((name, index) => [name, results[index]!]));
}

/**
 * Builds every image under `<root>/images/` whose fingerprint differs from its record (or whose recorded
 * image is gone), pushes it, and records the pinned reference in images/registry.json. Images that fail
 * are reported in the summary; the others still build. Throws only when no image could be considered
 * (USAGE, DOCKER_UNAVAILABLE, REGISTRY_LOCKED).
 */
export async function buildImages(options: BuildImagesOptions): Promise<BuildSummary> {
  const started = Date.now();
  const logger = (options.logger ?? winston.createLogger({ silent: true })).child({ component: "build" });
  const registry = options.registry === undefined ? DEFAULT_REGISTRY : options.registry;
  const names = await listImageNames(options.root, options.only);
  const caBundle = await readCaBundle(options.caFile);
  const engine = options.engine ?? dockerEngine(options.docker);
  await engine.ping();
  const release = await lockRegistry(options.root, {
    ...(options.lockWaitMs === undefined ? {} : { waitMs: options.lockWaitMs }),
    ...(options.onLockWait ? { onWait: options.onLockWait } : {}),
    onCompromised: (error) => logger.warn("registry lock compromised", { error: error.message }),
  });
  try {
    const registryFile = await readRegistryFile(options.root);
    const lockfileCache = await LockfileCache.open(options.root);
    const fingerprints = await fingerprintAll(options.root, names, lockfileCache);
    await lockfileCache
      .save()
      .catch((error: Error) => logger.warn("lockfile cache not saved", { error: error.message }));
    const run: RunContext = { ...options, registry, caBundle, engine, logger, registryFile };
    const decided = await decideAll(run, names, fingerprints);
    const images: ImageOutcome[] = [];
    for (const item of decided) images.push(await actOn(run, item));
    const ok = images.every((image) => image.status !== "failed");
    const changed = await newDigests(options.root, registryFile, run.registryFile);
    return {
      root: options.root,
      registry,
      ok,
      images,
      newDigests: changed,
      durationMs: Date.now() - started,
    };
  } finally {
    await release();
  }
}

interface RunContext extends BuildImagesOptions {
  registry: string | null;
  caBundle: Buffer;
  engine: EngineClient;
  logger: winston.Logger;
  registryFile: RegistryFile;
}

interface Decided {
  name: string;
  current: ImageFingerprint | Error;
  decision: RebuildDecision | undefined;
}

/** Decides every image first (existence checks run concurrently); builds then run one at a time. */
async function decideAll(
  run: RunContext,
  names: string[],
  fingerprints: Map<string, ImageFingerprint | Error>,
): Promise<Decided[]> {
  const limit = pLimit(8);
  return Promise.all(
    names.map((name) =>
      limit(async (): Promise<Decided> => {
        const current = fingerprints.get(name)!;
        if (current instanceof Error) return { name, current, decision: undefined };
        const decision = await decideRebuild(current, run.registryFile.images[name], {
          force: run.force ?? false,
          recordedImageExists: (reference) => run.engine.imageExists(reference),
        });
        return { name, current, decision };
      }),
    ),
  );
}

async function actOn(run: RunContext, { name, current, decision }: Decided): Promise<ImageOutcome> {
  const started = Date.now();
  const record = run.registryFile.images[name];
  const base = { name, durationMs: 0, ...(record ? { previousReference: record.reference } : {}) };
  if (current instanceof Error || !decision) {
    const error = current instanceof Error ? current : new Error("no decision");
    const outcome: ImageOutcome = {
      ...base,
      status: "failed",
      reasons: [],
      why: [],
      error: errorInfo(error),
    };
    run.reporter?.finished?.(outcome);
    return outcome;
  }
  const why = decision.reasons.map(describeReason);
  run.logger.info("decided", {
    image: name,
    fingerprint: current.fingerprint,
    rebuild: decision.rebuild,
    why,
  });
  run.reporter?.decided?.(name, decision);
  const common = { ...base, reasons: decision.reasons, why, fingerprint: current.fingerprint };
  if (!decision.rebuild) {
    const outcome: ImageOutcome = { ...common, status: "up-to-date", reference: record!.reference };
    run.reporter?.finished?.(outcome);
    return outcome;
  }
  const outcome = await buildAndRecord(run, name, current, decision.reasons, common);
  outcome.durationMs = Date.now() - started;
  run.reporter?.finished?.(outcome);
  return outcome;
}

async function buildAndRecord(
  run: RunContext,
  name: string,
  current: ImageFingerprint,
  reasons: RebuildReason[],
  common: Omit<ImageOutcome, "status">,
): Promise<ImageOutcome> {
  run.reporter?.building?.(name);
  try {
    const { build, logFile } = await buildOneImage({
      root: run.root,
      name,
      current,
      reasons,
      engine: run.engine,
      registry: run.registry,
      caBundle: run.caBundle,
      timeoutMs: run.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS,
      force: run.force ?? false,
      signal: run.signal,
      onStep: (step) => run.reporter?.step?.(name, step),
    });
    run.registryFile = await saveBuild(run.root, name, build);
    run.logger.info("recorded", { image: name, reference: build.reference, durationMs: build.durationMs });
    return { ...common, status: "built", reference: build.reference, logFile };
  } catch (error) {
    if (run.signal?.aborted) throw error;
    run.logger.info("build failed", { image: name, error: (error as Error).message });
    const logFile = (error as { logFile?: string }).logFile;
    const info = errorInfo(error);
    const log = logFile ? await readFile(logFile, "utf8").catch(() => "") : "";
    const tls = untrustedTlsHint(log, run.caBundle.length > 0);
    if (tls) info.hint = tls;
    return { ...common, status: "failed", error: info, ...(logFile ? { logFile } : {}) };
  }
}
