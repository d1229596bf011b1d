import type { z } from "zod";
import type { CommandLineSpec } from "./command-line.js";

/**
 * The lines under the heading line `heading` (`### \`oracle-grade\``) up to the next heading of the
 * same or a higher level, fenced code left out; null when no line is that heading.
 */
export function markdownSection(markdown: string, heading: string): string[] | null {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  if (start === -1) return null;
  const level = heading.match(/^#+/)?.[0].length ?? 0;
  const section: string[] = [];
  let fenced = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("```")) fenced = !fenced;
    else if (!fenced) {
      const depth = line.match(/^(#+) /)?.[1]?.length;
      if (depth !== undefined && depth <= level) break;
      section.push(line);
    }
  }
  return section;
}

/** The body rows of the tables in `lines`, each as its cells (header and `---` rows left out). */
export function tableRows(lines: readonly string[]): string[][] {
  const rows: string[][] = [];
  for (const [at, line] of lines.entries()) {
    if (!line.startsWith("|") || /^\|\s*:?-/.test(line)) continue;
    if (/^\|\s*:?-/.test(lines[at + 1] ?? "")) continue;
    rows.push(
      line
        .replace(/^\|/, "")
        .replace(/\|\s*$/, "")
        .split(" | ")
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** One row of a command's argument table: a flag (`--root DIR`) or its bare arguments (`GLOB...`). */
export interface DocumentedArgument {
  /** The flag without its dashes, or the positional's name without `...`. */
  name: string;
  positional: boolean;
  /** A flag written with a value (`--root DIR`), not alone (`--force`). */
  takesValue: boolean;
  /** A positional written `NAME...`, or a flag whose row says "repeatable". */
  repeatable: boolean;
}

/** The argument table of `command`'s section (`### \`<command>\``) in `markdown`; null without the section. */
export function documentedArguments(markdown: string, command: string): DocumentedArgument[] | null {
  const section = markdownSection(markdown, `### \`${command}\``);
  if (!section) return null;
  return tableRows(section).flatMap((cells): DocumentedArgument[] => {
    const written = cells[0]?.match(/^`([^`]+)`/)?.[1];
    if (written === undefined) return [];
    const [first = "", ...rest] = written.split(/\s+/);
    if (first.startsWith("--"))
      return [
        {
          name: first.slice(2),
          positional: false,
          takesValue: rest.length > 0,
          repeatable: cells.join(" ").includes("repeatable"),
        },
      ];
    if (/^[A-Z][A-Z_]*(\.\.\.)?$/.test(first))
      return [
        {
          name: first.replace(/\.\.\.$/, ""),
          positional: true,
          takesValue: true,
          repeatable: first.endsWith("..."),
        },
      ];
    return [];
  });
}

/**
 * Where the reference's section for a command disagrees with the command's own spec: one line per
 * flag or positional missing, extra, or written with the wrong value or repetition. Empty when they agree.
 */
export function referenceMismatches(spec: CommandLineSpec<z.ZodType>, markdown: string): string[] {
  const documented = documentedArguments(markdown, spec.command);
  if (!documented) return [`no section "### \`${spec.command}\`"`];
  const problems: string[] = [];
  const flags = documented.filter((row) => !row.positional);
  for (const [name, flag] of Object.entries(spec.flags)) {
    const row = flags.find((r) => r.name === name);
    if (!row) problems.push(`--${name}: no row`);
    else {
      if (row.takesValue !== (flag.type === "string"))
        problems.push(
          `--${name}: written ${row.takesValue ? "with" : "without"} a value, but the flag is ${flag.type}`,
        );
      if (row.repeatable !== (flag.multiple === true))
        problems.push(
          `--${name}: ${row.repeatable ? "said" : "not said"} to be repeatable, but the flag is ${flag.multiple ? "" : "not "}repeatable`,
        );
    }
  }
  for (const row of flags)
    if (!(row.name in spec.flags)) problems.push(`--${row.name}: a row, but the command has no such flag`);
  const positionals = documented.filter((row) => row.positional);
  const expected = spec.positionals;
  const shown = positionals.map((p) => `${p.name}${p.repeatable ? "..." : ""}`).join(", ");
  const wanted = expected ? `${expected.name}${expected.multiple ? "..." : ""}` : "";
  if (shown !== wanted)
    problems.push(
      `bare arguments: the reference has ${shown || "none"}, the command takes ${wanted || "none"}`,
    );
  return problems;
}
