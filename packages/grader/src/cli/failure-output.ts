import type { GradeResult } from "@oracle/spec";

const SUITES = ["existing", "hidden"] as const;

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
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
