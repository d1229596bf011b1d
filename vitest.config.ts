import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// One vitest run for the whole repository: `unit` (beside the source, no Docker) and the end-to-end
// tests (test/, the built CLIs against the real engine). `pnpm test:unit` is the fast loop.
//
// The end-to-end files run two at a time (`e2e`): a grade waits on the engine as much as it computes,
// so two files on a two-core machine take about two thirds of the time of one after the other
// (measured: four hostile files, 110 s serial, 72 s two at a time, 80 s three at a time). Each file
// owns its containers by its run's labels, its temporary root and its ports, so neither can see the
// other's. The few files that hold something of the whole machine run alone, after the rest
// (`e2e-serial`, group 1): their own dockerd and registry (engine faults, leases).
const SERIAL = ["test/hostile/engine-faults.test.ts", "test/hostile/leases.test.ts"];
/**
 * The longest end-to-end files first (their CI times two at a time, in seconds), so that the two
 * workers finish together: vitest's default puts unknown files largest first, and the conformance
 * set, a short file of long grades, came last, the other worker idle.
 */
const LONGEST_FIRST = [
  "test/grade.test.ts", // 264
  "test/hostile/corpus.test.ts", // 195
  "test/conformance/conformance.test.ts", // 171
  "test/hostile/attacks.test.ts", // 122
  "test/quarantine.test.ts", // 110
  "test/hostile/redteam2.test.ts", // 91
  "test/hostile/go.test.ts", // 89
  "test/queue-batch.test.ts", // 73
  "test/hostile/redteam.test.ts", // 73
  "test/new-task.test.ts", // 71
  "test/health.test.ts", // 68
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = LONGEST_FIRST.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    const group = (spec: TestSpecification): number => spec.project.config.sequence.groupOrder;
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => group(a.spec) - group(b.spec) || rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}

const E2E = {
  environment: "node" as const,
  testTimeout: 180_000,
  hookTimeout: 600_000,
};

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts"],
          environment: "node",
          // A hang guard, not a speed test: some unit tests start git, python3 or sh, and a loaded
          // 2-core machine (CI runs everything at once) takes seconds to start them.
          testTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...E2E,
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: ["test/fixtures/**", "**/node_modules/**", ...SERIAL],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...E2E,
          name: "e2e-serial",
          include: SERIAL,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
