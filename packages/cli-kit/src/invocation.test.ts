import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findRoot, invocationCwd } from "./invocation.js";

describe("findRoot", () => {
  it("finds the nearest folder upwards holding tasks/ or images/", () => {
    const base = mkdtempSync(join(tmpdir(), "cli-kit-root-"));
    mkdirSync(join(base, "tasks", "calc", "hidden-tests"), { recursive: true });
    mkdirSync(join(base, "a", "images", "x"), { recursive: true });
    expect(findRoot(join(base, "tasks", "calc", "hidden-tests"))).toBe(base);
    expect(findRoot(join(base, "a", "images", "x"))).toBe(join(base, "a"));
    expect(findRoot(join(base, "a"))).toBe(join(base, "a"));
  });

  it("is the start folder itself when no folder upwards is a root", () => {
    const lone = mkdtempSync(join(tmpdir(), "cli-kit-lone-"));
    expect(findRoot(join(lone, "."))).toBe(lone);
  });
});

describe("invocationCwd", () => {
  it("is INIT_CWD under the command's own pnpm script, else the working folder", () => {
    expect(invocationCwd({ npm_lifecycle_event: "grade", INIT_CWD: "/u" }, "/repo", "grade")).toBe("/u");
    expect(invocationCwd({ npm_lifecycle_event: "test", INIT_CWD: "/u" }, "/repo", "grade")).toBe("/repo");
    expect(invocationCwd({ INIT_CWD: "/u" }, "/repo", "grade")).toBe("/repo");
    expect(invocationCwd({ npm_lifecycle_event: "grade" }, "/repo", "grade")).toBe("/repo");
  });
});
