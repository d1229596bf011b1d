// Red team round 5 (redteam3): plans a hidden pytest file's sentinels, writes the planted file into a
// temp checkout, runs the host's real pytest and judges its JUnit report with the grader's own
// parseJUnit + checkSentinel + suiteReason (packages/grader/dist: run `pnpm build` first).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const D = new URL("../../packages/grader/dist", import.meta.url).pathname;
const { planSentinels, sentinelRunner, checkSentinel } = await import(`${D}/sentinels/sentinels.js`);
const { parseJUnit } = await import(`${D}/reports/junit.js`);
const { suiteReason } = await import(`${D}/suite-result.js`);

export function gradeOnce({ path, text, files, args, key, family = "xunit2", extraArgs = [] }) {
  const command = `python3 -m pytest -p no:cacheprovider --junitxml="$ORACLE_JUNIT" ${args}`;
  const s = planSentinels(
    sentinelRunner({ suites: { hidden: { command } } }),
    [{ path, text }],
    [],
    new Map(),
    key,
  );
  const dir = mkdtempSync(join(tmpdir(), "rt3-"));
  for (const [p, t] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), t);
  }
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  const a = s?.appends.find((x) => x.path === path);
  writeFileSync(join(dir, path), a ? `${a.rewrite ?? text}${a.text}` : text);
  const runArgs = (s?.command ?? command)
    .replace(/^python3 -m pytest /, "")
    .replace('--junitxml="$ORACLE_JUNIT"', `--junitxml=${dir}/r.xml`);
  const r = spawnSync(
    "sh",
    ["-c", `python3 -m pytest -o junit_family=${family} ${runArgs} ${extraArgs.join(" ")}`],
    { cwd: dir, encoding: "utf8" },
  );
  const tests = parseJUnit(readFileSync(`${dir}/r.xml`, "utf8"), "hidden");
  const v = s ? checkSentinel(s, tests, r.status) : null;
  const reason = v?.problem
    ? "REPORT_INCONSISTENT"
    : suiteReason(v ? v.tests : tests, v ? v.exitCode : r.status);
  return { s, tests, v, reason, dir, out: r.stdout };
}
