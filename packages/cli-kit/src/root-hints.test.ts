import { describe, expect, it } from "vitest";
import { shellWord, withRoot } from "./root-hints.js";

describe("withRoot", () => {
  it("puts the --root given after each oracle command a hint names, so the hint works when copied", () => {
    expect(withRoot("run pnpm quarantine-sweep --changed", "/srv/oracle")).toBe(
      "run pnpm quarantine-sweep --root /srv/oracle --changed",
    );
    expect(
      withRoot(
        "read pnpm oracle-log LOG, or run pnpm grade <task> --baseline; then pnpm build-images and pnpm new-task",
        "/r",
      ),
    ).toBe(
      "read pnpm oracle-log LOG, or run pnpm grade --root /r <task> --baseline; then pnpm build-images --root /r and pnpm new-task --root /r",
    );
  });

  it("quotes a root that is not one plain shell word", () => {
    expect(withRoot("run pnpm build-images", "/tmp/my root's")).toBe(
      "run pnpm build-images --root '/tmp/my root'\\''s'",
    );
    expect(shellWord("/a/b-c_d.e")).toBe("/a/b-c_d.e");
  });

  it("leaves a command that names --root already, another command, and a run without --root alone", () => {
    expect(withRoot("pnpm grade --root /x t", "/y")).toBe("pnpm grade --root /x t");
    expect(withRoot("pnpm grade-batch and pnpm gradebook", "/y")).toBe("pnpm grade-batch and pnpm gradebook");
    expect(withRoot("run pnpm quarantine-sweep --changed", undefined)).toBe(
      "run pnpm quarantine-sweep --changed",
    );
  });
});
