import { GRADER_VERSION, matchEntries, RECORD_FILE, taskDigest, writeExpectedRecord } from "@oracle/grader";
import type { ExpectedRecord, LoadedTask, TestCase, TestOutcome } from "@oracle/spec";
import type { Finding } from "./checks.js";
import type { RunObservation, TaskStatus } from "./types.js";

/** Expected tests in the sweep: checking the ones task.json declares, recording them where it declares none. */

type SuiteName = "existing" | "hidden";
const SUITES: readonly SuiteName[] = ["existing", "hidden"];

/** One suite's tests of a run, as report test cases. */
function suiteTests(observation: RunObservation, suite: SuiteName): TestCase[] {
  const tests: TestCase[] = [];
  for (const [id, outcome] of observation.tests)
    if (id.startsWith(`${suite}:`)) tests.push({ id, outcome: outcome as TestOutcome });
  return tests;
}

function finding(flag: Finding["flag"], observation: RunObservation, detail: string): Finding {
  const { record } = observation;
  return { flag, mode: record.mode, detail, logs: record.log ? [record.log] : [] };
}

const listed = (entries: string[]) =>
  `${entries.slice(0, 5).join(", ")}${entries.length > 5 ? ` and ${entries.length - 5} more` : ""}`;

/** What one run says about the declared entries of one suite. */
function suiteFindings(observation: RunObservation, suite: SuiteName, loaded: LoadedTask): Finding[] {
  const expected = loaded.task.suites[suite].expected;
  if (!expected || observation.record.reason === "INFRA_ERROR" || !observation.complete) return [];
  const tests = suiteTests(observation, suite);
  if (tests.length === 0) return [];
  const failToPass = matchEntries(expected.failToPass ?? [], tests);
  const passToPass = matchEntries(expected.passToPass ?? [], tests);
  const findings: Finding[] = [];
  const missing = [...failToPass, ...passToPass].filter((m) => m.status === "missing").map((m) => m.entry);
  if (missing.length > 0)
    findings.push(
      finding(
        "EXPECTED_TEST_NOT_FOUND",
        observation,
        `${suite}: ${missing.length} not in the report: ${listed(missing)}`,
      ),
    );
  if (observation.record.mode !== "baseline") return findings;
  const notFailing = failToPass.filter((m) => m.status === "passed" || m.status === "skipped");
  if (notFailing.length > 0)
    findings.push(
      finding(
        "FAIL_TO_PASS_NOT_FAILING",
        observation,
        `${suite}: ${listed(notFailing.map((m) => `${m.entry} (${m.status})`))}`,
      ),
    );
  const notPassing = passToPass.filter((m) => m.status === "failed" || m.status === "skipped");
  if (notPassing.length > 0)
    findings.push(
      finding(
        "PASS_TO_PASS_NOT_PASSING",
        observation,
        `${suite}: ${listed(notPassing.map((m) => `${m.entry} (${m.status})`))}`,
      ),
    );
  return findings;
}

/** The declared expectations checked against every run: at baseline failToPass fail and passToPass pass; every entry is found. */
export function expectedFindings(loaded: LoadedTask, observations: readonly RunObservation[]): Finding[] {
  return observations.flatMap((o) => SUITES.flatMap((suite) => suiteFindings(o, suite, loaded)));
}

const outcomesOf = (observations: readonly RunObservation[], id: string) =>
  observations.map((o) => o.tests.get(id));

/** The record from validated runs: hidden failed at every baseline and passed with every gold run, or passed at both; existing passed at both. */
export function recordedSuites(observations: readonly RunObservation[]): ExpectedRecord["suites"] {
  const baseline = observations.filter((o) => o.record.mode === "baseline");
  const gold = observations.filter((o) => o.record.mode === "gold");
  const ids = [...new Set(observations.flatMap((o) => [...o.tests.keys()]))].sort();
  const all = (runs: readonly RunObservation[], id: string, want: (outcome?: string) => boolean) =>
    outcomesOf(runs, id).every(want);
  const passed = (o?: string) => o === "passed";
  const failed = (o?: string) => o === "failed" || o === "error";
  const suites: ExpectedRecord["suites"] = {
    existing: { failToPass: [], passToPass: [] },
    hidden: { failToPass: [], passToPass: [] },
  };
  for (const id of ids) {
    const suite = id.startsWith("hidden:") ? suites.hidden : suites.existing;
    if (!all(gold, id, passed)) continue;
    if (all(baseline, id, passed)) suite.passToPass.push(id);
    else if (id.startsWith("hidden:") && all(baseline, id, failed)) suite.failToPass.push(id);
  }
  return suites;
}

/**
 * The hidden tests upstream skips, when they are all that keeps a task without expected tests from
 * being healthy: every gold run failed only with EXPECTED_TEST_SKIPPED ("with no expected tests
 * declared every hidden test must run and pass"), each test it skipped was skipped at every baseline
 * and gold run (`@skip` at the base and at the fix alike), and the runs give a record with a
 * failToPass. Null otherwise. The sweep then records the expected tests (the skipped ones are not in
 * them) and checks again: a test upstream skips is skipped, never failed.
 */
export function skippedUpstream(
  loaded: LoadedTask,
  observations: readonly RunObservation[],
): string[] | null {
  const { existing, hidden } = loaded.task.suites;
  if (existing.expected || hidden.expected) return null;
  const gold = observations.filter((o) => o.record.mode === "gold");
  const baseline = observations.filter((o) => o.record.mode === "baseline");
  if (gold.length === 0 || baseline.length === 0 || observations.some((o) => !o.complete)) return null;
  if (!gold.every((o) => o.record.reason === "EXPECTED_TEST_SKIPPED")) return null;
  const skipped = [
    ...new Set(
      gold.flatMap((o) =>
        [...o.tests]
          .filter(([id, outcome]) => id.startsWith("hidden:") && outcome === "skipped")
          .map(([id]) => id),
      ),
    ),
  ].sort();
  const everywhere = (id: string) => observations.every((o) => o.tests.get(id) === "skipped");
  if (skipped.length === 0 || !skipped.every(everywhere)) return null;
  return recordedSuites(observations).hidden.failToPass.length > 0 ? skipped : null;
}

/**
 * Records the expected tests of a task that declares none, once the sweep found it healthy and every
 * run listed all of its tests. Returns what it did, for the report and the log.
 */
export async function recordExpected(
  loaded: LoadedTask,
  status: TaskStatus,
  observations: readonly RunObservation[],
): Promise<string> {
  const { existing, hidden } = loaded.task.suites;
  if (existing.expected || hidden.expected) return "declared in task.json";
  if (status !== "healthy") return `not recorded: the task is ${status}`;
  if (!observations.some((o) => o.record.mode === "gold")) return "not recorded: no gold run";
  if (observations.some((o) => !o.complete))
    return "not recorded: a run's result did not list every test (testsOmitted)";
  const suites = recordedSuites(observations);
  if (suites.hidden.failToPass.length === 0)
    return "not recorded: no hidden test failed at baseline and passed with gold";
  await writeExpectedRecord(loaded, {
    version: 1,
    task: loaded.task.id,
    taskDigest: await taskDigest(loaded),
    recordedAt: new Date().toISOString(),
    graderVersion: GRADER_VERSION,
    suites,
  });
  const count = (s: SuiteName) => suites[s].failToPass.length + suites[s].passToPass.length;
  return `recorded in tasks/${loaded.task.id}/${RECORD_FILE}: ${count("hidden")} hidden (${suites.hidden.failToPass.length} failToPass), ${count("existing")} existing`;
}
