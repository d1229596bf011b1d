import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { OracleError, parseWith } from "@oracle/spec";
import { z } from "zod";

/** How a lockfile counts in a fingerprint: npm trees are read with Arborist, the rest by normalised text. */
export type LockfileKind = "npm" | "text";

const NPM_LOCKFILES = new Set(["package-lock.json", "npm-shrinkwrap.json"]);
const TEXT_LOCKFILES = new Set([
  "pnpm-lock.yaml",
  "yarn.lock",
  "poetry.lock",
  "uv.lock",
  "Cargo.lock",
  "go.sum",
  "Gemfile.lock",
]);

/** Whether a context file (by its path) is a recognised lockfile, and of which kind. */
export function lockfileKind(relpath: string): LockfileKind | null {
  const name = basename(relpath);
  if (NPM_LOCKFILES.has(name)) return "npm";
  if (TEXT_LOCKFILES.has(name) || /^requirements.*\.txt$/.test(name)) return "text";
  return null;
}

function sha256(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

/** CRLF/CR to LF, a leading BOM, trailing whitespace on each line and trailing blank lines removed. */
export function normaliseLockfileText(text: string): string {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[ \t]+$/, ""));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

/** SHA-256 of a text lockfile's normalised content: line endings and trailing whitespace are no change. */
export function fingerprintTextLockfile(content: Buffer | string): string {
  return sha256(normaliseLockfileText(content.toString()));
}

const DEP_FIELDS = ["dependencies", "devDependencies", "optionalDependencies"] as const;
const specs = z.record(z.string(), z.string()).optional();
const ManifestSchema = z.looseObject({
  dependencies: specs,
  devDependencies: specs,
  optionalDependencies: specs,
});
type Manifest = z.output<typeof ManifestSchema>;
const LockJsonSchema = z.looseObject({
  lockfileVersion: z.number().int().optional(),
  packages: z.record(z.string(), ManifestSchema).optional(),
});

function outOfSync(label: string, detail: string): OracleError {
  const folder = dirname(label);
  return new OracleError("LOCKFILE_OUT_OF_SYNC", `${label} is out of sync with its package.json: ${detail}`, {
    hint: `run \`npm install --package-lock-only\` in ${folder} and commit the updated ${basename(label)}`,
  });
}

function allSpecs(manifest: Manifest): Map<string, { field: string; spec: string }> {
  const all = new Map<string, { field: string; spec: string }>();
  for (const field of DEP_FIELDS) {
    for (const [name, spec] of Object.entries(manifest[field] ?? {})) all.set(name, { field, spec });
  }
  return all;
}

/** Compares package.json's dependency specs with the lockfile's root package entry, as `npm ci` does. */
export function compareRootSpecs(manifest: Manifest, lockRoot: Manifest, label: string): void {
  const wanted = allSpecs(manifest);
  const locked = allSpecs(lockRoot);
  for (const [name, { field, spec }] of wanted) {
    const inLock = locked.get(name);
    if (!inLock)
      throw outOfSync(label, `"${name}" (${field}: "${spec}") is in package.json but not in the lockfile`);
    if (inLock.spec !== spec || inLock.field !== field) {
      throw outOfSync(
        label,
        `"${name}" is ${field} "${spec}" in package.json but ${inLock.field} "${inLock.spec}" in the lockfile`,
      );
    }
  }
  for (const [name, { field, spec }] of locked) {
    if (!wanted.has(name))
      throw outOfSync(label, `"${name}" (${field}: "${spec}") is in the lockfile but not in package.json`);
  }
}

async function readJson(file: string): Promise<unknown | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function checkRootEntry(folder: string, lockName: string, label: string): Promise<void> {
  const manifestLabel = join(dirname(label), "package.json");
  const manifestJson = await readJson(join(folder, "package.json"));
  if (manifestJson === undefined) return;
  const manifest = parseWith(ManifestSchema, manifestJson, manifestLabel, "IMAGE_INVALID");
  const lock = parseWith(LockJsonSchema, await readJson(join(folder, lockName)), label, "IMAGE_INVALID");
  const lockRoot = lock.packages?.[""];
  if (lockRoot) compareRootSpecs(manifest, lockRoot, label);
}

async function loadTree(folder: string, label: string) {
  const { default: Arborist } = await import("@npmcli/arborist");
  try {
    return await new Arborist({ path: folder }).loadVirtual();
  } catch (cause) {
    throw new OracleError(
      "IMAGE_INVALID",
      `${label}: cannot be read as an npm lockfile (${(cause as Error).message})`,
      {
        cause,
        hint: "regenerate it with `npm install --package-lock-only`",
      },
    );
  }
}

type Tree = Awaited<ReturnType<typeof loadTree>>;

function checkEdges(tree: Tree, label: string): void {
  for (const node of tree.inventory.values()) {
    for (const edge of node.edgesOut.values()) {
      if (edge.type === "peer" || edge.type === "peerOptional") continue;
      if (edge.missing && edge.type === "optional") continue;
      if (!edge.missing && !edge.invalid) continue;
      const who = node.isRoot ? "package.json" : `${node.name}@${node.version ?? "?"}`;
      const has = edge.missing ? "nothing" : "another version";
      throw outOfSync(label, `${who} needs "${edge.name}@${edge.spec}" but the lockfile has ${has} for it`);
    }
  }
}

/** The canonical listing of an npm tree: one line per package, sorted, independent of the file's layout. */
function canonicalNpmTree(tree: Tree): string[] {
  const lines: string[] = [];
  for (const node of tree.inventory.values()) {
    if (node.isRoot) continue;
    if (node.isLink) {
      lines.push(`${node.location}\tlink:${node.target?.location ?? ""}`);
      continue;
    }
    lines.push(
      `${node.location}\t${node.name}@${node.version ?? ""}\t${node.resolved ?? ""}\t${node.integrity ?? ""}`,
    );
  }
  return lines.sort();
}

/**
 * Fingerprint of an npm lockfile (`package-lock.json` or `npm-shrinkwrap.json` in `folder`): the tree read
 * with Arborist's `loadVirtual`, reduced to sorted `location name@version resolved integrity` lines.
 * Reordering or reformatting the file is no change. Throws LOCKFILE_OUT_OF_SYNC naming the package when
 * the lockfile disagrees with the package.json beside it.
 */
export async function fingerprintNpmLockfile(
  folder: string,
  lockName: string,
  label: string,
): Promise<string> {
  await checkRootEntry(folder, lockName, label);
  const tree = await loadTree(folder, label);
  checkEdges(tree, label);
  return sha256(`npm-lockfile v1\n${canonicalNpmTree(tree).join("\n")}\n`);
}
