import { resolve } from "node:path";
import {
  type CommandLineSpec,
  findRoot,
  parseCommandLine,
  usageError,
  wholeNumberArg,
} from "@oracle/cli-kit";
import { z } from "zod";
import { DEFAULT_BUILD_TIMEOUT_MS, DEFAULT_LOCK_WAIT_MS, DEFAULT_REGISTRY } from "./build-images.js";

export const HELP = `Usage: oracle-build-images [options] [NAME...]
       pnpm build-images [options] [NAME...]

Builds each images/<name>/ whose fingerprint (build context, lockfiles by their resolved content)
differs from its record in images/registry.json, or whose recorded image is gone; pushes it and
records the pinned reference (<repo>@sha256:...). Unchanged images are skipped.
For each image whose recorded digest changed, names the tasks on it (tasks/*/task.json under the
root): those a sweep judged on another digest (tasks/health.json) are now stale, as are never-judged ones:
  new digest for node-mocha: tasks now stale: calc-node (validate them with: pnpm quarantine-sweep --changed)

Options:
  --root DIR             folder holding images/ and tasks/ (default: nearest folder upwards with either)
  --only NAME            build only this image (repeatable, or comma-separated; NAME... works too)
  --force                rebuild even if up to date (without the layer cache)
  --watch                keep running; rebuild an image when its folder changes (Ctrl-C stops)
  --registry HOST:PORT   registry to push to (default ${DEFAULT_REGISTRY})
  --no-push              do not push; record the local image ID (sha256:...)
  --ca-file FILE         CA bundle offered to builds as oracle-build-ca.pem (env ORACLE_BUILD_CA_FILE)
  --build-timeout SECS   limit per image build and push (default ${DEFAULT_BUILD_TIMEOUT_MS / 1000})
  --lock-wait SECS       while another run holds images/registry.json, wait up to SECS for it
                         (saying so on stderr, with its pid), then go on (default ${DEFAULT_LOCK_WAIT_MS / 1000}; 0: do not wait)
  --json                 print a JSON summary on stdout (one line per pass with --watch); its
                         newDigests lists { image, previousDigest, digest, staleTasks,
                         neverValidated }
  -h, --help             show this help

Exit codes: 0 every image built or up to date (with --watch: stopped by Ctrl-C), 1 a build failed
(others still built), 2 usage error or an invalid input (images/registry.json), 3 could not run (the
engine does not answer, another run held images/registry.json past --lock-wait, a bug).
Build logs: <root>/logs/build/<name>-<utc>.log.
`;

/** The CLI's options, parsed and checked. */
export interface CliOptions {
  root: string;
  /** The --root DIR given, absolute (undefined: found from the working folder); hints carry it. */
  rootGiven?: string;
  only: string[];
  force: boolean;
  watch: boolean;
  registry: string | null;
  caFile: string | undefined;
  buildTimeoutMs: number;
  lockWaitMs: number;
  json: boolean;
}

const HOST_PORT =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*|\[[0-9a-fA-F:]+\])(?::\d{1,5})?$/;

/** The command line: its flags and the options they fill (docs/reference.md lists each; a test holds it so). */
export const BUILD_LINE = {
  command: "oracle-build-images",
  flags: {
    root: { type: "string" },
    only: { type: "string", multiple: true },
    force: { type: "boolean" },
    watch: { type: "boolean" },
    registry: { type: "string" },
    "no-push": { type: "boolean" },
    "ca-file": { type: "string" },
    "build-timeout": { type: "string" },
    "lock-wait": { type: "string" },
    json: { type: "boolean" },
  },
  positionals: { field: "only", name: "NAME", multiple: true },
  schema: z.strictObject({
    root: z.string().min(1).optional(),
    only: z.array(z.string()).default([]),
    force: z.boolean().default(false),
    watch: z.boolean().default(false),
    registry: z.string().regex(HOST_PORT, "must be HOST or HOST:PORT, e.g. 127.0.0.1:5000").optional(),
    noPush: z.boolean().default(false),
    caFile: z.string().min(1).optional(),
    buildTimeout: z
      .string()
      .regex(/^[1-9]\d*$/, "must be a whole number of seconds > 0")
      .transform(Number)
      .optional(),
    lockWait: wholeNumberArg(0, 86_400).optional(),
    json: z.boolean().default(false),
  }),
} satisfies CommandLineSpec<z.ZodType>;

/** Maps argv (without node and the script) and the environment to options; throws USAGE on bad input. */
export function parseCliArgs(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): CliOptions {
  const raw = parseCommandLine(BUILD_LINE, argv);
  if (raw.registry !== undefined && raw.noPush)
    throw usageError(BUILD_LINE.command, "--registry and --no-push exclude each other");
  const only = raw.only
    .flatMap((name) => name.split(","))
    .map((name) => name.trim())
    .filter(Boolean);
  const caFile = raw.caFile ?? (env.ORACLE_BUILD_CA_FILE || undefined);
  return {
    root: raw.root ? resolve(cwd, raw.root) : findRoot(cwd),
    ...(raw.root ? { rootGiven: resolve(cwd, raw.root) } : {}),
    only: [...new Set(only)],
    force: raw.force,
    watch: raw.watch,
    registry: raw.noPush ? null : (raw.registry ?? DEFAULT_REGISTRY),
    caFile: caFile === undefined ? undefined : resolve(cwd, caFile),
    buildTimeoutMs: raw.buildTimeout === undefined ? DEFAULT_BUILD_TIMEOUT_MS : raw.buildTimeout * 1000,
    lockWaitMs: raw.lockWait === undefined ? DEFAULT_LOCK_WAIT_MS : raw.lockWait * 1000,
    json: raw.json,
  };
}
