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
