import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SweepReportSchema, writeJsonAtomic } from "@oracle/spec";
import { renderHtml } from "./report-html.js";
import { renderMarkdown } from "./report-md.js";
import type { SweepReport } from "./types.js";

/** The three report files of a sweep, by name. */
export function reportFiles(reportDir: string): { json: string; markdown: string; html: string } {
  return {
    json: join(reportDir, "report.json"),
    markdown: join(reportDir, "report.md"),
    html: join(reportDir, "report.html"),
  };
}

/** Writes report.json (checked against its schema), report.md and report.html into the report's folder. */
export async function writeReports(report: SweepReport): Promise<void> {
  const files = reportFiles(report.reportDir);
  await mkdir(report.reportDir, { recursive: true });
  await writeJsonAtomic(files.json, SweepReportSchema.parse(report));
  await writeFile(files.markdown, renderMarkdown(report));
  await writeFile(files.html, renderHtml(report));
}
