import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The grader README's table from each sentence of docs/specification.md to the file and function that
// carries it out: every sentence has a row, and every function a row names is declared in its file.
// docs/security.md's "where" references into src/run/ are held to the same rule.

const GRADER = join(import.meta.dirname, "..", "..");
const REPO = join(GRADER, "..", "..");
const read = (path: string) => readFileSync(path, "utf8");

/** The specification's sentences: each bullet, cut after every full stop that a capital follows. */
function specSentences(markdown: string): string[] {
  return markdown
    .split("\n")
    .filter((line) => line.startsWith("- "))
    .flatMap((line) => line.slice(2).split(/(?<=\.)\s+(?=[A-Z])/))
    .map((sentence) => sentence.trim());
}

/** The rows of the table under `heading`: the sentence, and each `file: function` it names. */
function whereRows(markdown: string, heading: string): Array<{ sentence: string; where: string[] }> {
  const section = markdown.split(`\n## ${heading}\n`)[1]?.split("\n## ")[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| sentence") && !line.startsWith("| ---"))
    .map((line) => {
      const [sentence = "", where = ""] = line.slice(2, -2).split(" | ");
      return {
        sentence: sentence.replace(/\\(.)/g, "$1"),
        where: [...where.matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
      };
    });
}

/** The file a reference names: relative to the grader's src/, or to the repository for a package or app. */
const fileOf = (path: string) =>
  /^(packages|apps)\//.test(path) ? join(REPO, path) : join(GRADER, "src", path);

/** Whether `source` declares `name`: a function, class, interface, type, constant or method. */
function declares(source: string, name: string): boolean {
  const declaration = new RegExp(
    `(?:function\\*?|class|interface|type|const|let|var)\\s+${name}\\b|^\\s+(?:(?:async|get|static|private|protected|public|override)\\s+)*${name}\\s*[(<]`,
    "m",
  );
  return declaration.test(source);
}

/** `file: function` references whose function is not declared in the file (or whose file is missing). */
function missing(references: readonly string[]): string[] {
  return references.filter((reference) => {
    const [path, name] = reference.split(": ");
    if (!path || !name) return true;
    try {
      return !declares(read(fileOf(path)), name);
    } catch {
      return true;
    }
  });
}

describe("the grader README's table from the specification to the code", () => {
  const rows = whereRows(read(join(GRADER, "README.md")), "Where the specification is carried out");

  it("has a row for every sentence of the specification, in its words", () => {
    const sentences = specSentences(read(join(REPO, "docs", "specification.md")));
    expect(sentences.length).toBeGreaterThan(20);
    expect(rows.map((row) => row.sentence)).toEqual(sentences);
  });

  it("names, in every row, functions that exist in the files it names", () => {
    for (const row of rows) {
      expect(row.where.length, row.sentence).toBeGreaterThan(0);
      expect(missing(row.where), row.sentence).toEqual([]);
    }
  });
});

describe("docs/security.md's references into the run core", () => {
  it("name functions that exist in the files they name", () => {
    const references = [
      ...read(join(REPO, "docs", "security.md")).matchAll(/`(run\/[a-z-]+\.ts: \w+)`/g),
    ].map((m) => m[1]!);
    expect(references.length).toBeGreaterThan(20);
    expect(missing(references)).toEqual([]);
  });
});

describe("the checks of the table", () => {
  it("find a missing function, a missing file and a wrong file", () => {
    expect(missing(["run/pipeline.ts: runPipeline", "run/run-scope.ts: time"])).toEqual([]);
    expect(
      missing(["run/pipeline.ts: runPipelines", "run/nowhere.ts: runPipeline", "run/prep.ts: runPipeline"]),
    ).toHaveLength(3);
  });

  it("cut the specification into sentences", () => {
    expect(
      specSentences("- Network: none. Started with networking disabled.\n- Env: LC_ALL=C.UTF-8, x."),
    ).toEqual(["Network: none.", "Started with networking disabled.", "Env: LC_ALL=C.UTF-8, x."]);
  });
});
