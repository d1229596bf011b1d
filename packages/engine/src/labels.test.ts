import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { benchLabels, gradeLabels, imageLabels, LABEL, labelFilter, suiteLabels } from "./labels.js";
import { LEASE_GRACE_MS, leaseDeadline, pidNamespace } from "./lease.js";

const NOW = Date.UTC(2026, 0, 1);

describe("LABEL", () => {
  it("keeps the documented names (docs/reference.md, Labels): containers of older graders and users' filters carry them", () => {
    expect(Object.values(LABEL).sort()).toEqual([
      "dev.oracle.bench",
      "dev.oracle.component",
      "dev.oracle.deadline",
      "dev.oracle.fingerprint",
      "dev.oracle.host",
      "dev.oracle.image",
      "dev.oracle.pid",
      "dev.oracle.pidns",
      "dev.oracle.project",
      "dev.oracle.run",
      "dev.oracle.suite",
      "dev.oracle.task",
    ]);
    expect(labelFilter(LABEL.run, "r1")).toBe("dev.oracle.run=r1");
  });
});

describe("gradeLabels", () => {
  it("names the project, the run, the grader and its PID namespace, and the lease's deadline", () => {
    const labels = gradeLabels("run-1", "task-a", leaseDeadline(new Date(NOW), 40_000));
    expect(labels).toEqual({
      "dev.oracle.project": "oracle",
      "dev.oracle.component": "grade",
      "dev.oracle.run": "run-1",
      "dev.oracle.task": "task-a",
      "dev.oracle.pid": String(process.pid),
      "dev.oracle.host": hostname(),
      "dev.oracle.deadline": String(NOW + 40_000 + LEASE_GRACE_MS),
      "dev.oracle.pidns": pidNamespace(),
    });
    expect(pidNamespace()).toMatch(/^[0-9a-f-]{36}\.\d+$/);
    expect(suiteLabels(labels, "hidden")).toEqual({ ...labels, "dev.oracle.suite": "hidden" });
  });
});

describe("imageLabels and benchLabels", () => {
  it("carry the project and their component", () => {
    expect(imageLabels("node-demo", "fp")).toEqual({
      "dev.oracle.project": "oracle",
      "dev.oracle.component": "build",
      "dev.oracle.image": "node-demo",
      "dev.oracle.fingerprint": "fp",
    });
    expect(benchLabels("suites-alone")).toEqual({
      "dev.oracle.project": "oracle",
      "dev.oracle.component": "bench",
      "dev.oracle.bench": "suites-alone",
    });
  });
});
