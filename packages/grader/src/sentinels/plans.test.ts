// Recorded plans (issue 29): what the oracle plants in every fixture task's hidden tests (the seals,
// and the must-fail/must-pass pair with a fixed seed), under the task's own hidden command and under
// the selections real tasks use (node ids, -k, anchored -run / -t / --grep), against a snapshot
// committed beside this file. A change to the planners shows here as a diff of the snapshot, to be
// read and accepted (`npx vitest run --project unit -u packages/grader/src/sentinels/plans.test.ts`), never
// first in a grade. Moving the grader's files must leave it unchanged.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Grammar, grammarOf, loadParsers, planSeals, seededRandom } from "@oracle/test-set";
import { describe, expect, it } from "vitest";
import { sealedNames } from "./plant-sentinels.js";
import { type HiddenText, planSentinels, sentinelRunner } from "./sentinels.js";

const ROOT = new URL("../../../../", import.meta.url).pathname;

/** Every file under a folder, relative to it, in a stable order. */
function filesUnder(dir: string, prefix = ""): HiddenText[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      return entry.isDirectory()
        ? filesUnder(dir, path)
        : [{ path, text: readFileSync(join(dir, path), "utf8") }];
    });
}

interface Fixture {
  id: string;
  framework?: string;
  /** The task's own hidden command, then the selections real tasks write, each applied to it. */
  commands: string[];
  hidden: HiddenText[];
}

/** The sample tasks and the hostile corpus's fixture tasks. */
function fixtures(): Fixture[] {
  const found: Array<{ id: string; dir: string; task: string }> = [
    // Folders only: a sweep run here writes tasks/health.json and tasks/quarantine.json beside them.
    ...readdirSync(join(ROOT, "tasks"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map(({ name: id }) => ({
        id,
        dir: join(ROOT, "tasks", id),
        task: "task.json",
      })),
    ...["hostile-py", "hostile-node"].map((id) => ({
      id,
      dir: join(ROOT, "test/hostile/fixtures", id),
      task: "task.template.json",
    })),
  ];
  return found.map(({ id, dir, task }) => {
    const json = JSON.parse(readFileSync(join(dir, task), "utf8"));
    const own: string = json.suites.hidden.command;
    return {
      id,
      ...(json.framework ? { framework: json.framework } : {}),
      commands: [own, ...(SELECTIONS[id] ?? []).map((change) => change(own))],
      hidden: filesUnder(join(dir, "hidden-tests")),
    };
  });
}

/** Selections of single tests by name, as SWE-bench and Multi-SWE-bench write them, per sample task. */
const SELECTIONS: Record<string, Array<(command: string) => string>> = {
  "freebusy-py": [
    (c) =>
      c.replace(
        / tests\/regression$/,
        () =>
          ` tests/regression/test_contained_meetings.py::test_several_intervals_inside_one "tests/regression/test_contained_meetings.py::test_identical_intervals_merge_to_one"`,
      ),
    (c) => `${c} -k "merge and not free"`,
  ],
  "calc-node": [
    (c) => `${c} --grep '^operators of equal precedence associate to the left subtracts left to right$'`,
  ],
  "slug-jest": [
    (c) =>
      c.replace("test/regression/ ", () => "test/regression/ -t '^separators trims dashes at the ends$' "),
  ],
  "ranges-vitest": [
    (c) => c.replace("test/regression/ ", () => "test/regression/ -t '^ranges that touch are joined$' "),
  ],
  "semver-go": [
    (c) => c.replace(" ./conformance", () => " -run '^(TestSpecExampleIsAscending)$' ./conformance"),
  ],
};

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

async function planOf(fixture: Fixture, command: string) {
  const grammars = fixture.hidden.map((f) => grammarOf(f.path)).filter((g): g is Grammar => g !== null);
  const seals =
    grammars.length > 0
      ? planSeals(await loadParsers(grammars), fixture.hidden, { framework: fixture.framework ?? null })
      : null;
  const runner = sentinelRunner({
    ...(fixture.framework ? { framework: fixture.framework as never } : {}),
    suites: { hidden: { command } },
  });
  const sentinel = planSentinels(
    runner,
    fixture.hidden,
    [],
    seals ? sealedNames(seals) : new Map(),
    seededRandom(29),
  );
  return {
    command,
    seals: seals && {
      fingerprint: seals.fingerprint,
      files: seals.files.map((f) => ({ path: f.path, text: sha256(f.text) })),
      added: seals.added.map((a) => a.path),
      sites: seals.sites.map((s) => `${s.key} ${s.strength} ${s.test.file}::${s.test.entry}`),
      unsealed: seals.unsealed.map((u) => `${u.rule} ${u.test.file}::${u.test.entry}`),
    },
    sentinel: sentinel && {
      framework: sentinel.framework,
      required: sentinel.required,
      note: sentinel.note ?? null,
      command: sentinel.command ?? null,
      appends: sentinel.appends.map((a) => ({
        path: a.path,
        className: a.className ?? null,
        tests: a.tests.map((t) => `${t.role} ${t.names.join(" | ")}`),
        text: a.text,
      })),
    },
  };
}

describe("recorded plans", () => {
  it("every fixture's seals and pair, under its own command and the selections real tasks use, match the snapshot", async () => {
    const plans: Record<string, unknown[]> = {};
    for (const fixture of fixtures()) {
      plans[fixture.id] = [];
      for (const command of fixture.commands) plans[fixture.id]!.push(await planOf(fixture, command));
    }
    await expect(`${JSON.stringify(plans, null, 2)}\n`).toMatchFileSnapshot("./__snapshots__/plans.json");
  });

  it("the same seed gives the same plan; another seed another pair", async () => {
    const [fixture] = fixtures().filter((f) => f.id === "slug-jest");
    const a = await planOf(fixture!, fixture!.commands[0]!);
    const b = await planOf(fixture!, fixture!.commands[0]!);
    expect(a).toEqual(b);
    const other = planSentinels(
      sentinelRunner({ suites: { hidden: { command: fixture!.commands[0]! } } }),
      fixture!.hidden,
      [],
      new Map(),
      seededRandom(30),
    );
    expect(other?.appends[0]?.text).not.toBe(a.sentinel?.appends[0]?.text);
  });
});
