import { defineConfig } from "vitest/config";

// One vitest run for the whole repository: `unit` (beside the source, no Docker) and the end-to-end
// tests (test/, the built CLIs against the real engine). `pnpm test:unit` is the fast loop.
//
// The end-to-end files run two at a time (`e2e`): a grade waits on the engine as much as it computes,
// so two files on a two-core machine take about two thirds of the time of one after the other
// (measured: four hostile files, 110 s serial, 72 s two at a time, 80 s three at a time). Each file
// owns its containers by its run's labels, its temporary root and its ports, so neither can see the
// other's. The few files that hold something of the whole machine run alone, after the rest
// (`e2e-serial`, group 1): their own dockerd and registry (engine faults, leases), and the grader's
// own CPU time measured against a bound (reports).
const SERIAL = [
  "test/hostile/engine-faults.test.ts",
  "test/hostile/leases.test.ts",
  "test/hostile/reports.test.ts",
];
const E2E = {
  environment: "node" as const,
  testTimeout: 180_000,
  hookTimeout: 600_000,
};

export default defineConfig({
  test: {
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
