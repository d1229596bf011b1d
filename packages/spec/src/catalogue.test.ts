import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "./errors.js";
import { QUARANTINE_FLAGS, QUARANTINE_HINTS } from "./quarantine.js";
import { REASON_CODES } from "./result.js";

const readme = readFile(new URL("../../../README.md", import.meta.url), "utf8");

describe("the README documents every code", () => {
  it.each([
    ["error codes", ERROR_CODES],
    ["reason codes", REASON_CODES],
    ["quarantine flags", QUARANTINE_FLAGS],
  ])("%s", async (_, catalogue) => {
    const text = await readme;
    const missing = Object.keys(catalogue).filter((code) => !text.includes(`| \`${code}\` |`));
    expect(missing, "add a row for each to README.md").toEqual([]);
  });
});

describe("the README's quarantine table", () => {
  it("gives each flag its hint, word for word", async () => {
    const text = await readme;
    const missing = Object.entries(QUARANTINE_HINTS)
      .filter(([, hint]) => !text.includes(` | ${hint.replaceAll("<task>", "&lt;task&gt;")} |`))
      .map(([flag]) => flag);
    expect(missing, "copy each hint into the flag's row of README.md").toEqual([]);
  });
});
