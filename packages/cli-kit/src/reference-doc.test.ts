import { readFileSync } from "node:fs";
import { ERROR_CODES, type ErrorCode, OracleError } from "@oracle/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EXIT, exitCodeFor, signalExitCode } from "./exit-codes.js";
import { markdownSection, referenceMismatches, tableRows } from "./reference-doc.js";

const reference = readFileSync(new URL("../../../docs/reference.md", import.meta.url), "utf8");

const SPEC = {
  command: "oracle-x",
  flags: {
    root: { type: "string" },
    only: { type: "string", multiple: true },
    force: { type: "boolean" },
  },
  positionals: { field: "only", name: "NAME", multiple: true },
  schema: z.strictObject({}),
} as const;

const DOC = [
  "### `oracle-x`",
  "",
  "| argument | what it is |",
  "| --- | --- |",
  "| `NAME...` | images |",
  "| `--root DIR` | the root |",
  "| `--only NAME` | one image (repeatable) |",
  "| `--force` | rebuild |",
  "",
  "```sh",
  "# a comment, not a heading",
  "```",
  "### `oracle-y`",
  "| `--other` | not oracle-x's |",
].join("\n");

describe("referenceMismatches", () => {
  it("is empty when every flag and the bare arguments have their row", () => {
    expect(referenceMismatches(SPEC, DOC)).toEqual([]);
  });

  it("names a missing row, an extra row, a wrong value, a wrong repetition and a missing section", () => {
    expect(referenceMismatches(SPEC, DOC.replace("| `--root DIR` | the root |\n", ""))).toEqual([
      "--root: no row",
    ]);
    expect(
      referenceMismatches(
        SPEC,
        DOC.replace("| `--force` | rebuild |", "| `--force` | x |\n| `--gone` | y |"),
      ),
    ).toEqual(["--gone: a row, but the command has no such flag"]);
    expect(referenceMismatches(SPEC, DOC.replace("`--force`", "`--force WHEN`"))).toEqual([
      "--force: written with a value, but the flag is boolean",
    ]);
    expect(referenceMismatches(SPEC, DOC.replace(" (repeatable)", ""))).toEqual([
      "--only: not said to be repeatable, but the flag is repeatable",
    ]);
    expect(referenceMismatches(SPEC, DOC.replace("`NAME...`", "`NAME`"))).toEqual([
      "bare arguments: the reference has NAME, the command takes NAME...",
    ]);
    expect(referenceMismatches({ ...SPEC, command: "oracle-z" }, DOC)).toEqual([
      'no section "### `oracle-z`"',
    ]);
  });
});

describe("docs/reference.md's exit codes", () => {
  const rows = tableRows(markdownSection(reference, "## Exit codes") ?? []);
  const codesOf = (cell: string) => cell.split(",").map((code) => Number(code.trim()));

  it("has a row for each of cli-kit's exit codes and for SIGINT and SIGTERM, and no other", () => {
    const documented = rows.flatMap((row) => codesOf(row[0] ?? "")).sort((a, b) => a - b);
    const expected = [
      ...new Set([...Object.values(EXIT), signalExitCode("SIGINT"), signalExitCode("SIGTERM")]),
    ];
    expect(documented).toEqual(expected.sort((a, b) => a - b));
  });

  it("lists each error code in the row of the exit code it gives", () => {
    const misplaced = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => {
      const listedIn = rows
        .filter((row) => row[2]?.includes(`\`${code}\``))
        .flatMap((row) => codesOf(row[0] ?? ""));
      return listedIn.join() !== String(exitCodeFor(new OracleError(code, "x")));
    });
    expect(misplaced, "move each to the row of exitCodeFor(code) in docs/reference.md").toEqual([]);
  });
});
