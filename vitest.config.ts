import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// One vitest run for the whole repository: `unit` (beside the source, no Docker) and the end-to-end
// tests (test/, the built CLIs against the real engine). `pnpm test:unit` is the fast loop.
//
// The end-to-end files run two at a time: a grade waits on the engine as much as it computes, so
// two files on a two-core machine take about two thirds of the time of one after the other
// (measured: four hostile files, 110 s serial, 72 s two at a time, 80 s three at a time). Each file
// owns its containers by its run's labels, its temporary root and its ports; the one that starts a
// dockerd and a registry of its own (engine faults and leases) gives them their own socket, data and
// exec roots, bridge and registry port (test/hostile/private-engine.ts), so no other file sees them.

/**
 * The longest files first (their seconds: tests, and the set-up before them where it is long), so
 * that the two workers finish together: vitest's default runs the unit project after the end-to-end
 * one and unknown files largest first, so the conformance set, a short file of long grades, once came
 * last with the other worker idle, and so did image.test.ts (npm installs, a unit file). Seconds
 * measured at 9b6c13b (979 s idle) for conformance, image, grade, corpus, new-task-shapes, new-task
 * and seals, the rest on a loaded CI run of f5ebbe5. The sample images are built once by the run's
 * global set-up now (test/global-setup.ts), not by the first two files at once.
 */
const LONGEST_FIRST = [
  "test/conformance/conformance.test.ts", // 167
  "apps/quarantine/src/new-task/image.test.ts", // 108
  "test/grade.test.ts", // 100 (its image builds included)
  "test/hostile/corpus.test.ts", // 88
  "test/new-task-shapes.test.ts", // 86
  "test/hostile/attacks.test.ts", // 78
  "test/quarantine.test.ts", // 74
  "test/health.test.ts", // 66
  "test/new-task.test.ts", // 63
  "test/hostile/seals.test.ts", // 61
  "test/hostile/engine-faults.test.ts", // 27 + ~45 (a private engine: start, image load, stop; leases too)
  "test/gate.test.ts", // 31 + ~25
  "test/hostile/redteam.test.ts", // 55
  "test/hostile/go.test.ts", // 54
  "test/new-task-mine.test.ts", // 47
  "test/hostile/redteam2.test.ts", // 43
  "test/hostile/queue-answers.test.ts", // 36
  "test/hostile/sentinels.test.ts", // 34
  "test/hostile/expected.test.ts", // 33
  "test/hostile/seal-js-eq.test.ts", // 33
  "test/queue-batch.test.ts", // 31
  "test/gate-workflow.test.ts", // 13 + ~15
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const at = LONGEST_FIRST.findIndex((path) => spec.moduleId.endsWith(`/${path}`));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // Array#sort is stable: the rest keep the default order.
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}

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
          // A worker runs its unit files in one module graph (vitest's isolate: false): each file's
          // own module is fresh, the packages' modules they import are loaded once per worker. With
          // isolation every file loaded zod, dockerode and the test-set's parsers again (measured on
          // 67 unit files under load: import 69 s -> 17 s, the run's CPU 45 s -> 20 s, same tests).
          // The unit files keep no state in the modules they share and stub no global or environment.
          // The one module mock, prepare.test.ts's, wraps cachedFingerprint in a pass-through spy: it
          // applies even when a file before it in the worker loaded prepare.js (tried), and a later
          // file that meets it gets the function's own results.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: ["test/fixtures/**", "**/node_modules/**"],
          // The run's shared content-keyed caches (image and lockfile fingerprints) for its temporary roots.
          globalSetup: ["test/global-setup.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 600_000,
          // The same pool as the unit tests (one group): two files at a time in all.
          maxWorkers: 2,
          // One module graph per worker, as the unit files (measured on 7 short e2e files under load:
          // import 13.9 s -> 7.9 s). Each file's own module, its beforeAll/afterAll and temporary root
          // are its own; what files share (test-utils, the harness, the shapes' grade limiter) keeps no
          // state past the file that used it, and no file mocks or stubs a module or the environment.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
