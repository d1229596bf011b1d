import { readFileSync } from "node:fs";

/** The grader's version, from its package.json; recorded in every result. */
export const GRADER_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
