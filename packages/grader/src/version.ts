import { readFileSync } from "node:fs";

/** The grader's version, from its package.json; recorded in every result. */
export const GRADER_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/**
 * The build's id: the SHA-256 of the bundled oracle-grade (dist/build-id, scripts/bundle.mjs); null
 * when unbuilt. A local grader (oracle-grade --serve) grades only for a client of the same build.
 */
export function buildId(): string | null {
  try {
    return readFileSync(new URL("./build-id", import.meta.url), "utf8").trim() || null;
  } catch {
    return null;
  }
}
