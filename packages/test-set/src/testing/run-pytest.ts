import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestCase } from "@oracle/spec";

/**
 * For the runtimes' tests: runs Debian's pytest 7 (scripts/setup.sh installs python3-pytest and python3-numpy, the
 * python-pytest image's version) over files in a temporary folder, with $ORACLE_SEALS set, and
 * returns its JUnit report as test cases (`hidden:<classname>::<name>`) and the records written.
 */
export function runPytest(
  files: Record<string, string>,
  args: string[],
): { tests: TestCase[]; records: string } {
  const dir = mkdtempSync(join(tmpdir(), "oracle-seal-py-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const seals = join(dir, "seals.jsonl");
    const report = join(dir, "junit.xml");
    try {
      execFileSync(
        "/usr/bin/python3",
        ["-m", "pytest", "-p", "no:cacheprovider", "-q", `--junitxml=${report}`, ...args],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? "", ORACLE_SEALS: seals, PYTHONDONTWRITEBYTECODE: "1" },
          stdio: "pipe",
        },
      );
    } catch {
      // A failing test exits 1; the report says which.
    }
    const xml = readFileSync(report, "utf8");
    const tests: TestCase[] = [];
    for (const m of xml.matchAll(
      /<testcase classname="([^"]*)" name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g,
    )) {
      const body = m[4] ?? "";
      const outcome = /<failure/.test(body)
        ? "failed"
        : /<error/.test(body)
          ? "error"
          : /<skipped/.test(body)
            ? "skipped"
            : "passed";
      tests.push({ id: `hidden:${m[1]}::${m[2]}`, outcome });
    }
    let records = "";
    try {
      records = readFileSync(seals, "utf8");
    } catch {
      records = "";
    }
    return { tests, records };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
