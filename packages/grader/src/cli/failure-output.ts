import type { GradeResult } from "@oracle/spec";

const SUITES = ["existing", "hidden"] as const;

/** Said under a suite's output when the oracle planted its must-fail/must-pass tests in that suite. */
export const SENTINEL_NOTE =
  "  (the oracle adds a must-fail test to each test file, named like the file's own tests: where it fails above, that is by design, and it is not in the counts)";

/**
 * What stderr shows after a FAIL: the end of each failed suite's own output (the bounded, printable
 * tail its result carries), each line behind `  | ` so it cannot pass for a line of the oracle's.
 * Empty for a PASS, and for a FAIL in which no suite ran.
 */
export function failureOutput(result: GradeResult): string {
  if (result.verdict === "PASS") return "";
  const lines: string[] = [];
  for (const name of SUITES) {
    const suite = result.suites[name];
    if (suite.status !== "FAIL" || !suite.output.tail) continue;
    const streams = (["stdout", "stderr"] as const).filter((s) => suite.output.tail?.[s] !== "");
    if (streams.length === 0) lines.push(`${name} suite printed nothing`);
    for (const stream of streams) {
      const text = suite.output.tail[stream].split("\n");
      lines.push(`${name} suite's ${stream}, last ${text.length} line${text.length === 1 ? "" : "s"}:`);
      lines.push(...text.map((line) => `  | ${line}`));
    }
    // The suite's own output shows the oracle's must-fail test failing as if it were the repository's.
    if (streams.length > 0 && suite.sentinel && suite.sentinel.files.length > 0) lines.push(SENTINEL_NOTE);
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
