import { readFileSync } from "node:fs";
import { referenceMismatches } from "@oracle/cli-kit";
import { describe, expect, it } from "vitest";
import { GATE_LINE } from "./cli.js";

// docs/reference.md gives every flag of every command a row; this holds the rows to the command's own spec.
const reference = readFileSync(new URL("../../../docs/reference.md", import.meta.url), "utf8");

describe("docs/reference.md's argument tables", () => {
  it.each([["oracle-gate", GATE_LINE]] as const)("match %s's own spec", (_, spec) => {
    expect(referenceMismatches(spec, reference)).toEqual([]);
  });
});
