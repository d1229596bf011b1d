import { describe, expect, it } from "vitest";
import { buildExpression, goCompiles } from "./go-build.js";

describe("goCompiles: whether Go compiles a file on the oracle's Linux", () => {
  it("reads //go:build in three values: true only where every Linux meets it", () => {
    const cases: Array<[string, boolean | null | undefined]> = [
      ["linux", true],
      ["unix", true],
      ["!windows", true],
      ["!windows && !plan9", true],
      ["linux || darwin", true],
      ["(linux || darwin) && !js", true],
      ["windows", false],
      ["!linux", false],
      ["darwin && amd64", false],
      ["amd64", null],
      ["linux && amd64", null],
      ["go1.18", null],
      ["cgo", null],
      ["integration", null],
      ["!integration", null],
      ["ignore", null],
      ["linux ||", undefined],
      ["(linux", undefined],
      ["linux)", undefined],
    ];
    for (const [expr, want] of cases) expect(buildExpression(expr), expr).toBe(want);
  });

  it("reads the file name's GOOS/GOARCH suffix as Go does (the part before the first _ is the name)", () => {
    expect(goCompiles("x_test.go", "package x\n")).toBe(true);
    expect(goCompiles("a/x_linux_test.go", "package x\n")).toBe(true);
    expect(goCompiles("x_windows_test.go", "package x\n")).toBe(false);
    expect(goCompiles("x_windows_amd64_test.go", "package x\n")).toBe(false);
    expect(goCompiles("x_linux_arm64_test.go", "package x\n")).toBe(null);
    expect(goCompiles("x_amd64_test.go", "package x\n")).toBe(null);
    // No underscore before the suffix: the whole name is the file's name, not a constraint.
    expect(goCompiles("windows_test.go", "package x\n")).toBe(true);
  });

  it("takes //go:build from the header only, over // +build; // +build alone is not read", () => {
    expect(goCompiles("x_test.go", "//go:build windows\n\npackage x\n")).toBe(false);
    expect(
      goCompiles("x_test.go", "// Copyright\n\n//go:build !windows\n// +build !windows\n\npackage x\n"),
    ).toBe(true);
    expect(goCompiles("x_test.go", "// +build linux\n\npackage x\n")).toBe(null);
    expect(goCompiles("x_test.go", "package x\n\n//go:build windows\n")).toBe(true);
    expect(goCompiles("x_windows_test.go", "//go:build !windows\n\npackage x\n")).toBe(false);
    expect(goCompiles("x_test.go", "//go:build linux ||\n\npackage x\n")).toBe(null);
  });
});
