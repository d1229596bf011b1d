import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestCase } from "@oracle/spec";

/**
 * For the Go runtime's tests: `go test -json` (Debian's Go 1.19, as in the go-gotestsum image;
 * scripts/setup.sh installs golang-go) over a module in a temporary folder, with $ORACLE_SEALS set;
 * the tests as a report would list them (`hidden:<package>::<Test>`) and the records written.
 */
export function runGo(
  files: Record<string, string>,
  pkg: string,
): { tests: TestCase[]; records: string; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "oracle-seal-go-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const seals = join(dir, "seals.jsonl");
    let out = "";
    try {
      out = execFileSync("go", ["test", "-count=1", "-json", `./${pkg}`], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: dir,
          // One build cache for every run of the process: the standard library is built once.
          GOCACHE: join(tmpdir(), `oracle-seal-go-cache-${process.pid}`),
          GOFLAGS: "-mod=mod",
          GOPROXY: "off",
          ORACLE_SEALS: seals,
        },
        encoding: "utf8",
      });
    } catch (error) {
      out = String((error as { stdout?: string }).stdout ?? "");
    }
    const tests: TestCase[] = [];
    for (const line of out.split("\n")) {
      if (!line.startsWith("{")) continue;
      const event = JSON.parse(line) as { Action?: string; Package?: string; Test?: string };
      if (event.Test && (event.Action === "pass" || event.Action === "fail" || event.Action === "skip"))
        tests.push({
          id: `hidden:${event.Package}::${event.Test}`,
          outcome: event.Action === "pass" ? "passed" : event.Action === "fail" ? "failed" : "skipped",
        });
    }
    let records = "";
    try {
      records = readFileSync(seals, "utf8");
    } catch {
      records = "";
    }
    return { tests, records, output: out };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
