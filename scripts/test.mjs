#!/usr/bin/env node
// `npm test` after set-up: the whole suite (unit + real-Docker end-to-end) in one vitest run, then one
// closing line `tests: N passed, N failed, N skipped`. Extra arguments go to vitest.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const hostCa = "/etc/ssl/certs/ca-certificates.crt";
const env = { ...process.env };
// Image builds reach the npm registry from inside containers; behind a TLS-intercepting proxy they
// need the host's CA bundle (see docs/reference.md, "Extra CA for builds").
if (!env.ORACLE_BUILD_CA_FILE && existsSync(hostCa)) env.ORACLE_BUILD_CA_FILE = hostCa;
// The whole suite: its global set-up builds the sample images once before the files (test/global-setup.ts).
env.ORACLE_TEST_PREBUILD ??= "1";

mkdirSync(join(root, "logs"), { recursive: true });
const report = join(root, "logs", "vitest-report.json");
const args = [
  "exec",
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${report}`,
];
const result = spawnSync("pnpm", [...args, ...process.argv.slice(2)], { cwd: root, env, stdio: "inherit" });

if (existsSync(report)) {
  const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = JSON.parse(
    readFileSync(report, "utf8"),
  );
  console.log(
    `tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped`,
  );
}
process.exit(result.status ?? 1);
