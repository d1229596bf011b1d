import { defineConfig } from "vitest/config";

// One vitest run for the whole repository: `unit` (beside the source, no Docker) and `e2e`
// (test/, the built CLIs against the real engine). `pnpm test:unit` is the fast loop.
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
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: ["test/fixtures/**", "**/node_modules/**"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
