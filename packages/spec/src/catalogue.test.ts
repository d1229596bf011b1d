import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "./errors.js";
import { QUARANTINE_FLAGS, QUARANTINE_HINTS } from "./quarantine.js";
import { REASON_CLASS, REASON_CODES } from "./result.js";

const reference = readFile(new URL("../../../docs/reference.md", import.meta.url), "utf8");

/** The rows of the table under `## heading`, each as its cells. */
async function rowsUnder(heading: string): Promise<string[][]> {
  const section = (await reference).split(`\n## ${heading}\n`)[1]?.split("\n## ")[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.slice(2, -2).split(" | "));
}

describe("docs/reference.md documents every code", () => {
  it.each([
    ["error codes", "Error codes", ERROR_CODES],
    ["reason codes", "Reason codes (`grade`)", REASON_CODES],
    ["quarantine flags", "Quarantine flags", QUARANTINE_FLAGS],
  ])("%s: a row each, and none for a code the catalogue lacks", async (_, heading, catalogue) => {
    const documented = (await rowsUnder(heading)).map((cells) => cells[0]?.replaceAll("`", ""));
    expect(documented.length, `a table under "## ${heading}"`).toBeGreaterThan(0);
    const missing = Object.keys(catalogue).filter((code) => !documented.includes(code));
    const extra = documented.filter((code) => code === undefined || !(code in catalogue));
    expect({ missing, extra }, "one row per code in docs/reference.md").toEqual({ missing: [], extra: [] });
  });

  it("gives each error code and quarantine flag its catalogue's meaning, word for word", async () => {
    const differs = [
      ...(await rowsUnder("Error codes")).filter(([code = "", meaning]) => {
        return meaning !== ERROR_CODES[code.replaceAll("`", "") as keyof typeof ERROR_CODES];
      }),
      ...(await rowsUnder("Quarantine flags")).filter(([code = "", meaning]) => {
        return meaning !== QUARANTINE_FLAGS[code.replaceAll("`", "") as keyof typeof QUARANTINE_FLAGS];
      }),
    ].map(([code]) => code);
    expect(differs).toEqual([]);
  });

  it("gives each reason its verdict and its class (REASON_CLASS)", async () => {
    const wrong = (await rowsUnder("Reason codes (`grade`)"))
      .map(([code = "", verdict, cls]) => ({ code: code.replaceAll("`", ""), verdict, cls }))
      .filter(({ code, verdict, cls }) => {
        const expected = REASON_CLASS[code as keyof typeof REASON_CLASS];
        return cls !== expected || verdict !== (code === "PASS" ? "PASS" : "FAIL");
      })
      .map(({ code }) => code);
    expect(wrong).toEqual([]);
  });
});

describe("docs/reference.md's quarantine table", () => {
  it("gives each flag its hint, word for word", async () => {
    const text = await reference;
    const missing = Object.entries(QUARANTINE_HINTS)
      .filter(([, hint]) => !text.includes(` | ${hint.replaceAll("<task>", "&lt;task&gt;")} |`))
      .map(([flag]) => flag);
    expect(missing, "copy each hint into the flag's row of docs/reference.md").toEqual([]);
  });
});
