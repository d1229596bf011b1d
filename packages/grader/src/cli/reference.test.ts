import { readFileSync } from "node:fs";
import { referenceMismatches } from "@oracle/cli-kit";
import { describe, expect, it } from "vitest";
import { KEY_LINE, VERIFY_LINE } from "../attest/cli.js";
import { BATCH_LINE } from "../batch/cli-options.js";
import { LOG_LINE } from "../log/view/cli.js";
import { WORKER_LINE } from "../queue/worker-cli-options.js";
import { SERVE_LINE } from "../serve/serve-options.js";
import { GRADE_LINE } from "./cli-options.js";

// docs/reference.md gives every flag of every command a row; this holds the rows to the command's own spec.
const reference = readFileSync(new URL("../../../../docs/reference.md", import.meta.url), "utf8");

describe("docs/reference.md's argument tables", () => {
  it.each([
    ["oracle-grade", GRADE_LINE],
    ["oracle-grade --batch", BATCH_LINE],
    ["oracle-grade --serve", SERVE_LINE],
    ["oracle-worker", WORKER_LINE],
    ["oracle-log", LOG_LINE],
    ["oracle-verify", VERIFY_LINE],
    ["oracle-key", KEY_LINE],
  ] as const)("match %s's own spec", (_, spec) => {
    expect(referenceMismatches(spec, reference)).toEqual([]);
  });
});
