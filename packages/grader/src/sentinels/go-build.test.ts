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

  it("reads one //go:build in the header; anything vet or go/build might refuse is unknown", () => {
    expect(goCompiles("x_test.go", "//go:build windows\n\npackage x\n")).toBe(false);
    expect(goCompiles("x_test.go", "// Copyright\n\n//go:build !windows\n\npackage x\n")).toBe(true);
    expect(goCompiles("x_test.go", "/* a\n   block */\n\n//go:build !windows\n\npackage x\n")).toBe(true);
    // go/build trims the line: an indented one counts.
    expect(goCompiles("x_test.go", "  //go:build windows\n\npackage x\n")).toBe(false);
    expect(goCompiles("x_test.go", "\t//go:build !windows\r\n\r\npackage x\r\n")).toBe(true);
    expect(goCompiles("x_windows_test.go", "//go:build !windows\n\npackage x\n")).toBe(false);
    // Unknown (an attack review against Go 1.19's go list and go vet, 2026-12-06): a // +build line
    // (vet checks it against //go:build), none or two //go:build lines, an empty one, !!, one after
    // the package clause (vet: misplaced).
    for (const text of [
      "//go:build !windows\n// +build !windows\n\npackage x\n",
      "//go:build linux\n// +build windows\n\npackage x\n",
      "// +build linux\n\npackage x\n",
      "//go:build linux\n//go:build windows\n\npackage x\n",
      "//go:build\n\npackage x\n",
      "//go:build !!linux\n\npackage x\n",
      "//go:build linux ||\n\npackage x\n",
      "package x\n\n//go:build windows\n",
      "/*\n//go:build windows\n*/\n\npackage x\n",
    ])
      expect(goCompiles("x_test.go", text), text).toBe(null);
  });

  it("a name go/build never builds or cuts short: _x, .x, x_windows.gen", () => {
    expect(goCompiles("a/_x_test.go", "package x\n")).toBe(false);
    expect(goCompiles(".x_test.go", "package x\n")).toBe(false);
    expect(goCompiles("x_windows.gen_test.go", "package x\n")).toBe(false);
    expect(goCompiles("x_linux.gen_test.go", "package x\n")).toBe(true);
    // wasip1 is a GOOS since Go 1.21 only: compiled by 1.19, left out by newer ones.
    expect(goCompiles("x_wasip1_test.go", "package x\n")).toBe(null);
    expect(goCompiles("x_unix_test.go", "package x\n")).toBe(true);
    expect(goCompiles("x_android_test.go", "package x\n")).toBe(false);
  });
});
